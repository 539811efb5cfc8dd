//! Two processes writing one session: each appends under its own last node.

use super::*;

/// Two `arbor -c` on one session: each appends under its own last node, so the second's turn
/// is a branch and the first's tool result stays under its own call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_writers_on_one_session_make_branches_not_a_weave() {
    let project = tempfile::tempdir().unwrap();
    let arbor = Arbor::new();
    let first = MockProvider::start(Script::new().turn(Turn::text("Hello.")))
        .await
        .unwrap();
    let out = run(&arbor, &args_with(&first, project.path(), &["-p", "start"])).await;
    assert_eq!(out.status, 0, "{}", out.stderr);
    let session = only_session(&arbor, project.path()).await;

    // Writer A: a bash call that takes a while, then an answer.
    let slow = MockProvider::start(
        Script::new()
            .turn(Turn::stream().tool_call("bash", json!({"command": "sleep 2; echo slow"})))
            .turn(Turn::text("A done.")),
    )
    .await
    .unwrap();
    let a_args = args_with(
        &slow,
        project.path(),
        &["--tools", "bash", "-c", "-p", "from A"],
    );
    let mut a = arbor.command();
    a.args(&a_args);
    let a = a.spawn().unwrap();
    // Once A's call is stored, writer B answers in between.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let nodes = tree(&arbor, &session).await;
        if nodes
            .iter()
            .any(|n| n["kind"] == "assistant" && n["first_line"] != "Hello.")
        {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "A's call never stored"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let quick = MockProvider::start(Script::new().turn(Turn::text("B done.")))
        .await
        .unwrap();
    let out = run(
        &arbor,
        &args_with(&quick, project.path(), &["-c", "-p", "from B"]),
    )
    .await;
    assert_eq!(out.status, 0, "{}", out.stderr);
    let a = a.wait_with_output().await.unwrap();
    let a_err = String::from_utf8_lossy(&a.stderr);
    assert!(a.status.success(), "{a_err}");
    assert!(
        a_err.contains("another window or terminal wrote"),
        "{a_err}"
    );

    let nodes = tree(&arbor, &session).await;
    let by_id = |id: &str| nodes.iter().find(|n| n["id"] == id).unwrap().clone();
    let parent_of = |node: &Value| by_id(node["parent_id"].as_str().unwrap());
    let find = |text: &str| {
        nodes
            .iter()
            .find(|n| n["first_line"].as_str().unwrap_or("").contains(text))
            .unwrap_or_else(|| panic!("no node {text:?} in {nodes:#?}"))
            .clone()
    };
    let result = nodes.iter().find(|n| n["kind"] == "tool_result").unwrap();
    let call = parent_of(result);
    assert_eq!(call["kind"], "assistant", "{nodes:#?}");
    assert_eq!(parent_of(&call)["first_line"], "from A");
    assert!(
        result["first_line"].as_str().unwrap().contains("slow"),
        "{result}"
    );
    assert_eq!(parent_of(&find("A done."))["id"], result["id"]);
    assert_eq!(parent_of(&find("B done."))["first_line"], "from B");
    // B's turn is a branch beside A's result, not inside A's chain.
    assert_ne!(parent_of(&find("from B"))["id"], result["id"]);
    assert!(!nodes.iter().any(|n| n["first_line"]
        .as_str()
        .unwrap_or("")
        .contains("interrupted")));
}
