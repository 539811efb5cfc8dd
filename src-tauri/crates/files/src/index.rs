//! The `@` finder's index: the project's non-ignored files, walked once and kept warm.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use arbor_protocol::views::files::FileMatch;
use ignore::{WalkBuilder, WalkState};
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};

use crate::paths::relative;
use crate::Excluded;

/// An index older than this is walked again (in the background) when next queried.
pub const STALE_AFTER: Duration = Duration::from_secs(10);
/// Files indexed at most: a finder over more than this is no help, and memory stays bounded.
pub const MAX_INDEXED_FILES: usize = 1_000_000;

/// The project's files for the `@` finder. Cheap to share: clone the `Arc`.
pub struct FileIndex {
    root: PathBuf,
    excluded: Excluded,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Sorted relative paths; `None` until the first walk ends.
    paths: Option<Arc<Vec<String>>>,
    walked_at: Option<Instant>,
    walking: bool,
}

impl FileIndex {
    pub fn new(root: impl Into<PathBuf>, excluded: Excluded) -> Arc<Self> {
        Arc::new(Self {
            root: root.into(),
            excluded,
            state: Mutex::new(State::default()),
        })
    }

    /// Starts a walk in the background unless one is running or the index is fresh: call it
    /// when a front end may soon ask (a window opens its project), so the first `@` is fast.
    pub fn warm(self: &Arc<Self>) {
        let mut state = self.lock();
        let fresh = state
            .walked_at
            .is_some_and(|walked| walked.elapsed() < STALE_AFTER);
        if state.walking || fresh {
            return;
        }
        state.walking = true;
        drop(state);
        let index = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name("arbor-file-index".to_owned())
            .spawn(move || index.walk_and_store());
        if spawned.is_err() {
            self.lock().walking = false;
        }
    }

    /// The files matching `query`, best first, at most `limit`. Walks first (blocking) when
    /// the index was never built; otherwise answers from it, walking again in the background
    /// when it is stale. An empty query lists the shortest paths first.
    pub fn find(self: &Arc<Self>, query: &str, limit: usize) -> Vec<FileMatch> {
        let paths = match self.paths() {
            Some(paths) => {
                self.warm();
                paths
            }
            None => {
                self.lock().walking = true;
                self.walk_and_store()
            }
        };
        find_in(&paths, query, limit)
    }

