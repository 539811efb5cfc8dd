//! What a snapshot holds, and the stat cache that keeps checking an unchanged workspace cheap.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use git2::{FileMode, Oid, Repository};
use ignore::overrides::OverrideBuilder;
use ignore::{DirEntry, WalkBuilder, WalkState};

use super::exclude::{is_temporary, Exclusions};
use super::file_stat::{FileStat, FileStatter};
use super::{names, SnapshotError, SnapshotOptions};

/// A file found by a scan: its path relative to the workspace (`/`-separated) and its stat.
#[derive(Debug, Clone)]
pub(super) struct ScannedFile {
    pub path: String,
    pub len: u64,
    pub mtime_ns: u128,
    pub mode: i32,
    pub symlink: bool,
    /// Modified so recently that a change in the same clock tick could go unseen: read again
    /// next time, whatever its stat says (git's "racily clean" rule).
    pub racy: bool,
}

/// A file as the last snapshot recorded it.
#[derive(Debug, Clone)]
pub(super) struct CachedFile {
    pub len: u64,
    pub mtime_ns: u128,
    pub mode: i32,
    pub racy: bool,
    pub oid: Oid,
}

impl CachedFile {
    pub fn of(file: &ScannedFile, oid: Oid) -> Self {
        Self {
            len: file.len,
            mtime_ns: file.mtime_ns,
            mode: file.mode,
            racy: file.racy,
            oid,
        }
    }

    /// Whether `file` is, by its stat, what was recorded.
    pub fn matches(&self, file: &ScannedFile) -> bool {
        !self.racy
            && self.len == file.len
            && self.mtime_ns == file.mtime_ns
            && self.mode == file.mode
    }
}

/// How recent a modification must be, at scan time, for the file to be read again next time.
const RACY_WINDOW: Duration = Duration::from_secs(2);

/// Threads a scan walks with, at most (fewer on a machine with fewer cores): past four, the
/// file system, not the walk, is what a scan waits for.
const WALK_THREADS: usize = 4;

/// What a scan found: the files to record, and Arbor's temporary files it passed over (a killed
/// write's leftovers, removed when stale).
#[derive(Debug, Default)]
pub(super) struct Scan {
    pub files: Vec<ScannedFile>,
    pub temporaries: Vec<PathBuf>,
}

/// Every file of `workspace` a snapshot records: not ignored (`.gitignore` files, the
/// repository's `info/exclude`, `options.extra_ignores`), not inside a `.git`, not one of
/// Arbor's own paths or temporary files (`exclusions`), not larger than
/// `options.max_file_bytes`. Symbolic links are recorded as links, never followed. Names that
/// are not UTF-8 are recorded too (see [`names`]).
pub(super) fn scan(
    workspace: &Path,
    options: &SnapshotOptions,
    exclusions: &Exclusions,
) -> Result<Scan, SnapshotError> {
    let started = SystemTime::now();
    let mut overrides = OverrideBuilder::new(workspace);
    for pattern in &options.extra_ignores {
        overrides
            .add(&format!("!{}", pattern.trim()))
            .map_err(|e| SnapshotError::IgnorePattern(format!("{pattern}: {e}")))?;
    }
    let overrides = overrides
        .build()
        .map_err(|e| SnapshotError::IgnorePattern(e.to_string()))?;
    let mut walker = WalkBuilder::new(workspace);
    walker
        .hidden(false)
        .parents(false)
        .ignore(false)
        .git_global(false)
        .git_ignore(true)
        .git_exclude(true)
        .require_git(false)
        .follow_links(false)
        .overrides(overrides)
        .filter_entry({
            let workspace = workspace.to_owned();
            let exclusions = exclusions.clone();
            move |entry| {
                if entry.file_name() == ".git" {
                    return false;
                }
                // Arbor's own folders are never walked into (a data folder inside the project).
                let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                !is_dir
                    || relative_to(entry.path(), &workspace)
                        .is_none_or(|path| path.is_empty() || !exclusions.excludes(&path))
            }
        })
        .threads(std::thread::available_parallelism().map_or(1, |n| n.get().min(WALK_THREADS)));
    let racy_from = started
        .checked_sub(RACY_WINDOW)
        .unwrap_or(UNIX_EPOCH)
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let found = Found::default();
    // Folders are walked on every core: a workspace of a thousand files costs a thousand
    // `lstat`s per snapshot, and a fresh `arbor -p` waits for the first one before it exits.
    walker.build_parallel().run(|| {
        let (found, mut statter) = (&found, FileStatter::default());
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                // A folder that cannot be read, or a file gone between listing and reading (a
                // build running beside the agent), is left out: it is neither recorded nor
                // touched by a restore, and the rest of the workspace is still recorded.
                return WalkState::Continue;
            };
            let context = (workspace, options, exclusions, racy_from);
            found.examine(&entry, &mut statter, context)
        })
    });
    found.finish(workspace, options)
}

