//! Anthropic Messages accumulation: every recording in
//! ../shared/fixtures/providers/anthropic (ignored when that folder is
//! absent) and one synthetic stream per quirk in
//! tests/data/anthropic. Every stream must give the same message and the
//! same events fed whole, byte by byte and in random pieces.

use llmstream::json::Value;
use llmstream::providers::{anthropic, ArgumentEvent, FinishReason, Part, Provider, StreamEvent};

use crate::common::providers::{obj, Run, Streams};

// ---------------------------------------------------------------------------
// Harness

const ANTHROPIC: Streams = Streams::new(Provider::Anthropic, "anthropic", "anthropic");

fn text_parts(run: &Run) -> Vec<&str> {
    run.choice()
        .content
        .iter()
        .filter_map(|p| match p {
            Part::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

fn raw_types(run: &Run) -> Vec<String> {
    run.choice()
        .content
        .iter()
        .filter_map(|p| match p {
            Part::Raw(v) => v.get("type").and_then(Value::as_str).map(String::from),
            _ => None,
        })
        .collect()
}

/// Fixtures this file reads; a new recording must be added here.
const COVERED: &[&str] = &[
    "basic_response.txt",
    "tool_use_response.txt",
    "incomplete_partial_json_response.txt",
    "a8b7dbb8-2321-4624-abdb-7ba2136b5c38.json",
    "test_anthropic_model_thinking_part_redacted_stream.yaml",
    "test_anthropic_model_thinking_part_stream.yaml",
    "test_anthropic_code_execution_tool_stream.yaml",
    "test_request_stream_fallback_for_high_max_tokens.yaml",
    "anthropic-text.chunks.txt",
    "anthropic-tool-no-args.chunks.txt",
    "anthropic-json-tool.1.chunks.txt",
    "anthropic-clear-thinking.1.chunks.txt",
    "anthropic-message-delta-input-tokens.chunks.txt",
    "anthropic-web-search-tool.1.chunks.txt",
    "anthropic-refusal.chunks.txt",
    "duplicate-message-start.chunks.txt",
    "spliced-message-start.chunks.txt",
];

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn every_recording_is_tested() {
    let dir = ANTHROPIC.fixture_dir();
    for entry in std::fs::read_dir(dir).expect("readable") {
        let name = entry
            .expect("entry")
            .file_name()
            .into_string()
            .expect("UTF-8");
        if name == "_extracted" {
            continue;
        }
        assert!(COVERED.contains(&name.as_str()), "{name} has no test");
    }
}

// ---------------------------------------------------------------------------
// Recordings: raw SSE bodies

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn basic_response() {
    let run = ANTHROPIC.fixture_sse("basic_response.txt");
    let m = &run.message;
    assert_eq!(
        m.id.as_deref(),
        Some("msg_4QpJur2dWWDjF6C758FbBw5vm12BaVipnK")
    );
    assert_eq!(m.model.as_deref(), Some("claude-3-opus-latest"));
    assert_eq!(run.choice().role.as_deref(), Some("assistant"));
    assert_eq!(run.choice().text, "Hello there!");
    let deltas = run.text_deltas(0);
    assert_eq!(deltas, ["Hello", " there", "!"]);
    assert_eq!(run.choice().finish_reason.as_deref(), Some("end_turn"));
    assert_eq!(run.choice().finish, Some(FinishReason::Stop));
    assert_eq!(run.usage(), (Some(11), Some(6), Some(17)));
    // The body lacks its final blank line, so message_stop is never
    // dispatched; the stop reason already said the message is whole.
    assert!(m.complete);
    assert!(m.error.is_none());
    assert_eq!(
        run.events.first().map(StreamEvent::name),
        Some("message_start")
    );
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn tool_use_response() {
    let run = ANTHROPIC.fixture_sse("tool_use_response.txt");
    let c = run.choice();
    assert_eq!(c.text, "I'll check the current weather in Paris for you.");
    let call = run.tool("toolu_01NRLabsLyVHZPKxbKvkfSMn");
    assert_eq!(call.name, "get_weather");
    assert_eq!(call.kind.as_deref(), Some("tool_use"));
    assert_eq!(call.arguments, Some(obj(r#"{"location":"Paris"}"#)));
    assert_eq!(call.arguments_text, r#"{"location": "Paris"}"#);
    assert!(call.ended && call.arguments_error.is_none());
    // The call's key is its block index.
    assert!(c.tool_calls.contains_key(&1));
    assert!(matches!(
        c.content.as_slice(),
        [Part::Text(_), Part::ToolCall(1)]
    ));
    // The argument string streams at its path, then completes.
    let streamed: String = run
        .events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Argument {
                event: ArgumentEvent::Delta { path, text },
                ..
            } if path.to_string() == "location" => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(streamed, "Paris");
    assert!(run.events.iter().any(|e| matches!(e,
        StreamEvent::Argument { event: ArgumentEvent::Value { path, value }, .. }
            if path.to_string() == "location" && value.as_str() == Some("Paris"))));
    assert_eq!(c.finish, Some(FinishReason::ToolCalls));
    assert_eq!(c.finish_reason.as_deref(), Some("tool_use"));
    assert_eq!(run.usage(), (Some(377), Some(65), Some(442)));
    assert_eq!(
        run.message.usage.as_ref().unwrap().cached_input_tokens,
        Some(0)
    );
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn incomplete_partial_json_response() {
    let run = ANTHROPIC.fixture_sse("incomplete_partial_json_response.txt");
    let c = run.choice();
    assert_eq!(
        c.text,
        "I'll create a comprehensive tax guide for someone with multiple W2s and save it \
         in a file called taxes.txt. Let me do that for you now."
    );
    let call = run.tool("toolu_01EKqbqmZrGRXy18eN7m9kvY");
    assert_eq!(call.name, "make_file");
    // Cut inside a string of an array: the partial arguments are kept.
    assert_eq!(
        call.arguments,
        Some(obj(
            r###"{"filename":"taxes.txt","lines_of_text":["# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s","","## INTRODUCTION","","Filing taxes"]}"###
        ))
    );
    assert!(call.arguments_text.ends_with("\n\"Filing taxes"));
    assert!(call.arguments_error.is_some());
    assert!(call.ended);
    assert_eq!(c.finish_reason.as_deref(), Some("max_tokens"));
    assert_eq!(c.finish, Some(FinishReason::Length));
    // No content_block_stop for the cut call, but the provider ended the
    // message (stop reason, message_stop): complete, as OpenAI's `length`.
    assert!(run.message.complete);
    assert_eq!(run.usage(), (Some(450), Some(124), Some(574)));
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn structured_output_after_retries() {
    let run = ANTHROPIC
        .fixture_sse("_extracted/a8b7dbb8-2321-4624-abdb-7ba2136b5c38.json.interaction2.sse");
    assert_eq!(
        run.message.id.as_deref(),
        Some("msg_013nnniYDrJDocdy5nrMU7cH")
    );
    assert_eq!(
        run.message.model.as_deref(),
        Some("claude-sonnet-4-5-20250929")
    );
    assert_eq!(run.choice().text, "[12345,67890]");
    assert_eq!(run.choice().finish, Some(FinishReason::Stop));
    assert_eq!(run.usage(), (Some(135), Some(10), Some(145)));
    assert!(run.message.complete);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn redacted_thinking() {
    let run = ANTHROPIC.fixture_sse(
        "_extracted/test_anthropic_model_thinking_part_redacted_stream.yaml.interaction0.sse",
    );
    let c = run.choice();
    assert_eq!(raw_types(&run), ["redacted_thinking", "redacted_thinking"]);
    let data: Vec<&str> = c
        .content
        .iter()
        .filter_map(|p| match p {
            Part::Raw(v) => v.get("data").and_then(Value::as_str),
            _ => None,
        })
        .collect();
    assert!(data[0].starts_with("EqkECkYIBxgCKkA8AZ4noDfV5VcOJe"));
    assert!(data[1].starts_with("EtgBCkYIBxgCKkDQfGkwzflEJP5asG3oQ"));
    assert!(c
        .text
        .starts_with("I notice that you've sent what appears to be some kind of test string"));
    assert!(c
        .text
        .ends_with("How can I assist you today with a legitimate task or question?"));
    assert_eq!(c.reasoning, "");
    assert_eq!(c.content.len(), 3);
    assert_eq!(c.finish, Some(FinishReason::Stop));
    assert_eq!(run.usage(), (Some(92), Some(189), Some(281)));
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn thinking_with_signature() {
    let run = ANTHROPIC
        .fixture_sse("_extracted/test_anthropic_model_thinking_part_stream.yaml.interaction0.sse");
    let c = run.choice();
    assert_eq!(
        c.reasoning,
        "This is a straightforward question about pedestrian safety. I should provide clear, \
         helpful advice about how to safely cross a street. This is basic safety information \
         that could help prevent accidents."
    );
    match c.content.first() {
        Some(Part::Reasoning { text, signature }) => {
            assert_eq!(text, &c.reasoning);
            let sig = signature.as_deref().expect("signature_delta assigned");
            assert!(sig.starts_with("EvMCCkYICxgCKkCHP2cSuEdcJK"));
            assert!(sig.ends_with("fQYAQ=="));
        }
        other => panic!("reasoning first, got {other:?}"),
    }
    assert!(c
        .text
        .starts_with("Here are the basic steps for safely crossing the street:"));
    assert!(c
        .text
        .ends_with("Always prioritize safety over speed when crossing streets."));
    assert_eq!(run.events_named("reasoning_delta").len(), 13);
    assert_eq!(run.usage(), (Some(43), Some(282), Some(325)));
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn server_tool_use_and_code_execution_result() {
    let run = ANTHROPIC
        .fixture_sse("_extracted/test_anthropic_code_execution_tool_stream.yaml.interaction0.sse");
    let c = run.choice();
    assert_eq!(
        c.reasoning,
        "Let me calculate this mathematical expression."
    );
    let call = run.provider_tool("srvtoolu_01MwXaweAHve88x6s3Fc8x6Q");
    assert!(
        c.tool_calls.is_empty(),
        "the provider ran it: not the client's call"
    );
    assert_eq!(call.name, "bash_code_execution");
    assert_eq!(call.kind.as_deref(), Some("server_tool_use"));
    assert_eq!(
        call.arguments,
        Some(obj(
            r#"{"command":"echo \"65465-6544 * 65464-6+1.02255\" | bc -l"}"#
        ))
    );
    assert_eq!(raw_types(&run), ["bash_code_execution_tool_result"]);
    // The result block is the call's result too.
    assert_eq!(
        call.result
            .as_ref()
            .and_then(|r| r.get("type"))
            .and_then(Value::as_str),
        Some("bash_code_execution_tool_result")
    );
    let result = c
        .content
        .iter()
        .find_map(|p| match p {
            Part::Raw(v) => v.pointer("/content/stdout").and_then(Value::as_str),
            _ => None,
        })
        .expect("result block kept whole");
    assert_eq!(result, "-428330955.97745\n");
    // Blocks in order: thinking, text, tool call, result, text.
    let kinds: Vec<&str> = c
        .content
        .iter()
        .map(|p| match p {
            Part::Reasoning { .. } => "reasoning",
            Part::Text(_) => "text",
            Part::ToolCall(_) => "tool_call",
            Part::ProviderTool(_) => "provider_tool",
            Part::Raw(_) => "raw",
            Part::Refusal(_) => "refusal",
        })
        .collect();
    assert_eq!(kinds, ["reasoning", "text", "provider_tool", "raw", "text"]);
    assert_eq!(
        text_parts(&run)[0],
        "I'll calculate that expression for you right away!"
    );
    assert!(c.text.ends_with("Final Answer: **-428,330,955.97745**"));
    // stop_details: null is no detail.
    assert_eq!(c.finish_details, None);
    assert_eq!(c.finish, Some(FinishReason::Stop));
    assert_eq!(run.usage(), (Some(4714), Some(304), Some(5018)));
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn smallest_padded_stream() {
    let run = ANTHROPIC.fixture_sse(
        "_extracted/test_request_stream_fallback_for_high_max_tokens.yaml.interaction0.sse",
    );
    assert_eq!(
        run.message.id.as_deref(),
        Some("msg_018E1hg8GoVTGEKQY3ovMcSJ")
    );
    assert_eq!(run.choice().text, "2");
    assert_eq!(run.usage(), (Some(20), Some(5), Some(25)));
    assert!(run.message.complete);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn cassettes_are_covered_by_their_extracted_bodies() {
    // The YAML/JSON cassettes themselves are not SSE; their bodies are the
    // _extracted files tested above. Check the pairing stays true.
    let dir = ANTHROPIC.fixture_dir();
    for cassette in [
        "a8b7dbb8-2321-4624-abdb-7ba2136b5c38.json",
        "test_anthropic_model_thinking_part_redacted_stream.yaml",
        "test_anthropic_model_thinking_part_stream.yaml",
        "test_anthropic_code_execution_tool_stream.yaml",
        "test_request_stream_fallback_for_high_max_tokens.yaml",
    ] {
        let extracted = std::fs::read_dir(dir.join("_extracted"))
            .expect("_extracted")
            .filter_map(Result::ok)
            .any(|e| e.file_name().to_string_lossy().starts_with(cassette));
        assert!(extracted, "{cassette} has no extracted body");
    }
}

// ---------------------------------------------------------------------------
// Recordings: JSON-lines payloads

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn text_chunks() {
    let run = ANTHROPIC.fixture_lines("anthropic-text.chunks.txt");
    assert_eq!(
        run.message.id.as_deref(),
        Some("msg_01QC4g3HwBThD4BaNtBckFDJ")
    );
    assert_eq!(
        run.choice().text,
        "Hello! I'm doing well, thank you for asking. How are you doing today? Is there \
         anything I can help you with?"
    );
    assert_eq!(run.usage(), (Some(12), Some(30), Some(42)));
    assert!(run.message.complete);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn tool_without_arguments() {
    let run = ANTHROPIC.fixture_lines("anthropic-tool-no-args.chunks.txt");
    assert_eq!(run.choice().text, "I'll update the issue list for you.");
    let call = run.tool("toolu_01QE1WLsSVp5hy5Q3GmGTmjP");
    assert_eq!(call.name, "updateIssueList");
    // A single empty fragment: the arguments are `{}`.
    assert_eq!(call.arguments, Some(obj("{}")));
    assert_eq!(call.arguments_text, "");
    assert!(run.events.iter().any(|e| matches!(e,
        StreamEvent::ToolCallEnd { arguments, .. } if *arguments == obj("{}"))));
    assert_eq!(run.choice().finish, Some(FinishReason::ToolCalls));
    assert_eq!(run.usage(), (Some(565), Some(48), Some(613)));
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn tool_as_first_block() {
    let run = ANTHROPIC.fixture_lines("anthropic-json-tool.1.chunks.txt");
    let c = run.choice();
    assert!(matches!(c.content.as_slice(), [Part::ToolCall(0)]));
    let call = run.tool("toolu_01KFbKqPYSuAKujiL6mTfzYA");
    assert_eq!(call.name, "json");
    assert_eq!(
        call.arguments,
        Some(obj(
            r#"{"elements":[{"location":"San Francisco","temperature":58,"condition":"sunny"}]}"#
        ))
    );
    assert!(run.events.iter().any(|e| matches!(e,
        StreamEvent::Argument { event: ArgumentEvent::Value { path, value }, .. }
            if path.to_string() == "elements[0].temperature" && value.as_u64() == Some(58))));
    assert_eq!(run.usage(), (Some(849), Some(47), Some(896)));
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn thinking_then_text() {
    let run = ANTHROPIC.fixture_lines("anthropic-clear-thinking.1.chunks.txt");
    let c = run.choice();
    assert_eq!(
        c.reasoning,
        "The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185"
    );
    match c.content.first() {
        Some(Part::Reasoning {
            signature: Some(sig),
            ..
        }) => {
            assert!(sig.starts_with("EvQBCkYICxgCKkAxhD4NUKFzudtZ6NzbZdEiBACIScTzqjPViM596iWLZIk4"));
        }
        other => panic!("signed reasoning first, got {other:?}"),
    }
    assert_eq!(c.text, "925 ÷ 5 = 185");
    // The final empty thinking delta is not an event.
    assert_eq!(run.events_named("reasoning_delta").len(), 9);
    assert_eq!(run.usage(), (Some(69), Some(53), Some(122)));
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn later_input_tokens_win() {
    let run = ANTHROPIC.fixture_lines("anthropic-message-delta-input-tokens.chunks.txt");
    assert_eq!(
        run.message.id.as_deref(),
        Some("msg_3196a1cc08de4d76b85b8f5777c0d42b")
    );
    assert_eq!(run.choice().text, "pong");
    // message_start said 43, message_delta says 61: cumulative, later wins.
    assert_eq!(run.usage(), (Some(61), Some(2), Some(63)));
    let usage_events = run.events_named("usage");
    assert_eq!(usage_events.len(), 2);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn web_search_with_citations() {
    let run = ANTHROPIC.fixture_lines("anthropic-web-search-tool.1.chunks.txt");
    let c = run.choice();
    let call = run.provider_tool("srvtoolu_01Bj5uzzLcYG5hfueSLcDH8k");
    assert_eq!(call.name, "web_search");
    assert_eq!(call.kind.as_deref(), Some("server_tool_use"));
    assert_eq!(
        call.arguments,
        Some(obj(r#"{"query":"tech news today September 26 2025"}"#))
    );
    assert_eq!(raw_types(&run), ["web_search_tool_result"]);
    // 21 blocks, 21 parts: one per block.
    assert_eq!(c.content.len(), 21);
    assert_eq!(text_parts(&run).len(), 19);
    assert!(c
        .text
        .starts_with("Based on my search results, here are the key tech news developments"));
    assert!(c
        .text
        .ends_with("20 years since their first international retail expansion."));
    assert_eq!(c.text.chars().count(), 2402);
    // 14 citations_delta, kept on the text part of their block.
    let citations: usize = c.citations.values().map(Vec::len).sum();
    assert_eq!(citations, 14);
    let first = c.citations.get(&3).expect("block 3's citations on part 3");
    assert_eq!(first.len(), 3);
    assert!(
        first[0]
            .get("cited_text")
            .and_then(Value::as_str)
            .is_some_and(
                |t| t.starts_with("Apple today announced the grand reopening of Apple Ginza")
            )
    );
    assert!(matches!(&c.content[3], Part::Text(t) if t.starts_with("Apple today announced")));
    let json = run.message.to_value().to_json();
    assert!(json.contains(r#""citations":[{"type":"web_search_result_location""#));
    assert_eq!(c.finish, Some(FinishReason::Stop));
    assert_eq!(run.usage(), (Some(15665), Some(795), Some(16460)));
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn refusal_without_content() {
    let run = ANTHROPIC.fixture_lines("anthropic-refusal.chunks.txt");
    let c = run.choice();
    assert!(c.content.is_empty());
    assert_eq!(c.text, "");
    assert_eq!(c.finish_reason.as_deref(), Some("refusal"));
    assert_eq!(c.finish, Some(FinishReason::Refusal));
    let details = c.finish_details.as_ref().expect("stop_details kept");
    assert_eq!(
        details.get("category").and_then(Value::as_str),
        Some("cyber")
    );
    assert!(details
        .get("explanation")
        .and_then(Value::as_str)
        .is_some_and(|e| e.starts_with("This request triggered restrictions")));
    assert_eq!(run.usage(), (Some(18), Some(5), Some(23)));
    assert!(run.message.complete);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn duplicate_message_start_is_ignored() {
    let run = ANTHROPIC.fixture_lines("duplicate-message-start.chunks.txt");
    assert_eq!(run.events_named("message_start").len(), 1);
    assert_eq!(run.message.id.as_deref(), Some("msg_dup"));
    assert_eq!(run.choice().text, "Hello, World!");
    assert!(run.message.error.is_none());
    assert_eq!(run.usage(), (Some(17), Some(227), Some(244)));
    assert!(run.message.complete);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn spliced_message_start_is_a_protocol_error() {
    let run = ANTHROPIC.fixture_lines("spliced-message-start.chunks.txt");
    let m = &run.message;
    let error = m.error.as_ref().expect("protocol error");
    assert_eq!(error.kind.as_deref(), Some("protocol_error"));
    assert!(error.message.contains("msg_second") && error.message.contains("msg_first"));
    assert_eq!(m.id.as_deref(), Some("msg_first"));
    let c = run.choice();
    // Nothing of the second message leaks into the first.
    assert_eq!(c.reasoning, "I will call the tool.");
    assert!(matches!(c.content.first(),
        Some(Part::Reasoning { signature: Some(s), .. }) if s == "sig-first"));
    assert_eq!(c.tool_calls.len(), 1);
    let call = run.tool("toolu_first");
    assert_eq!(call.name, "test-tool");
    assert_eq!(call.arguments, Some(obj(r#"{"value":"Spark"}"#)));
    assert!(call.arguments_error.is_some());
    assert_eq!(c.finish_reason, None);
    assert!(!m.complete);
    assert_eq!(run.events_named("error").len(), 1);
}

// ---------------------------------------------------------------------------
// Synthetic streams, one per quirk (tests/data/anthropic)

#[test]
fn quirk_message_start_repeat() {
    let run = ANTHROPIC.synthetic("message_start_repeat.sse");
    assert_eq!(run.events_named("message_start").len(), 1);
    assert!(run.message.error.is_none());
    assert_eq!(run.choice().text, "Hi");
    assert!(run.message.complete);
}

#[test]
fn quirk_message_start_spliced() {
    let run = ANTHROPIC.synthetic("message_start_spliced.sse");
    assert_eq!(run.message.id.as_deref(), Some("msg_first"));
    assert_eq!(
        run.message.error.as_ref().and_then(|e| e.kind.as_deref()),
        Some("protocol_error")
    );
    assert_eq!(run.choice().text, "", "the second message is not read");
    assert_eq!(run.tool("toolu_a").arguments, Some(obj(r#"{"q":"alp"}"#)));
    assert!(!run.message.complete);
    assert_eq!(run.choice().finish, None);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn quirk_every_block_kind_is_its_own_part() {
    let run = ANTHROPIC.synthetic("block_kinds.sse");
    let c = run.choice();
    assert_eq!(c.content.len(), 7);
    assert!(matches!(&c.content[0],
        Part::Reasoning { text, signature: Some(s) } if text == "Think first." && s == "sig-0"));
    assert_eq!(
        c.content[1],
        Part::Raw(obj(r#"{"type":"redacted_thinking","data":"opaque-blob"}"#))
    );
    assert_eq!(c.content[2], Part::Text("Searching.".into()));
    assert_eq!(c.content[3], Part::ProviderTool(3));
    assert!(matches!(&c.content[4], Part::Raw(v)
        if v.get("type").and_then(Value::as_str) == Some("web_search_tool_result")));
    assert_eq!(c.content[5], Part::Text("Found it.".into()));
    assert_eq!(c.content[6], Part::ToolCall(6));
    let server = run.provider_tool("srvtoolu_1");
    assert_eq!(
        (server.name.as_str(), server.kind.as_deref()),
        ("web_search", Some("server_tool_use"))
    );
    assert_eq!(server.arguments, Some(obj(r#"{"query":"rust"}"#)));
    let open = run.tool("toolu_1");
    assert_eq!(
        (open.name.as_str(), open.kind.as_deref()),
        ("open", Some("tool_use"))
    );
    assert_eq!(
        open.arguments,
        Some(obj(r#"{"url":"https://www.rust-lang.org"}"#))
    );
    assert_eq!(c.text, "Searching.Found it.");
    // Each call ends at its content_block_stop, before the finish.
    let names: Vec<&str> = run.events.iter().map(StreamEvent::name).collect();
    let first_end = names
        .iter()
        .position(|n| *n == "provider_tool_end")
        .unwrap();
    assert!(
        names
            .iter()
            .position(|n| *n == "provider_tool_result")
            .unwrap()
            > first_end
    );
    assert!(names.iter().position(|n| *n == "tool_call_end").unwrap() > first_end);
    let finish = names.iter().position(|n| *n == "finish").unwrap();
    assert!(first_end < finish);
    assert_eq!(c.finish, Some(FinishReason::ToolCalls));
}

#[test]
fn quirk_sparse_block_indices() {
    let run = ANTHROPIC.synthetic("sparse_block_indices.sse");
    let c = run.choice();
    assert_eq!(c.text, "sevenbig");
    assert!(c.tool_calls.contains_key(&u64::MAX));
    assert_eq!(run.tool("toolu_max").arguments, Some(obj(r#"{"n":1}"#)));
    assert_eq!(c.content.len(), 3);
    assert!(run.message.complete);
}

#[test]
fn quirk_first_json_fragment_empty() {
    let run = ANTHROPIC.synthetic("input_json_first_empty.sse");
    let call = run.tool("toolu_e");
    assert_eq!(
        call.arguments,
        Some(obj(r#"{"city":"Paris","days":3,"units":["C"]}"#))
    );
    // The empty fragment is not an event; the four non-empty ones are.
    assert_eq!(run.events_named("tool_call_delta").len(), 3);
    assert!(run.events.iter().any(|e| matches!(e,
        StreamEvent::Argument { event: ArgumentEvent::Value { path, value }, .. } if path.to_string() == "days" && value.as_u64() == Some(3))));
    assert!(run.events.iter().any(|e| matches!(e,
        StreamEvent::Argument { event: ArgumentEvent::Value { path, value }, .. } if path.to_string() == "units[0]" && value.as_str() == Some("C"))));
}

#[test]
fn quirk_no_fragments_means_empty_object() {
    let run = ANTHROPIC.synthetic("tool_no_fragments.sse");
    for id in ["toolu_n", "toolu_m"] {
        let call = run.tool(id);
        assert_eq!(call.arguments, Some(obj("{}")), "{id}");
        assert!(call.ended && call.arguments_error.is_none());
    }
    assert_eq!(run.events_named("tool_call_end").len(), 2);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn quirk_start_input_used_only_without_fragments() {
    let run = ANTHROPIC.synthetic("tool_input_in_start.sse");
    let call = run.tool("toolu_s");
    assert_eq!(call.arguments, Some(obj(r#"{"mode":"dark","level":2}"#)));
    assert!(run.events.iter().any(|e| matches!(e,
        StreamEvent::Argument { event: ArgumentEvent::Value { path, value }, .. } if path.to_string() == "mode" && value.as_str() == Some("dark"))));
    // And `input: {}` with fragments is not mixed in (tool_use_response):
    // see quirk_first_json_fragment_empty, whose start input is `{}`.
}

#[test]
fn quirk_signature_is_assigned() {
    let run = ANTHROPIC.synthetic("thinking_signature.sse");
    let c = run.choice();
    // The second signature_delta replaces the first.
    assert!(matches!(&c.content[0],
        Part::Reasoning { text, signature: Some(s) } if text == "Step one." && s == "sig-final"));
    // A thinking block with only a signature gets its own part, and does
    // not overwrite the previous block's signature.
    assert!(matches!(&c.content[1],
        Part::Reasoning { text, signature: Some(s) } if text.is_empty() && s == "sig-empty-block"));
    assert_eq!(c.content[2], Part::Text("Answer.".into()));
    assert_eq!(c.reasoning, "Step one.");
}

#[test]
fn quirk_citations_are_appended() {
    let run = ANTHROPIC.synthetic("citations.sse");
    let c = run.choice();
    assert_eq!(text_parts(&run), ["Facts: ", "Rust is fast and safe."]);
    let cited = c
        .citations
        .get(&1)
        .expect("citations on the second text part");
    let texts: Vec<&str> = cited
        .iter()
        .filter_map(|v| v.get("cited_text").and_then(Value::as_str))
        .collect();
    assert_eq!(texts, ["Rust is fast.", "Rust is safe."]);
    assert!(!c.citations.contains_key(&0));
    let part = &run.message.to_value();
    assert_eq!(
        part.pointer("/choices/0/content/1/citations/1/url")
            .and_then(Value::as_str),
        Some("https://b.example")
    );
}

#[test]
fn quirk_usage_is_cumulative() {
    let run = ANTHROPIC.synthetic("cumulative_usage.sse");
    let usage = run.message.usage.as_ref().unwrap();
    // input_tokens from message_start is kept when message_delta omits it;
    // output and cache-read counts are overwritten by the later reports.
    // The input counts the cache's tokens too (100 + 0 written + 60 read),
    // as OpenAI's and Gemini's do.
    assert_eq!(usage.input_tokens, Some(160));
    assert_eq!(usage.output_tokens, Some(25));
    assert_eq!(usage.total_tokens, Some(185));
    assert_eq!(usage.cached_input_tokens, Some(60));
    assert_eq!(usage.cache_write_input_tokens, Some(0));
    let outputs: Vec<Option<u64>> = run
        .events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Usage(u) => Some(u.output_tokens),
            _ => None,
        })
        .collect();
    assert_eq!(outputs, [Some(1), Some(20), Some(25)]);
    assert_eq!(run.choice().finish_reason.as_deref(), Some("stop_sequence"));
    assert_eq!(run.choice().finish, Some(FinishReason::Stop));
    // Which stop sequence matched (`stop_details: null` is not kept).
    assert_eq!(
        run.choice().finish_details,
        Some(obj(r#"{"stop_sequence":"END"}"#))
    );
}

#[test]
fn quirk_stop_reasons_normalize() {
    assert_eq!(anthropic::normalize("end_turn"), FinishReason::Stop);
    assert_eq!(anthropic::normalize("stop_sequence"), FinishReason::Stop);
    assert_eq!(anthropic::normalize("max_tokens"), FinishReason::Length);
    assert_eq!(anthropic::normalize("tool_use"), FinishReason::ToolCalls);
    assert_eq!(anthropic::normalize("refusal"), FinishReason::Refusal);
    assert_eq!(anthropic::normalize("pause_turn"), FinishReason::Other);
    assert_eq!(anthropic::normalize("something_new"), FinishReason::Other);
    let run = ANTHROPIC.synthetic("pause_turn.sse");
    assert_eq!(run.choice().finish_reason.as_deref(), Some("pause_turn"));
    assert_eq!(run.choice().finish, Some(FinishReason::Other));
    assert_eq!(
        run.provider_tool("srvtoolu_p").arguments,
        Some(obj(r#"{"query":"long"}"#))
    );
}

#[test]
fn quirk_stop_details_are_kept() {
    let run = ANTHROPIC.synthetic("refusal_stop_details.sse");
    let c = run.choice();
    assert_eq!(c.finish, Some(FinishReason::Refusal));
    assert_eq!(
        c.finish_details,
        Some(obj(
            r#"{"type":"refusal","category":"cyber","explanation":"blocked"}"#
        ))
    );
    assert_eq!(
        run.message
            .to_value()
            .pointer("/choices/0/finish_details/category")
            .and_then(Value::as_str),
        Some("cyber")
    );
}

#[test]
fn quirk_pings_are_ignored() {
    let run = ANTHROPIC.synthetic("pings.sse");
    assert_eq!(run.choice().text, "ab");
    let names: Vec<&str> = run.events.iter().map(StreamEvent::name).collect();
    assert_eq!(
        names,
        [
            "message_start",
            "role",
            "usage",
            "text_delta",
            "text_delta",
            "usage",
            "finish",
            "complete"
        ]
    );
    assert!(run.message.complete && run.message.error.is_none());
}

#[test]
fn quirk_error_event() {
    let run = ANTHROPIC.synthetic("error_event.sse");
    let error = run.message.error.as_ref().expect("error kept");
    assert_eq!(error.message, "Overloaded");
    assert_eq!(error.kind.as_deref(), Some("overloaded_error"));
    assert!(error.raw.is_some());
    assert!(matches!(run.events.last(), Some(StreamEvent::Error(e)) if e.message == "Overloaded"));
    assert_eq!(run.choice().text, "Partial");
    assert!(!run.message.complete);
}

#[test]
fn quirk_whitespace_padding() {
    let run = ANTHROPIC.synthetic("whitespace_padding.sse");
    assert_eq!(run.message.id.as_deref(), Some("msg_pad"));
    assert_eq!(run.message.model.as_deref(), Some("claude-pad"));
    assert_eq!(run.choice().text, "padded");
    assert_eq!(run.usage(), (Some(3), Some(2), Some(5)));
    assert!(run.message.complete && run.message.error.is_none());
}

#[test]
fn quirk_max_tokens_inside_tool_json() {
    let run = ANTHROPIC.synthetic("max_tokens_in_tool_json.sse");
    let call = run.tool("toolu_cut");
    assert_eq!(
        call.arguments,
        Some(obj(r#"{"filename":"notes.txt","lines":["one","tw"]}"#))
    );
    assert_eq!(
        call.arguments_text,
        r#"{"filename": "notes.txt", "lines": ["one", "tw"#
    );
    assert!(call.arguments_error.is_some());
    assert_eq!(run.choice().finish, Some(FinishReason::Length));
    // The block was never stopped, but the provider ended the message:
    // complete (the cut is in the finish and the call's arguments_error),
    // as OpenAI Chat's `length` and Responses' `response.incomplete`.
    assert!(run.message.complete, "message_stop seen: complete");
    assert!(run.message.error.is_none());
    // The call still ends (with its partial arguments), before the finish.
    let names: Vec<&str> = run.events.iter().map(StreamEvent::name).collect();
    let end = names.iter().position(|n| *n == "tool_call_end").unwrap();
    let finish = names.iter().position(|n| *n == "finish").unwrap();
    assert!(end < finish);
}

#[test]
fn quirk_stream_cut_midway() {
    let run = ANTHROPIC.synthetic("cut_mid_stream.sse");
    assert_eq!(run.choice().text, "Half an ans");
    assert_eq!(
        run.tool("toolu_half").arguments,
        Some(obj(r#"{"q":"half"}"#))
    );
    assert!(
        run.tool("toolu_half").ended,
        "ended at the end of the stream"
    );
    assert_eq!(run.choice().finish, None);
    assert!(!run.message.complete);
}

#[test]
fn quirk_unknown_events_blocks_and_deltas() {
    let run = ANTHROPIC.synthetic("unknown_events.sse");
    assert_eq!(raw_types(&run), ["container_upload"]);
    assert_eq!(run.choice().text, "still here");
    assert!(run.message.complete && run.message.error.is_none());
}

#[test]
fn quirk_deltas_without_block_start() {
    let run = ANTHROPIC.synthetic("implicit_blocks.sse");
    assert_eq!(run.choice().text, "no start block");
    let call = run
        .choice()
        .tool_calls
        .get(&1)
        .expect("call keyed by its index");
    assert_eq!(call.arguments, Some(obj(r#"{"a":1}"#)));
    // Block 0 was never started nor stopped, but the provider ended the
    // message.
    assert!(run.message.complete);
}

#[test]
fn cli_json_shape() {
    let run = ANTHROPIC.synthetic("block_kinds.sse");
    let v = run.message.to_value();
    assert_eq!(v.get("provider").and_then(Value::as_str), Some("anthropic"));
    assert_eq!(
        v.pointer("/choices/0/provider_tools/0/name")
            .and_then(Value::as_str),
        Some("web_search")
    );
    assert_eq!(
        v.pointer("/choices/0/tool_calls/0/arguments/url")
            .and_then(Value::as_str),
        Some("https://www.rust-lang.org")
    );
    assert_eq!(
        v.pointer("/choices/0/content/1/type")
            .and_then(Value::as_str),
        Some("raw")
    );
    assert_eq!(
        v.pointer("/usage/total_tokens").and_then(Value::as_u64),
        Some(50)
    );
    assert_eq!(v.get("complete"), Some(&Value::Bool(true)));
}

#[test]
fn hostile_payloads_do_not_panic() {
    let payloads = [
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"before start"}}"#,
        r#"{"type":"message_start"}"#,
        r#"{"type":"message_start","message":null}"#,
        r#"{"type":"message_start","message":{"id":7,"usage":{"input_tokens":-1}}}"#,
        r#"{"type":"content_block_start","index":"0","content_block":{"type":"text"}}"#,
        r#"{"type":"content_block_start","index":-1,"content_block":{"type":"text"}}"#,
        r#"{"type":"content_block_start","index":1.5,"content_block":[]}"#,
        r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","input":[1,2]}}"#,
        r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"]]]"}}"#,
        r#"{"type":"content_block_stop","index":2}"#,
        r#"{"type":"content_block_delta","index":3,"delta":null}"#,
        r#"{"type":"content_block_delta","index":3,"delta":{"type":"signature_delta","signature":null}}"#,
        r#"{"type":"content_block_delta","index":4,"delta":{"type":"citations_delta"}}"#,
        r#"{"type":"content_block_start","index":5,"content_block":{"type":"text","citations":{"a":1},"text":5}}"#,
        r#"{"type":"content_block_stop"}"#,
        r#"{"type":"content_block_start","index":6,"content_block":{"type":"compaction","content":5}}"#,
        r#"{"type":"content_block_delta","index":6,"delta":{"type":"compaction_delta","content":"x","encrypted_content":7}}"#,
        r#"{"type":"content_block_delta","index":6,"delta":{"type":"compaction_delta","content":[],"encrypted_content":"e"}}"#,
        r#"{"type":"content_block_delta","index":7,"delta":{"type":"compaction_delta"}}"#,
        r#"{"type":"content_block_delta","index":6,"delta":{"type":"text_delta","text":"misplaced"}}"#,
        r#"{"type":"message_delta","delta":{"stop_sequence":5,"stop_details":null}}"#,
        r#"{"type":"message_delta","delta":{"stop_sequence":"S","stop_details":"odd"}}"#,
        r#"{"type":"message_delta","delta":"x","usage":[]}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":5,"stop_details":[1]},"usage":{"output_tokens":1e400}}"#,
        r#"{"type":"error"}"#,
        r#"{"type":"error","error":"text"}"#,
        r#"{"type":12}"#,
        r#"[]"#,
        r#"null"#,
        r#""message_stop""#,
        r#"{"type":"message_stop"}"#,
        r#"{"type":"message_start","message":{"id":"other"}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"after"}}"#,
    ];
    let mut acc = Provider::Anthropic.accumulator();
    for p in payloads {
        acc.feed("message", &obj(p));
        while acc.next_event().is_some() {}
    }
    acc.finish();
    let _ = acc.message().to_value().to_json();
}

/// An accumulator whose messages keep at most `max_parts` content parts.
fn with_max_parts(max_parts: usize) -> anthropic::AnthropicAccumulator {
    use llmstream::providers::{MessageBuilder, ProviderLimits};
    let limits = ProviderLimits {
        max_parts,
        ..ProviderLimits::default()
    };
    anthropic::AnthropicAccumulator::with_builder(MessageBuilder::with_limits(
        Provider::Anthropic,
        limits,
    ))
}

#[test]
fn open_blocks_are_bounded() {
    use llmstream::providers::Accumulator as _;
    let mut acc = with_max_parts(4);
    for i in 0..10u64 {
        let p = format!(
            r#"{{"type":"content_block_start","index":{i},"content_block":{{"type":"text","text":"t{i}"}}}}"#
        );
        acc.feed("message", &obj(&p));
    }
    let m = acc.message();
    assert!(m
        .error
        .as_ref()
        .is_some_and(|e| e.message.contains("open content blocks")));
    assert!(m.choice().is_some_and(|c| c.content.len() <= 4));
}

// ---------------------------------------------------------------------------
// Bodies from the provider audit (/tmp/audit-providers/cases), inline

/// An SSE body of these payloads, each with its `event:` line.
fn body(payloads: &[&str]) -> Vec<u8> {
    let mut out = String::new();
    for p in payloads {
        if let Some(ty) = obj(p).get("type").and_then(Value::as_str) {
            out.push_str(&format!("event: {ty}\n"));
        }
        out.push_str(&format!("data: {p}\n\n"));
    }
    out.into_bytes()
}

const START: &str = r#"{"type":"message_start","message":{"id":"msg_c","type":"message","role":"assistant","model":"claude-opus-4-6","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":160000,"output_tokens":1}}}"#;
const END_TURN: &str = r#"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":40}}"#;
const STOP: &str = r#"{"type":"message_stop"}"#;
const COMPACTION_START: &str = r#"{"type":"content_block_start","index":0,"content_block":{"type":"compaction","content":null,"encrypted_content":null}}"#;
const TEXT_BLOCK: [&str; 3] = [
    r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
    r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Continuing."}}"#,
    r#"{"type":"content_block_stop","index":1}"#,
];

/// A message of a compaction block with these deltas, then a text block.
fn compaction_then_text(deltas: &[&str]) -> Run {
    let mut payloads = vec![START, COMPACTION_START];
    payloads.extend(deltas);
    payloads.push(r#"{"type":"content_block_stop","index":0}"#);
    payloads.extend(TEXT_BLOCK);
    payloads.extend([END_TURN, STOP]);
    ANTHROPIC.sse(&body(&payloads))
}

/// The compaction block as the message keeps it (the first part).
fn compaction(run: &Run) -> &Value {
    match run.choice().content.first() {
        Some(Part::Raw(v)) => v,
        other => panic!("not a raw part: {other:?}"),
    }
}

/// anthropic_compaction.sse: the summary and `encrypted_content` of a
/// `compaction_delta` fill in the block its start left null.
#[test]
fn compaction_delta_fills_in_its_block() {
    let run = compaction_then_text(&[
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"compaction_delta","content":"Summary of the earlier conversation: the user is refactoring a parser.","encrypted_content":"EqQBCkYIBxgCKkD-opaque"}}"#,
    ]);
    assert_eq!(
        compaction(&run),
        &obj(
            r#"{"type":"compaction","content":"Summary of the earlier conversation: the user is refactoring a parser.","encrypted_content":"EqQBCkYIBxgCKkD-opaque"}"#
        )
    );
    assert_eq!(run.choice().content[1], Part::Text("Continuing.".into()));
    assert_eq!(run.choice().text, "Continuing.", "the summary is not text");
    assert_eq!(
        run.message
            .to_value()
            .pointer("/choices/0/content/0/value/encrypted_content")
            .and_then(Value::as_str),
        Some("EqQBCkYIBxgCKkD-opaque")
    );
    assert!(run.message.complete);
}

/// Several deltas: the `content` pieces are appended, the last
/// `encrypted_content` wins, a null member changes nothing.
#[test]
fn compaction_deltas_accumulate() {
    let run = compaction_then_text(&[
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"compaction_delta","content":"Summary: ","encrypted_content":null}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"compaction_delta","content":"a parser","encrypted_content":"E1"}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"compaction_delta","content":null,"encrypted_content":"E2"}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"compaction_delta","content":"."}}"#,
    ]);
    assert_eq!(
        compaction(&run),
        &obj(r#"{"type":"compaction","content":"Summary: a parser.","encrypted_content":"E2"}"#)
    );
}

/// A `compaction_delta` whose block was never started (as text deltas
/// without theirs): its block is made as the start would have made it.
#[test]
fn compaction_delta_without_block_start() {
    let mut payloads = vec![
        START,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"compaction_delta","content":"Summary.","encrypted_content":"E"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
    ];
    payloads.extend(TEXT_BLOCK);
    payloads.extend([END_TURN, STOP]);
    let run = ANTHROPIC.sse(&body(&payloads));
    assert_eq!(
        compaction(&run),
        &obj(r#"{"type":"compaction","content":"Summary.","encrypted_content":"E"}"#)
    );
    assert_eq!(run.choice().content.len(), 2);
}

/// A compaction delta goes to its own block's part, even when another
/// raw block came after it.
#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn compaction_delta_reaches_its_block_after_another_raw_block() {
    let payloads = [
        START,
        COMPACTION_START,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"x"}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"compaction_delta","content":"S","encrypted_content":"E"}}"#,
        r#"{"type":"content_block_stop","index":1}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        END_TURN,
        STOP,
    ];
    let run = ANTHROPIC.sse(&body(&payloads));
    assert_eq!(
        compaction(&run),
        &obj(r#"{"type":"compaction","content":"S","encrypted_content":"E"}"#)
    );
    assert_eq!(
        run.choice().content[1],
        Part::Raw(obj(r#"{"type":"redacted_thinking","data":"x"}"#))
    );
}

const STOP_SEQUENCE_TEXT: [&str; 4] = [
    r#"{"type":"message_start","message":{"id":"msg_q","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}}"#,
    r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Answer: 42"}}"#,
    r#"{"type":"content_block_stop","index":0}"#,
];

/// anthropic_stop_sequence.sse: which stop sequence matched is kept.
#[test]
fn matched_stop_sequence_is_kept() {
    let mut payloads = STOP_SEQUENCE_TEXT.to_vec();
    payloads.extend([
        r#"{"type":"message_delta","delta":{"stop_reason":"stop_sequence","stop_sequence":"</answer>"},"usage":{"output_tokens":5,"server_tool_use":{"web_search_requests":2}}}"#,
        STOP,
    ]);
    let run = ANTHROPIC.sse(&body(&payloads));
    let c = run.choice();
    assert_eq!(c.finish_reason.as_deref(), Some("stop_sequence"));
    assert_eq!(c.finish, Some(FinishReason::Stop));
    assert_eq!(
        c.finish_details,
        Some(obj(r#"{"stop_sequence":"</answer>"}"#))
    );
    assert_eq!(
        run.message
            .to_value()
            .pointer("/choices/0/finish_details/stop_sequence")
            .and_then(Value::as_str),
        Some("</answer>")
    );
    assert_eq!(run.usage(), (Some(10), Some(5), Some(15)));
    // The web searches, billed per request, are in the usage as sent.
    let usage = run.message.usage.as_ref().unwrap();
    assert_eq!(
        usage.server_tool_use,
        Some(obj(r#"{"web_search_requests":2}"#))
    );
    assert_eq!(
        run.message
            .to_value()
            .pointer("/usage/server_tool_use/web_search_requests")
            .and_then(Value::as_u64),
        Some(2)
    );
}

/// `stop_details` and a stop sequence together: one object with both.
#[test]
fn stop_details_and_stop_sequence_together() {
    let mut payloads = STOP_SEQUENCE_TEXT.to_vec();
    payloads.extend([
        r#"{"type":"message_delta","delta":{"stop_reason":"refusal","stop_sequence":"</answer>","stop_details":{"type":"refusal","category":"cyber"}},"usage":{"output_tokens":5}}"#,
        STOP,
    ]);
    let run = ANTHROPIC.sse(&body(&payloads));
    assert_eq!(
        run.choice().finish_details,
        Some(obj(
            r#"{"stop_details":{"type":"refusal","category":"cyber"},"stop_sequence":"</answer>"}"#
        ))
    );
    // Arriving in two message_deltas, they are kept together too.
    let mut payloads = STOP_SEQUENCE_TEXT.to_vec();
    payloads.extend([
        r#"{"type":"message_delta","delta":{"stop_reason":null,"stop_details":{"type":"refusal"}},"usage":{"output_tokens":4}}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"refusal","stop_sequence":"END","stop_details":null},"usage":{"output_tokens":5}}"#,
        STOP,
    ]);
    let run = ANTHROPIC.sse(&body(&payloads));
    assert_eq!(
        run.choice().finish_details,
        Some(obj(
            r#"{"stop_details":{"type":"refusal"},"stop_sequence":"END"}"#
        ))
    );
}

/// anthropic_max_tokens_midcall_fixture.sse (the shape of the recording
/// incomplete_partial_json_response.txt, here without the shared
/// fixtures): `max_tokens` inside a tool call's JSON, its block never
/// stopped, then `message_stop`. The message is complete, as OpenAI
/// Chat's `length` and Responses' `response.incomplete` are; the cut is
/// in the finish and the call's `arguments_error`.
#[test]
fn max_tokens_inside_a_tool_call_completes_the_message() {
    let payloads = [
        START,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01","name":"make_file","input":{}}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"filename\": \"taxes.txt\", \"lines_of_text\": [\n\"Filing taxes"}}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":124}}"#,
        STOP,
    ];
    let run = ANTHROPIC.sse(&body(&payloads));
    assert!(run.message.complete);
    assert!(run.message.error.is_none());
    assert_eq!(run.choice().finish, Some(FinishReason::Length));
    let call = run.tool("toolu_01");
    assert!(call.ended && call.arguments_error.is_some());
    assert_eq!(
        call.arguments,
        Some(obj(
            r#"{"filename":"taxes.txt","lines_of_text":["Filing taxes"]}"#
        ))
    );
    // The same body cut before the stop reason is not complete.
    let run = ANTHROPIC.sse(&body(&payloads[..4]));
    assert!(!run.message.complete);
    assert_eq!(run.choice().finish, None);
}

/// A compaction block the part limit refused: its deltas are dropped,
/// never written into the raw part before it.
#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn refused_compaction_block_touches_no_other_part() {
    use llmstream::providers::Accumulator as _;
    let mut acc = with_max_parts(1);
    for p in [
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"x"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"compaction","content":null}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"compaction_delta","content":"S"}}"#,
        r#"{"type":"content_block_delta","index":2,"delta":{"type":"compaction_delta","content":"T"}}"#,
    ] {
        acc.feed("message", &obj(p));
    }
    let c = acc.message().choice().unwrap();
    assert_eq!(
        c.content,
        [Part::Raw(obj(r#"{"type":"redacted_thinking","data":"x"}"#))]
    );
    assert!(acc.message().error.is_some(), "the refusal is reported");
}

/// Citations that open a text block of a stream whose `message_start` was
/// lost still land on the block's text.
#[test]
fn citations_before_text_without_a_message_start() {
    let run = ANTHROPIC.sse(
        concat!(
            "event: content_block_start\n",
            r#"data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":"","citations":[{"type":"char_location","cited_text":"x"}]}}"#,
            "\n\nevent: content_block_delta\n",
            r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}"#,
            "\n\nevent: content_block_stop\n",
            r#"data: {"type":"content_block_stop","index":0}"#,
            "\n\nevent: message_stop\n",
            r#"data: {"type":"message_stop"}"#,
            "\n\n"
        )
        .as_bytes(),
    );
    assert_eq!(run.choice().content, [Part::Text("Hello".into())]);
    assert_eq!(run.choice().citations.get(&0).map(Vec::len), Some(1));
}
