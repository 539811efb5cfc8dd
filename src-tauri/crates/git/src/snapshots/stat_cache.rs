//! The stat cache kept on disk, in the shadow repository, so that a new process (each `arbor -p`
//! run, the desktop after a restart) does not read and hash every file of the workspace again
//! for its first snapshot: a file whose size, modification time and mode match what the last
//! snapshot recorded is taken as recorded.
//!
//! The file is binary (see [`encode`]): it is read at the start of every session that stores
//! code state, and parsing a thousand files' entries as JSON cost a millisecond of a two-turn
//! `arbor -p`. It ends with a CRC-32 of what comes before, so a file cut short or damaged is
//! refused whole.
//!
//! The file names the workspace it describes and the tree it was written with; it is used only
//! when both match (the same shadow repository also snapshots a project's files over another
//! folder) and that tree is in the object store — its blobs, written before it, are there too
//! (nothing in a shadow repository is ever pruned). A missing, damaged or foreign file costs
//! one full read, never a wrong snapshot. It is written whole to a temporary file and renamed
//! over the old one, so a reader never sees half of it, and two processes writing it leave one
//! of their states, each right.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use git2::{Oid, Repository};

use super::scan::{CachedFile, FolderTrees};

/// The cache's file in the shadow repository.
const FILE_NAME: &str = "arbor-stat-cache.bin";

/// The file of the cache's first, JSON format: removed when the binary one is written.
const OLD_FILE_NAME: &str = "arbor-stat-cache.json";

/// What the file starts with, the format's version included: bumped whenever what is stored
/// changes meaning, so an older file is ignored.
const MAGIC: &[u8; 8] = b"ARBSTAT2";

/// Bytes of a git object id.
const OID_BYTES: usize = 20;

/// What a loaded cache gives back: the files by path, the tree they make and its folders' trees.
pub(super) struct Loaded {
    pub files: HashMap<String, CachedFile>,
    pub tree: Oid,
    pub folders: FolderTrees,
}

/// The cache of `workspace`'s snapshots in `repo`, when there is one that can be trusted.
pub(super) fn load(repo: &Repository, workspace: &Path) -> Option<Loaded> {
    let bytes = std::fs::read(repo.path().join(FILE_NAME)).ok()?;
    let loaded = decode(&bytes, workspace.to_string_lossy().as_bytes())?;
    if !repo.odb().ok()?.exists(loaded.tree) {
        return None;
    }
    Some(loaded)
}

/// Writes the cache of `workspace`'s snapshot `tree` (best effort: a cache that cannot be
/// written only makes the next process's first snapshot read everything).
pub(super) fn save(
    repo: &Repository,
    workspace: &Path,
    tree: Oid,
    files: &HashMap<String, CachedFile>,
    folders: &FolderTrees,
) {
    let bytes = encode(workspace.to_string_lossy().as_bytes(), tree, files, folders);
    let dir = repo.path();
    let Ok(mut temporary) = tempfile::NamedTempFile::new_in(dir) else {
        return;
    };
    // Not synced: a file left empty, cut short or damaged by a crash fails its checksum, and
    // is ignored.
    if temporary.write_all(&bytes).is_ok() {
        // A failed rename leaves the old cache, which is still right for its tree.
        if temporary.persist(dir.join(FILE_NAME)).is_ok() {
            let _gone_or_never_there = std::fs::remove_file(dir.join(OLD_FILE_NAME));
        }
    }
}

/// The file's bytes, all integers little-endian, a name being its length (`u32`) then its
/// bytes:
///
/// ```text
/// MAGIC, workspace name, tree (20 bytes),
/// files: count (u32), then each: path name, len (u64), mtime_ns (u128), mode (i32),
///        racy (u8), blob (20 bytes),
/// folders: count (u32), then each: path name, tree (20 bytes),
/// CRC-32 of everything before (u32)
/// ```
fn encode(
    workspace: &[u8],
    tree: Oid,
    files: &HashMap<String, CachedFile>,
    folders: &FolderTrees,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + files.len() * 100);
    out.extend_from_slice(MAGIC);
    push_name(&mut out, workspace);
    out.extend_from_slice(tree.as_bytes());
    push_count(&mut out, files.len());
    for (path, file) in files {
        push_name(&mut out, path.as_bytes());
        out.extend_from_slice(&file.len.to_le_bytes());
        out.extend_from_slice(&file.mtime_ns.to_le_bytes());
        out.extend_from_slice(&file.mode.to_le_bytes());
        out.push(u8::from(file.racy));
        out.extend_from_slice(file.oid.as_bytes());
    }
    let folders: Vec<_> = folders.iter().collect();
    push_count(&mut out, folders.len());
    for (path, oid) in folders {
        push_name(&mut out, path.as_bytes());
        out.extend_from_slice(oid.as_bytes());
    }
    let checksum = crc32fast::hash(&out);
    out.extend_from_slice(&checksum.to_le_bytes());
    out
}

