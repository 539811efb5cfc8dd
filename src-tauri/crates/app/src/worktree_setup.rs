//! A project's worktree setup command: `setup = "npm ci"` in `.arbor/worktree.toml`, run in
//! every new worktree — in the OS sandbox (the worktree writable, secrets hidden, the network
//! open, since installing dependencies needs it), without provider keys in its environment,
//! with its output handed over line by line. A repository's file is untrusted: the command
//! runs only once the user approved this exact text, pinned by its hash; a changed command
//! asks again.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use arbor_protocol::views::worktrees::{SetupOutcome, WorktreeSetup};
use sha2::{Digest, Sha256};

use crate::{AppError, ArborApp};

/// The project file that names the setup command.
pub const WORKTREE_CONFIG: &str = ".arbor/worktree.toml";

/// Longest a setup command may run.
pub const SETUP_TIMEOUT: Duration = Duration::from_secs(30 * 60);

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WorktreeConfig {
    setup: Option<String>,
}

fn hash_of(command: &str) -> String {
    let digest = Sha256::digest(command.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The setup command of the main checkout at `main_root`, if it names one.
fn read_command(main_root: &Path) -> Result<Option<String>, AppError> {
    let file = main_root.join(WORKTREE_CONFIG);
    let text = match std::fs::read_to_string(&file) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(AppError::WorktreeConfig(error.to_string())),
    };
    let config: WorktreeConfig =
        toml::from_str(&text).map_err(|error| AppError::WorktreeConfig(error.to_string()))?;
    Ok(config
        .setup
        .map(|c| c.trim().to_owned())
        .filter(|c| !c.is_empty()))
}

impl ArborApp {
    /// The project's setup command and whether it is approved.
    pub fn worktree_setup(&self, root: &Path) -> Result<Option<WorktreeSetup>, AppError> {
        let main = self.main_project(root)?;
        let Some(command) = read_command(Path::new(&main.root))? else {
            return Ok(None);
        };
        let hash = hash_of(&command);
        let approved = self.store().setup_approved(&main.id, &hash)?;
        Ok(Some(WorktreeSetup {
            command,
            hash,
            approved,
        }))
    }

    /// Approves the setup command whose hash is `hash` — only if that is the command the
    /// project names now (an approval never covers a text the user was not shown).
    pub fn approve_worktree_setup(
        &self,
        root: &Path,
        hash: &str,
    ) -> Result<WorktreeSetup, AppError> {
        let main = self.main_project(root)?;
        let setup = self
            .worktree_setup(root)?
            .ok_or_else(|| AppError::WorktreeConfig("the project names no setup command".into()))?;
        if setup.hash != hash {
            return Err(AppError::SetupNotApproved(setup.command));
        }
        self.store().approve_setup(&main.id, hash)?;
        Ok(WorktreeSetup {
            approved: true,
            ..setup
        })
    }

    /// Runs the approved setup command in the worktree `name`, each line of its output (stdout
    /// and stderr together) handed to `on_line`. Refused while the command is not approved.
    pub fn run_worktree_setup(
        &self,
        root: &Path,
        name: &str,
        on_line: &mut dyn FnMut(&str),
    ) -> Result<SetupOutcome, AppError> {
        let worktree = self.worktree(root, name)?;
        if worktree.is_archived() {
            return Err(AppError::WorktreeArchived(name.to_owned()));
        }
        let setup = self
            .worktree_setup(root)?
            .ok_or_else(|| AppError::WorktreeConfig("the project names no setup command".into()))?;
        if !setup.approved {
            return Err(AppError::SetupNotApproved(setup.command));
        }
        let permissions = crate::permissions::load_setup_in(
            &self.data_dir,
            &worktree.path,
            &crate::permissions::PermissionOverrides::default(),
        )?;
        let temp = tempfile::Builder::new()
            .prefix("arbor-setup-tmp-")
            .tempdir()
            .map_err(|error| AppError::Unsupported(format!("no temporary folder: {error}")))?;
        let policy = arbor_sandbox::SandboxPolicy {
            writable: vec![worktree.path.clone()],
            read_only: arbor_permissions::paths::protected_paths(&worktree.path),
            hidden: permissions.policy.secret_paths.clone(),
            network: true,
            temp_dir: temp.path().to_owned(),
        };
        let backend = arbor_sandbox::detect().backend;
        let script = format!("exec 2>&1\n{}", setup.command);
        // Fails closed: the user approved the command to run in the sandbox, and what it runs
        // (a dependency's install scripts) comes from the repository.
        let wrapped = arbor_sandbox::wrap(&backend, &policy, "bash", &["-c".into(), script.into()])
            .map_err(|error| {
                AppError::Unsupported(format!(
                    "the setup command was not run: {error}; run it yourself in {} if you trust it",
                    worktree.path.display()
                ))
            })?;
        let mut command = Command::new(&wrapped.program);
        command.args(&wrapped.args);
        for name in &wrapped.remove_env {
            command.env_remove(name);
        }
        for (name, value) in &wrapped.set_env {
            command.env(name, value);
        }
        let sandboxed = true;
        for variable in self.tool_environment(&[]).withheld() {
            command.env_remove(variable);
        }
        command
            .current_dir(&worktree.path)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = command.spawn().map_err(|error| {
            AppError::Unsupported(format!("cannot start the setup command: {error}"))
        })?;
        let (lines, received) = mpsc::channel::<String>();
        if let Some(stdout) = child.stdout.take() {
            std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    if lines.send(line).is_err() {
                        break;
                    }
                }
            });
        }
        let deadline = Instant::now() + SETUP_TIMEOUT;
        let mut timed_out = false;
        loop {
            match received.recv_timeout(Duration::from_millis(100)) {
                Ok(line) => on_line(&line),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            if Instant::now() > deadline {
                timed_out = true;
                let _ = child.kill();
                break;
            }
        }
        let status = child
            .wait()
            .map_err(|error| AppError::Unsupported(format!("the setup command: {error}")))?;
        Ok(SetupOutcome {
            command: setup.command,
            exit_code: if timed_out { None } else { status.code() },
            timed_out,
            sandboxed,
        })
    }
}
