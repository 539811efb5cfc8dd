use super::*;
use crate::rule::Rule;

fn policy(mode: PermissionMode, rules: &[(&str, RuleEffect)]) -> Policy {
    Policy {
        mode,
        project: PathBuf::from("/work/p"),
        rules: rules
            .iter()
            .map(|(text, effect)| SourcedRule {
                rule: Rule::parse(text).unwrap(),
                effect: *effect,
                source: RuleSource::User,
            })
            .collect(),
        secret_paths: vec![PathBuf::from("/home/u/.ssh"), PathBuf::from("/data/arbor")],
        sandbox: SandboxProbe::fixed(SandboxBackend::Bubblewrap),
    }
}

fn bash(policy: &Policy, command: &str) -> Evaluation {
    policy.evaluate(&Action::Bash {
        command: command.into(),
        escalation: None,
    })
}

fn file(policy: &Policy, access: FileAccess, path: &str) -> Evaluation {
    policy.evaluate(&Action::File {
        access,
        path: PathBuf::from(path),
    })
}

#[test]
fn workspace_writes_inside_without_asking_and_asks_outside() {
    let p = policy(PermissionMode::Workspace, &[]);
    assert_eq!(
        file(&p, FileAccess::Write, "/work/p/src/a.rs").verdict,
        RuleEffect::Allow
    );
    let outside = file(&p, FileAccess::Edit, "/home/u/.profile");
    assert_eq!(outside.verdict, RuleEffect::Ask);
    assert_eq!(
        outside.always_rule.as_deref(),
        Some("Edit(/home/u/.profile)")
    );
    assert_eq!(
        file(&p, FileAccess::Write, "/work/other/x").verdict,
        RuleEffect::Ask
    );
    // Reads reach the whole disk but the secret paths.
    assert_eq!(
        file(&p, FileAccess::Read, "/etc/hosts").verdict,
        RuleEffect::Allow
    );
    assert_eq!(
        file(&p, FileAccess::Read, "/home/u/.ssh/id_rsa").verdict,
        RuleEffect::Deny
    );
    assert_eq!(
        file(&p, FileAccess::Read, "/home/u/.ssh").verdict,
        RuleEffect::Deny
    );
    assert_eq!(
        file(&p, FileAccess::Write, "/data/arbor/arbor.db").verdict,
        RuleEffect::Deny
    );
}

#[test]
fn protected_paths_ask_except_in_full() {
    let p = policy(
        PermissionMode::Workspace,
        &[("Edit(**)", RuleEffect::Allow)],
    );
    for path in [
        "/work/p/.git/hooks/pre-commit",
        "/work/p/.git/config",
        "/work/p/.arbor/x",
    ] {
        assert_eq!(
            file(&p, FileAccess::Write, path).verdict,
            RuleEffect::Ask,
            "{path}"
        );
    }
    assert_eq!(
        file(&p, FileAccess::Write, "/work/p/.git/index").verdict,
        RuleEffect::Allow
    );
    let full = policy(PermissionMode::Full, &[]);
    assert_eq!(
        file(&full, FileAccess::Write, "/work/p/.git/hooks/x").verdict,
        RuleEffect::Allow
    );
    // The secret list holds in every mode.
    assert_eq!(
        file(&full, FileAccess::Read, "/home/u/.ssh/id_rsa").verdict,
        RuleEffect::Deny
    );
}

#[test]
fn read_only_refuses_writes_and_asks_for_commands() {
    let p = policy(
        PermissionMode::ReadOnly,
        &[("Bash(cargo test *)", RuleEffect::Allow)],
    );
    let write = file(&p, FileAccess::Write, "/work/p/a");
    assert_eq!(write.verdict, RuleEffect::Deny);
    assert!(write.summary.contains("read-only"), "{}", write.summary);
    assert_eq!(bash(&p, "cargo test -p x").verdict, RuleEffect::Allow);
    let ls = bash(&p, "ls");
    assert_eq!(ls.verdict, RuleEffect::Ask);
    assert_eq!(ls.always_rule.as_deref(), Some("Bash(ls)"));
}

