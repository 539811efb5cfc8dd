//! A walk of the workspace made ahead of the snapshot that records it (`arbor -p` starts it as
//! the process starts): the snapshot records the folder as the walk found it, and a walk that
//! does not fit the snapshots (other ignores, Arbor's own folders in the workspace not left out)
//! is set aside for a walk made then.

use std::path::Path;

use arbor_coding::snapshots::{ChangeStatus, CodeTracker, ScanAhead, SnapshotOptions, Snapshots};

struct Folders {
    data: tempfile::TempDir,
    workspace: tempfile::TempDir,
}

impl Folders {
    fn new() -> Self {
        let folders = Self {
            data: tempfile::tempdir().unwrap(),
            workspace: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(folders.snapshots_dir()).unwrap();
        std::fs::write(folders.workspace.path().join("a.txt"), "one\n").unwrap();
        folders
    }

    fn snapshots_dir(&self) -> std::path::PathBuf {
        self.data.path().join("snapshots")
    }

    /// The options a project's snapshots have: Arbor's snapshots folder left out.
    fn options(&self) -> SnapshotOptions {
        SnapshotOptions {
            protected_paths: vec![self.snapshots_dir()],
            ..SnapshotOptions::default()
        }
    }

    fn shadow(&self) -> std::path::PathBuf {
        self.snapshots_dir().join("project.git")
    }

    fn write_after_the_walk(&self) {
        std::fs::write(self.workspace.path().join("b.txt"), "two\n").unwrap();
    }
}

fn paths_added(changes: &[arbor_coding::snapshots::FileChange]) -> Vec<&str> {
    changes
        .iter()
        .filter(|change| change.status == ChangeStatus::Added)
        .map(|change| change.path.as_str())
        .collect()
}

fn open(folders: &Folders, workspace: &Path) -> Snapshots {
    Snapshots::open(&folders.shadow(), workspace, folders.options()).unwrap()
}

#[test]
fn the_snapshot_records_the_folder_as_the_walk_found_it() {
    let folders = Folders::new();
    let ahead = ScanAhead::walk(folders.workspace.path(), folders.options());
    folders.write_after_the_walk();
    let mut snapshots = open(&folders, folders.workspace.path());

    let at_the_walk = snapshots.take_ahead(ahead).unwrap();
    let now = snapshots.take().unwrap();
    let changes = snapshots.changes(Some(&at_the_walk), &now).unwrap();
    assert_eq!(paths_added(&changes), ["b.txt"], "{changes:?}");
}

#[test]
fn a_walk_with_other_ignores_is_set_aside() {
    let folders = Folders::new();
    // `b.txt` ignored by the walk, not by the snapshots: not the walk they would make.
    let ahead = ScanAhead::walk(
        folders.workspace.path(),
        SnapshotOptions {
            extra_ignores: vec!["b.txt".into()],
            ..folders.options()
        },
    );
    folders.write_after_the_walk();
    let mut snapshots = open(&folders, folders.workspace.path());

    let taken = snapshots.take_ahead(ahead).unwrap();
    assert_eq!(
        snapshots.take().unwrap(),
        taken,
        "walked again, b.txt included"
    );
}

#[test]
fn a_walk_that_did_not_leave_out_the_data_folder_in_the_workspace_is_set_aside() {
    let folders = Folders::new();
    // The data folder inside the workspace (`arbor` run in `$HOME`), not left out by the walk.
    let data = folders.workspace.path().join(".arbor");
    std::fs::create_dir_all(data.join("snapshots")).unwrap();
    std::fs::write(data.join("arbor.db"), "db").unwrap();
    let ahead = ScanAhead::walk(folders.workspace.path(), SnapshotOptions::default());
    let options = SnapshotOptions {
        protected_paths: vec![data.clone()],
        ..SnapshotOptions::default()
    };
    let mut snapshots = Snapshots::open(
        &data.join("snapshots/project.git"),
        folders.workspace.path(),
        options,
    )
    .unwrap();

    let taken = snapshots.take_ahead(ahead).unwrap();
    let changes = snapshots.changes(None, &taken).unwrap();
    assert_eq!(paths_added(&changes), ["a.txt"], "{changes:?}");
}

/// The walk lists the data folder's entries as it starts, the snapshots later: a file that
/// came or went in between (the database opening's write probe) is not a reason to walk the
/// workspace again when the data folder lies outside it.
#[test]
fn a_walk_whose_protected_paths_differ_only_outside_the_workspace_is_used() {
    let folders = Folders::new();
    let mut walk_options = folders.options();
    walk_options
        .protected_paths
        .push(folders.data.path().join(".arbor-write-probe-1"));
    let ahead = ScanAhead::walk(folders.workspace.path(), walk_options);
    folders.write_after_the_walk();
    let mut snapshots = open(&folders, folders.workspace.path());

    let at_the_walk = snapshots.take_ahead(ahead).unwrap();
    let now = snapshots.take().unwrap();
    let changes = snapshots.changes(Some(&at_the_walk), &now).unwrap();
    assert_eq!(
        paths_added(&changes),
        ["b.txt"],
        "the walk was used: {changes:?}"
    );
}

#[test]
fn a_walk_of_another_folder_is_set_aside() {
    let folders = Folders::new();
    let other = tempfile::tempdir().unwrap();
    let ahead = ScanAhead::walk(other.path(), folders.options());
    let mut snapshots = open(&folders, folders.workspace.path());

    let taken = snapshots.take_ahead(ahead).unwrap();
    let changes = snapshots.changes(None, &taken).unwrap();
    assert_eq!(paths_added(&changes), ["a.txt"], "{changes:?}");
}

#[test]
fn the_trackers_next_snapshot_waits_for_the_walk_offered_and_records_it() {
    let folders = Folders::new();
    let tracker = CodeTracker::new(
        &folders.shadow(),
        folders.workspace.path(),
        folders.options(),
    );
    let (workspace, options) = (folders.workspace.path().to_owned(), folders.options());
    let (walked, wait) = std::sync::mpsc::channel();
    tracker.offer_scan(std::thread::spawn(move || {
        let ahead = ScanAhead::walk(&workspace, options);
        walked.send(()).unwrap();
        ahead
    }));
    wait.recv().unwrap();
    folders.write_after_the_walk();

    let first = tracker.take().unwrap().unwrap();
    // Offered once: the next snapshot walks the folder as it is.
    let second = tracker.take().unwrap().unwrap();
    let changes = tracker.changes(Some(&first), &second).unwrap();
    assert_eq!(paths_added(&changes), ["b.txt"], "{changes:?}");
}
