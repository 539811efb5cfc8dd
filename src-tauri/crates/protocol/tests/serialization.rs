//! One serialized example of every event and command, snapshot-tested, plus round trips.

// Helpers outside `#[test]` functions may panic: a broken fixture should fail loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use arbor_llm::{
    Api, AssistantContent, AssistantEvent, AssistantMessage, ImageContent, JsonObject, LlmError,
    StopReason, TextContent, ThinkingLevel, ToolCall, ToolResultMessage, UserContent, UserMessage,
};
use arbor_protocol::views::permissions::{
    PermissionDecision, PermissionMode, PermissionPart, PermissionRequest, RuleEffect,
    RunConfinement,
};
use arbor_protocol::{
    AgentEvent, AgentMessage, CodingEvent, Command, CommandEnvelope, CompactionReason,
    CustomMessage, FilesMode, RunStatus, SessionEvent, ToolResult,
};
use serde_json::json;

fn args(value: serde_json::Value) -> JsonObject {
    value.as_object().cloned().unwrap()
}

fn assistant() -> AssistantMessage {
    let mut message = AssistantMessage::empty(Api::AnthropicMessages, "anthropic", "claude-x");
    message.content = vec![
        AssistantContent::Text(TextContent::new("Reading it.")),
        AssistantContent::ToolCall(ToolCall {
            id: "toolu_1".into(),
            name: "read".into(),
            arguments: args(json!({"path": "a.txt"})),
            thought_signature: None,
            item_id: None,
        }),
    ];
    message.stop_reason = StopReason::ToolUse;
    message
}

fn tool_result() -> ToolResultMessage {
    ToolResultMessage {
        tool_call_id: "toolu_1".into(),
        tool_name: "read".into(),
        content: vec![UserContent::Text(TextContent::new("     1\thello"))],
        is_error: false,
        details: Some(json!({"lines": 1})),
    }
}

fn every_event() -> Vec<AgentEvent> {
    let user = AgentMessage::User(UserMessage::text("Read a.txt"));
    vec![
        AgentEvent::AgentStart,
        AgentEvent::TurnStart,
        AgentEvent::MessageStart {
            message: user.clone(),
        },
        AgentEvent::MessageEnd { message: user },
        AgentEvent::MessageUpdate {
            delta: AssistantEvent::TextDelta {
                content_index: 0,
                delta: "Read".into(),
            },
        },
        AgentEvent::ToolExecutionStart {
            tool_call_id: "toolu_1".into(),
            tool_name: "read".into(),
            args: args(json!({"path": "a.txt"})),
        },
        AgentEvent::ToolExecutionUpdate {
            tool_call_id: "toolu_1".into(),
            tool_name: "read".into(),
            output: "partial output\n".into(),
        },
        AgentEvent::ToolExecutionEnd {
            tool_call_id: "toolu_1".into(),
            tool_name: "read".into(),
            result: ToolResult::from(&tool_result()),
            is_error: false,
        },
        AgentEvent::TurnEnd {
            message: assistant(),
            tool_results: vec![tool_result()],
        },
        AgentEvent::AgentEnd {
            messages: vec![
                AgentMessage::Assistant(assistant()),
                AgentMessage::ToolResult(tool_result()),
                AgentMessage::Custom(CustomMessage {
                    kind: "notice".into(),
                    data: json!({"text": "compacted"}),
                }),
            ],
            status: RunStatus::Failed,
            error: Some(LlmError::Overloaded {
                status: Some(529),
                message: "Overloaded".into(),
            }),
        },
    ]
}