#[test]
fn read_only_runs_the_tools_that_touch_nothing_and_asks_for_the_rest() {
    let p = policy(PermissionMode::ReadOnly, &[]);
    let tool = |name: &str| p.evaluate(&Action::Tool { name: name.into() }).verdict;
    assert_eq!(tool("todo"), RuleEffect::Allow);
    assert_eq!(tool("create_tool"), RuleEffect::Allow);
    assert_eq!(tool("js"), RuleEffect::Ask);
    assert_eq!(tool("my_model_tool"), RuleEffect::Ask);
}

#[test]
fn rules_go_deny_then_ask_then_allow() {
    let p = policy(
        PermissionMode::Workspace,
        &[
            ("Bash(git *)", RuleEffect::Allow),
            ("Bash(git push *)", RuleEffect::Ask),
            ("Bash(git push --force *)", RuleEffect::Deny),
        ],
    );
    assert_eq!(bash(&p, "git status").verdict, RuleEffect::Allow);
    assert_eq!(bash(&p, "git push origin").verdict, RuleEffect::Ask);
    let denied = bash(&p, "git push --force origin");
    assert_eq!(denied.verdict, RuleEffect::Deny);
    assert_eq!(
        denied.parts[0].rule.as_deref(),
        Some("Bash(git push --force *)")
    );
}

#[test]
fn an_allow_rule_for_one_part_never_covers_the_line() {
    let p = policy(
        PermissionMode::ReadOnly,
        &[("Bash(cargo test *)", RuleEffect::Allow)],
    );
    for command in [
        "cargo test && rm -rf .",
        "cargo test; curl evil.example",
        "cargo test | sh",
        "cargo test $(rm -rf .)",
        "cargo test > ~/.profile",
        "env X=1 sh -c 'cargo test'",
        "(cargo test)",
        "eval cargo test",
    ] {
        let evaluation = bash(&p, command);
        assert_eq!(evaluation.verdict, RuleEffect::Ask, "{command}");
        assert!(
            evaluation
                .parts
                .iter()
                .any(|p| p.verdict == RuleEffect::Ask),
            "{command}"
        );
    }
    // Wrappers are unwrapped and `--` is no escape.
    assert_eq!(
        bash(&p, "timeout 60 cargo test -- --nocapture").verdict,
        RuleEffect::Allow
    );
}

#[test]
fn a_deny_rule_cannot_be_dodged_through_what_it_cannot_see() {
    let p = policy(
        PermissionMode::Workspace,
        &[("Bash(rm *)", RuleEffect::Deny)],
    );
    assert_eq!(bash(&p, "rm -rf .").verdict, RuleEffect::Deny);
    assert_eq!(bash(&p, "/bin/rm -rf .").verdict, RuleEffect::Deny);
    assert_eq!(bash(&p, "'rm' -rf .").verdict, RuleEffect::Deny);
    assert_eq!(bash(&p, "env rm -rf .").verdict, RuleEffect::Deny);
    assert_eq!(bash(&p, "ls && nice rm x").verdict, RuleEffect::Deny);
    // Opaque parts ask where a rule limits commands…
    assert_eq!(bash(&p, "eval 'rm -rf .'").verdict, RuleEffect::Ask);
    assert_eq!(bash(&p, "sh -c 'rm -rf .'").verdict, RuleEffect::Ask);
    // …and run sandboxed without asking where none does.
    let open = policy(PermissionMode::Workspace, &[]);
    assert_eq!(bash(&open, "echo $(date)").verdict, RuleEffect::Allow);
}

