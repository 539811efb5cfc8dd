//! A decision that comes before `create_tool` waits for it is not lost.

use std::sync::{Arc, Mutex};

use arbor_protocol::CodingEvent;
use arbor_store::Store;

use crate::{Decision, ToolFiles, Toolbox};

const SKILL: &str = "---
name: shout
description: Shouts a file.
parameters:
  type: object
  properties:
    path: {type: string}
  required: [path]
entry: scripts/main.js
allowed-tools: read
---
# Shout
";

fn files() -> ToolFiles {
    ToolFiles::from([
        ("SKILL.md".to_owned(), SKILL.to_owned()),
        (
            "scripts/main.js".to_owned(),
            "return (await read(args.path)).toUpperCase();".to_owned(),
        ),
    ])
}

/// A toolbox whose front end answers each proposal from inside the announcement itself:
/// the quickest answer possible, before the proposing call can wait.
fn answering_at_once(
    answer: fn(&Toolbox, &str),
) -> (tempfile::TempDir, Arc<Toolbox>, Arc<Mutex<Vec<String>>>) {
    let dir = tempfile::tempdir().unwrap();
    let (data, workspace) = (dir.path().join("data"), dir.path().join("project"));
    std::fs::create_dir_all(&workspace).unwrap();
    let store = Store::open(&data).unwrap();
    let project = store.open_project(&workspace, None).unwrap();
    let toolbox = Toolbox::new(store, &workspace, &data, &project.id);
    toolbox.set_answerable(true);
    let announced = Arc::new(Mutex::new(Vec::new()));
    let (weak, seen) = (Arc::downgrade(&toolbox), announced.clone());
    toolbox.set_sink(Some(Arc::new(move |event: &CodingEvent| {
        if let CodingEvent::ApprovalRequested { approval_id, .. } = event {
            seen.lock().unwrap().push(approval_id.clone());
            answer(&weak.upgrade().unwrap(), approval_id);
        }
    })));
    (dir, toolbox, announced)
}

#[test]
fn an_approval_before_the_call_waits_reaches_it() {
    let (_dir, toolbox, announced) = answering_at_once(|toolbox, id| {
        toolbox.approve(id).unwrap();
    });
    let review = toolbox.propose("shout", files(), "louder", None).unwrap();
    assert_eq!(
        *announced.lock().unwrap(),
        std::slice::from_ref(&review.approval_id)
    );
    let mut decision = toolbox.wait_for(&review.approval_id);
    assert_eq!(decision.try_recv(), Ok(Decision::Approved));
}

#[test]
fn a_rejection_before_the_call_waits_reaches_it() {
    let (_dir, toolbox, _) = answering_at_once(|toolbox, id| {
        toolbox.reject(id, Some("not now")).unwrap();
    });
    let review = toolbox.propose("shout", files(), "louder", None).unwrap();
    let mut decision = toolbox.wait_for(&review.approval_id);
    assert_eq!(
        decision.try_recv(),
        Ok(Decision::Rejected(Some("not now".to_owned())))
    );
}