fn every_command() -> Vec<Command> {
    vec![
        Command::Prompt {
            message: "What is in this picture?".into(),
            images: vec![ImageContent {
                data: "iVBORw0KGgo=".into(),
                mime_type: "image/png".into(),
            }],
            documents: vec![],
        },
        Command::Steer {
            message: "Stop, use the other file".into(),
        },
        Command::FollowUp {
            message: "Then run the tests".into(),
        },
        Command::Abort,
        Command::GetState,
        Command::GetMessages,
        Command::SetModel {
            model: "gpt-5".into(),
            provider: Some("openai".into()),
        },
        Command::SetThinkingLevel {
            level: ThinkingLevel::High,
        },
        Command::NewSession,
        Command::GetTree,
        Command::Navigate {
            node_id: "a1b2".into(),
            summarize: true,
            files: FilesMode::Restore,
            overwrite: true,
        },
        Command::PreviewRestore {
            node_id: "a1b2".into(),
        },
        Command::UndoRestore { overwrite: false },
        Command::DiffNodes {
            from: "a1b2".into(),
            to: "c3d4".into(),
        },
        Command::ListTools,
        Command::ApproveTool {
            approval_id: "0199".into(),
        },
        Command::RejectTool {
            approval_id: "0199".into(),
            reason: Some("use wc".into()),
        },
        Command::RevokeTool {
            name: "word-count".into(),
        },
        Command::ToolHistory { name: None },
        Command::Compact {
            focus: Some("the failing tests".into()),
        },
        Command::Export {
            format: Some("markdown".into()),
            scope: Some("branch".into()),
            path: Some("notes/session.md".into()),
        },
        Command::Label {
            node_id: "a1b2".into(),
            label: Some("before the refactor".into()),
        },
        Command::Fork {
            node_id: Some("a1b2".into()),
        },
        Command::SwitchSession {
            session_id: "s-42".into(),
        },
        Command::ListSessions { all: true },
        Command::Regenerate,
        Command::RenameSession {
            title: "Fix the parser".into(),
        },
        Command::AnswerPermission {
            request_id: "p-1".into(),
            decision: PermissionDecision::AllowSession,
            reason: None,
        },
        Command::AnswerElicitation {
            request_id: "elicitation-1".into(),
            action: arbor_protocol::views::elicitation::ElicitationAction::Accept,
            content: serde_json::json!({"age": 36}).as_object().cloned(),
        },
        Command::GetPermissions,
        Command::SetPermissionMode {
            mode: PermissionMode::ReadOnly,
        },
    ]
}

#[test]
fn every_event_serializes_as_documented() {
    let events = every_event();
    let kinds: Vec<&str> = events.iter().map(AgentEvent::kind).collect();
    assert_eq!(
        kinds,
        [
            "agent_start",
            "turn_start",
            "message_start",
            "message_end",
            "message_update",
            "tool_execution_start",
            "tool_execution_update",
            "tool_execution_end",
            "turn_end",
            "agent_end"
        ]
    );
    for event in &events {
        let value = serde_json::to_value(event).unwrap();
        assert_eq!(value["type"], event.kind());
        let back: AgentEvent = serde_json::from_value(value).unwrap();
        assert_eq!(&back, event);
    }
    insta::assert_json_snapshot!("events", events);
}

#[test]
fn every_command_serializes_as_documented() {
    let commands = every_command();
    let kinds: Vec<&str> = commands.iter().map(Command::kind).collect();
    assert_eq!(kinds, Command::KINDS);
    for command in &commands {
        let value = serde_json::to_value(command).unwrap();
        assert_eq!(value["type"], command.kind());
        let back: Command = serde_json::from_value(value).unwrap();
        assert_eq!(&back, command);
    }
    insta::assert_json_snapshot!("commands", commands);
}

