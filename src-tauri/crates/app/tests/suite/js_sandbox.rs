//! The `js` tool's helpers stay inside the project: `../`, absolute paths and links that lead
//! out are refused (reading and writing), the rest works; and a `js` call through a session
//! against the mock provider, with a limit hit and the next call fine.
#![cfg(unix)]

use crate::live;

use arbor_coding::skills::WorkspaceHost;
use arbor_js::Host;
use arbor_protocol::RunStatus;
use arbor_test_support::{Script, Turn};
use live::{run, Setup};
use serde_json::json;

#[test]
fn helpers_refuse_every_way_out_of_the_project() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "secret\n").unwrap();
    let project = tempfile::tempdir().unwrap();
    let root = project.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/a.txt"), "alpha\n").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), root.join("link.txt")).unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("out")).unwrap();
    std::os::unix::fs::symlink(root.join("src/a.txt"), root.join("inside-link.txt")).unwrap();
    let host = WorkspaceHost::new(root).unwrap();

    let secret = outside.path().join("secret.txt").display().to_string();
    for path in [
        "../secret.txt",
        "src/../../secret.txt",
        secret.as_str(),
        "/etc/passwd",
        "link.txt",
        "out/secret.txt",
        "",
    ] {
        let error = host.read(path).unwrap_err();
        assert!(error.0.contains("outside the project"), "{path}: {error}");
    }
    for path in [
        "../new.txt",
        "out/new.txt",
        "out/deeper/new.txt",
        "/tmp/new.txt",
    ] {
        let error = host.write(path, "x").unwrap_err();
        assert!(error.0.contains("outside the project"), "{path}: {error}");
    }
    assert!(!outside.path().join("new.txt").exists());
    std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
    for path in [".git/hooks/pre-commit", "src/.git/config"] {
        let error = host.write(path, "#!/bin/sh\n").unwrap_err();
        assert!(error.0.contains("inside .git"), "{path}: {error}");
    }
    assert!(!root.join(".git/hooks/pre-commit").exists());
    assert!(!outside.path().join("deeper").exists());
    assert!(host.ls("..").is_err());
    assert!(host.grep("secret", Some("out")).is_err());

    // Inside: fine, links that stay inside too.
    assert_eq!(host.read("src/a.txt").unwrap(), "alpha\n");
    assert_eq!(host.read("./inside-link.txt").unwrap(), "alpha\n");
    host.write("src/new/b.txt", "beta\n").unwrap();
    assert_eq!(
        std::fs::read_to_string(root.join("src/new/b.txt")).unwrap(),
        "beta\n"
    );
    assert_eq!(host.ls("src").unwrap(), ["a.txt", "new/"]);
    let hits = host.grep("beta", None).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!((hits[0].path.as_str(), hits[0].line), ("src/new/b.txt", 1));
    assert_eq!(host.find("*.txt").unwrap(), ["src/a.txt", "src/new/b.txt"]);
    assert!(host
        .read("src/missing.txt")
        .unwrap_err()
        .0
        .contains("no such file"));
    assert!(host
        .grep("(", None)
        .unwrap_err()
        .0
        .contains("invalid pattern"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_js_tool_runs_model_code_and_survives_its_limits() {
    let script = Script::new()
        .turn(Turn::stream().tool_call(
            "js",
            json!({"code": "const t = await read('a.txt'); await write('b.txt', t.toUpperCase()); \
                           console.log('done'); return (await ls('.')).length;"}),
        ))
        .turn(Turn::stream().tool_call("js", json!({"code": "while (true) {}"})))
        .turn(Turn::stream().tool_call("js", json!({"code": "return await read('../x');"})))
        .turn(Turn::stream().tool_call("js", json!({"code": "return 6 * 7;"})))
        .turn(Turn::text("Done."));
    let setup = Setup::new(script).await;
    std::fs::write(setup.project.path().join("a.txt"), "shout\n").unwrap();
    let session = setup.session_with_tools("plain", &["js"]);
    assert_eq!(run(&session, "go").await, RunStatus::Completed);
    let last = setup.mock.requests().last().unwrap().body.clone().unwrap();
    let results: Vec<String> = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(results[0], "done\n2");
    assert_eq!(
        std::fs::read_to_string(setup.project.path().join("b.txt")).unwrap(),
        "SHOUT\n"
    );
    assert!(results[1].contains("time limit"), "{results:?}");
    assert!(results[2].contains("outside the project"), "{results:?}");
    assert_eq!(results[3], "42");
}
