mod documents;
