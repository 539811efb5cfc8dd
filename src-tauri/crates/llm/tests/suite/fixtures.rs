//! Every recorded provider stream and error body in `tests/fixtures/providers/` is parsed and
//! compared with its entry in `EXPECTED.json`, in one data-driven test.
//!
//! EXPECTED.json was produced by a reference parser and speaks each provider's raw vocabulary
//! (`end_turn`, `tool_calls`, `STOP`, raw usage objects). The mapping to Arbor's unified model is
//! stated explicitly in `expectations/`; a disagreement is reported as a mismatch, never skipped.

use crate::expectations;

use std::path::{Path, PathBuf};

use arbor_llm::{decode_body, Api, AssistantEvent, AssistantMessage, LlmError};
use serde_json::Value;

use expectations::{check_error_body, check_non_stream_message, check_stream, Outcome};

/// The repository's provider fixtures (`tests/fixtures/providers`); missing is a failure.
fn fixtures_dir() -> PathBuf {
    arbor_test_support::provider_fixtures_dir().unwrap()
}

/// Which wire protocol a fixture speaks: by folder, and for `openai-compatible` by file name.
fn api_for(relative: &str) -> Api {
    let (folder, name) = relative.split_once('/').unwrap_or(("", relative));
    match folder {
        "anthropic" => Api::AnthropicMessages,
        "gemini" => Api::GoogleGenerativeAi,
        "openai-responses" => Api::OpenAiResponses,
        "openai-compatible" if name.starts_with("lmstudio_responses_") => Api::OpenAiResponses,
        "openai-chat" | "openai-compatible" => Api::OpenAiCompletions,
        other => panic!("fixture folder `{other}` has no protocol mapping"),
    }
}

fn fixture_files(dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    for folder in std::fs::read_dir(dir).unwrap() {
        let folder = folder.unwrap().path();
        let Some(folder_name) = folder.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if !folder.is_dir() || folder_name == "raw_chunks" {
            continue; // raw_chunks holds the upstream payloads the .sse files were framed from
        }
        for file in std::fs::read_dir(&folder).unwrap() {
            let name = file.unwrap().file_name().to_string_lossy().to_string();
            if name.ends_with(".sse") || name.ends_with(".json") {
                files.push(format!("{folder_name}/{name}"));
            }
        }
    }
    files.sort();
    files
}

/// A small deterministic generator for random chunk sizes.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self, below: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % below as u64) as usize
    }
}

fn decode_in_chunks(
    api: Api,
    body: &[u8],
    sizes: &mut dyn FnMut() -> usize,
) -> Vec<AssistantEvent> {
    let mut decoder = arbor_llm::StreamDecoder::new(api, "fixture", "fixture-model");
    let mut events = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        let size = sizes().clamp(1, rest.len());
        events.extend(decoder.feed(&rest[..size]));
        rest = &rest[size..];
    }
    events.extend(decoder.finish());
    events
}

