//! The attack list of issue 22 §6, each checked on the host afterwards.

use std::io::Read;
use std::net::{TcpListener, UdpSocket};
use std::os::unix::net::UnixListener;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use arbor_sandbox::Backend;

use crate::harness::{backends, built_helper, exists, run, text, Scene};

type Check = Box<dyn Fn(&Scene, &Output) -> Result<(), String>>;

struct Attack {
    name: &'static str,
    network: bool,
    script: String,
    check: Check,
    /// Backends this attack is known to get through (documented gaps), by name.
    gets_through: &'static [&'static str],
}

fn unchanged_victim(scene: &Scene, _: &Output) -> Result<(), String> {
    let victim = std::fs::read_to_string(scene.outside.join("victim.txt")).unwrap_or_default();
    if victim != "original" {
        return Err(format!("the file outside was changed to {victim:?}"));
    }
    if exists(&scene.outside.join("new.txt")) {
        return Err("a file was created outside the project".into());
    }
    Ok(())
}

fn attacks(scene: &Scene) -> Vec<Attack> {
    let project = scene.project.display().to_string();
    let home = scene.home.display().to_string();
    let outside = scene.outside.display().to_string();
    vec![
        Attack {
            name: "write outside the project",
            network: false,
            script: format!("echo pwned > {outside}/victim.txt; echo new > {outside}/new.txt"),
            check: Box::new(unchanged_victim),
            gets_through: &[],
        },
        Attack {
            name: "write into HOME (~/.profile)",
            network: false,
            script: format!("echo 'export PATH=/tmp/evil:$PATH' >> {home}/.profile"),
            check: Box::new(|scene, _| {
                if exists(&scene.home.join(".profile")) {
                    Err("~/.profile was written".into())
                } else {
                    Ok(())
                }
            }),
            gets_through: &[],
        },
        Attack {
            name: "write through a symbolic link out of the project",
            network: false,
            script: format!(
                "ln -s {outside} link; echo pwned > link/victim.txt; \
                 ln -s {outside}/victim.txt l2; echo pwned > l2; echo new > link/new.txt"
            ),
            check: Box::new(unchanged_victim),
            gets_through: &[],
        },
        Attack {
            name: "write through a hard link out of the project",
            network: false,
            script: format!("ln {outside}/victim.txt hard; echo pwned > hard"),
            check: Box::new(unchanged_victim),
            gets_through: &[],
        },
        Attack {
            name: "read the secret paths (also encoded)",
            network: false,
            script: format!(
                "cat {home}/.ssh/id_ed25519; cat {home}/.netrc; base64 {home}/.ssh/id_ed25519; \
                 ls -la {home}/.ssh; grep -r . {home}"
            ),
            check: Box::new(|_, output| {
                let out = String::from_utf8_lossy(&output.stdout);
                for leak in ["PRIVATE KEY", "hunter2", "UFJJVkFURSBLRVk"] {
                    if out.contains(leak) {
                        return Err(format!("read {leak:?}"));
                    }
                }
                Ok(())
            }),
            gets_through: &[],
        },
        Attack {
            name: "read another process's environment through /proc",
            network: false,
            script: "cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -a 'sk-victim-marke[r]'"
                .into(),
            check: Box::new(|_, output| {
                if String::from_utf8_lossy(&output.stdout).contains("sk-victim-marker") {
                    Err("read the victim's key from /proc/<pid>/environ".into())
                } else {
                    Ok(())
                }
            }),
            gets_through: &[],
        },
        Attack {
            name: "see other processes' command lines through /proc",
            network: false,
            script: "cat /proc/*/cmdline 2>/dev/null | tr '\\0' '\\n' | grep -a 'victim-cmdline-marke[r]'"
                .into(),
            check: Box::new(|_, output| {
                if String::from_utf8_lossy(&output.stdout).contains("victim-cmdline-marker") {
                    Err("saw the victim's command line".into())
                } else {
                    Ok(())
                }
            }),
            // Without a PID namespace command lines stay world-readable (Arbor never puts a
            // secret on one).
            gets_through: &["landlock"],
        },
        Attack {
            name: "plant a git hook, core.hooksPath or core.fsmonitor",
            network: false,
            script: format!(
                "echo 'touch {outside}/hooked' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; \
                 git config core.hooksPath {outside}; git config core.fsmonitor 'touch {outside}/fsmon'; \
                 mv .git .git-moved; mkdir -p .git/hooks"
            ),
            check: Box::new(|scene, _| {
                let project = &scene.project;
                if exists(&project.join(".git/hooks/pre-commit")) {
                    return Err("a pre-commit hook was planted".into());
                }
                let config = std::fs::read_to_string(project.join(".git/config")).unwrap_or_default();
                if config.contains("hooksPath") || config.contains("fsmonitor") {
                    return Err(format!(".git/config was changed:\n{config}"));
                }
                if exists(&project.join(".git-moved")) {
                    return Err(".git was moved away".into());
                }
                Ok(())
            }),
            // Landlock only grants: it cannot keep a folder inside a writable one read-only.
            gets_through: &["landlock"],
        },
        Attack {
            name: "ptrace the parent",
            network: false,
            script: "python3 -c 'import ctypes,os; l=ctypes.CDLL(None); print(\"ptrace\", l.ptrace(0x4206, os.getppid(), 0, 0))'"
                .into(),
            check: Box::new(|_, output| {
                let out = String::from_utf8_lossy(&output.stdout);
                if out.contains("ptrace -1") {
                    Ok(())
                } else {
                    Err(format!("ptrace did not fail: {out}"))
                }
            }),
            gets_through: &[],
        },
        Attack {
            name: "a background process that outlives its call",
            network: false,
            script: format!("(sleep 1; echo late > {project}/late.txt) > /dev/null 2>&1 & disown; exit 0"),
            check: Box::new(|scene, _| {
                std::thread::sleep(Duration::from_millis(1800));
                if exists(&scene.project.join("late.txt")) {
                    Err("the background process ran after the call".into())
                } else {
                    Ok(())
                }
            }),
            // Without a PID namespace the `bash` tool kills the call's process group instead.
            gets_through: &["landlock"],
        },
    ]
}

