//! [`CodeTracker`]: the snapshots of one project as a session uses them — opened on first use
//! (a new process's first snapshot reads only what changed, thanks to the stat cache kept on
//! disk), remembering Arbor's last recorded state (to tell changes
//! made outside Arbor) and the undo point of the last restore.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use git2::Oid;

use super::{
    FileChange, FileDiff, RestoreOutcome, RestorePlan, ScanAhead, SnapshotError, SnapshotId,
    SnapshotOptions, Snapshots,
};

/// The shadow repository's reference to the last restore's undo point (a tree): kept there so
/// "undo restore" survives a restart and works from another front end.
const UNDO_REF: &str = "refs/arbor/undo-restore";

/// The snapshots of one project, shared by the recorder (which snapshots after tool calls and
/// at each user turn) and the restore commands. Every method takes the one lock: a restore
/// never runs beside a snapshot.
pub struct CodeTracker {
    shadow: PathBuf,
    workspace: PathBuf,
    options: SnapshotOptions,
    state: Mutex<TrackerState>,
}

#[derive(Default)]
struct TrackerState {
    snapshots: Option<Snapshots>,
    /// The last state Arbor recorded (a node's snapshot, or a restore's result).
    recorded: Option<SnapshotId>,
    /// The workspace was found too large to record: snapshots are off (reported once).
    too_large: bool,
    /// The stale temporary files of killed writes were removed (after the first snapshot).
    cleaned: bool,
    /// A walk of the workspace started before the first snapshot ([`CodeTracker::offer_scan`]).
    ahead: Option<std::thread::JoinHandle<ScanAhead>>,
}

impl std::fmt::Debug for CodeTracker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodeTracker")
            .field("shadow", &self.shadow)
            .field("workspace", &self.workspace)
            .finish_non_exhaustive()
    }
}

/// Longest patch handed out per file.
pub const PATCH_MAX_BYTES: usize = 256 * 1024;

impl CodeTracker {
    /// A tracker over the shadow repository at `shadow` for `workspace`; nothing is opened yet.
    pub fn new(shadow: &Path, workspace: &Path, options: SnapshotOptions) -> Arc<Self> {
        Arc::new(Self {
            shadow: shadow.to_owned(),
            workspace: workspace.to_owned(),
            options,
            state: Mutex::new(TrackerState::default()),
        })
    }

