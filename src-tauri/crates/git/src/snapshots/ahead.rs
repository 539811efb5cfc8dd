//! [`ScanAhead`]: the walk of a workspace made before the snapshot that records it. `arbor -p`
//! knows its first user turn when the process starts: the walk (a `stat` of every file) then
//! runs beside everything the process does before its first request, and the turn's snapshot
//! only compares and records. It stands for the workspace as it was when the walk began, which
//! for a prompt given on the command line is when the turn began.

use std::path::{Path, PathBuf};

use super::exclude::Exclusions;
use super::{scan, SnapshotError, SnapshotId, SnapshotOptions, Snapshots};

/// A walk of a workspace, to be recorded by the next [`Snapshots::take_ahead`].
#[derive(Debug)]
pub struct ScanAhead {
    workspace: PathBuf,
    options: SnapshotOptions,
    /// What the walk left out of the workspace (`options.protected_paths` inside it).
    exclusions: Exclusions,
    found: Result<scan::Scan, SnapshotError>,
}

impl ScanAhead {
    /// Walks `workspace` now, leaving out what a snapshot with `options` leaves out (Arbor's
    /// own folders among `options.protected_paths`: when the shadow repository lies in the
    /// workspace, it must lie in one of them for the walk to be used).
    pub fn walk(workspace: &Path, options: SnapshotOptions) -> Self {
        let canonical = workspace.canonicalize();
        let (exclusions, found) = match &canonical {
            Ok(workspace) => {
                let exclusions = Exclusions::new(workspace, &options.protected_paths);
                let found = scan::scan(workspace, &options, &exclusions);
                (exclusions, found)
            }
            Err(error) => (
                Exclusions::default(),
                Err(SnapshotError::Workspace {
                    path: workspace.to_owned(),
                    reason: error.to_string(),
                }),
            ),
        };
        Self {
            workspace: canonical.unwrap_or_else(|_| workspace.to_owned()),
            options,
            exclusions,
            found,
        }
    }

    /// Whether this walk is the one `snapshots` would make now: same folder, same ignore rules
    /// and limits, and the same paths of the workspace left out. The protected paths are
    /// compared by what they leave out of the workspace, not as listed: the list names every
    /// entry of the data folder, where a file comes and goes while the walk runs (the database
    /// opening's write probe), and a data folder outside the workspace changes no walk.
    fn fits(&self, snapshots: &Snapshots) -> bool {
        // Every other option compared as it is: one added later counts without a change here.
        let apart_from_protected = |options: &SnapshotOptions| SnapshotOptions {
            protected_paths: Vec::new(),
            ..options.clone()
        };
        self.workspace == snapshots.workspace
            && apart_from_protected(&self.options) == apart_from_protected(&snapshots.options)
            && self.exclusions.covers(&snapshots.exclusions)
            && snapshots.exclusions.covers(&self.exclusions)
    }
}

impl Snapshots {
    /// Records the workspace as `ahead` found it, as [`Snapshots::take`] records it as it is
    /// now; a walk that does not fit these snapshots (another folder or options) is set aside
    /// and the workspace walked again.
    pub fn take_ahead(&mut self, ahead: ScanAhead) -> Result<SnapshotId, SnapshotError> {
        if !ahead.fits(self) {
            return self.take();
        }
        self.record(ahead.found)
    }
}