/// A process outside the sandbox with a key in its environment and a marker on its command
/// line: what `/proc` must not give away.
/// Returns once the victim runs with both (right after `fork` its `/proc` entries still show
/// the test's own: an attack then would read nothing and prove nothing).
fn spawn_victim() -> std::process::Child {
    // `/bin/sh` by its path, and a script it cannot `exec` away: the victim is one process that
    // stays what it is. `python3` from PATH was a pyenv shim in CI, which `exec`s several times
    // on its way to Python; during each `exec` the process's `/proc` entries read empty, and an
    // attack in that window found nothing (the negative control failed twice).
    let child = Command::new("/bin/sh")
        .args(["-c", "sleep 30; :", "victim-cmdline-marker"])
        .env("ARBOR_FAKE_KEY", "sk-victim-marker")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let ready = |file: &str, marker: &str| {
        std::fs::read(format!("/proc/{}/{file}", child.id()))
            .is_ok_and(|bytes| String::from_utf8_lossy(&bytes).contains(marker))
    };
    while !(ready("environ", "sk-victim-marker") && ready("cmdline", "victim-cmdline-marker")) {
        assert!(
            std::time::Instant::now() < deadline,
            "the victim process did not start"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    child
}

fn run_attacks(backend: &Backend, as_user: Option<&str>) -> Vec<String> {
    let mut failures = Vec::new();
    let probe = Scene::new();
    let count = attacks(&probe).len();
    for index in 0..count {
        let scene = Scene::new();
        let helper = match as_user {
            Some(user) => {
                let copy = scene.root.path().join("arbor-sandbox");
                std::fs::copy(built_helper(), &copy).unwrap();
                scene.give_to(user);
                copy
            }
            None => built_helper(),
        };
        let backend = match backend {
            Backend::Bubblewrap { bwrap, .. } => Backend::Bubblewrap {
                bwrap: bwrap.clone(),
                helper,
            },
            Backend::Landlock { .. } => Backend::Landlock { helper },
            other => other.clone(),
        };
        let attack = attacks(&scene).remove(index);
        if attack.gets_through.contains(&backend.name()) {
            continue;
        }
        let mut victim = spawn_victim();
        let output = run(&backend, &scene, attack.network, &attack.script, as_user);
        let _ = victim.kill();
        let _ = victim.wait();
        if output.status.code() == Some(126) {
            failures.push(format!(
                "{}: {}: the sandbox did not start: {}",
                backend.name(),
                attack.name,
                text(&output)
            ));
            continue;
        }
        if let Err(problem) = (attack.check)(&scene, &output) {
            failures.push(format!(
                "{} / {}: {problem}\n{}",
                backend.name(),
                attack.name,
                text(&output)
            ));
        }
    }
    failures
}

#[test]
fn every_attack_fails_closed_under_each_backend() {
    let mut failures = Vec::new();
    for backend in backends(&built_helper()) {
        failures.extend(run_attacks(&backend, None));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// CI runs as root, which hides permission mistakes: the same attacks as a user with no
/// privileges (created here when the tests run as root).
#[test]
fn every_attack_fails_closed_as_an_unprivileged_user() {
    let user = if rustix_is_root() {
        const USER: &str = "arbor-sandbox-test";
        if Command::new("id")
            .arg(USER)
            .output()
            .map(|o| !o.status.success())
            .unwrap_or(true)
        {
            let made = Command::new("useradd")
                .args([
                    "--system",
                    "--no-create-home",
                    "--shell",
                    "/usr/sbin/nologin",
                    USER,
                ])
                .status()
                .unwrap();
            assert!(made.success(), "useradd {USER} failed");
        }
        Some(USER)
    } else {
        None
    };
    let mut failures = Vec::new();
    for backend in backends(&built_helper()) {
        failures.extend(run_attacks(&backend, user));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

fn rustix_is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

#[test]
fn tcp_and_udp_egress_reach_no_listener_on_the_host() {
    for backend in backends(&built_helper()) {
        let scene = Scene::new();
        let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
        tcp.set_nonblocking(true).unwrap();
        let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
        udp.set_read_timeout(Some(Duration::from_millis(300)))
            .unwrap();
        let (tcp_port, udp_port) = (
            tcp.local_addr().unwrap().port(),
            udp.local_addr().unwrap().port(),
        );
        let output = run(
            &backend,
            &scene,
            false,
            &format!(
                "echo hi > /dev/tcp/127.0.0.1/{tcp_port}; echo hi > /dev/udp/127.0.0.1/{udp_port}; \
                 python3 -c 'import socket; s=socket.socket(socket.AF_INET6); print(s)'"
            ),
            None,
        );
        assert!(
            tcp.accept().is_err(),
            "{}: a TCP connection reached the host\n{}",
            backend.name(),
            text(&output)
        );
        let mut buffer = [0u8; 16];
        assert!(
            udp.recv(&mut buffer).is_err(),
            "{}: a UDP packet reached the host",
            backend.name()
        );
        // The same with network granted does connect: the listener is real.
        let open = run(
            &backend,
            &scene,
            true,
            &format!("echo hi > /dev/tcp/127.0.0.1/{tcp_port}"),
            None,
        );
        std::thread::sleep(Duration::from_millis(100));
        let accepted = tcp.accept();
        assert!(
            accepted.is_ok(),
            "{}: with network the listener saw nothing\n{}",
            backend.name(),
            text(&open)
        );
    }
}

#[test]
fn unix_sockets_of_the_host_are_out_of_reach() {
    for backend in backends(&built_helper()) {
        let scene = Scene::new();
        // A path socket where a session bus could be, and an abstract one (D-Bus, X11).
        let path = scene.outside.join("bus.sock");
        let listener = UnixListener::bind(&path).unwrap();
        listener.set_nonblocking(true).unwrap();
        let output = run(
            &backend,
            &scene,
            false,
            &format!(
                "python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"{}\"); s.send(b\"hi\")'",
                path.display()
            ),
            None,
        );
        let got = listener.accept().map(|(mut stream, _)| {
            let mut text = String::new();
            let _ = stream.read_to_string(&mut text);
            text
        });
        assert!(
            got.is_err(),
            "{}: connected to a host socket\n{}",
            backend.name(),
            text(&output)
        );
    }
}

#[test]
fn the_project_and_the_private_temporary_folder_stay_usable_and_git_commit_works() {
    for backend in backends(&built_helper()) {
        let scene = Scene::new();
        let output = run(
            &backend,
            &scene,
            false,
            "set -e; echo data > \"$TMPDIR/scratch\"; cat \"$TMPDIR/scratch\"; echo x > f; \
             git add f; git commit -qm first; git branch topic; git log --oneline | wc -l",
            None,
        );
        assert!(
            output.status.success(),
            "{}: {}",
            backend.name(),
            text(&output)
        );
        let out = String::from_utf8_lossy(&output.stdout);
        assert!(out.starts_with("data\n1"), "{}: {out}", backend.name());
        assert!(Path::new(&scene.project.join("f")).exists());
    }
}

/// The checks are real: every attack, run without a sandbox, gets through and is seen.
#[test]
fn without_a_sandbox_every_attack_gets_through_and_the_checks_see_it() {
    let probe = Scene::new();
    for index in 0..attacks(&probe).len() {
        let scene = Scene::new();
        let attack = attacks(&scene).remove(index);
        let mut victim = spawn_victim();
        let output = Command::new("bash")
            .args(["-c", &attack.script])
            .current_dir(&scene.project)
            .env("HOME", &scene.home)
            .output()
            .unwrap();
        // What the victim looked like right after the attack: a failure here once in CI (the
        // command-line attack found nothing) could not be reproduced, so it says more next time.
        let victim_after = format!(
            "victim {} after the attack: exited {:?}, its /proc cmdline {:?}",
            victim.id(),
            victim.try_wait(),
            std::fs::read(format!("/proc/{}/cmdline", victim.id()))
                .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        );
        let _ = victim.kill();
        let _ = victim.wait();
        assert!(
            (attack.check)(&scene, &output).is_err(),
            "{}: the check saw nothing of an unconfined run\n{}\n{victim_after}",
            attack.name,
            text(&output)
        );
    }
}
