//! What the desktop composer and its panels ask of a live session: plan mode, queued messages
//! taken back, the project's files (`@` finder, files panel, preview, mentions) behind the same
//! walls as the tools, and the project's own prompt.

use std::time::Duration;

use arbor_app::views::files::PreviewKind;
use arbor_app::views::permissions::PermissionMode;
use arbor_protocol::RunStatus;
use arbor_test_support::{Script, Turn};
use serde_json::json;

use crate::live::{run, Setup};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_mode_runs_read_only_with_the_plan_instruction_and_build_puts_the_mode_back() {
    let script = Script::new()
        .turn(Turn::stream().tool_call("write", json!({"path": "a.txt", "content": "x"})))
        .turn(Turn::stream().text("Plan: 1. change a.txt"))
        .turn(Turn::stream().text("Done."));
    let setup = Setup::new(script).await;
    let session = setup.session("plain");
    let before = session.permissions_view().mode;
    assert!(session.set_plan_mode(true));
    assert!(session.plan_mode());
    assert!(session.session_state().plan_mode);
    assert_eq!(session.permissions_view().mode, PermissionMode::ReadOnly);

    // The model tries to write while planning: refused by the read-only mode, nothing written.
    assert_eq!(run(&session, "plan the change").await, RunStatus::Completed);
    assert!(!setup.project.path().join("a.txt").exists());
    let sent = setup.mock.requests();
    let system = sent[0].body.as_ref().unwrap()["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(system.starts_with("You are a test agent."), "{system}");
    assert!(system.contains("# Plan mode"), "{system}");
    assert!(
        sent[1].body_text.contains("read-only"),
        "the refusal reaches the model"
    );

    // Build: the mode the session had, and the prompt without the plan instruction.
    assert!(!session.set_plan_mode(false));
    assert_eq!(session.permissions_view().mode, before);
    assert_eq!(
        run(&session, "Implement the plan.").await,
        RunStatus::Completed
    );
    let last = setup.mock.requests().last().unwrap().body.clone().unwrap();
    let system = last["messages"][0]["content"].as_str().unwrap();
    assert!(!system.contains("Plan mode"), "{system}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_queued_message_can_be_taken_back_and_stop_gives_back_what_was_not_delivered() {
    // The first answer stalls long enough to queue behind it.
    let script = Script::new().turn(Turn::stream().text("Working on it").stall_for(1, 5_000));
    let setup = Setup::new(script).await;
    let session = setup.session("plain");
    let running = session.start_prompt("start".into(), Vec::new()).unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    session.steer("first steer".into());
    session.follow_up("then this".into());
    session.follow_up("and this".into());
    assert!(session.unqueue(true, "then this"));
    assert!(!session.unqueue(true, "then this"), "only once");
    assert!(
        !session.unqueue(false, "and this"),
        "a follow-up is not a steer"
    );
    let stopped = session.abort();
    assert_eq!(stopped.undelivered, ["first steer", "and this"]);
    let _ = running.await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_files_panel_and_mentions_keep_the_tools_walls() {
    let setup = Setup::new(Script::new()).await;
    let root = setup.project.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(root.join(".gitignore"), "build/\n").unwrap();
    std::fs::create_dir_all(root.join("build")).unwrap();
    std::fs::write(root.join("build/out.o"), "o").unwrap();
    let session = setup.session("plain");

    let found = session.find_files("mainrs", 10);
    assert_eq!(found[0].path, "src/main.rs");
    assert!(
        session.find_files("out.o", 10).is_empty(),
        "ignored files are not offered"
    );

    let top = session.list_folder("").unwrap();
    let build = top.entries.iter().find(|e| e.name == "build").unwrap();
    assert!(build.ignored && build.is_dir);
    let preview = session.preview_file("src/main.rs").unwrap();
    assert_eq!(preview.kind, PreviewKind::Text);
    assert_eq!(preview.text.as_deref(), Some("fn main() {}\n"));
    assert_eq!(
        session.preview_file("../x").unwrap_err().code(),
        "invalid_path"
    );

    let mention = session.mention_file("src/main.rs").unwrap();
    assert_eq!(mention.text, "[src/main.rs: file, 1 line]\nfn main() {}\n");
    assert_eq!(
        (mention.label.as_str(), mention.part_name.as_str()),
        ("file", "line")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_path_in_the_project_is_neither_listed_shown_nor_mentioned() {
    let setup = Setup::new(Script::new()).await;
    let root = setup.project.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("keys")).unwrap();
    std::fs::write(root.join("keys/id_ed25519"), "PRIVATE KEY").unwrap();
    std::fs::write(root.join("a.txt"), "a").unwrap();
    setup
        .app
        .set_secret_paths(vec![root.join("keys").display().to_string()])
        .unwrap();
    let mut session = setup.session("plain");
    session.apply_permission_setup(
        setup
            .app
            .permission_setup(&root, &Default::default())
            .unwrap(),
    );
    let top = session.list_folder("").unwrap();
    assert!(
        top.entries.iter().all(|e| e.name != "keys"),
        "{:?}",
        top.entries
    );
    for refused in [
        session.preview_file("keys/id_ed25519").unwrap_err(),
        session.mention_file("keys/id_ed25519").unwrap_err(),
    ] {
        assert!(refused.to_string().contains("secret path"), "{refused}");
    }
    let _ = &mut session;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_key_in_a_project_file_is_redacted_and_links_out_are_refused() {
    let setup = Setup::new(Script::new()).await;
    let root = setup.project.path();
    std::fs::write(
        root.join("notes.txt"),
        format!("key={}\n", crate::live::KEY),
    )
    .unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "outside the project").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outside.path().join("secret.txt"), root.join("link.txt"))
            .unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("elsewhere")).unwrap();
    }
    let session = setup.session("plain");

    // The key the session uses never reaches the webview through a preview or a mention.
    let preview = session.preview_file("notes.txt").unwrap();
    let shown = preview.text.unwrap();
    assert!(!shown.contains(crate::live::KEY), "{shown}");
    assert!(shown.contains("[redacted]"), "{shown}");
    let mention = session.mention_file("notes.txt").unwrap();
    assert!(!mention.text.contains(crate::live::KEY), "{}", mention.text);

    #[cfg(unix)]
    {
        for path in ["link.txt", "elsewhere/secret.txt"] {
            let preview = session.preview_file(path).unwrap_err();
            assert_eq!(preview.code(), "invalid_path", "{path}: {preview}");
            let mention = session.mention_file(path).unwrap_err();
            assert_eq!(mention.code(), "invalid_path", "{path}: {mention}");
        }
        assert_eq!(
            session.list_folder("elsewhere").unwrap_err().code(),
            "invalid_path"
        );
        // The finder does not follow the link out either.
        assert!(session.find_files("secret", 10).is_empty());

        // A FIFO is refused before it is opened (reading one would block for ever).
        let made = std::process::Command::new("mkfifo")
            .arg(root.join("pipe"))
            .status()
            .unwrap();
        assert!(made.success());
        let started = std::time::Instant::now();
        for refused in [
            session.mention_file("pipe").unwrap_err(),
            session.preview_file("pipe").unwrap_err(),
        ] {
            assert!(
                refused.to_string().contains("not a regular file"),
                "{refused}"
            );
        }
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    // A huge file is refused by its size, not read whole first.
    let huge = std::fs::File::create(root.join("huge.log")).unwrap();
    huge.set_len(30 * 1024 * 1024).unwrap();
    let error = session.mention_file("huge.log").unwrap_err();
    assert_eq!(error.code(), "document_too_large", "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_project_prompt_is_kept_for_the_project_and_capped() {
    let setup = Setup::new(Script::new()).await;
    let root = setup.project.path();
    assert_eq!(setup.app.project_prompt(root).unwrap(), None);
    setup
        .app
        .set_project_prompt(root, "Answer in British English.")
        .unwrap();
    assert_eq!(
        setup.app.project_prompt(root).unwrap().as_deref(),
        Some("Answer in British English.")
    );
    let long = "x".repeat(20_001);
    let error = setup.app.set_project_prompt(root, &long).unwrap_err();
    assert!(error.to_string().contains("shorten it"), "{error}");
    setup.app.set_project_prompt(root, "").unwrap();
    assert_eq!(setup.app.project_prompt(root).unwrap(), None);
}