    /// How many files the index holds (0 before the first walk).
    pub fn len(&self) -> usize {
        self.lock().paths.as_ref().map_or(0, |paths| paths.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn paths(&self) -> Option<Arc<Vec<String>>> {
        self.lock().paths.clone()
    }

    fn walk_and_store(&self) -> Arc<Vec<String>> {
        let paths = Arc::new(walk(&self.root, &self.excluded));
        let mut state = self.lock();
        state.paths = Some(Arc::clone(&paths));
        state.walked_at = Some(Instant::now());
        state.walking = false;
        paths
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Every non-ignored file under `root` (hidden ones included, `.git` and excluded folders
/// not), relative, sorted. Two walker threads: the machine's other work goes on.
fn walk(root: &Path, excluded: &Excluded) -> Vec<String> {
    let found = Mutex::new(Vec::new());
    let excluded_for_filter = excluded.clone();
    WalkBuilder::new(root)
        .hidden(false)
        .require_git(false)
        .threads(2)
        .filter_entry(move |entry| !excluded_for_filter.contains(entry.path()))
        .build_parallel()
        .run(|| {
            let found = &found;
            Box::new(move |entry| {
                let Ok(entry) = entry else {
                    return WalkState::Continue;
                };
                if !entry.file_type().is_some_and(|kind| kind.is_file()) {
                    return WalkState::Continue;
                }
                let Some(path) = relative(root, entry.path()) else {
                    return WalkState::Continue;
                };
                let mut found = found
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                if found.len() >= MAX_INDEXED_FILES {
                    return WalkState::Quit;
                }
                found.push(path);
                WalkState::Continue
            })
        });
    let mut paths = found
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    paths.sort_unstable();
    paths
}

/// The matching of [`FileIndex::find`], on a list of paths.
pub(crate) fn find_in(paths: &[String], query: &str, limit: usize) -> Vec<FileMatch> {
    let query = query.trim();
    if query.is_empty() {
        let mut shortest: Vec<&String> = paths.iter().collect();
        shortest.sort_by_key(|path| (path.matches('/').count(), path.len()));
        return shortest
            .into_iter()
            .take(limit)
            .map(|path| FileMatch {
                path: path.clone(),
                indices: Vec::new(),
            })
            .collect();
    }
    let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
    let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
    let mut buffer = Vec::new();
    let mut scored: Vec<(u32, &String)> = paths
        .iter()
        .filter_map(|path| {
            let score = pattern.score(Utf32Str::new(path, &mut buffer), &mut matcher)?;
            Some((score, path))
        })
        .collect();
    // Best score first; among equals the shorter path (a file nearer the root), then by name.
    let order = |a: &(u32, &String), b: &(u32, &String)| {
        b.0.cmp(&a.0)
            .then(a.1.len().cmp(&b.1.len()))
            .then(a.1.cmp(b.1))
    };
    if scored.len() > limit {
        scored.select_nth_unstable_by(limit, order);
        scored.truncate(limit);
    }
    scored.sort_unstable_by(order);
    scored
        .into_iter()
        .map(|(_, path)| {
            let mut indices = Vec::new();
            pattern.indices(Utf32Str::new(path, &mut buffer), &mut matcher, &mut indices);
            indices.sort_unstable();
            indices.dedup();
            FileMatch {
                path: path.clone(),
                indices,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(files: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for file in files {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x").unwrap();
        }
        dir
    }

    #[test]
    fn the_index_leaves_out_ignored_files_git_and_excluded_folders() {
        let dir = project(&[
            ".gitignore",
            "src/main.rs",
            "src/lib.rs",
            "target/debug/main",
            ".git/config",
            ".env.example",
            "data/arbor.db",
        ]);
        std::fs::write(dir.path().join(".gitignore"), "target/\n").unwrap();
        let index = FileIndex::new(dir.path(), Excluded(vec![dir.path().join("data")]));
        let all: Vec<String> = index.find("", 100).into_iter().map(|m| m.path).collect();
        // Shallowest first, then shortest.
        assert_eq!(
            all,
            [".gitignore", ".env.example", "src/lib.rs", "src/main.rs"]
        );
    }

    #[test]
    fn a_fuzzy_query_ranks_the_closest_path_first_with_its_letters() {
        let paths: Vec<String> = [
            "src/main.rs",
            "docs/maintenance.md",
            "src-tauri/crates/app/src/main_window.rs",
            "README.md",
        ]
        .iter()
        .map(|p| p.to_string())
        .collect();
        let found = find_in(&paths, "mainrs", 10);
        assert_eq!(found[0].path, "src/main.rs");
        assert_eq!(found[0].indices, [4, 5, 6, 7, 9, 10]);
        assert!(found.iter().all(|m| m.path != "README.md"));
        // Smart case: an upper-case letter must match exactly.
        assert_eq!(find_in(&paths, "READ", 10)[0].path, "README.md");
        assert_eq!(find_in(&paths, "Main", 10).len(), 0);
        assert_eq!(find_in(&paths, "main", 2).len(), 2);
    }

    #[test]
    fn a_stale_index_answers_at_once_and_walks_again() {
        let dir = project(&["a.rs"]);
        let index = FileIndex::new(dir.path(), Excluded::default());
        assert_eq!(index.find("", 10).len(), 1);
        std::fs::write(dir.path().join("b.rs"), "x").unwrap();
        // Fresh: the new file is not there yet.
        assert_eq!(index.find("", 10).len(), 1);
        index.lock().walked_at = Some(Instant::now() - STALE_AFTER * 2);
        assert_eq!(index.find("", 10).len(), 1, "answered from the old walk");
        let deadline = Instant::now() + Duration::from_secs(10);
        while index.len() < 2 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(index.find("", 10).len(), 2, "the background walk found it");
    }
}
