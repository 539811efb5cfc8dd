//! Runs a script confined by a policy with a chosen backend, the way the `bash` tool does.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use arbor_sandbox::{wrap, Backend, SandboxPolicy};

/// Both Linux backends with `helper` (the built one, or a copy an unprivileged user can run).
pub fn backends(helper: &Path) -> Vec<Backend> {
    vec![
        Backend::Bubblewrap {
            bwrap: PathBuf::from("/usr/bin/bwrap"),
            helper: helper.to_owned(),
        },
        Backend::Landlock {
            helper: helper.to_owned(),
        },
    ]
}

pub fn built_helper() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_arbor-sandbox"))
}

/// A project, a home with secrets and a place outside both, in a fresh folder.
pub struct Scene {
    pub root: tempfile::TempDir,
    pub project: PathBuf,
    pub home: PathBuf,
    pub outside: PathBuf,
    pub temp: PathBuf,
}

impl Scene {
    pub fn new() -> Self {
        // Not under /tmp: bubblewrap gives the command a private /tmp, which would hide
        // the scene itself and prove nothing. Not under the build folder either: an
        // unprivileged user must reach it.
        let root = tempfile::tempdir_in("/var/tmp").unwrap();
        let dir = root.path().canonicalize().unwrap();
        let project = dir.join("project");
        let home = dir.join("home");
        let outside = dir.join("outside");
        let temp = dir.join("private-tmp");
        for folder in [&project, &home.join(".ssh"), &outside, &temp] {
            std::fs::create_dir_all(folder).unwrap();
        }
        std::fs::write(home.join(".ssh/id_ed25519"), "PRIVATE KEY").unwrap();
        std::fs::write(home.join(".netrc"), "machine x password hunter2").unwrap();
        std::fs::write(outside.join("victim.txt"), "original").unwrap();
        let git = Command::new("git")
            .args(["init", "-q"])
            .current_dir(&project)
            .status()
            .unwrap();
        assert!(git.success());
        for (key, value) in [("user.email", "t@example.com"), ("user.name", "T")] {
            Command::new("git")
                .args(["config", key, value])
                .current_dir(&project)
                .status()
                .unwrap();
        }
        Self {
            root,
            project,
            home,
            outside,
            temp,
        }
    }

    pub fn policy(&self, network: bool) -> SandboxPolicy {
        SandboxPolicy {
            writable: vec![self.project.clone()],
            read_only: vec![
                self.project.join(".git/hooks"),
                self.project.join(".git/config"),
            ],
            hidden: vec![self.home.join(".ssh"), self.home.join(".netrc")],
            network,
            temp_dir: self.temp.clone(),
        }
    }

    /// Hands the scene to `user` (for the unprivileged runs).
    pub fn give_to(&self, user: &str) {
        let status = Command::new("chown")
            .args(["-R", &format!("{user}:{user}")])
            .arg(self.root.path())
            .status()
            .unwrap();
        assert!(status.success());
        // The folders above must let the user reach the scene.
        let mut dir = self.root.path().parent();
        while let Some(d) = dir {
            let _ = Command::new("chmod").arg("o+x").arg(d).status();
            dir = d.parent();
        }
    }
}

/// `bash -c script` in the project, confined; `as_user` runs the whole sandbox as that user.
pub fn run(
    backend: &Backend,
    scene: &Scene,
    network: bool,
    script: &str,
    as_user: Option<&str>,
) -> Output {
    let wrapped = wrap(
        backend,
        &scene.policy(network),
        "bash",
        &[OsString::from("-c"), OsString::from(script)],
    )
    .unwrap();
    let mut command = match as_user {
        Some(user) => {
            let mut c = Command::new("setpriv");
            c.args([
                &format!("--reuid={user}"),
                &format!("--regid={user}"),
                "--init-groups",
                "--reset-env",
                "--",
            ]);
            c.arg(&wrapped.program);
            c
        }
        None => Command::new(&wrapped.program),
    };
    command
        .args(&wrapped.args)
        .current_dir(&scene.project)
        .env("HOME", &scene.home)
        .stdin(Stdio::null());
    for name in &wrapped.remove_env {
        command.env_remove(name);
    }
    for (name, value) in &wrapped.set_env {
        command.env(name, value);
    }
    command.output().unwrap()
}

pub fn text(output: &Output) -> String {
    format!(
        "status {:?}\nstdout: {}\nstderr: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

pub fn exists(path: &Path) -> bool {
    path.symlink_metadata().is_ok()
}
