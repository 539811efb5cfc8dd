//! Ctrl+C always ends `arbor -p`: the first press stops the run (exit 130), a second ends the
//! process at once, whatever it is waiting for.

use super::*;

fn interrupt(child: &tokio::process::Child) {
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().unwrap().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_ends_a_print_run_that_waits_on_a_stalled_stream() {
    let project = tempfile::tempdir().unwrap();
    let arbor = Arbor::new();
    // A provider that sends one event and then nothing for a minute.
    let mock =
        MockProvider::start(Script::new().turn(Turn::text("never finished").stall_for(1, 60_000)))
            .await
            .unwrap();
    for presses in [1, 2] {
        let mut command = arbor.command();
        command.args(args_with(&mock, project.path(), &["-p", "wait"]));
        let mut child = command.spawn().unwrap();
        // Until the request is under way.
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while mock.requests().len() < presses {
            assert!(std::time::Instant::now() < deadline, "no request");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        for _ in 0..presses {
            interrupt(&child);
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
            .await
            .expect("arbor -p ended after Ctrl+C")
            .unwrap();
        assert_eq!(status.code(), Some(130), "{presses} press(es)");
        mock.push_turn(Turn::text("never finished").stall_for(1, 60_000));
    }
}