/// What the walking threads found so far.
#[derive(Default)]
struct Found {
    scan: Mutex<Scan>,
    total_bytes: AtomicU64,
    files: AtomicUsize,
    /// The first error met (the walk stops at it).
    error: Mutex<Option<SnapshotError>>,
    /// More files or bytes than a snapshot takes (the walk stops).
    too_large: AtomicBool,
}

impl Found {
    fn examine(
        &self,
        entry: &DirEntry,
        statter: &mut FileStatter,
        (workspace, options, exclusions, racy_from): (&Path, &SnapshotOptions, &Exclusions, u128),
    ) -> WalkState {
        let Some(kind) = entry.file_type() else {
            return WalkState::Continue;
        };
        if !(kind.is_file() || kind.is_symlink()) {
            return WalkState::Continue;
        }
        let Some(path) = relative_to(entry.path(), workspace) else {
            return WalkState::Continue;
        };
        if exclusions.excludes(&path) {
            if entry.file_name().to_str().is_some_and(is_temporary) {
                lock(&self.scan).temporaries.push(entry.path().to_owned());
            }
            return WalkState::Continue;
        }
        let meta = match statter.lstat(entry.path()) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return WalkState::Continue,
            Err(e) => {
                lock(&self.error).get_or_insert(SnapshotError::io(entry.path(), e));
                return WalkState::Quit;
            }
        };
        if kind.is_file() && meta.len > options.max_file_bytes {
            return WalkState::Continue;
        }
        let total_bytes = self.total_bytes.fetch_add(meta.len, Ordering::Relaxed) + meta.len;
        let files = self.files.fetch_add(1, Ordering::Relaxed);
        if files >= options.max_files || total_bytes > options.max_total_bytes {
            self.too_large.store(true, Ordering::Relaxed);
            return WalkState::Quit;
        }
        lock(&self.scan).files.push(ScannedFile {
            path,
            len: meta.len,
            mtime_ns: meta.mtime_ns,
            mode: mode_of(meta, kind.is_symlink()),
            symlink: kind.is_symlink(),
            racy: meta.mtime_ns >= racy_from,
        });
        WalkState::Continue
    }

    fn finish(self, workspace: &Path, options: &SnapshotOptions) -> Result<Scan, SnapshotError> {
        if let Some(error) = into_inner(self.error) {
            return Err(error);
        }
        if self.too_large.into_inner() {
            return Err(SnapshotError::TooLarge {
                path: workspace.to_owned(),
                files: options.max_files,
                bytes: options.max_total_bytes,
            });
        }
        Ok(into_inner(self.scan))
    }
}

/// A lock whose holder panicked still holds what was found before: a walking thread's panic
/// is the walk's, not the data's.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn into_inner<T>(mutex: Mutex<T>) -> T {
    mutex.into_inner().unwrap_or_else(PoisonError::into_inner)
}

/// `path` (found by walking `workspace`) relative to `workspace`, as [`relative_path`] gives it.
/// This runs for every file of every snapshot: on Unix the path's bytes after the workspace's
/// and a `/` are encoded at once (a walk joins plain names, so they are the names `/`-joined);
/// any other path goes through its components.
fn relative_to(path: &Path, workspace: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let rest = path
            .as_os_str()
            .as_bytes()
            .strip_prefix(workspace.as_os_str().as_bytes());
        match rest {
            Some([]) => return Some(String::new()),
            Some([b'/', names @ ..]) if plain_names(names) => return Some(names::encode(names)),
            _ => {}
        }
    }
    relative_path(path.strip_prefix(workspace).ok()?)
}

/// Whether `bytes` are names joined by single `/`s: no empty name, no `.` or `..`.
#[cfg(unix)]
fn plain_names(bytes: &[u8]) -> bool {
    bytes
        .split(|&b| b == b'/')
        .all(|name| !name.is_empty() && name != b"." && name != b"..")
}

/// `relative` as a `/`-separated path, each name [`names::from_os`]-encoded (a name that is not
/// UTF-8 is kept byte for byte).
fn relative_path(relative: &Path) -> Option<String> {
    // One string built in place: this runs for every file of every snapshot.
    let mut path = String::with_capacity(relative.as_os_str().len());
    for (i, part) in relative.components().enumerate() {
        if i > 0 {
            path.push('/');
        }
        names::push_os(&mut path, part.as_os_str());
    }
    Some(path)
}

fn mode_of(meta: FileStat, symlink: bool) -> i32 {
    if symlink {
        return i32::from(FileMode::Link);
    }
    if meta.executable {
        i32::from(FileMode::BlobExecutable)
    } else {
        i32::from(FileMode::Blob)
    }
}

