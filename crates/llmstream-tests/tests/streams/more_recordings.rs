//! Every recording of ../shared/fixtures/providers_more, whole, byte by
//! byte and in random pieces (the harness of `common::providers`), read
//! for the concrete values an independent reader found in it
//! (`more_expected.rs`, made by `oracle/reference.py`): answer text,
//! reasoning, the client's tool calls and their arguments, the provider's
//! own tool calls, finish, usage, completion and errors.

use std::panic::{catch_unwind, AssertUnwindSafe};

use llmstream::json::{self, Value};
use llmstream::providers::{Message, Provider};

use crate::common::providers::Streams;
use crate::more_expected::{Expected, EXPECTED};

/// The wire format of a recording, by its folder.
fn provider(file: &str) -> Provider {
    match file.split('/').next() {
        Some("anthropic") => Provider::Anthropic,
        Some("gemini") => Provider::Gemini,
        Some("openai_responses") => Provider::OpenAiResponses,
        _ => Provider::OpenAiChat,
    }
}

/// `text`'s character count, and its first and last (up to) 24.
fn text_summary(text: &str) -> (usize, String, String) {
    let chars: Vec<char> = text.chars().collect();
    let head: String = chars.iter().take(24).collect();
    let tail: String = chars[chars.len().saturating_sub(24)..].iter().collect();
    (chars.len(), head, tail)
}

/// Compact JSON of `value` (key order kept).
fn compact(value: &Value) -> String {
    value.to_json()
}

/// What the reading of `expected.file` got wrong, one line each.
fn mismatches(expected: &Expected, message: &Message) -> Vec<String> {
    let mut wrong = Vec::new();
    let mut check = |what: &str, got: String, want: String| {
        if got != want {
            wrong.push(format!("{what}: got {got}, expected {want}"));
        }
    };
    let choice = message.choices.get(&0);
    let text = choice.map_or("", |c| c.text.as_str());
    let (n, head, tail) = text_summary(text);
    let (en, ehead, etail) = expected.text;
    check(
        "text",
        format!("{n} chars {head:?}…{tail:?}"),
        format!("{en} chars {ehead:?}…{etail:?}"),
    );
    let reasoning = choice.map_or(0, |c| c.reasoning.chars().count());
    check(
        "reasoning chars",
        reasoning.to_string(),
        expected.reasoning_chars.to_string(),
    );
    let calls: Vec<(String, String)> = choice
        .map(|c| {
            c.tool_calls
                .values()
                .map(|call| {
                    let arguments = call.arguments.as_ref().map_or(String::new(), compact);
                    (call.name.clone(), arguments)
                })
                .collect()
        })
        .unwrap_or_default();
    let want: Vec<(String, String)> = expected
        .tool_calls
        .iter()
        .map(|(name, arguments)| {
            // The expectation's arguments, re-read so that both sides are
            // written by the same writer.
            let arguments = json::parse(arguments.as_bytes())
                .map(|v| compact(&v))
                .unwrap_or_else(|_| String::from(*arguments));
            (String::from(*name), arguments)
        })
        .collect();
    check("tool calls", format!("{calls:?}"), format!("{want:?}"));
    let provider_tools: Vec<String> = choice
        .map(|c| c.provider_tools.values().map(|t| t.name.clone()).collect())
        .unwrap_or_default();
    check(
        "provider tools",
        format!("{provider_tools:?}"),
        format!("{:?}", expected.provider_tools),
    );
    check(
        "finish",
        format!("{:?}", choice.and_then(|c| c.finish_reason.as_deref())),
        format!("{:?}", expected.finish),
    );
    let usage = message
        .usage
        .as_ref()
        .map(|u| (u.input_tokens.unwrap_or(0), u.output_tokens.unwrap_or(0)));
    check(
        "usage",
        format!("{usage:?}"),
        format!("{:?}", expected.usage),
    );
    check(
        "complete",
        message.complete.to_string(),
        expected.complete.to_string(),
    );
    let provider_error = message.error.as_ref().is_some_and(|e| e.from_provider);
    check(
        "provider error",
        provider_error.to_string(),
        expected.error.to_string(),
    );
    // An event the body ended inside is read (the default), and said.
    check(
        "unterminated event said",
        message
            .details
            .contains_key("unterminated_event")
            .to_string(),
        expected.unterminated.to_string(),
    );
    let citations: usize = choice.map_or(0, |c| c.citations.values().map(Vec::len).sum());
    if expected.citations > 0 {
        check(
            "citations",
            citations.to_string(),
            expected.citations.to_string(),
        );
    }
    wrong
}

/// Reads every recording of `folder`; fails with every mismatch listed.
fn folder(folder: &str) {
    let mut failures = Vec::new();
    let mut read = 0;
    for expected in EXPECTED.iter().filter(|e| e.file.starts_with(folder)) {
        let bytes = llmstream_tests::fixtures::read(&format!("providers_more/{}", expected.file));
        let streams = Streams::new(provider(expected.file), "", "");
        match catch_unwind(AssertUnwindSafe(|| streams.sse(&bytes))) {
            Ok(run) => {
                for wrong in mismatches(expected, &run.message) {
                    failures.push(format!("{}: {wrong}", expected.file));
                }
            }
            Err(panic) => {
                let why = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!("{}: {why}", expected.file));
            }
        }
        read += 1;
    }
    assert!(read > 0, "no recordings under {folder}");
    assert!(
        failures.is_empty(),
        "{} of {read} recordings of {folder} read wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn anthropic_recordings() {
    folder("anthropic/");
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn gemini_recordings() {
    folder("gemini/");
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn openai_chat_recordings() {
    folder("openai_chat/");
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn openai_compatible_recordings() {
    folder("openai_compatible/");
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn openai_responses_recordings() {
    folder("openai_responses/");
}

/// Every recording of the folder has its expectation.
#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn every_recording_is_expected() {
    let files: Vec<String> = llmstream_tests::fixtures::files("providers_more")
        .into_iter()
        .filter(|f| f.ends_with(".sse"))
        .collect();
    let expected: Vec<&str> = EXPECTED.iter().map(|e| e.file).collect();
    assert_eq!(files.len(), 118);
    for file in &files {
        assert!(
            expected.contains(&file.as_str()),
            "{file} has no expectation"
        );
    }
}

/// v-phase.1.sse (edited upstream): the terminal output lists the two
/// messages at positions 0 and 1, the stream at output indices 0 and 2.
/// Matched by id, each is read once (the final copies complete the cut
/// deltas, which they extend), never doubled, and the mismatch is said.
#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn final_output_at_other_positions_is_matched_by_id_not_doubled() {
    let bytes = llmstream_tests::fixtures::read("providers_more/openai_responses/v-phase.1.sse");
    let run = Streams::new(Provider::OpenAiResponses, "", "").sse(&bytes);
    let choice = run.choice();
    assert_eq!(choice.text.chars().count(), 1638);
    let kinds: Vec<Option<&str>> = run
        .events
        .iter()
        .filter_map(|e| match e {
            llmstream::providers::StreamEvent::Error(e) => Some(e.kind.as_deref()),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, [Some("output_mismatch")]);
}