/// The cache in `bytes` when it is whole, of this format and of `workspace`.
fn decode(bytes: &[u8], workspace: &[u8]) -> Option<Loaded> {
    let (body, checksum) = bytes.split_at_checked(bytes.len().checked_sub(4)?)?;
    if crc32fast::hash(body).to_le_bytes() != checksum {
        return None;
    }
    let mut reader = Reader(body);
    if reader.take(MAGIC.len())? != MAGIC || reader.name()? != workspace {
        return None;
    }
    let tree = reader.oid()?;
    let count = reader.count()?;
    // Each entry takes at least 53 bytes: a count larger than the file allows is refused
    // before anything is allocated for it.
    let mut files = HashMap::with_capacity(count.min(reader.0.len() / 53));
    for _ in 0..count {
        let path = String::from_utf8(reader.name()?.to_vec()).ok()?;
        let file = CachedFile {
            len: u64::from_le_bytes(reader.array()?),
            mtime_ns: u128::from_le_bytes(reader.array()?),
            mode: i32::from_le_bytes(reader.array()?),
            racy: match reader.take(1)? {
                [0] => false,
                [1] => true,
                _ => return None,
            },
            oid: reader.oid()?,
        };
        files.insert(path, file);
    }
    let count = reader.count()?;
    let mut folders = HashMap::with_capacity(count.min(reader.0.len() / 24));
    for _ in 0..count {
        let path = String::from_utf8(reader.name()?.to_vec()).ok()?;
        folders.insert(path, reader.oid()?);
    }
    if !reader.0.is_empty() {
        return None;
    }
    Some(Loaded {
        files,
        tree,
        folders: FolderTrees::from_map(folders),
    })
}

fn push_name(out: &mut Vec<u8>, name: &[u8]) {
    push_count(out, name.len());
    out.extend_from_slice(name);
}

fn push_count(out: &mut Vec<u8>, count: usize) {
    // Paths and file counts are far below 4 GiB (a snapshot's limits stop the walk long before).
    out.extend_from_slice(&u32::try_from(count).unwrap_or(u32::MAX).to_le_bytes());
}

/// What is left of the file to read.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (taken, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(taken)
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }

    fn count(&mut self) -> Option<usize> {
        usize::try_from(u32::from_le_bytes(self.array()?)).ok()
    }

    fn name(&mut self) -> Option<&'a [u8]> {
        let len = self.count()?;
        self.take(len)
    }

    fn oid(&mut self) -> Option<Oid> {
        Oid::from_bytes(self.take(OID_BYTES)?).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> (HashMap<String, CachedFile>, FolderTrees, Oid) {
        let oid = |n: u8| Oid::from_bytes(&[n; OID_BYTES]).unwrap();
        let mut files = HashMap::new();
        for (i, path) in ["a.txt", "src/lib.rs", "src/ü n\\i.rs"]
            .into_iter()
            .enumerate()
        {
            let n = u8::try_from(i).unwrap();
            files.insert(
                path.to_owned(),
                CachedFile {
                    len: 10 + u64::from(n),
                    mtime_ns: 1_700_000_000_123_456_789 + u128::from(n),
                    mode: 0o100644,
                    racy: n == 1,
                    oid: oid(n + 1),
                },
            );
        }
        let folders = FolderTrees::from_map(HashMap::from([("src".to_owned(), oid(9))]));
        (files, folders, oid(7))
    }

    #[test]
    fn what_is_written_reads_back() {
        let (files, folders, tree) = sample();
        let bytes = encode(b"/work/p", tree, &files, &folders);
        let loaded = decode(&bytes, b"/work/p").expect("the cache reads back");
        assert_eq!(loaded.tree, tree);
        assert_eq!(loaded.files.len(), files.len());
        for (path, file) in &files {
            let read = &loaded.files[path];
            assert_eq!(
                (read.len, read.mtime_ns, read.mode, read.racy, read.oid),
                (file.len, file.mtime_ns, file.mode, file.racy, file.oid),
                "{path}"
            );
        }
        let read_folders: HashMap<_, _> = loaded.folders.iter().collect();
        assert_eq!(read_folders, folders.iter().collect::<HashMap<_, _>>());
    }

    #[test]
    fn a_cut_damaged_or_foreign_cache_is_refused() {
        let (files, folders, tree) = sample();
        let bytes = encode(b"/work/p", tree, &files, &folders);
        assert!(decode(&bytes, b"/work/other").is_none(), "another folder's");
        for cut in [0, 3, 4, 20, bytes.len() / 2, bytes.len() - 1] {
            assert!(decode(&bytes[..cut], b"/work/p").is_none(), "cut at {cut}");
        }
        for at in [0, 9, 40, bytes.len() / 2, bytes.len() - 5, bytes.len() - 1] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x10;
            assert!(decode(&damaged, b"/work/p").is_none(), "byte {at} flipped");
        }
        // A file with a right checksum but a count larger than its bytes allows.
        let mut lying = bytes[..bytes.len() - 4].to_vec();
        let count_at = MAGIC.len() + 4 + b"/work/p".len() + OID_BYTES;
        lying[count_at..count_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let checksum = crc32fast::hash(&lying);
        lying.extend_from_slice(&checksum.to_le_bytes());
        assert!(decode(&lying, b"/work/p").is_none(), "a lying count");
    }
}
