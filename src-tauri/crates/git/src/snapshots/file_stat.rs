//! The `lstat` a scan makes of every file it records. On Unix it goes through a descriptor of
//! the file's folder, held while the walk stays in that folder: the kernel then looks up one
//! name instead of every component of the absolute path, which was a quarter of a walk's time
//! (a thousand-file workspace is walked at every `arbor -p` run). Elsewhere, and whenever the
//! folder cannot be opened, the path is looked up as a whole.

use std::path::Path;
use std::time::UNIX_EPOCH;

/// What a scan keeps of a file's `lstat` (symbolic links are not followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FileStat {
    pub len: u64,
    /// Nanoseconds since the Unix epoch (0 before it).
    pub mtime_ns: u128,
    /// Any execute bit set (always `false` where files have none).
    pub executable: bool,
}

impl FileStat {
    fn of(meta: &std::fs::Metadata) -> Self {
        Self {
            len: meta.len(),
            mtime_ns: meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos()),
            executable: executable(meta),
        }
    }
}

#[cfg(unix)]
fn executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn executable(_meta: &std::fs::Metadata) -> bool {
    false
}

/// `lstat`s the files of a walk, one walking thread each (it keeps the folder last used).
#[derive(Default)]
pub(super) struct FileStatter {
    #[cfg(unix)]
    folder: Option<(std::path::PathBuf, std::os::fd::OwnedFd)>,
}

impl FileStatter {
    /// `path`'s `lstat`.
    pub fn lstat(&mut self, path: &Path) -> std::io::Result<FileStat> {
        #[cfg(unix)]
        if let Some(stat) = self.lstat_in_folder(path) {
            return stat;
        }
        std::fs::symlink_metadata(path).map(|meta| FileStat::of(&meta))
    }

    /// Through the descriptor of `path`'s folder; `None` when that folder cannot be opened.
    #[cfg(unix)]
    fn lstat_in_folder(&mut self, path: &Path) -> Option<std::io::Result<FileStat>> {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        // Split at the last `/` by bytes: a walk's paths are plain names joined by `/`, and
        // this runs for every file (`Path`'s component parsing showed in the walk's profile).
        let bytes = path.as_os_str().as_bytes();
        let slash = bytes.iter().rposition(|&b| b == b'/')?;
        let (folder, name) = (&bytes[..slash.max(1)], &bytes[slash + 1..]);
        if name.is_empty() || name == b"." || name == b".." {
            return None;
        }
        if self
            .folder
            .as_ref()
            .is_none_or(|(open, _)| open.as_os_str().as_bytes() != folder)
        {
            let folder = Path::new(OsStr::from_bytes(folder));
            self.folder = Some((folder.to_owned(), open_folder(folder)?));
        }
        let (_, fd) = self.folder.as_ref()?;
        Some(lstat_at(fd, OsStr::from_bytes(name)))
    }
}

/// `folder`, opened only to name files in it (`O_PATH`: the walk has just listed it).
#[cfg(unix)]
fn open_folder(folder: &Path) -> Option<std::os::fd::OwnedFd> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
    rustix::fs::open(folder, flags, Mode::empty()).ok()
}

/// The `lstat` of `name` in the folder `fd`.
#[cfg(unix)]
fn lstat_at(fd: &std::os::fd::OwnedFd, name: &std::ffi::OsStr) -> std::io::Result<FileStat> {
    let stat = rustix::fs::statat(fd, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)?;
    Ok(FileStat {
        len: u64::try_from(stat.st_size).unwrap_or(0),
        mtime_ns: mtime_ns(stat.st_mtime, stat.st_mtime_nsec),
        executable: stat.st_mode & 0o111 != 0,
    })
}

/// A `stat` time in nanoseconds since the epoch, as `Metadata::modified` gives it (0 before).
/// (`stat`'s field types differ between systems.)
#[cfg(unix)]
fn mtime_ns(seconds: impl TryInto<u128>, nanoseconds: impl TryInto<u128>) -> u128 {
    match seconds.try_into() {
        Ok(seconds) => seconds * 1_000_000_000 + nanoseconds.try_into().unwrap_or(0),
        Err(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The descriptor's way gives exactly what the whole path's gives: sizes, times to the
    /// nanosecond, execute bits, links not followed, files in several folders, a missing file.
    #[test]
    fn a_folders_descriptor_gives_what_the_whole_path_gives() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/one.txt"), "one").unwrap();
        std::fs::write(root.join("a/b/two.sh"), "#!/bin/sh\n").unwrap();
        std::fs::write(root.join("three"), "").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let script = root.join("a/b/two.sh");
            std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
            std::os::unix::fs::symlink("one.txt", root.join("a/link")).unwrap();
            std::os::unix::fs::symlink("/nowhere", root.join("a/b/dangling")).unwrap();
        }
        let mut statter = FileStatter::default();
        let mut paths = vec!["a/one.txt", "a/b/two.sh", "three", "a/one.txt"];
        if cfg!(unix) {
            paths.extend(["a/link", "a/b/dangling"]);
        }
        for relative in paths {
            let path = root.join(relative);
            let whole = FileStat::of(&std::fs::symlink_metadata(&path).unwrap());
            assert_eq!(statter.lstat(&path).unwrap(), whole, "{relative}");
        }
        #[cfg(unix)]
        assert!(statter.lstat(&root.join("a/b/two.sh")).unwrap().executable);
        let missing = statter.lstat(&root.join("a/gone")).unwrap_err();
        assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
        let no_folder = statter.lstat(&root.join("nope/file")).unwrap_err();
        assert_eq!(no_folder.kind(), std::io::ErrorKind::NotFound);
    }
}
