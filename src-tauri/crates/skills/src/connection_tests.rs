//! A session's toolbox opens its own connection to the store only when it first needs it.

use std::path::PathBuf;
use std::sync::Arc;

use arbor_store::Store;

use crate::Toolbox;

/// A toolbox of a project without tool folders, connecting later, beside the store it came
/// from (and the data folder's path).
fn connecting_later() -> (tempfile::TempDir, PathBuf, Store, Arc<Toolbox>) {
    let dir = tempfile::tempdir().unwrap();
    let (data, workspace) = (dir.path().join("data"), dir.path().join("project"));
    std::fs::create_dir_all(&workspace).unwrap();
    let store = Store::open(&data).unwrap();
    let project = store.open_project(&workspace, None).unwrap();
    let toolbox = Toolbox::connecting_later(store.another_later(), &workspace, &data, &project.id);
    (dir, data, store, toolbox)
}

#[test]
fn offering_the_tools_of_a_project_without_tool_folders_opens_no_connection() {
    let (_dir, _data, _store, toolbox) = connecting_later();
    toolbox.set_builtins(vec![("read".to_owned(), "Reads a file.".to_owned())]);
    assert!(toolbox.offered().is_empty());
    assert!(!toolbox.is_connected());
    // The full list names the proposals too, which are in the store: that opens it.
    let list = toolbox.list().unwrap();
    assert_eq!(list.tools.len(), 1);
    assert!(toolbox.is_connected());
}

#[test]
fn a_connection_that_cannot_open_is_an_error_of_the_call_that_needs_it() {
    let (_dir, data, store, toolbox) = connecting_later();
    drop(store);
    for entry in std::fs::read_dir(&data).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::remove_file(path).unwrap();
        }
    }
    let error = toolbox.list().unwrap_err();
    assert!(
        error.to_string().contains("cannot open the database"),
        "{error}"
    );
    assert!(!toolbox.is_connected());
}