#[test]
fn commands_parse_from_the_json_lines_front_ends_send() {
    let prompt: Command = serde_json::from_str(r#"{"type":"prompt","message":"hi"}"#).unwrap();
    assert_eq!(
        prompt,
        Command::Prompt {
            message: "hi".into(),
            images: vec![],
            documents: vec![],
        }
    );
    let abort: Command = serde_json::from_str(r#"{"type":"abort"}"#).unwrap();
    assert_eq!(abort, Command::Abort);
    let envelope: CommandEnvelope =
        serde_json::from_str(r#"{"id":"7","type":"follow_up","message":"more"}"#).unwrap();
    assert_eq!(envelope.id, Some(json!("7")));
    assert_eq!(
        envelope.command,
        Command::FollowUp {
            message: "more".into()
        }
    );
    assert!(serde_json::from_str::<Command>(r#"{"type":"dance"}"#).is_err());
    // An RPC id may be any JSON value, echoed as it came.
    for id in [json!(7), json!({"seq": 3}), json!(null)] {
        let line = json!({"id": id, "type": "get_tree"}).to_string();
        let envelope: CommandEnvelope = serde_json::from_str(&line).unwrap();
        assert_eq!(envelope.command, Command::GetTree);
        assert_eq!(envelope.id.unwrap_or(json!(null)), id);
    }
    let navigate: Command = serde_json::from_str(r#"{"type":"navigate","node_id":"ab"}"#).unwrap();
    assert_eq!(
        navigate,
        Command::Navigate {
            node_id: "ab".into(),
            summarize: false,
            files: FilesMode::Keep,
            overwrite: false,
        }
    );
    let restore: Command =
        serde_json::from_str(r#"{"type":"navigate","node_id":"ab","files":"restore"}"#).unwrap();
    assert!(matches!(
        restore,
        Command::Navigate {
            files: FilesMode::Restore,
            overwrite: false,
            ..
        }
    ));
    let bad =
        serde_json::from_str::<Command>(r#"{"type":"navigate","node_id":"ab","files":"all"}"#);
    assert!(bad.unwrap_err().to_string().contains("unknown variant"));
}

#[test]
fn coding_events_share_the_session_stream_flat() {
    let events = vec![
        SessionEvent::Agent(AgentEvent::AgentStart),
        SessionEvent::Coding(CodingEvent::NodeAppended {
            node_id: "n1".into(),
            parent_id: None,
            session_id: "s1".into(),
            sibling_ids: None,
            node: None,
        }),
        // As a live session sends it: with its siblings and its tree view.
        SessionEvent::Coding(CodingEvent::NodeAppended {
            node_id: "a2".into(),
            parent_id: Some("u1".into()),
            session_id: "s1".into(),
            sibling_ids: Some(vec!["a1".into(), "a2".into()]),
            node: Some(arbor_protocol::views::branch::TreeNodeView {
                id: "a2".into(),
                parent_id: Some("u1".into()),
                kind: arbor_protocol::views::branch::NodeKind::Assistant,
                first_line: "Done: the test passes.".into(),
                label: None,
                aborted: false,
                tokens: 1200,
                cost: 0.0042,
                files: vec![arbor_protocol::views::code::FileChange {
                    path: "src/lib.rs".into(),
                    old_path: None,
                    status: arbor_protocol::views::code::ChangeStatus::Modified,
                    added: 3,
                    removed: 1,
                    binary: false,
                }],
            }),
        }),
        SessionEvent::Coding(CodingEvent::PermissionRequested {
            request: PermissionRequest {
                request_id: "p-1".into(),
                tool_call_id: "toolu_9".into(),
                tool_name: "bash".into(),
                mode: PermissionMode::ReadOnly,
                summary: "a command no allow rule covers".into(),
                command: Some("cargo test && git push".into()),
                target: None,
                parts: vec![
                    PermissionPart {
                        text: "cargo test".into(),
                        verdict: RuleEffect::Allow,
                        rule: Some("Bash(cargo test *)".into()),
                        why: "allowed by a rule".into(),
                    },
                    PermissionPart {
                        text: "git push".into(),
                        verdict: RuleEffect::Ask,
                        rule: None,
                        why: "no allow rule covers it".into(),
                    },
                ],
                confinement: Some(RunConfinement {
                    sandboxed: true,
                    text: "sandboxed: nothing writable but a private temporary folder, no network"
                        .into(),
                }),
                reason: None,
                diff: None,
                arguments: None,
                always_rule: None,
            },
        }),
        SessionEvent::Coding(CodingEvent::PermissionResolved {
            request_id: "p-1".into(),
            decision: PermissionDecision::Deny,
        }),
        SessionEvent::Coding(CodingEvent::PermissionModeChanged {
            mode: PermissionMode::Workspace,
        }),
        SessionEvent::Coding(CodingEvent::CompactionStart {
            reason: CompactionReason::Manual,
        }),
        SessionEvent::Coding(CodingEvent::CompactionEnd {
            reason: CompactionReason::Threshold,
            tokens_before: 120_000,
            tokens_after: Some(18_000),
            summary: Some("## Goal".into()),
            node_id: Some("n9".into()),
            error: None,
        }),
    ];
    for event in &events {
        let value = serde_json::to_value(event).unwrap();
        assert!(value["type"].is_string(), "{value}");
        let back: SessionEvent = serde_json::from_value(value).unwrap();
        assert_eq!(&back, event);
    }
    insta::assert_json_snapshot!("session_events", events);
}

#[test]
fn agent_messages_serialize_like_llm_messages() {
    let llm = arbor_llm::Message::ToolResult(tool_result());
    let agent = AgentMessage::from(llm.clone());
    assert_eq!(
        serde_json::to_value(&agent).unwrap(),
        serde_json::to_value(&llm).unwrap()
    );
    assert_eq!(agent.as_llm(), Some(llm));
    assert_eq!(agent.role(), "tool_result");
    let custom = AgentMessage::Custom(CustomMessage {
        kind: "notice".into(),
        data: json!(1),
    });
    assert_eq!(serde_json::to_value(&custom).unwrap()["role"], "custom");
    assert_eq!(custom.as_llm(), None);
}
