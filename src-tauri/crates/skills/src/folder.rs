//! Tool folders on disk: `<workspace>/.tools/<name>/` (the project's) and
//! `<data dir>/tools/<name>/` (the user's, for every project), each read whole — every file's
//! text — and hashed, so an approval can be pinned to exactly what was approved.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::manifest::{parse_manifest, ManifestProblem, SkillManifest, SKILL_FILE};

/// The project's tools folder, inside the workspace.
pub const PROJECT_TOOLS_DIR: &str = ".tools";
/// The user's tools folder, inside the data folder.
pub const USER_TOOLS_DIR: &str = "tools";
/// Most files a tool folder may hold.
pub const MAX_FILES: usize = 100;
/// Most bytes a tool folder may hold in all.
pub const MAX_BYTES: usize = 1024 * 1024;

/// A folder's files by relative path (`/`-separated), as text.
pub use arbor_protocol::views::tools::{ToolFiles, ToolScope};

/// A tool folder as found.
#[derive(Debug, Clone)]
pub struct ToolFolder {
    pub name: String,
    pub scope: ToolScope,
    pub dir: PathBuf,
    pub files: ToolFiles,
    /// [`content_hash`] of `files`.
    pub hash: String,
    /// The parsed `SKILL.md`, or everything wrong with the folder.
    pub manifest: Result<SkillManifest, Vec<ManifestProblem>>,
}

/// The hash an approval is pinned to: SHA-256 over every file, by sorted path, each as its
/// path, its length and its bytes (so no two folders can hash alike by moving bytes between
/// files or names).
pub fn content_hash(files: &ToolFiles) -> String {
    let mut hasher = Sha256::new();
    for (path, text) in files {
        hasher.update(path.as_bytes());
        hasher.update([0]);
        hasher.update((text.len() as u64).to_le_bytes());
        hasher.update(text.as_bytes());
    }
    hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// Checks a folder's files (as found on disk or as the model proposes them) and parses its
/// manifest. `shown` names the folder in problems.
pub fn check_files(
    name: &str,
    shown: &str,
    files: &ToolFiles,
) -> Result<SkillManifest, Vec<ManifestProblem>> {
    let file = format!("{shown}/{SKILL_FILE}");
    let problem = |field: &str, message: String| ManifestProblem {
        file: file.clone(),
        line: 1,
        field: field.to_owned(),
        message,
    };
    let mut problems = Vec::new();
    if files.len() > MAX_FILES {
        problems.push(problem("files", format!("more than {MAX_FILES} files")));
    }
    let bytes: usize = files.values().map(String::len).sum();
    if bytes > MAX_BYTES {
        problems.push(problem(
            "files",
            format!("more than {} KB in all", MAX_BYTES / 1024),
        ));
    }
    for path in files.keys() {
        if path.is_empty()
            || path.starts_with('/')
            || path.contains('\\')
            || path
                .split('/')
                .any(|part| part.is_empty() || part == "." || part == "..")
        {
            problems.push(problem(
                "files",
                format!("`{path}` is not a relative path inside the folder"),
            ));
        }
    }
    let Some(text) = files.get(SKILL_FILE) else {
        problems.push(problem("files", format!("the folder has no {SKILL_FILE}")));
        return Err(problems);
    };
    let others: BTreeSet<String> = files.keys().cloned().collect();
    match parse_manifest(&file, text, name, &others) {
        Ok(manifest) if problems.is_empty() => Ok(manifest),
        Ok(_) => Err(problems),
        Err(mut found) => {
            problems.append(&mut found);
            Err(problems)
        }
    }
}

/// Reads the folder `dir` (named `name`) whole.
pub fn read_folder(dir: &Path, name: &str, scope: ToolScope) -> ToolFolder {
    let shown = match scope {
        ToolScope::Project => format!("{PROJECT_TOOLS_DIR}/{name}"),
        ToolScope::User => format!("{USER_TOOLS_DIR}/{name}"),
    };
    let mut files = ToolFiles::new();
    let mut problems = Vec::new();
    collect(dir, "", &mut files, &mut problems, &shown);
    let hash = content_hash(&files);
    let manifest = if problems.is_empty() {
        check_files(name, &shown, &files)
    } else {
        Err(problems)
    };
    ToolFolder {
        name: name.to_owned(),
        scope,
        dir: dir.to_owned(),
        files,
        hash,
        manifest,
    }
}

fn collect(
    dir: &Path,
    prefix: &str,
    files: &mut ToolFiles,
    problems: &mut Vec<ManifestProblem>,
    shown: &str,
) {
    let problem = |message: String| ManifestProblem {
        file: format!("{shown}/{SKILL_FILE}"),
        line: 1,
        field: "files".into(),
        message,
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        problems.push(problem(format!("{shown}/{prefix} cannot be read")));
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        if files.len() > MAX_FILES {
            problems.push(problem(format!("more than {MAX_FILES} files")));
            return;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = format!("{prefix}{name}");
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() {
            problems.push(problem(format!(
                "`{path}` is a link: a tool folder holds only its own files"
            )));
        } else if kind.is_dir() {
            collect(&entry.path(), &format!("{path}/"), files, problems, shown);
        } else if entry.metadata().is_ok_and(|m| m.len() as usize > MAX_BYTES) {
            problems.push(problem(format!(
                "`{path}` is larger than {} KB",
                MAX_BYTES / 1024
            )));
        } else {
            match std::fs::read(entry.path()).map(String::from_utf8) {
                Ok(Ok(text)) => {
                    files.insert(path, text);
                }
                Ok(Err(_)) => problems.push(problem(format!("`{path}` is not UTF-8 text"))),
                Err(error) => problems.push(problem(format!("`{path}` cannot be read: {error}"))),
            }
        }
    }
}

/// Every tool folder of the project at `workspace` and of the user's folder in `data_dir`,
/// project ones first, each list by name. A user folder with the name of a project one is
/// left out (the project's wins); its name is in the second list.
pub fn discover(workspace: &Path, data_dir: &Path) -> (Vec<ToolFolder>, Vec<String>) {
    let project = folders_in(&workspace.join(PROJECT_TOOLS_DIR), ToolScope::Project);
    let names: BTreeSet<String> = project.iter().map(|f| f.name.clone()).collect();
    let mut shadowed = Vec::new();
    let mut found = project;
    for folder in folders_in(&data_dir.join(USER_TOOLS_DIR), ToolScope::User) {
        if names.contains(&folder.name) {
            shadowed.push(folder.name);
        } else {
            found.push(folder);
        }
    }
    (found, shadowed)
}

fn folders_in(root: &Path, scope: ToolScope) -> Vec<ToolFolder> {
    // A tools folder that is a link (a repository can carry `.tools -> ~`) is not followed:
    // nothing outside would be read as tools, or written on approval.
    if !is_real_dir(root) {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with('.'))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| read_folder(&root.join(&name), &name, scope))
        .collect()
}

/// A folder that is not a link.
pub(crate) fn is_real_dir(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
}
