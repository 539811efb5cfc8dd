//! The snapshots' stat cache on disk: a new process (a new `Snapshots` over the same shadow
//! repository) takes a file whose stat is unchanged as recorded, without reading it; a cache
//! of another folder, or a damaged one, is never trusted.

use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

use arbor_coding::snapshots::{SnapshotOptions, Snapshots};

/// Writes `text` at `path` with one fixed modification time well in the past (not "racily
/// clean"): a rewrite of the same length has the same stat.
fn write_old(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    let old = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(old)
        .unwrap();
}

fn open(shadow: &Path, workspace: &Path) -> Snapshots {
    Snapshots::open(shadow, workspace, SnapshotOptions::default()).unwrap()
}

#[test]
fn a_new_process_trusts_the_stat_of_files_the_last_snapshot_recorded() {
    let data = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let shadow = data.path().join("project.git");
    write_old(workspace.path(), "src/a.txt", "alpha");
    write_old(workspace.path(), "b.txt", "bravo");
    let first = open(&shadow, workspace.path()).take().unwrap();

    // Same size, same modification time, other bytes: only a read would see it. A new
    // process trusts the cache, as git trusts its index.
    write_old(workspace.path(), "src/a.txt", "ALPHA");
    let mut again = open(&shadow, workspace.path());
    assert_eq!(again.take().unwrap(), first, "the cache was not used");

    // A real change (another size) is seen, and the new state is what the next process finds.
    write_old(workspace.path(), "b.txt", "bravo, changed");
    let second = again.take().unwrap();
    assert_ne!(second, first);
    assert_eq!(open(&shadow, workspace.path()).take().unwrap(), second);
}

#[test]
fn a_damaged_cache_or_one_of_another_folder_is_not_trusted() {
    let data = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let other = tempfile::tempdir().unwrap();
    let shadow = data.path().join("project.git");
    write_old(workspace.path(), "a.txt", "alpha");
    write_old(other.path(), "a.txt", "ALPHA");
    let of_workspace = open(&shadow, workspace.path()).take().unwrap();

    // The same shadow repository over another folder with a same-stat file: read, not taken
    // from the workspace's cache.
    let of_other = open(&shadow, other.path()).take().unwrap();
    assert_ne!(of_other, of_workspace);

    // A cache cut short (a crash while writing) or garbage: everything is read again.
    let cache = shadow.join("arbor-stat-cache.bin");
    assert!(
        cache.is_file(),
        "the cache is kept in the shadow repository"
    );
    let text = std::fs::read(&cache).unwrap();
    std::fs::write(&cache, &text[..text.len() / 2]).unwrap();
    write_old(workspace.path(), "a.txt", "ALPHA");
    let read_again = open(&shadow, workspace.path()).take().unwrap();
    assert_eq!(read_again, of_other, "a damaged cache was trusted");
    std::fs::write(&cache, b"\0\xff not a cache").unwrap();
    write_old(workspace.path(), "a.txt", "alpha");
    assert_eq!(
        open(&shadow, workspace.path()).take().unwrap(),
        of_workspace
    );
}
