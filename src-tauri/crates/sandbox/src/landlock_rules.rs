//! The reduced backend: Landlock rules from a [`SandboxPolicy`]. Reads everywhere but the
//! hidden paths (Landlock only grants, so the folders around a hidden path are granted piece
//! by piece and the folders above it may be listed, not read); writes only in the writable
//! folders and the temporary folder; no TCP without network; abstract Unix sockets of the
//! host out of reach. Landlock cannot keep `.git/hooks` read-only inside a writable project:
//! the settings say so ("reduced").

use std::path::{Path, PathBuf};

use landlock::{
    path_beneath_rules, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope, ABI,
};

use crate::SandboxPolicy;

const ABI_WANTED: ABI = ABI::V6;

pub fn restrict(policy: &SandboxPolicy) -> Result<(), String> {
    let all = AccessFs::from_all(ABI_WANTED);
    let read = AccessFs::from_read(ABI_WANTED);
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(all)
        .map_err(|e| e.to_string())?;
    if !policy.network {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(ABI_WANTED))
            .map_err(|e| e.to_string())?;
    }
    ruleset = ruleset
        .scope(Scope::AbstractUnixSocket)
        .map_err(|e| e.to_string())?;
    let (readable, listable) = readable_roots(Path::new("/"), &policy.hidden);
    let mut writable: Vec<PathBuf> = policy.writable.clone();
    writable.push(policy.temp_dir.clone());
    writable.extend(["/dev/null", "/dev/zero", "/dev/tty", "/dev/full"].map(PathBuf::from));
    let status = ruleset
        .create()
        .map_err(|e| e.to_string())?
        .add_rules(path_beneath_rules(&readable, read))
        .map_err(|e| e.to_string())?
        .add_rules(path_beneath_rules(&listable, AccessFs::ReadDir))
        .map_err(|e| e.to_string())?
        .add_rules(path_beneath_rules(
            writable.iter().filter(|p| p.exists()),
            all,
        ))
        .map_err(|e| e.to_string())?
        .restrict_self()
        .map_err(|e| e.to_string())?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err("Landlock is not enforced by this kernel".into());
    }
    Ok(())
}

/// Whether Landlock can be enforced here (run in the helper process, which then exits).
pub fn probe() -> Result<(), String> {
    let status = Ruleset::default()
        .handle_access(AccessFs::from_all(ABI::V1))
        .map_err(|e| e.to_string())?
        .create()
        .map_err(|e| e.to_string())?
        .add_rules(path_beneath_rules(["/"], AccessFs::from_all(ABI::V1)))
        .map_err(|e| e.to_string())?
        .restrict_self()
        .map_err(|e| e.to_string())?;
    match status.ruleset {
        RulesetStatus::NotEnforced => Err("Landlock is not enforced by this kernel".into()),
        _ => Ok(()),
    }
}

/// The folders and files that may be read — `dir` minus the hidden paths — and the folders
/// above a hidden path, which may only be listed.
fn readable_roots(dir: &Path, hidden: &[PathBuf]) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut readable = Vec::new();
    let mut listable = Vec::new();
    expand(dir, hidden, &mut readable, &mut listable, 0);
    (readable, listable)
}

fn expand(
    dir: &Path,
    hidden: &[PathBuf],
    readable: &mut Vec<PathBuf>,
    listable: &mut Vec<PathBuf>,
    depth: usize,
) {
    if hidden.iter().any(|h| dir.starts_with(h)) {
        return;
    }
    if !hidden.iter().any(|h| h.starts_with(dir)) || depth > 32 {
        readable.push(dir.to_owned());
        return;
    }
    listable.push(dir.to_owned());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        expand(&entry.path(), hidden, readable, listable, depth + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folders_around_a_hidden_path_are_granted_piece_by_piece() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path();
        for path in [".ssh/id", ".config/gh/hosts", ".config/app/x", "src/a"] {
            std::fs::create_dir_all(home.join(path).parent().unwrap()).unwrap();
            std::fs::write(home.join(path), "").unwrap();
        }
        let hidden = vec![home.join(".ssh"), home.join(".config/gh")];
        let (readable, listable) = readable_roots(home, &hidden);
        assert!(readable.contains(&home.join("src")));
        assert!(readable.contains(&home.join(".config/app")));
        assert!(!readable.iter().any(|p| p.starts_with(home.join(".ssh"))));
        assert!(!readable
            .iter()
            .any(|p| p.starts_with(home.join(".config/gh"))));
        assert_eq!(
            listable,
            vec![home.to_owned(), home.join(".config")]
                .into_iter()
                .filter(|p| listable.contains(p))
                .collect::<Vec<_>>()
        );
        assert!(listable.contains(&home.to_owned()));
    }
}
