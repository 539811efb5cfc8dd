//! MCP servers' questions at the terminal (elicitation): the form as the interactive mode
//! prints it, and its answers — `/accept [NAME=VALUE …]` (fields left out keep the server's
//! default), `/decline`, `/cancel`.

use arbor_app::LiveSession;
use arbor_protocol::views::elicitation::{
    ElicitationAction, ElicitationFieldKind, ElicitationRequest,
};

use crate::permissions::visible;

/// The question in full, and how to answer it.
pub fn describe_request(request: &ElicitationRequest) -> String {
    let mut text = format!(
        "\n── MCP server {} asks ──\n{}\n",
        visible(&request.server),
        visible(&request.message)
    );
    for field in &request.fields {
        let kind = match field.kind {
            ElicitationFieldKind::Text => field.format.as_deref().unwrap_or("text"),
            ElicitationFieldKind::Number => "number",
            ElicitationFieldKind::Integer => "whole number",
            ElicitationFieldKind::Boolean => "true/false",
            ElicitationFieldKind::Choice => "one of",
            ElicitationFieldKind::Choices => "any of (comma-separated)",
        };
        text.push_str(&format!("  {} ({kind}", visible(&field.name)));
        if !field.options.is_empty() {
            let options: Vec<String> = field
                .options
                .iter()
                .map(|o| match o.label == o.value {
                    true => visible(&o.value),
                    false => format!("{} = {}", visible(&o.value), visible(&o.label)),
                })
                .collect();
            text.push_str(&format!(": {}", options.join(", ")));
        }
        text.push(')');
        if field.required {
            text.push_str(" required");
        }
        if let Some(default) = &field.default {
            text.push_str(&format!(" [default {}]", visible(&default.to_string())));
        }
        if let Some(about) = field.description.as_ref().or(field.title.as_ref()) {
            text.push_str(&format!(" — {}", visible(about)));
        }
        text.push('\n');
    }
    text.push_str(
        "Answer: /accept [NAME=VALUE …] (the rest keep their defaults) · /decline · /cancel",
    );
    text
}

/// `/accept`, `/decline`, `/cancel`: answers the oldest waiting question; what to print.
pub fn interactive_command(name: &str, argument: &str, session: &LiveSession) -> String {
    let Some(request) = session.waiting_elicitations().into_iter().next() else {
        return "no question of an MCP server is waiting".into();
    };
    let answered = match name {
        "accept" => {
            let Some(words) = shlex::split(argument) else {
                return "/accept takes NAME=VALUE pairs (quote a value with spaces)".into();
            };
            let mut pairs = Vec::new();
            for word in &words {
                match word.split_once('=') {
                    Some((key, value)) if !key.is_empty() => pairs.push((key, value)),
                    _ => return format!("/accept takes NAME=VALUE pairs, not {word:?}"),
                }
            }
            match session.accept_elicitation_text(&request.request_id, &pairs) {
                Ok(()) => Ok(ElicitationAction::Accept),
                Err(error) => return format!("arbor: {error}; answer again"),
            }
        }
        "decline" => session
            .answer_elicitation(&request.request_id, ElicitationAction::Decline, None)
            .map(|()| ElicitationAction::Decline),
        _ => session
            .answer_elicitation(&request.request_id, ElicitationAction::Cancel, None)
            .map(|()| ElicitationAction::Cancel),
    };
    match answered {
        Ok(action) => format!("({} {})", request.server, words(action)),
        Err(error) => format!("arbor: {error}"),
    }
}

pub fn words(action: ElicitationAction) -> &'static str {
    match action {
        ElicitationAction::Accept => "answered",
        ElicitationAction::Decline => "declined",
        ElicitationAction::Cancel => "cancelled",
    }
}
