//! Full-text search: results, filters, and user text that looks like FTS5 syntax.

use crate::common;

use arbor_store::{fts_query, NodeKind, SearchOptions};
use common::{assistant, msg, project, temp_store, user};

#[test]
fn finds_words_across_projects_with_snippets() {
    let (dir, store) = temp_store();
    let p1 = project(&store, &dir, "alpha");
    let p2 = project(&store, &dir, "beta");
    let s1 = store.create_session(&p1.id, None, None).unwrap();
    let s2 = store.create_session(&p2.id, None, None).unwrap();
    let n1 = user(&store, &s1.id, "Please refactor the tokenizer module");
    assistant(&store, &s1.id, "Done: the Tokenizer now streams.");
    user(&store, &s2.id, "why does the tokenizer crash on emoji?");
    user(&store, &s2.id, "unrelated");

    let hits = store
        .search("tokenizer", &SearchOptions::default())
        .unwrap();
    assert_eq!(hits.len(), 3);
    assert!(hits
        .iter()
        .all(|h| h.snippet.to_lowercase().contains("[tokenizer]")));
    let h1 = hits.iter().find(|h| h.node_id == n1.id).unwrap();
    assert_eq!(h1.session_id, s1.id);
    assert_eq!(h1.project_id, p1.id);
    assert_eq!(h1.project_root, p1.root);
    assert_eq!(h1.session_title, "Please refactor the tokenizer module");
    assert_eq!(h1.kind, NodeKind::User);

    // All words must match (in any order); case and accents do not matter.
    assert_eq!(
        store
            .search("module REFACTOR", &SearchOptions::default())
            .unwrap()
            .len(),
        1
    );
    user(&store, &s2.id, "Café crème");
    assert_eq!(
        store
            .search("cafe", &SearchOptions::default())
            .unwrap()
            .len(),
        1
    );
    // Trailing * is a prefix search.
    assert_eq!(
        store
            .search("tokeni*", &SearchOptions::default())
            .unwrap()
            .len(),
        3
    );
    assert_eq!(
        store
            .search("tokeni", &SearchOptions::default())
            .unwrap()
            .len(),
        0
    );

    // Filters.
    let only_p2 = SearchOptions {
        project_id: Some(p2.id.clone()),
        ..SearchOptions::default()
    };
    assert_eq!(store.search("tokenizer", &only_p2).unwrap().len(), 1);
    let only_s1 = SearchOptions {
        session_id: Some(s1.id.clone()),
        ..SearchOptions::default()
    };
    assert_eq!(store.search("tokenizer", &only_s1).unwrap().len(), 2);
    let one = SearchOptions {
        limit: Some(1),
        ..SearchOptions::default()
    };
    assert_eq!(store.search("tokenizer", &one).unwrap().len(), 1);
}

#[test]
fn fts_syntax_in_user_queries_is_plain_text() {
    let (dir, store) = temp_store();
    let p = project(&store, &dir, "p");
    let s = store.create_session(&p.id, None, None).unwrap();
    user(
        &store,
        &s.id,
        r#"the "quoted" word and a-b pair OR NEAR stuff col:val (paren) x*y"#,
    );
    assistant(&store, &s.id, "something else entirely");
    let nasty = [
        "\"",
        "\"\"",
        "\"quoted",
        "quoted\"",
        "*",
        "**",
        "-",
        "-quoted",
        "a-b",
        "OR",
        "quoted OR",
        "OR quoted",
        "AND",
        "NOT quoted",
        "NEAR(quoted word)",
        "col:val",
        "text:quoted",
        "(paren",
        "paren)",
        "^quoted",
        "{text}: quoted",
        "x*y",
        "'",
        "quoted'",
        "\\",
        "%",
        "_",
        "+",
        "\0",
        "quoted \u{feff}",
        "   ",
        "",
    ];
    for q in nasty {
        let r = store.search(q, &SearchOptions::default());
        assert!(r.is_ok(), "query {q:?} failed: {:?}", r.err());
    }
    let hits = |q: &str| store.search(q, &SearchOptions::default()).unwrap().len();
    assert_eq!(hits("\"quoted\""), 1);
    assert_eq!(hits("OR"), 1); // the literal word "OR" is in the text
    assert_eq!(hits("quoted OR missingword"), 0); // OR is a word, not an operator
    assert_eq!(hits("a-b"), 1);
    assert_eq!(hits("col:val"), 1);
    assert_eq!(hits("NOT quoted"), 0); // "not" is not in the text
    assert_eq!(hits("-"), 0);
    assert_eq!(hits(""), 0);
    assert_eq!(hits("-quoted"), 1);
}

#[test]
fn query_builder_quotes_every_word() {
    assert_eq!(fts_query("a b").as_deref(), Some(r#""a" "b""#));
    assert_eq!(
        fts_query(r#"say "hi""#).as_deref(),
        Some(r#""say" """hi""""#)
    );
    assert_eq!(fts_query("pre* OR").as_deref(), Some(r#""pre"* "OR""#));
    assert_eq!(fts_query(" - * \" "), None);
}

#[test]
fn empty_text_nodes_are_fine() {
    let (dir, store) = temp_store();
    let p = project(&store, &dir, "p");
    let s = store.create_session(&p.id, None, None).unwrap();
    store
        .append(&s.id, msg(NodeKind::ThinkingLevelChange, ""))
        .unwrap();
    user(&store, &s.id, "findme");
    assert_eq!(
        store
            .search("findme", &SearchOptions::default())
            .unwrap()
            .len(),
        1
    );
    store.delete_session(&s.id).unwrap();
    assert!(store.check_integrity().unwrap().is_empty());
}
