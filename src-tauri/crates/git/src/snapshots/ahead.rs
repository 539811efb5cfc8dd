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
    found: Result<scan::Scan, SnapshotError>,
}

impl ScanAhead {
    /// Walks `workspace` now, leaving out what a snapshot with `options` leaves out (Arbor's
    /// own folders among `options.protected_paths`: the shadow repository must lie in one of
    /// them for the walk to be used).
    pub fn walk(workspace: &Path, options: SnapshotOptions) -> Self {
        let canonical = workspace.canonicalize();
        let found = match &canonical {
            Ok(workspace) => {
                let exclusions = Exclusions::new(workspace, &options.protected_paths);
                scan::scan(workspace, &options, &exclusions)
            }
            Err(error) => Err(SnapshotError::Workspace {
                path: workspace.to_owned(),
                reason: error.to_string(),
            }),
        };
        Self {
            workspace: canonical.unwrap_or_else(|_| workspace.to_owned()),
            options,
            found,
        }
    }

    /// Whether this walk is the one `snapshots` would make now: same folder, same options, and
    /// nothing the snapshots leave out that the walk did not (their shadow repository lies in
    /// one of the walk's protected folders).
    fn fits(&self, snapshots: &Snapshots) -> bool {
        let shadow = snapshots.repo.path();
        let shadow = shadow.canonicalize().unwrap_or_else(|_| shadow.to_owned());
        self.workspace == snapshots.workspace
            && self.options == snapshots.options
            && self.options.protected_paths.iter().any(|protected| {
                protected
                    .canonicalize()
                    .is_ok_and(|protected| shadow.starts_with(protected))
            })
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
