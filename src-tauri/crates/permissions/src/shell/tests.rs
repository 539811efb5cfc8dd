use super::*;

fn texts(command: &str) -> Vec<(bool, String)> {
    split(command)
        .into_iter()
        .map(|part| match part {
            CommandPart::Simple { words, .. } => (
                true,
                words
                    .iter()
                    .map(|w| w.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            CommandPart::Opaque { text, .. } => (false, text),
        })
        .collect()
}

fn simple(words: &str) -> (bool, String) {
    (true, words.to_owned())
}

#[test]
fn lists_pipes_and_background_jobs_split_into_simple_commands() {
    assert_eq!(
        texts("cargo test && git push; ls | wc -l & echo 'a b'"),
        vec![
            simple("cargo test"),
            simple("git push"),
            simple("ls"),
            simple("wc -l"),
            simple("echo a b"),
        ]
    );
    assert_eq!(
        texts("false || rm -rf /"),
        vec![simple("false"), simple("rm -rf /")]
    );
}

#[test]
fn quotes_are_removed_and_wrappers_unwrapped() {
    assert_eq!(
        texts(r#"'git' "push" \-\-force"#),
        vec![simple("git push --force")]
    );
    assert_eq!(
        texts("env A=1 -u B timeout -s KILL 5 nice -n 3 git push"),
        vec![simple("git push")]
    );
    assert_eq!(
        texts("FOO=bar nohup time git push"),
        vec![simple("git push")]
    );
    assert_eq!(texts("command -- git push"), vec![simple("git push")]);
    assert_eq!(
        texts("cargo test 2>&1 >/dev/null"),
        vec![simple("cargo test")]
    );
}

#[test]
fn what_a_rule_cannot_see_through_is_opaque() {
    for command in [
        "echo $(cat ~/.ssh/id_rsa)",
        "echo `id`",
        "git push $REMOTE",
        "(git push)",
        "{ git push; }",
        "if true; then git push; fi",
        "for x in a; do git push; done",
        "f() { git push; }",
        "eval 'git push'",
        "sh -c 'git push'",
        "bash -lc 'git push'",
        "xargs rm < list",
        "find . -exec rm {} \\;",
        "find . -delete",
        "python3 -c 'import os'",
        "node -e 'process.exit()'",
        "perl -e 'print 1'",
        "awk '{print}' f",
        "git -c core.hooksPath=/tmp/h commit",
        "echo hi > ~/.profile",
        "cat <<EOF\nhi\nEOF",
        "diff <(ls a) <(ls b)",
        "echo $((1+2))",
        "$CMD push",
        "source ./env.sh",
        ". ./env.sh",
        "env -S 'git push'",
        "[[ -f x ]]",
        "echo 'unterminated",
    ] {
        let parts = split(command);
        assert!(
            parts
                .iter()
                .any(|p| matches!(p, CommandPart::Opaque { .. })),
            "{command}: {parts:?}"
        );
    }
}

#[test]
fn every_part_is_returned_even_after_an_opaque_one() {
    let parts = split("echo $(id) && git push");
    assert!(matches!(parts[0], CommandPart::Opaque { .. }));
    assert_eq!(parts[1].text(), "git push");
}

#[test]
fn globs_are_patterns_unless_quoted() {
    let parts = split("ls *.rs '*.md'");
    let CommandPart::Simple { words, .. } = &parts[0] else {
        panic!("{parts:?}");
    };
    assert!(words[1].pattern);
    assert!(!words[2].pattern);
}
