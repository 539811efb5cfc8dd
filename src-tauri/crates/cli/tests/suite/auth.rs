//! `arbor auth`: keys into the real OS keychain (Secret Service under `with-keyring.sh`), where
//! each comes from, a key check against the mock (which checks the key it receives), removal,
//! and the bad inputs: no keychain reachable, an oversized key, a key given as an argument.

use crate::support;

use arbor_test_support::{MockProvider, Script, Turn};
use support::{write_mock_provider, Arbor};

const KEY: &str = "sk-mockai-auth-0123456789abcdef";

fn provider_line<'a>(list: &'a str, provider: &str) -> &'a str {
    list.lines()
        .find(|line| line.split_whitespace().next() == Some(provider))
        .unwrap_or_else(|| panic!("no line for {provider} in:\n{list}"))
}

#[tokio::test]
async fn a_key_set_from_stdin_lives_in_the_keychain_and_is_used_tested_and_removed() {
    let arbor = Arbor::new();
    let mock = MockProvider::start(
        Script::new()
            .turn(Turn::text("OK"))
            .turn(Turn::text("OK"))
            .require_api_key(KEY),
    )
    .await
    .unwrap();
    write_mock_provider(&arbor, &mock);

    let before = arbor.run(&["auth", "list"]).await;
    assert_eq!(before.status, 0, "{}", before.stderr);
    assert!(
        provider_line(&before.stdout, "mockai").contains("none (set MOCKAI_API_KEY"),
        "{}",
        before.stdout
    );

    let set = arbor
        .run_with_stdin(&["auth", "set", "mockai"], &format!("{KEY}\n"))
        .await;
    assert_eq!(set.status, 0, "{}", set.stderr);
    assert!(!set.stdout.contains(KEY) && !set.stderr.contains(KEY));

    let list = arbor.run(&["auth", "list"]).await;
    assert!(
        provider_line(&list.stdout, "mockai").ends_with("keychain"),
        "{}",
        list.stdout
    );
    let json = arbor.run(&["auth", "list", "--json"]).await;
    let parsed: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let row = parsed["providers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["provider"] == "mockai")
        .unwrap();
    assert_eq!(row["source"], "keychain");
    assert!(!json.stdout.contains(KEY) && !list.stdout.contains(KEY));

    let test = arbor.run(&["auth", "test", "mockai"]).await;
    assert_eq!(test.status, 0, "{}", test.stderr);
    assert_eq!(test.stdout.trim(), "mockai: the key works (mockai/m1)");
    let sent = mock.requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(
        sent[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );

    // A print run uses the keychain's key with no variable set.
    let run = arbor.run(&["-p", "hi", "--model", "mockai/m1"]).await;
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(run.stdout.trim(), "OK");

    let removed = arbor.run(&["auth", "remove", "mockai"]).await;
    assert_eq!(removed.status, 0, "{}", removed.stderr);
    assert_eq!(
        removed.stdout.trim(),
        "mockai: key removed from the OS keychain"
    );
    let again = arbor.run(&["auth", "remove", "mockai"]).await;
    assert_eq!(
        again.stdout.trim(),
        "mockai: the keychain had no key for it"
    );
    let after = arbor.run(&["auth", "list"]).await;
    let source = provider_line(&after.stdout, "mockai")
        .split_whitespace()
        .nth(1);
    assert_eq!(source, Some("none"), "{}", after.stdout);
}

#[tokio::test]
async fn a_wrong_key_fails_the_test_with_the_providers_error_class() {
    let arbor = Arbor::new();
    let mock = MockProvider::start(Script::new().require_api_key(KEY))
        .await
        .unwrap();
    write_mock_provider(&arbor, &mock);
    let set = arbor
        .run_with_stdin(&["auth", "set", "mockai"], "sk-wrong-key-000000")
        .await;
    assert_eq!(set.status, 0, "{}", set.stderr);
    let test = arbor.run(&["auth", "test", "mockai"]).await;
    assert_eq!(test.status, 1);
    assert!(
        test.stderr
            .contains("mockai: the key does not work (authentication, mockai/m1)"),
        "{}",
        test.stderr
    );
    assert!(!test.stderr.contains("sk-wrong-key-000000"));
    arbor.run(&["auth", "remove", "mockai"]).await;
}

#[tokio::test]
async fn bad_input_gets_a_clear_error_and_nothing_is_kept() {
    let arbor = Arbor::new();
    // A key as an argument would land in shell history and the process list: not accepted.
    let argument = arbor.run(&["auth", "set", "openai", "sk-in-argv"]).await;
    assert_eq!(argument.status, 2, "{}", argument.stderr);
    // An oversized key (a paste gone wrong).
    let huge = "k".repeat(3000);
    let oversized = arbor
        .run_with_stdin(&["auth", "set", "openai"], &huge)
        .await;
    assert_eq!(oversized.status, 1);
    assert!(
        oversized.stderr.contains("3000 bytes"),
        "{}",
        oversized.stderr
    );
    assert!(
        oversized.stderr.contains("at most 2560"),
        "{}",
        oversized.stderr
    );
    // Nothing on stdin.
    let empty = arbor.run_with_stdin(&["auth", "set", "openai"], "\n").await;
    assert_eq!(empty.status, 1);
    assert!(empty.stderr.contains("no key given"), "{}", empty.stderr);
    // An unknown provider.
    let unknown = arbor
        .run_with_stdin(&["auth", "set", "nope"], "sk-x-123456")
        .await;
    assert_eq!(unknown.status, 1);
    assert!(
        unknown.stderr.contains("unknown provider `nope`"),
        "{}",
        unknown.stderr
    );
    let list = arbor.run(&["auth", "list"]).await;
    assert!(
        provider_line(&list.stdout, "openai").contains("none"),
        "{}",
        list.stdout
    );
}

#[tokio::test]
async fn without_a_reachable_keychain_the_error_says_so_and_what_to_install() {
    let arbor = Arbor::new();
    let mut command = arbor.command();
    command
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/nonexistent/arbor-test-bus",
        )
        .args(["auth", "set", "openai"]);
    let run = arbor
        .run_command_with_stdin(command, "sk-nowhere-123456")
        .await;
    assert_eq!(run.status, 1, "{}", run.stdout);
    assert!(
        run.stderr.contains("no keychain is reachable"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("gnome-keyring"), "{}", run.stderr);
    assert!(!run.stderr.contains("sk-nowhere-123456"));

    let mut command = arbor.command();
    command
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/nonexistent/arbor-test-bus",
        )
        .args(["auth", "list"]);
    let list = arbor.run_command_with_stdin(command, "").await;
    assert_eq!(list.status, 0, "{}", list.stderr);
    assert!(
        list.stderr.contains("no keychain is reachable"),
        "{}",
        list.stderr
    );
}
