//! [`WorkspaceHost`]: the sandbox's file helpers over one project folder. Unlike the built-in
//! tools (which the model calls in the open, and which follow any path), a script's helpers
//! stay inside the project: relative paths only, no `..`, and a link that leads out is
//! refused — the folder's real path is checked after links are resolved.

use std::path::{Component, Path, PathBuf};

use arbor_js::{GrepHit, Host, HostError};
use globset::GlobBuilder;
use grep_regex::RegexMatcherBuilder;
use grep_searcher::sinks::UTF8;
use grep_searcher::{BinaryDetection, SearcherBuilder};

use arbor_fs::write_atomic;
use arbor_tools::special::special_kind;
use arbor_tools::walk::walker;
use arbor_tools::workspace::{arbor_owned_paths, check_project_root, create_dirs_within};

/// Largest file `read` hands a script, and largest content `write` takes.
pub const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;
/// Most names `ls`, hits `grep` and paths `find` answer.
pub const MAX_ENTRIES: usize = 5_000;
/// Files larger than this are not searched by `grep`.
const MAX_GREP_FILE_BYTES: u64 = 2 * 1024 * 1024;

/// The helpers over the project at `root`.
#[derive(Debug, Clone)]
pub struct WorkspaceHost {
    /// The project's real path (links resolved).
    root: PathBuf,
}

impl WorkspaceHost {
    /// Helpers over `root` (which must exist).
    pub fn new(root: &Path) -> std::io::Result<Self> {
        Ok(Self {
            root: root.canonicalize()?,
        })
    }

    /// `path` inside the project, or why not. The deepest part that exists is resolved (links
    /// followed) and must still be inside; the rest cannot hold links, since it does not exist.
    fn inside(&self, path: &str) -> Result<PathBuf, HostError> {
        let outside = || {
            HostError(format!(
                "{path} is outside the project: scripts may only use paths inside it, relative \
                 to its folder"
            ))
        };
        let given = Path::new(path);
        if path.is_empty() || given.is_absolute() {
            return Err(outside());
        }
        let mut relative = PathBuf::new();
        for component in given.components() {
            match component {
                Component::Normal(part) => relative.push(part),
                Component::CurDir => {}
                _ => return Err(outside()),
            }
        }
        let full = self.root.join(&relative);
        let mut existing = full.as_path();
        let mut rest = Vec::new();
        while !existing.exists() && existing.symlink_metadata().is_err() {
            let (Some(parent), Some(name)) = (existing.parent(), existing.file_name()) else {
                return Err(outside());
            };
            rest.push(name.to_owned());
            existing = parent;
        }
        let mut real = existing.canonicalize().map_err(|_| outside())?;
        if !real.starts_with(&self.root) {
            return Err(outside());
        }
        // Arbor's data folder may lie inside the project (Arbor run in the home folder): the
        // conversation history and snapshots are not the script's to read.
        if arbor_owned_paths()
            .iter()
            .any(|folder| real.starts_with(folder))
        {
            return Err(HostError(format!(
                "{path} is inside Arbor's own data folder: scripts may not use it"
            )));
        }
        for name in rest.into_iter().rev() {
            real.push(name);
        }
        Ok(real)
    }

    fn shown(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_else(|_| path.display().to_string())
    }
}

fn io_error(path: &str, error: std::io::Error) -> HostError {
    match error.kind() {
        std::io::ErrorKind::NotFound => HostError(format!("{path}: no such file or folder")),
        _ => HostError(format!("{path}: {error}")),
    }
}

impl Host for WorkspaceHost {
    fn read(&self, path: &str) -> Result<String, HostError> {
        let full = self.inside(path)?;
        // Looked at before opening: opening a FIFO for reading blocks until a writer comes.
        let meta = std::fs::metadata(&full).map_err(|e| io_error(path, e))?;
        if meta.is_dir() {
            return Err(HostError(format!("{path} is a folder: use ls")));
        }
        if let Some(kind) = special_kind(&meta) {
            return Err(HostError(format!(
                "{path} is {kind}, not a regular file: reading it could block or never end"
            )));
        }
        if meta.len() > MAX_FILE_BYTES {
            return Err(HostError(format!(
                "{path} is larger than {} MB",
                MAX_FILE_BYTES / (1024 * 1024)
            )));
        }
        let bytes = std::fs::read(&full).map_err(|e| io_error(path, e))?;
        String::from_utf8(bytes).map_err(|_| HostError(format!("{path} is not UTF-8 text")))
    }

    fn write(&self, path: &str, content: &str) -> Result<(), HostError> {
        if content.len() as u64 > MAX_FILE_BYTES {
            return Err(HostError(format!(
                "{path}: content larger than {} MB",
                MAX_FILE_BYTES / (1024 * 1024)
            )));
        }
        // Before `inside`, whose "outside the project" would be the wrong story.
        check_project_root(&self.root).map_err(|gone| HostError(gone.to_string()))?;
        let full = self.inside(path)?;
        // A script has no processes: it must not plant one either (a git hook runs at the
        // user's next commit).
        if full
            .strip_prefix(&self.root)
            .is_ok_and(|rel| rel.components().any(|c| c.as_os_str() == ".git"))
        {
            return Err(HostError(format!(
                "{path} is inside .git: scripts may not write there"
            )));
        }
        // `.arbor/` is Arbor's own project data (its rules file among it): protected like
        // the hooks.
        if full
            .strip_prefix(&self.root)
            .is_ok_and(|rel| rel.starts_with(".arbor"))
        {
            return Err(HostError(format!(
                "{path} is inside .arbor: scripts may not write there"
            )));
        }
        if full.is_dir() {
            return Err(HostError(format!("{path} is a folder")));
        }
        arbor_tools::workspace::check_writable(&full).map_err(|e| HostError(e.to_string()))?;
        if let Some(parent) = full.parent() {
            // Never the project folder itself, should it vanish after the check above.
            create_dirs_within(&self.root, parent).map_err(|e| io_error(path, e))?;
        }
        // The folders just made are inside: check again that a link did not lead elsewhere.
        self.inside(path)?;
        write_atomic(&full, content.as_bytes()).map_err(|e| io_error(path, e))
    }

