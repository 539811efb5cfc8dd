//! Opening a local folder as a project: the checks behind "Open folder…", a typed path, and
//! the CLI's working directory. [`check_folder`] validates; [`super::ArborApp::open_project`]
//! also records the project in the store.

use arbor_error_code::ErrorCode;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// A folder that can be opened as a project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProjectFolder {
    /// The folder's own name, shown in the sidebar.
    pub name: String,
    /// The canonical absolute path (symlinks resolved).
    pub path: String,
    /// Whether the folder is a git work tree (`.git` folder, or a `.git` file for worktrees).
    pub is_git_repo: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    #[error("No folder path was given. Pick a folder with Open folder…, or type its full path.")]
    Empty,
    #[error("'{0}' is a relative path. Type the folder's full path, for example /home/me/src/app or ~/src/app.")]
    Relative(String),
    #[error("'{0}' starts with ~ but the home folder is unknown (HOME is not set). Type the full path instead.")]
    NoHome(String),
    #[error("There is no folder at {0}. Check the path for typos, or pick the folder with Open folder….")]
    NotFound(String),
    #[error("{0} is a file, not a folder. Open the folder that contains it instead.")]
    NotADirectory(String),
    #[error(
        "Arbor cannot read {path}: {source}. Check that you have permission to open this folder."
    )]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("Opening the folder was interrupted ({0}). Try again.")]
    Interrupted(String),
}

impl ProjectError {
    pub fn code(&self) -> ErrorCode {
        match self {
            ProjectError::Empty | ProjectError::Relative(_) | ProjectError::NoHome(_) => {
                ErrorCode::InvalidPath
            }
            ProjectError::NotFound(_) => ErrorCode::NotFound,
            ProjectError::NotADirectory(_) => ErrorCode::NotADirectory,
            ProjectError::Io { .. } | ProjectError::Interrupted(_) => ErrorCode::Io,
        }
    }
}

/// Checks that `raw` names a readable folder and describes it.
pub fn check_folder(raw: &str) -> Result<ProjectFolder, ProjectError> {
    let requested = expand_home(raw.trim(), home_dir().as_deref())?;
    let shown = requested.display().to_string();
    let metadata = std::fs::metadata(&requested).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => ProjectError::NotFound(shown.clone()),
        _ => ProjectError::Io {
            path: shown.clone(),
            source,
        },
    })?;
    if !metadata.is_dir() {
        return Err(ProjectError::NotADirectory(shown));
    }
    let canonical = std::fs::canonicalize(&requested).map_err(|source| ProjectError::Io {
        path: shown.clone(),
        source,
    })?;
    // Listing proves the folder is readable now, not only that it exists.
    std::fs::read_dir(&canonical).map_err(|source| ProjectError::Io {
        path: shown.clone(),
        source,
    })?;
    let name = canonical
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| canonical.display().to_string());
    Ok(ProjectFolder {
        name,
        is_git_repo: canonical.join(".git").exists(),
        path: canonical.display().to_string(),
    })
}

fn home_dir() -> Option<PathBuf> {
    let var = if cfg!(windows) { "USERPROFILE" } else { "HOME" };
    std::env::var_os(var)
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
}

fn expand_home(raw: &str, home: Option<&Path>) -> Result<PathBuf, ProjectError> {
    if raw.is_empty() {
        return Err(ProjectError::Empty);
    }
    let expanded = if raw == "~" || raw.starts_with("~/") || raw.starts_with("~\\") {
        let home = home.ok_or_else(|| ProjectError::NoHome(raw.to_owned()))?;
        home.join(raw.get(2..).unwrap_or(""))
    } else {
        PathBuf::from(raw)
    };
    if expanded.is_relative() {
        return Err(ProjectError::Relative(raw.to_owned()));
    }
    Ok(expanded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_a_plain_folder() {
        let dir = tempfile::tempdir().unwrap();
        let project_dir = dir.path().join("my-app");
        std::fs::create_dir(&project_dir).unwrap();
        let info = check_folder(project_dir.to_str().unwrap()).unwrap();
        assert_eq!(info.name, "my-app");
        assert!(!info.is_git_repo);
        assert_eq!(
            PathBuf::from(&info.path),
            std::fs::canonicalize(&project_dir).unwrap()
        );
    }

    #[test]
    fn detects_a_git_work_tree_made_by_git() {
        let dir = tempfile::tempdir().unwrap();
        let status = std::process::Command::new("git")
            .args(["init", "-q"])
            .arg(dir.path())
            .status()
            .unwrap();
        assert!(status.success());
        assert!(
            check_folder(dir.path().to_str().unwrap())
                .unwrap()
                .is_git_repo
        );
    }

    #[test]
    fn trims_whitespace_around_a_pasted_path() {
        let dir = tempfile::tempdir().unwrap();
        let pasted = format!("  {}\n", dir.path().display());
        assert!(check_folder(&pasted).is_ok());
    }

    #[test]
    fn resolves_symlinks_to_the_real_folder() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = dir.path().join("link");
        #[cfg(unix)]
        std::os::unix::fs::symlink(&real, &link).unwrap();
        #[cfg(unix)]
        assert_eq!(check_folder(link.to_str().unwrap()).unwrap().name, "real");
    }

    #[test]
    fn bad_inputs_get_codes_and_messages_that_say_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("notes.txt");
        std::fs::write(&file, "hi").unwrap();
        let missing = dir.path().join("nope");

        let cases = [
            ("", "invalid_path", "No folder path"),
            ("   ", "invalid_path", "No folder path"),
            ("src/app", "invalid_path", "relative path"),
            (
                missing.to_str().unwrap(),
                "not_found",
                "There is no folder at",
            ),
            (
                file.to_str().unwrap(),
                "not_a_directory",
                "is a file, not a folder",
            ),
        ];
        for (input, code, message) in cases {
            let error = check_folder(input).unwrap_err();
            assert_eq!(error.code(), code, "input {input:?}");
            assert!(
                error.to_string().contains(message),
                "input {input:?}: {error}"
            );
        }
    }

    #[test]
    fn expands_the_home_folder() {
        let home = Path::new("/home/me");
        assert_eq!(
            expand_home("~", Some(home)).unwrap(),
            PathBuf::from("/home/me")
        );
        assert_eq!(
            expand_home("~/src/app", Some(home)).unwrap(),
            home.join("src/app")
        );
        assert_eq!(
            expand_home("~/src", None).unwrap_err().code(),
            "invalid_path"
        );
        // `~user` is not expanded: only the current user's home is known without a lookup.
        assert_eq!(
            expand_home("~other/x", Some(home)).unwrap_err().code(),
            "invalid_path"
        );
    }
}