/// Generated Gemini call ids differ between runs; everything else must be identical.
fn normalized(events: &[AssistantEvent]) -> String {
    let text = serde_json::to_string(events).unwrap();
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find("call_gemini_") {
        out.push_str(&rest[..at + "call_gemini_".len()]);
        rest = rest[at + "call_gemini_".len()..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

/// Structural checks that hold for every stream: one terminal event, at the end; every block
/// started is ended; folding the events reproduces the final message.
fn check_event_stream(events: &[AssistantEvent]) -> Result<Outcome, String> {
    let terminals = events.iter().filter(|e| e.is_terminal()).count();
    if terminals != 1 || !events.last().is_some_and(AssistantEvent::is_terminal) {
        return Err(format!(
            "expected exactly one terminal event at the end, got {terminals}"
        ));
    }
    let mut folded: Option<AssistantMessage> = None;
    let mut open = std::collections::BTreeSet::new();
    for event in events {
        match event {
            AssistantEvent::Start { message } => {
                folded = Some(message.clone());
                open.clear();
                continue;
            }
            AssistantEvent::TextStart { content_index }
            | AssistantEvent::ThinkingStart { content_index }
            | AssistantEvent::ToolCallStart { content_index, .. } => {
                open.insert(*content_index);
            }
            AssistantEvent::TextEnd { content_index, .. }
            | AssistantEvent::ThinkingEnd { content_index, .. }
            | AssistantEvent::ToolCallEnd { content_index, .. }
                if !open.remove(content_index) =>
            {
                return Err(format!("block {content_index} ended without a start"));
            }
            _ => {}
        }
        let Some(message) = folded.as_mut() else {
            return Err(format!("event before start: {event:?}"));
        };
        let before_terminal = message.clone();
        message.apply_event(event);
        if let AssistantEvent::Done { message: last }
        | AssistantEvent::Error { message: last, .. } = event
        {
            if before_terminal.content != last.content {
                return Err("folding the events does not reproduce the final content".into());
            }
        }
    }
    if !open.is_empty() {
        return Err(format!("blocks never ended: {open:?}"));
    }
    Ok(match events.last() {
        Some(AssistantEvent::Done { message }) => Outcome {
            message: message.clone(),
            error: None,
        },
        Some(AssistantEvent::Error { message, error }) => Outcome {
            message: message.clone(),
            error: Some(error.clone()),
        },
        _ => unreachable!("checked above"),
    })
}

fn check_fixture(dir: &Path, relative: &str, expected: &Value, seed: u64) -> Result<(), String> {
    let body = std::fs::read(dir.join(relative)).map_err(|e| e.to_string())?;
    if relative.ends_with(".json") {
        let text = String::from_utf8(body).map_err(|e| e.to_string())?;
        if expected.get("non_stream_message").and_then(Value::as_bool) == Some(true) {
            let value: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
            let message = arbor_llm::protocols::anthropic::parse_message("fixture", "m", &value);
            return check_non_stream_message(&message, expected);
        }
        return check_error_body(relative, &text, expected);
    }
    let api = api_for(relative);
    let whole = decode_body(api, "fixture", "fixture-model", &body);
    let byte_by_byte = decode_in_chunks(api, &body, &mut || 1);
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15 ^ seed);
    let random = decode_in_chunks(api, &body, &mut || 1 + rng.next(64));
    let reference = normalized(&whole);
    if normalized(&byte_by_byte) != reference {
        return Err("byte-by-byte feeding gives different events".into());
    }
    if normalized(&random) != reference {
        return Err("random chunk sizes give different events".into());
    }
    let outcome = check_event_stream(&whole)?;
    check_stream(api, &outcome, expected)
}

#[test]
fn every_provider_fixture_matches_expected() {
    let dir = fixtures_dir();
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("EXPECTED.json")).unwrap()).unwrap();
    let files = fixture_files(&dir);
    assert!(
        files.len() >= 90,
        "only {} fixture files found in {}",
        files.len(),
        dir.display()
    );
    let mut failures = Vec::new();
    for (seed, relative) in files.iter().enumerate() {
        let result = match expected.get(relative) {
            None => Err("no entry in EXPECTED.json".to_string()),
            Some(entry) => check_fixture(&dir, relative, entry, seed as u64),
        };
        match result {
            Ok(()) => println!("pass  {relative}"),
            Err(why) => {
                println!("FAIL  {relative}: {why}");
                failures.push(format!("{relative}: {why}"));
            }
        }
    }
    let object = expected.as_object().unwrap();
    for key in object.keys() {
        if !files.contains(key) {
            failures.push(format!(
                "{key}: listed in EXPECTED.json but the file is missing"
            ));
        }
    }
    println!(
        "{} of {} fixtures pass",
        files.len() - failures.len(),
        files.len()
    );
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn context_overflow_fixtures_are_classified_as_overflow() {
    // Belt and braces for the `*ctx*` bodies the issue names: classification alone, by status.
    let dir = fixtures_dir();
    for relative in fixture_files(&dir).iter().filter(|f| f.contains("ctx")) {
        let body = std::fs::read_to_string(dir.join(relative)).unwrap();
        let error = arbor_llm::classify::classify_http_error(400, None, &body);
        assert!(
            matches!(error, LlmError::ContextOverflow { .. }),
            "{relative}: {error:?}"
        );
    }
}
