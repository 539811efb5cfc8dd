//! The folder the agent works in, and what it has seen of the files there.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The working directory the tools resolve relative paths against, and the [`FileTracker`] they
/// share. Cloning is cheap and shares the tracker.
#[derive(Debug, Clone)]
pub struct Workspace {
    cwd: PathBuf,
    tracker: Arc<FileTracker>,
}

impl Workspace {
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            tracker: Arc::new(FileTracker::default()),
        }
    }

    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    pub fn tracker(&self) -> &Arc<FileTracker> {
        &self.tracker
    }
}

/// Remembers, per absolute path, the content the agent last saw (read, wrote or edited), so `edit`
/// can say when someone else changed the file in between.
#[derive(Debug, Default)]
pub struct FileTracker {
    /// Path → hash of the content last seen. A hash rather than the mtime: a touch or a checkout
    /// that leaves the bytes alone is no change worth warning about.
    seen: Mutex<HashMap<PathBuf, u64>>,
}

impl FileTracker {
    /// Records that the agent now knows `content` as the file's content.
    pub fn record(&self, path: &Path, content: &[u8]) {
        if let Ok(mut seen) = self.seen.lock() {
            seen.insert(path.to_path_buf(), hash_bytes(content));
        }
    }

    /// Whether the file's current `content` differs from what the agent last saw. `None` when the
    /// agent has not seen this file in this session.
    pub fn changed_since_seen(&self, path: &Path, content: &[u8]) -> Option<bool> {
        let seen = self.seen.lock().ok()?;
        let last_hash = seen.get(path)?;
        Some(*last_hash != hash_bytes(content))
    }
}

fn hash_bytes(content: &[u8]) -> u64 {
    let mut hasher = DefaultHasher::new();
    content.hash(&mut hasher);
    hasher.finish()
}
