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

/// Rows of FTS5's document sizes (one per indexed node) and of the nodes waiting to be indexed.
fn indexed_and_pending(store: &arbor_store::Store) -> (i64, i64) {
    let c = rusqlite::Connection::open(store.path()).unwrap();
    let count = |table: &str| {
        c.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap()
    };
    (count("nodes_fts_docsize"), count("nodes_fts_pending"))
}

/// Storing a node does no FTS5 work (that cost every stored message about a millisecond): the
/// node waits until a search indexes it, and is then found like any other.
#[test]
fn stored_nodes_are_indexed_by_the_next_search() {
    let (dir, store) = temp_store();
    let (_, s) = common::session(&store, &dir);
    user(&store, &s.id, "the walrus sings");
    assistant(&store, &s.id, "a walrus answers");
    assert_eq!(indexed_and_pending(&store), (0, 2));

    assert_eq!(
        store
            .search("walrus", &SearchOptions::default())
            .unwrap()
            .len(),
        2
    );
    assert_eq!(indexed_and_pending(&store), (2, 0));
    // More than a batch (500 nodes a transaction) is indexed whole.
    for i in 0..1_100 {
        user(&store, &s.id, &format!("walrus number {i}"));
    }
    assert_eq!(store.index_pending().unwrap(), 1_100);
    assert_eq!(indexed_and_pending(&store), (1_102, 0));
    let all = SearchOptions {
        limit: Some(2_000),
        ..SearchOptions::default()
    };
    assert_eq!(store.search("walrus", &all).unwrap().len(), 1_102);
    // Nothing pending: a search writes nothing.
    assert_eq!(store.index_pending().unwrap(), 0);
    user(&store, &s.id, "one more walrus");
    assert_eq!(store.search("walrus", &all).unwrap().len(), 1_103);
    assert_eq!(indexed_and_pending(&store), (1_103, 0));
    assert!(store.check_integrity().unwrap().is_empty());
}

/// A node deleted or edited before it was indexed must not ask FTS5 to delete an entry it never
/// had (that damages the index); one deleted or edited after is taken out of the index.
#[test]
fn nodes_deleted_or_edited_before_or_after_indexing_keep_the_index_sound() {
    let (dir, store) = temp_store();
    let (p, doomed) = common::session(&store, &dir);
    let kept = store.create_session(&p.id, None, None).unwrap();
    user(&store, &doomed.id, "indexed zebra");
    let indexed = user(&store, &kept.id, "indexed okapi");
    assert_eq!(
        store
            .search("zebra", &SearchOptions::default())
            .unwrap()
            .len(),
        1
    );
    user(&store, &doomed.id, "pending zebra");
    let pending = user(&store, &kept.id, "pending okapi");
    assert_eq!(indexed_and_pending(&store), (2, 2));

    // Edits (no front end edits a node's text today; the triggers keep the index right if one
    // does), of an indexed node and of a pending one.
    let c = rusqlite::Connection::open(store.path()).unwrap();
    for (node, text) in [(&indexed, "edited giraffe"), (&pending, "edited gazelle")] {
        c.execute("UPDATE nodes SET text = ?2 WHERE id = ?1", [&node.id, text])
            .unwrap();
    }
    drop(c);
    store.delete_session(&doomed.id).unwrap();
    assert_eq!(indexed_and_pending(&store), (0, 2));

    let found = |query: &str| {
        store
            .search(query, &SearchOptions::default())
            .unwrap()
            .len()
    };
    assert_eq!(found("zebra"), 0);
    assert_eq!(found("okapi"), 0);
    assert_eq!(found("giraffe"), 1);
    assert_eq!(found("gazelle"), 1);
    assert_eq!(store.check_integrity().unwrap(), Vec::<String>::new());
}

/// A reader's connection cannot index: [`Store::index_pending_in`] does it on a connection for
/// writing, and the reader then finds what was stored since the last search.
#[test]
fn a_reader_finds_nodes_once_they_are_indexed_for_it() {
    let (dir, store) = temp_store();
    let (_, s) = common::session(&store, &dir);
    user(&store, &s.id, "the quokka smiles");
    let reader = arbor_store::Store::open_read_only(dir.path()).unwrap();
    assert!(reader.is_read_only());
    assert!(!store.is_read_only());
    let quokkas = || {
        reader
            .search("quokka", &SearchOptions::default())
            .unwrap()
            .len()
    };
    assert_eq!(
        quokkas(),
        0,
        "a read-only connection searches what is indexed"
    );
    assert_eq!(arbor_store::Store::index_pending_in(dir.path()).unwrap(), 1);
    assert_eq!(quokkas(), 1);
}