/// A folder being assembled into a git tree.
#[derive(Default)]
struct Folder {
    files: BTreeMap<String, (Oid, i32)>,
    folders: BTreeMap<String, Folder>,
}

/// The tree of every folder of the last snapshot, by folder path (`""` = the workspace), so
/// that a change costs the folders above it, not the whole workspace.
#[derive(Debug, Default)]
pub(super) struct FolderTrees(HashMap<String, Oid>);

impl FolderTrees {
    pub fn from_map(trees: HashMap<String, Oid>) -> Self {
        Self(trees)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &Oid)> {
        self.0.iter()
    }

    /// Writes the tree of `files` (path → recorded file) into `repo`, rewriting only the
    /// folders above a path in `dirty` (changed, added or removed since the last write); returns
    /// the root tree's id.
    pub fn write(
        &mut self,
        repo: &Repository,
        files: &HashMap<String, CachedFile>,
        dirty: &HashSet<String>,
    ) -> Result<Oid, SnapshotError> {
        let mut root = Folder::default();
        for (path, file) in files {
            let mut folder = &mut root;
            let mut parts = path.split('/').peekable();
            while let Some(part) = parts.next() {
                if parts.peek().is_none() {
                    folder.files.insert(part.to_owned(), (file.oid, file.mode));
                } else {
                    folder = folder.folders.entry(part.to_owned()).or_default();
                }
            }
        }
        let mut stale: HashSet<&str> = HashSet::from([""]);
        for path in dirty {
            let mut end = path.len();
            while let Some(slash) = path[..end].rfind('/') {
                stale.insert(&path[..slash]);
                end = slash;
            }
        }
        let mut next = HashMap::new();
        let oid = write_folder(repo, &root, "", &stale, &self.0, &mut next)?;
        self.0 = next;
        Ok(oid)
    }
}

fn write_folder(
    repo: &Repository,
    folder: &Folder,
    path: &str,
    stale: &HashSet<&str>,
    previous: &HashMap<String, Oid>,
    next: &mut HashMap<String, Oid>,
) -> Result<Oid, SnapshotError> {
    let oid = match previous.get(path) {
        Some(oid) if !stale.contains(path) => {
            // Unchanged below: its tree and its subfolders' trees stand as they were.
            keep_below(folder, path, previous, next);
            *oid
        }
        _ => {
            let mut builder = repo.treebuilder(None)?;
            for (name, (oid, mode)) in &folder.files {
                builder.insert(names::to_path(name), *oid, *mode)?;
            }
            for (name, sub) in &folder.folders {
                let sub_path = if path.is_empty() {
                    name.clone()
                } else {
                    format!("{path}/{name}")
                };
                let oid = write_folder(repo, sub, &sub_path, stale, previous, next)?;
                builder.insert(names::to_path(name), oid, i32::from(FileMode::Tree))?;
            }
            builder.write()?
        }
    };
    next.insert(path.to_owned(), oid);
    Ok(oid)
}

/// Carries the trees of an unchanged folder's subfolders over to the next snapshot.
fn keep_below(
    folder: &Folder,
    path: &str,
    previous: &HashMap<String, Oid>,
    next: &mut HashMap<String, Oid>,
) {
    for (name, sub) in &folder.folders {
        let sub_path = if path.is_empty() {
            name.clone()
        } else {
            format!("{path}/{name}")
        };
        if let Some(oid) = previous.get(&sub_path) {
            next.insert(sub_path.clone(), *oid);
        }
        keep_below(sub, &sub_path, previous, next);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_walked_paths_bytes_give_what_its_components_give() {
        use std::os::unix::ffi::OsStrExt;
        let workspace = Path::new("/home/me/project");
        let odd = std::ffi::OsStr::from_bytes(b"caf\xe9/\xff\xfe.txt");
        let cases: Vec<PathBuf> = vec![
            workspace.join("src/main.rs"),
            workspace.join("a"),
            workspace.join("ünï/cödé.rs"),
            workspace.join("\u{F7A0}.txt"),
            workspace.join(odd),
            workspace.to_owned(),
            // Not a plain join: through the components.
            PathBuf::from("/home/me/project/./a//b"),
            PathBuf::from("/home/me/projects/a"),
            PathBuf::from("/elsewhere/a"),
        ];
        for path in cases {
            assert_eq!(
                relative_to(&path, workspace),
                path.strip_prefix(workspace).ok().and_then(relative_path),
                "{path:?}"
            );
        }
        assert_eq!(
            relative_to(Path::new("/etc/x"), Path::new("/")).as_deref(),
            Some("etc/x")
        );
    }
}
