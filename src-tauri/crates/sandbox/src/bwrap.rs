//! The bubblewrap command line for a [`SandboxPolicy`] (pure, so it is tested as text).
//!
//! Order matters: later mounts cover earlier ones. The root goes in read-only, then fresh
//! `/dev`, `/proc` and a private `/tmp`, then the writable folders, then what must stay
//! read-only inside them, then what must not be seen at all (a secret inside the project is
//! still hidden).

use std::ffi::OsString;
use std::path::Path;

use crate::{existing, SandboxPolicy};

/// Folders whose sockets lead out: the session bus, display servers, Docker.
const SOCKET_FOLDERS: &[&str] = &["/run/user", "/run/dbus", "/var/run/dbus", "/tmp/.X11-unix"];
const SOCKET_FILES: &[&str] = &["/run/docker.sock", "/var/run/docker.sock"];

pub fn arguments(policy: &SandboxPolicy) -> Vec<OsString> {
    let mut args: Vec<OsString> = Vec::new();
    let mut push = |parts: &[&str]| args.extend(parts.iter().map(OsString::from));
    push(&[
        "--die-with-parent",
        "--new-session",
        "--unshare-user",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--cap-drop",
        "ALL",
    ]);
    if !policy.network {
        push(&["--unshare-net"]);
    }
    push(&["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]);
    bind(&mut args, "--bind", &policy.temp_dir, Path::new("/tmp"));
    // Through links (`/var/run` → `/run`), once each: bubblewrap mounts on real paths.
    let mut masked: Vec<std::path::PathBuf> = Vec::new();
    for path in SOCKET_FOLDERS.iter().chain(SOCKET_FILES) {
        if let Ok(real) = Path::new(path).canonicalize() {
            if !masked.contains(&real) {
                masked.push(real);
            }
        }
    }
    for path in &masked {
        if path.is_dir() {
            args.extend([OsString::from("--tmpfs"), path.clone().into_os_string()]);
        } else {
            bind(&mut args, "--ro-bind", Path::new("/dev/null"), path);
        }
    }
    for folder in &policy.writable {
        if existing(folder) {
            bind(&mut args, "--bind", folder, folder);
        }
    }
    // The project's `.git` as a mount point of its own: it cannot then be renamed away and
    // replaced by one with other hooks.
    for folder in &policy.writable {
        let git = folder.join(".git");
        if git.is_dir() {
            bind(&mut args, "--bind", &git, &git);
        }
    }
    for path in &policy.read_only {
        if existing(path) {
            bind(&mut args, "--ro-bind", path, path);
        }
    }
    for path in &policy.hidden {
        match path.symlink_metadata() {
            Ok(meta) if meta.is_dir() => {
                args.extend([OsString::from("--tmpfs"), path.clone().into_os_string()]);
                args.extend([
                    OsString::from("--remount-ro"),
                    path.clone().into_os_string(),
                ]);
            }
            Ok(_) => bind(&mut args, "--ro-bind", Path::new("/dev/null"), path),
            Err(_) => {}
        }
    }
    // The command starts in the caller's working folder (bubblewrap keeps it).
    args
}

fn bind(args: &mut Vec<OsString>, how: &str, source: &Path, target: &Path) {
    args.push(OsString::from(how));
    args.push(source.as_os_str().to_owned());
    args.push(target.as_os_str().to_owned());
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn text(args: &[OsString]) -> String {
        args.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn the_root_is_read_only_and_later_mounts_cover_earlier_ones() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("project");
        std::fs::create_dir_all(project.join(".git/hooks")).unwrap();
        std::fs::write(project.join(".git/config"), "").unwrap();
        let secret = dir.path().join("ssh");
        std::fs::create_dir(&secret).unwrap();
        let secret_file = dir.path().join("netrc");
        std::fs::write(&secret_file, "").unwrap();
        let policy = SandboxPolicy {
            writable: vec![project.clone()],
            read_only: vec![project.join(".git/hooks"), project.join(".git/config")],
            hidden: vec![
                secret.clone(),
                secret_file.clone(),
                PathBuf::from("/nonexistent/x"),
            ],
            network: false,
            temp_dir: dir.path().join("tmp"),
        };
        let line = text(&arguments(&policy));
        let p = project.display();
        let at = |needle: &str| {
            line.find(needle)
                .unwrap_or_else(|| panic!("{needle} in {line}"))
        };
        assert!(line.contains("--unshare-net"));
        assert!(at("--ro-bind / /") < at(&format!("--bind {p} {p}")));
        assert!(at(&format!("--bind {p} {p}")) < at(&format!("--ro-bind {p}/.git/hooks")));
        assert!(line.contains(&format!("--bind {p}/.git {p}/.git")));
        assert!(line.contains(&format!("--tmpfs {}", secret.display())));
        assert!(line.contains(&format!("--ro-bind /dev/null {}", secret_file.display())));
        assert!(!line.contains("nonexistent"));
        assert!(line.contains(&format!("--bind {}/tmp /tmp", dir.path().display())));
        let open = SandboxPolicy {
            network: true,
            ..policy
        };
        assert!(!text(&arguments(&open)).contains("--unshare-net"));
    }
}