    fn ls(&self, path: &str) -> Result<Vec<String>, HostError> {
        let full = self.inside(path)?;
        let mut names = Vec::new();
        for entry in std::fs::read_dir(&full).map_err(|e| io_error(path, e))? {
            let entry = entry.map_err(|e| io_error(path, e))?;
            let mut name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                name.push('/');
            }
            names.push(name);
        }
        names.sort();
        names.truncate(MAX_ENTRIES);
        Ok(names)
    }

    fn grep(&self, pattern: &str, path: Option<&str>) -> Result<Vec<GrepHit>, HostError> {
        let root = self.inside(path.unwrap_or("."))?;
        regex_syntax::Parser::new()
            .parse(pattern)
            .map_err(|e| HostError(format!("invalid pattern {pattern:?}: {e}")))?;
        let matcher = RegexMatcherBuilder::new()
            .line_terminator(Some(b'\n'))
            .build(pattern)
            .map_err(|e| HostError(format!("invalid pattern {pattern:?}: {e}")))?;
        let mut searcher = SearcherBuilder::new()
            .line_number(true)
            .binary_detection(BinaryDetection::quit(b'\x00'))
            .build();
        let mut hits = Vec::new();
        let mut files: Vec<PathBuf> = walker(&root, arbor_owned_paths())
            .build()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
            .filter(|e| e.metadata().is_ok_and(|m| m.len() <= MAX_GREP_FILE_BYTES))
            .map(|e| e.into_path())
            .collect();
        files.sort();
        for file in files {
            let shown = self.shown(&file);
            let _ = searcher.search_path(
                &matcher,
                &file,
                UTF8(|line, text| {
                    hits.push(GrepHit {
                        path: shown.clone(),
                        line,
                        text: text.trim_end_matches(['\n', '\r']).to_owned(),
                    });
                    Ok(hits.len() < MAX_ENTRIES)
                }),
            );
            if hits.len() >= MAX_ENTRIES {
                break;
            }
        }
        Ok(hits)
    }

    fn find(&self, pattern: &str) -> Result<Vec<String>, HostError> {
        let full_path = pattern.contains('/');
        let glob = GlobBuilder::new(pattern)
            .literal_separator(full_path)
            .build()
            .map_err(|e| HostError(format!("invalid glob {pattern:?}: {e}")))?
            .compile_matcher();
        let mut found = Vec::new();
        for entry in walker(&self.root, arbor_owned_paths())
            .build()
            .filter_map(Result::ok)
        {
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let shown = self.shown(entry.path());
            let name = entry.file_name().to_string_lossy();
            let candidate = if full_path { shown.as_str() } else { &name };
            if glob.is_match(candidate) {
                found.push(shown);
            }
        }
        found.sort();
        found.truncate(MAX_ENTRIES);
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_write_inside_the_project_but_never_hooks_git_config_or_arbor_data() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git/hooks")).unwrap();
        let host = WorkspaceHost::new(dir.path()).unwrap();
        host.write("src/a.txt", "fine").unwrap();
        for path in [
            ".git/hooks/pre-commit",
            ".git/config",
            ".arbor/permissions.json",
            "../out.txt",
            "/tmp/x",
        ] {
            let error = host
                .write(path, "#!/bin/sh\ntouch /tmp/pwned\n")
                .unwrap_err();
            assert!(
                error.0.contains("may not write there") || error.0.contains("outside the project"),
                "{path}: {}",
                error.0
            );
        }
        assert!(!dir.path().join(".git/hooks/pre-commit").exists());
        assert!(!dir.path().join(".arbor").exists());
    }

    #[test]
    fn scripts_never_see_arbors_own_data_folder_inside_the_project() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join(".local/share/arbor");
        std::fs::create_dir_all(&data).unwrap();
        std::fs::write(data.join("arbor.db"), "the whole conversation history").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "the whole story").unwrap();
        arbor_tools::workspace::protect_arbor_path(&data);
        let host = WorkspaceHost::new(dir.path()).unwrap();
        let error = host.read(".local/share/arbor/arbor.db").unwrap_err();
        assert!(error.0.contains("Arbor's own data folder"), "{}", error.0);
        assert!(host.ls(".local/share/arbor").is_err());
        let hits = host.grep("whole", None).unwrap();
        let paths: Vec<_> = hits.iter().map(|h| h.path.as_str()).collect();
        assert_eq!(paths, ["notes.txt"]);
        assert_eq!(host.find("*.db").unwrap(), Vec::<String>::new());
    }
}