    fn lock(&self) -> MutexGuard<'_, TrackerState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn open<'a>(&self, state: &'a mut TrackerState) -> Result<&'a mut Snapshots, SnapshotError> {
        if state.snapshots.is_none() {
            state.snapshots = Some(Snapshots::open(
                &self.shadow,
                &self.workspace,
                self.options.clone(),
            )?);
        }
        state
            .snapshots
            .as_mut()
            .ok_or_else(|| SnapshotError::Store {
                path: self.shadow.clone(),
                detail: "not open".into(),
            })
    }

    /// Opens the shadow repository and reads its stat cache ahead of the first snapshot, when
    /// the repository exists (a new one is created by the first [`CodeTracker::take`], never
    /// here: this may run on a thread the process does not wait for). A failure is left for
    /// that take to meet and report.
    pub fn prepare(&self) {
        if !self.shadow.join("HEAD").is_file() {
            return;
        }
        let mut state = self.lock();
        let _reported_by_take = self.open(&mut state);
    }

    /// The next [`CodeTracker::take`] records the workspace as `walk` finds it (waiting for it),
    /// instead of walking it then: for a turn that began when `walk` did (`arbor -p`).
    pub fn offer_scan(&self, walk: std::thread::JoinHandle<ScanAhead>) {
        self.lock().ahead = Some(walk);
    }

    /// Records the workspace now; it becomes Arbor's last recorded state. `None` when the
    /// workspace was already found too large to record (that error is returned once, by the
    /// call that found it: a session reports it once, not at every tool call).
    pub fn take(&self) -> Result<Option<SnapshotId>, SnapshotError> {
        let mut state = self.lock();
        if state.too_large {
            return Ok(None);
        }
        let clean = !state.cleaned;
        let ahead = state.ahead.take();
        let snapshots = self.open(&mut state)?;
        // A walk that panicked is made again here.
        let taken = match ahead.and_then(|walk| walk.join().ok()) {
            Some(ahead) => snapshots.take_ahead(ahead),
            None => snapshots.take(),
        };
        if clean && taken.is_ok() {
            // A write killed mid-way (kill -9) left its temporary file: gone now.
            snapshots.remove_stale_temporaries();
        }
        match taken {
            Ok(id) => {
                state.cleaned = true;
                state.recorded = Some(id.clone());
                Ok(Some(id))
            }
            Err(error @ SnapshotError::TooLarge { .. }) => {
                state.too_large = true;
                Err(error)
            }
            Err(error) => Err(error),
        }
    }

    /// The files that differ from `from` (`None`: nothing) to `to`.
    pub fn changes(
        &self,
        from: Option<&SnapshotId>,
        to: &SnapshotId,
    ) -> Result<Vec<FileChange>, SnapshotError> {
        let mut state = self.lock();
        self.open(&mut state)?.changes(from, to)
    }

    /// The files that differ from `from` to `to`, each with its patch.
    pub fn file_diffs(
        &self,
        from: Option<&SnapshotId>,
        to: &SnapshotId,
    ) -> Result<Vec<FileDiff>, SnapshotError> {
        let mut state = self.lock();
        let snapshots = self.open(&mut state)?;
        let patches = snapshots.file_patches(from, to)?;
        Ok(snapshots
            .changes(from, to)?
            .into_iter()
            .map(|change| {
                let mut patch = patches.get(&change.path).cloned().unwrap_or_default();
                let truncated = patch.len() > PATCH_MAX_BYTES;
                if truncated {
                    let mut cut = PATCH_MAX_BYTES;
                    while !patch.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    patch.truncate(cut);
                }
                FileDiff {
                    change,
                    patch,
                    truncated,
                }
            })
            .collect())
    }

    /// What restoring `target` would change. `stored` is the last state the session stored,
    /// used when this tracker has recorded nothing yet (a new process): files that differ from
    /// Arbor's last recorded state are marked as changed outside Arbor.
    pub fn preview(
        &self,
        target: &SnapshotId,
        stored: Option<&SnapshotId>,
    ) -> Result<RestorePlan, SnapshotError> {
        let mut state = self.lock();
        let recorded = state.recorded.clone().or_else(|| stored.cloned());
        self.open(&mut state)?
            .preview_restore(target, recorded.as_ref())
    }

    /// Restores `target` (see [`Snapshots::restore`]); the present is kept as the undo point.
    pub fn restore(
        &self,
        target: &SnapshotId,
        stored: Option<&SnapshotId>,
        overwrite_outside: bool,
    ) -> Result<RestoreOutcome, SnapshotError> {
        let mut state = self.lock();
        let recorded = state.recorded.clone().or_else(|| stored.cloned());
        let snapshots = self.open(&mut state)?;
        let outcome = snapshots.restore(target, recorded.as_ref(), overwrite_outside)?;
        snapshots.set_reference(UNDO_REF, &outcome.undo)?;
        state.recorded = Some(outcome.restored.clone());
        Ok(outcome)
    }

    /// Writes `target`'s files into this tracker's folder (a new worktree), leaving the
    /// project's own undo point and recorded state alone.
    pub fn write_into_workspace(&self, target: &SnapshotId) -> Result<(), SnapshotError> {
        let mut state = self.lock();
        self.open(&mut state)?.restore(target, None, true)?;
        Ok(())
    }

    /// Keeps `id` reachable under `refs/arbor/keep/<name>` (an archived worktree's files), so
    /// no clean-up of the shadow repository can ever drop it.
    pub fn keep(&self, name: &str, id: &SnapshotId) -> Result<(), SnapshotError> {
        let mut state = self.lock();
        self.open(&mut state)?
            .set_reference(&format!("refs/arbor/keep/{name}"), id)
    }

    /// The undo point of the last restore, if there was one.
    pub fn undo_point(&self) -> Result<Option<SnapshotId>, SnapshotError> {
        let mut state = self.lock();
        self.open(&mut state)?.reference(UNDO_REF)
    }

    /// Brings back the state before the last restore. That is itself a restore: undoing twice
    /// redoes. Files changed since the restore are reported unless `overwrite_outside`.
    pub fn undo_restore(&self, overwrite_outside: bool) -> Result<RestoreOutcome, SnapshotError> {
        let undo = self.undo_point()?.ok_or(SnapshotError::NothingToUndo)?;
        self.restore(&undo, None, overwrite_outside)
    }
}

impl Snapshots {
    /// Points `name` at a snapshot in the shadow repository.
    pub(super) fn set_reference(&self, name: &str, id: &SnapshotId) -> Result<(), SnapshotError> {
        self.repo.reference(name, super::oid(id)?, true, "arbor")?;
        Ok(())
    }

    /// The snapshot `name` points at.
    pub(super) fn reference(&self, name: &str) -> Result<Option<SnapshotId>, SnapshotError> {
        match self.repo.find_reference(name) {
            Ok(reference) => Ok(reference
                .target()
                .filter(|oid| *oid != Oid::zero())
                .map(|oid| SnapshotId(oid.to_string()))),
            Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(None),
            Err(e) => Err(e.into()),
        }
    }
}