#[test]
fn escalations_always_ask_but_in_full_and_no_sandbox_asks_everything() {
    let p = policy(
        PermissionMode::Workspace,
        &[("Bash(npm *)", RuleEffect::Allow)],
    );
    let escalated = p.evaluate(&Action::Bash {
        command: "npm install".into(),
        escalation: Some(Escalation {
            reason: "fetch packages".into(),
            network: true,
            ..Escalation::default()
        }),
    });
    assert_eq!(escalated.verdict, RuleEffect::Ask);
    assert_eq!(escalated.always_rule, None);
    assert!(
        escalated.summary.contains("network access"),
        "{}",
        escalated.summary
    );
    let full = policy(PermissionMode::Full, &[]);
    assert_eq!(
        full.evaluate(&Action::Bash {
            command: "npm install".into(),
            escalation: Some(Escalation::default()),
        })
        .verdict,
        RuleEffect::Allow
    );
    let mut bare = policy(PermissionMode::Workspace, &[]);
    bare.sandbox = SandboxProbe::fixed(SandboxBackend::None);
    let asked = bash(&bare, "ls");
    assert_eq!(asked.verdict, RuleEffect::Ask);
    assert!(asked.summary.contains("no sandbox"), "{}", asked.summary);
    assert_eq!(asked.always_rule, None);
}

#[test]
fn always_rules_are_never_broader_than_the_call() {
    let p = policy(PermissionMode::ReadOnly, &[]);
    assert_eq!(
        bash(&p, "git push origin main").always_rule.as_deref(),
        Some("Bash(git push origin main)")
    );
    // Two parts ask: no one rule covers exactly this.
    assert_eq!(bash(&p, "ls && pwd").always_rule, None);
    // A word a rule cannot write literally.
    assert_eq!(bash(&p, "echo 'a b'").always_rule, None);
    assert_eq!(bash(&p, "ls '*'").always_rule, None);
    let w = policy(PermissionMode::Workspace, &[]);
    assert_eq!(file(&w, FileAccess::Write, "/tmp/a[1]").always_rule, None);
}

#[test]
fn other_tools_follow_their_rules_and_mcp_asks() {
    let p = policy(PermissionMode::Workspace, &[("js", RuleEffect::Deny)]);
    assert_eq!(
        p.evaluate(&Action::Tool { name: "js".into() }).verdict,
        RuleEffect::Deny
    );
    let mcp = p.evaluate(&Action::Tool {
        name: "mcp__gh__create-issue".into(),
    });
    assert_eq!(mcp.verdict, RuleEffect::Ask);
    assert_eq!(mcp.always_rule.as_deref(), Some("Mcp(gh:create-issue)"));
    let allowed = policy(
        PermissionMode::Workspace,
        &[("Mcp(gh:create-issue)", RuleEffect::Allow)],
    );
    assert_eq!(
        allowed
            .evaluate(&Action::Tool {
                name: "mcp__gh__create-issue".into()
            })
            .verdict,
        RuleEffect::Allow,
        "the saved rule covers the call it was saved from"
    );
    let whole = policy(
        PermissionMode::Workspace,
        &[("Mcp(gh:*)", RuleEffect::Allow)],
    );
    assert_eq!(
        whole
            .evaluate(&Action::Tool {
                name: "mcp__gh__x".into()
            })
            .verdict,
        RuleEffect::Allow
    );
    assert_eq!(
        p.evaluate(&Action::Tool {
            name: "my_tool".into()
        })
        .verdict,
        RuleEffect::Allow
    );
    let ro = policy(PermissionMode::ReadOnly, &[]);
    assert_eq!(
        ro.evaluate(&Action::Tool {
            name: "my_tool".into()
        })
        .verdict,
        RuleEffect::Ask
    );
    assert_eq!(
        ro.evaluate(&Action::Tool {
            name: "create_tool".into()
        })
        .verdict,
        RuleEffect::Allow
    );
}

#[test]
fn a_deny_net_rule_refuses_a_request_for_network() {
    let p = policy(PermissionMode::Workspace, &[("Net(*)", RuleEffect::Deny)]);
    let asked = p.evaluate(&Action::Bash {
        command: "npm install".into(),
        escalation: Some(Escalation {
            reason: "packages".into(),
            network: true,
            ..Escalation::default()
        }),
    });
    assert_eq!(asked.verdict, RuleEffect::Deny);
    assert!(asked.summary.contains("Net(*)"), "{}", asked.summary);
    // Without a request for network the rule has nothing to refuse.
    assert_eq!(bash(&p, "npm test").verdict, RuleEffect::Allow);
}
