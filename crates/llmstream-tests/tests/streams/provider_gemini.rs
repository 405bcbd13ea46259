//! Gemini accumulation: every recording in ../shared/fixtures/providers/gemini
//! (ignored when that folder is absent) and one
//! synthetic stream per quirk in tests/data/gemini. Every stream must give
//! the same message and the same events fed whole, byte by byte and in
//! random pieces.

use std::path::PathBuf;

use llmstream::json::{self, Value};
use llmstream::providers::{gemini, ArgumentEvent, FinishReason, Part, Provider, StreamEvent};

use crate::common::providers::{obj, Run, Streams};

// ---------------------------------------------------------------------------
// Harness

const GEMINI: Streams = Streams::new(Provider::Gemini, "gemini", "gemini");

fn tool_by_name<'r>(run: &'r Run, name: &str) -> Vec<&'r llmstream::providers::ToolCall> {
    run.choice()
        .tool_calls
        .values()
        .filter(|c| c.name == name)
        .collect()
}

/// Input, output, total and reasoning counts; the output counts the
/// thinking (`thoughtsTokenCount`) as OpenAI's does, so on every recording
/// input + output is Gemini's own total.
fn usage_full(run: &Run) -> (Option<u64>, Option<u64>, Option<u64>, Option<u64>) {
    let u = run.message.usage.as_ref().expect("usage reported");
    if let (Some(i), Some(o), Some(t)) = (u.input_tokens, u.output_tokens, u.total_tokens) {
        assert_eq!(i + o, t, "input + output is the total");
    }
    (
        u.input_tokens,
        u.output_tokens,
        u.total_tokens,
        u.reasoning_tokens,
    )
}

fn kinds(run: &Run) -> Vec<&'static str> {
    run.choice()
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
        .collect()
}

fn signature_of(part: Option<&Part>) -> Option<&str> {
    match part {
        Some(Part::Reasoning { signature, .. }) => signature.as_deref(),
        _ => None,
    }
}

fn position(run: &Run, pred: impl Fn(&StreamEvent) -> bool) -> usize {
    run.events.iter().position(pred).expect("event present")
}

/// Fixtures this file reads; a new recording must be added here.
const COVERED: &[&str] = &[
    "test_google_model_iter_stream.yaml",
    "test_google_streaming_tool_call_thought_signature.yaml",
    "test_google_stream_usage_is_live_mid_stream.yaml",
    "test_google_model_thinking_part_iter.yaml",
    "google-text.chunks.txt",
    "google-tool-call.chunks.txt",
    "google-stream-tool-call-arguments.chunks.txt",
    "google-stream-no-args-tool-call.chunks.txt",
    "google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt",
];

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn every_recording_is_tested() {
    let dir = GEMINI.fixture_dir();
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
// Recordings: raw SSE bodies (CRLF framing)

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn whole_function_calls_and_text() {
    let run = GEMINI.fixture_sse("_extracted/test_google_model_iter_stream.yaml.interaction0.sse");
    assert_eq!(run.message.id.as_deref(), Some("1lpeaMTxIpW1nvgP-O3vwQY"));
    assert_eq!(run.message.model.as_deref(), Some("gemini-2.0-flash"));
    let call = tool_by_name(&run, "get_capital")[0];
    // No id on the wire: a stable one from candidate, ordinal and name.
    assert_eq!(call.id, "call_0_0_get_capital");
    assert_eq!(call.arguments, Some(obj(r#"{"country":"France"}"#)));
    assert!(run.events.iter().any(|e| matches!(e,
        StreamEvent::Argument { event: ArgumentEvent::Value { path, value }, .. } if path.to_string() == "country" && value.as_str() == Some("France"))));
    // STOP with a function call is a tool-call finish.
    assert_eq!(run.choice().finish_reason.as_deref(), Some("STOP"));
    assert_eq!(run.choice().finish, Some(FinishReason::ToolCalls));
    assert_eq!(usage_full(&run), (Some(52), Some(5), Some(57), None));
    assert!(run.message.complete);

    let run = GEMINI.fixture_sse("_extracted/test_google_model_iter_stream.yaml.interaction1.sse");
    let call = tool_by_name(&run, "get_temperature")[0];
    assert_eq!(call.arguments, Some(obj(r#"{"city":"Paris"}"#)));
    assert_eq!(usage_full(&run), (Some(64), Some(5), Some(69), None));

    let run = GEMINI.fixture_sse("_extracted/test_google_model_iter_stream.yaml.interaction2.sse");
    assert_eq!(run.choice().text, "The temperature in Paris is 30°C.\n");
    assert_eq!(run.events_named("text_delta").len(), 2);
    assert_eq!(run.choice().finish, Some(FinishReason::Stop));
    // promptTokenCount goes 169 -> 79: the last snapshot wins whole.
    assert_eq!(usage_full(&run), (Some(79), Some(12), Some(91), None));
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn thought_summaries_then_text() {
    let run =
        GEMINI.fixture_sse("_extracted/test_google_model_thinking_part_iter.yaml.interaction0.sse");
    let c = run.choice();
    assert_eq!(kinds(&run), ["reasoning", "text"]);
    assert!(c
        .reasoning
        .starts_with("**Clarifying User Goals**\n\nI'm currently focused"));
    assert!(c.reasoning.contains("**Crafting Safe Instructions**"));
    assert_eq!(run.events_named("reasoning_delta").len(), 4);
    // The signature that came with the first answer text belongs to the
    // reasoning before it.
    let sig = signature_of(c.content.first()).expect("signature");
    assert!(sig.starts_with("CiIB0e2Kb6Syj1a961EfbWv4W5C8RgAA"));
    assert!(c
        .text
        .starts_with("This is a great question! Safely crossing the street"));
    assert!(c
        .text
        .ends_with("Always assume a driver might not see you."));
    assert_eq!(c.finish, Some(FinishReason::Stop));
    assert_eq!(
        usage_full(&run),
        (Some(34), Some(1256), Some(1290), Some(787))
    );
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn usage_is_a_live_snapshot() {
    let run = GEMINI.fixture_sse(
        "_extracted/test_google_stream_usage_is_live_mid_stream.yaml.interaction0.sse",
    );
    let expected: String = (1..=30)
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(run.choice().text, expected);
    let outputs: Vec<Option<u64>> = run
        .events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Usage(u) => Some(u.output_tokens),
            _ => None,
        })
        .collect();
    // Each snapshot: the candidates so far plus the 35 thinking tokens.
    assert_eq!(outputs, [Some(66), Some(114), Some(115)]);
    assert_eq!(usage_full(&run), (Some(18), Some(115), Some(133), Some(35)));
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn function_call_with_thought_signature() {
    let run = GEMINI.fixture_sse(
        "_extracted/test_google_streaming_tool_call_thought_signature.yaml.interaction0.sse",
    );
    let call = tool_by_name(&run, "get_country")[0];
    assert_eq!(call.arguments, Some(obj("{}")));
    assert!(call
        .signature
        .as_deref()
        .is_some_and(|s| s.starts_with("EpwICpkIAXLI2nxlU6gsWZaZHRYkX1or")));
    // The final chunk's empty text part adds nothing.
    assert_eq!(kinds(&run), ["tool_call"]);
    assert_eq!(run.events_named("text_delta").len(), 0);
    assert_eq!(run.choice().finish, Some(FinishReason::ToolCalls));
    assert_eq!(
        usage_full(&run),
        (Some(29), Some(212), Some(241), Some(202))
    );

    let run = GEMINI.fixture_sse(
        "_extracted/test_google_streaming_tool_call_thought_signature.yaml.interaction1.sse",
    );
    assert_eq!(run.choice().text, "The capital of Mexico is Mexico City.");
    assert_eq!(run.choice().finish, Some(FinishReason::Stop));
    assert_eq!(usage_full(&run), (Some(257), Some(8), Some(265), None));
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn cassettes_are_covered_by_their_extracted_bodies() {
    let dir = GEMINI.fixture_dir();
    for (cassette, bodies) in [
        ("test_google_model_iter_stream.yaml", 3),
        ("test_google_streaming_tool_call_thought_signature.yaml", 2),
        ("test_google_stream_usage_is_live_mid_stream.yaml", 1),
        ("test_google_model_thinking_part_iter.yaml", 1),
    ] {
        let found = std::fs::read_dir(dir.join("_extracted"))
            .expect("_extracted")
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with(cassette))
            .count();
        assert_eq!(found, bodies, "{cassette}");
    }
}

// ---------------------------------------------------------------------------
// Recordings: JSON-lines payloads

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn text_then_signature_only_part() {
    let run = GEMINI.fixture_lines("google-text.chunks.txt");
    assert_eq!(run.message.id.as_deref(), Some("bH6LaZW8Fp_3nsEPqtaSwQ4"));
    assert_eq!(run.message.model.as_deref(), Some("gemini-3-pro-preview"));
    let c = run.choice();
    assert_eq!(
        c.text,
        "There are **3** \"r\"s in strawberry.\n\nst**r**awbe**rr**y"
    );
    assert_eq!(kinds(&run), ["text", "reasoning"]);
    assert!(signature_of(c.content.last())
        .is_some_and(|s| s.starts_with("EqsFCqgFAb4+9vvtAF5n87lB4OGD")));
    assert_eq!(c.reasoning, "");
    assert_eq!(c.finish, Some(FinishReason::Stop));
    assert_eq!(usage_full(&run), (Some(9), Some(208), Some(217), Some(185)));
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn tool_call_chunks() {
    let run = GEMINI.fixture_lines("google-tool-call.chunks.txt");
    let call = tool_by_name(&run, "weather")[0];
    assert_eq!(call.id, "call_0_0_weather");
    assert_eq!(call.arguments, Some(obj(r#"{"location":"San Francisco"}"#)));
    assert!(call
        .signature
        .as_deref()
        .is_some_and(|s| s.starts_with("EqUCCqICAb4+9vsh8Pd5taZVoPzS")));
    assert_eq!(run.choice().finish, Some(FinishReason::ToolCalls));
    assert_eq!(usage_full(&run), (Some(29), Some(60), Some(89), Some(45)));
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn streamed_arguments_closed_by_terminator() {
    let run = GEMINI.fixture_lines("google-stream-tool-call-arguments.chunks.txt");
    let calls = tool_by_name(&run, "getWeather");
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].arguments, Some(obj(r#"{"location":"Boston"}"#)));
    assert_eq!(calls[0].arguments_text, r#"{"location":"Boston"}"#);
    assert!(calls[0]
        .signature
        .as_deref()
        .is_some_and(|s| s.starts_with("CiMBjz1rX25KieIB4d4AwFn8")));
    assert_eq!(
        calls[1].arguments,
        Some(obj(r#"{"location":"San Francisco"}"#))
    );
    assert_eq!(calls[1].signature, None);
    assert_eq!(
        (calls[0].id.as_str(), calls[1].id.as_str()),
        ("call_0_0_getWeather", "call_0_1_getWeather")
    );
    // The string streams at its path, then completes, then the call ends.
    let names: Vec<String> = run
        .events
        .iter()
        .filter(|e| {
            matches!(
                e,
                StreamEvent::ToolCallStart { call: 0, .. }
                    | StreamEvent::Argument { call: 0, .. }
                    | StreamEvent::ToolCallEnd { call: 0, .. }
            )
        })
        .map(|e| e.name().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "tool_call_start",
            "argument_delta",
            "argument",
            "tool_call_end"
        ]
    );
    assert!(run.events.iter().any(|e| matches!(e,
        StreamEvent::Argument { call: 1, event: ArgumentEvent::Delta { path, text }, .. } if path.to_string() == "location" && text == "San Francisco")));
    // The first call ends at its terminator, before the second starts.
    let end0 = position(&run, |e| {
        matches!(e, StreamEvent::ToolCallEnd { call: 0, .. })
    });
    let start1 = position(&run, |e| {
        matches!(e, StreamEvent::ToolCallStart { call: 1, .. })
    });
    assert!(end0 < start1);
    assert_eq!(run.choice().finish, Some(FinishReason::ToolCalls));
    assert_eq!(
        usage_full(&run),
        (Some(26), Some(155), Some(181), Some(132))
    );
    assert!(run.message.complete);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn no_args_call_and_streamed_calls() {
    let run = GEMINI.fixture_lines("google-stream-no-args-tool-call.chunks.txt");
    let c = run.choice();
    assert!(c
        .reasoning
        .starts_with("**Processing User Requests**\n\nI've started by understanding"));
    assert_eq!(
        kinds(&run),
        [
            "reasoning",
            "tool_call",
            "tool_call",
            "tool_call",
            "tool_call"
        ]
    );
    let theme = tool_by_name(&run, "read_theme")[0];
    assert_eq!(theme.arguments, Some(obj("{}")));
    assert!(theme
        .signature
        .as_deref()
        .is_some_and(|s| s.starts_with("AY89a18a8/Loc2wl5oft")));
    let screens: Vec<Option<Value>> = tool_by_name(&run, "read_screen")
        .iter()
        .map(|c| c.arguments.clone())
        .collect();
    assert_eq!(
        screens,
        [
            Some(obj(r#"{"id":"A"}"#)),
            Some(obj(r#"{"id":"B"}"#)),
            Some(obj(r#"{"id":"C"}"#))
        ]
    );
    assert_eq!(run.events_named("tool_call_end").len(), 4);
    assert_eq!(c.finish, Some(FinishReason::ToolCalls));
    assert_eq!(
        usage_full(&run),
        (Some(249), Some(241), Some(490), Some(183))
    );
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn array_arguments_without_terminator() {
    let run = GEMINI.fixture_lines(
        "google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt",
    );
    let call = tool_by_name(&run, "writeItems")[0];
    assert_eq!(
        call.arguments,
        Some(obj(
            r#"{"operations":[{"action":"add","description":"Fresh red apple","itemid":"apple_001","price":0.5},{"action":"add","description":"Ripe yellow banana","itemid":"banana_001","price":0.3}]}"#
        ))
    );
    assert!(call.arguments_error.is_none());
    assert!(run.events.iter().any(|e| matches!(e,
        StreamEvent::Argument { event: ArgumentEvent::Value { path, value }, .. } if path.to_string() == "operations[1].price" && value.as_f64() == Some(0.3))));
    assert!(run.events.iter().any(|e| matches!(e,
        StreamEvent::Argument { event: ArgumentEvent::Value { path, .. }, .. } if path.to_string() == "operations[0]")));
    // Closed by the last partialArgs without willContinue, not by the finish.
    let end = position(&run, |e| e.name() == "tool_call_end");
    let usage = position(&run, |e| e.name() == "usage");
    assert!(end < usage);
    assert_eq!(run.choice().finish, Some(FinishReason::ToolCalls));
    assert_eq!(
        usage_full(&run),
        (Some(54), Some(195), Some(249), Some(121))
    );
}

// ---------------------------------------------------------------------------
// Synthetic streams, one per quirk (tests/data/gemini)

#[test]
fn quirk_crlf_framing_and_default_index() {
    let run = GEMINI.synthetic("text_crlf.sse");
    assert_eq!(run.choice().text, "Hello, world — ünïcode ✓");
    assert!(run.message.choices.contains_key(&0));
    assert_eq!(run.choice().role.as_deref(), Some("assistant"));
    assert_eq!(run.events_named("text_delta").len(), 3);
    assert_eq!(usage_full(&run), (Some(5), Some(6), Some(11), None));
}

#[test]
fn quirk_thought_text_is_reasoning() {
    let run = GEMINI.synthetic("thought_text.sse");
    let c = run.choice();
    assert_eq!(c.reasoning, "**Plan**\nThink. More thought.");
    assert_eq!(c.text, "The answer is 4.");
    assert_eq!(kinds(&run), ["reasoning", "text"]);
    assert_eq!(signature_of(c.content.first()), Some("sig-thought"));
    assert_eq!(usage_full(&run), (Some(4), Some(21), Some(25), Some(16)));
}

#[test]
fn quirk_whole_function_calls() {
    let run = GEMINI.synthetic("function_call_whole.sse");
    let c = run.choice();
    let weather = tool_by_name(&run, "get_weather")[0];
    assert_eq!(weather.id, "call_0_0_get_weather");
    assert_eq!(
        weather.arguments,
        Some(obj(
            r#"{"city":"Paris","days":[1,2],"metric":true,"note":null}"#
        ))
    );
    // The args went through the argument parser: events for each value.
    for (path, value) in [
        ("city", obj(r#""Paris""#)),
        ("days[1]", obj("2")),
        ("metric", obj("true")),
        ("note", obj("null")),
    ] {
        assert!(run.events.iter().any(|e| matches!(e,
            StreamEvent::Argument { event: ArgumentEvent::Value { path: p, value: v }, .. } if p.to_string() == path && *v == value)), "{path}");
    }
    // No args key: `{}`; the next ordinal; an id on the wire is kept.
    let time = tool_by_name(&run, "get_time")[0];
    assert_eq!(
        (time.id.as_str(), time.arguments.clone()),
        ("call_0_1_get_time", Some(obj("{}")))
    );
    assert_eq!(tool_by_name(&run, "lookup")[0].id, "call-explicit-7");
    assert_eq!(c.tool_calls.keys().copied().collect::<Vec<_>>(), [0, 1, 2]);
    assert_eq!(run.events_named("tool_call_end").len(), 3);
    assert_eq!(c.finish, Some(FinishReason::ToolCalls));
}

#[test]
fn quirk_partial_args_closed_by_terminator() {
    let run = GEMINI.synthetic("partial_args_terminated.sse");
    let call = tool_by_name(&run, "make_recipe")[0];
    assert_eq!(
        call.arguments,
        Some(obj(
            r#"{"recipe":{"name":"Lasagna \"al forno\"","servings":4,"ingredients":["pasta","ragù"]},"vegetarian":false,"odd.key":null}"#
        ))
    );
    assert!(call.arguments_error.is_none());
    // The string arrives in pieces (willContinue), as deltas at its path.
    let name: String = run
        .events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Argument {
                event: ArgumentEvent::Delta { path, text },
                ..
            } if path.to_string() == "recipe.name" => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(name, "Lasagna \"al forno\"");
    assert!(run.events_named("argument_delta").len() >= 2);
    // The call ends at `functionCall: {}`, before the text that follows.
    let end = position(&run, |e| e.name() == "tool_call_end");
    let text = position(&run, |e| e.name() == "text_delta");
    assert!(end < text);
    assert_eq!(kinds(&run), ["tool_call", "text"]);
    assert_eq!(run.choice().text, "Done.");
}

#[test]
fn quirk_partial_args_closed_without_continue() {
    let run = GEMINI.synthetic("partial_args_final_without_continue.sse");
    assert_eq!(
        tool_by_name(&run, "write_items")[0].arguments,
        Some(obj(
            r#"{"items":[{"id":"a1","price":0.5},{"id":"b2","price":1.25}]}"#
        ))
    );
    // A streaming call still open when the next named call begins ends there.
    assert_eq!(
        tool_by_name(&run, "second")[0].arguments,
        Some(obj(r#"{"x":1}"#))
    );
    assert_eq!(
        tool_by_name(&run, "third")[0].arguments,
        Some(obj(r#"{"y":2}"#))
    );
    let end0 = position(&run, |e| {
        matches!(e, StreamEvent::ToolCallEnd { call: 0, .. })
    });
    let start1 = position(&run, |e| {
        matches!(e, StreamEvent::ToolCallStart { call: 1, .. })
    });
    let end1 = position(&run, |e| {
        matches!(e, StreamEvent::ToolCallEnd { call: 1, .. })
    });
    let start2 = position(&run, |e| {
        matches!(e, StreamEvent::ToolCallStart { call: 2, .. })
    });
    assert!(end0 < start1 && end1 < start2);
}

#[test]
fn quirk_partial_args_cut_by_end_of_stream() {
    let run = GEMINI.synthetic("partial_args_cut.sse");
    let call = tool_by_name(&run, "search")[0];
    // Closed at the end of the stream with what arrived; the message says
    // it is not complete.
    assert_eq!(call.arguments, Some(obj(r#"{"query":"half a que"}"#)));
    assert!(call.ended);
    assert!(!run.message.complete);
    assert_eq!(run.choice().finish, None);
}

#[test]
fn quirk_thought_signatures() {
    let run = GEMINI.synthetic("thought_signatures.sse");
    let c = run.choice();
    assert_eq!(
        tool_by_name(&run, "act")[0].signature.as_deref(),
        Some("sig-call")
    );
    assert_eq!(
        kinds(&run),
        ["reasoning", "tool_call", "reasoning", "text", "reasoning"]
    );
    assert_eq!(signature_of(c.content.get(2)), Some("sig-text"));
    assert_eq!(signature_of(c.content.get(4)), Some("sig-final"));
    // The thought itself had no signature: the call's is not moved onto it.
    assert_eq!(signature_of(c.content.first()), None);
}

#[test]
fn quirk_usage_snapshots_keep_the_last() {
    let run = GEMINI.synthetic("usage_snapshots.sse");
    let u = run.message.usage.as_ref().unwrap();
    // The last snapshot wins whole: its missing cache count is not carried
    // over from an earlier one; count-less snapshots change nothing.
    assert_eq!(
        (u.input_tokens, u.output_tokens, u.total_tokens),
        (Some(90), Some(70), Some(160))
    );
    assert_eq!(u.reasoning_tokens, Some(67));
    assert_eq!(u.cached_input_tokens, None);
    let cached: Vec<Option<u64>> = run
        .events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Usage(u) => Some(u.cached_input_tokens),
            _ => None,
        })
        .collect();
    assert_eq!(cached, [Some(60), None]);
}

#[test]
fn quirk_finish_reasons() {
    assert_eq!(gemini::normalize("STOP", false), FinishReason::Stop);
    assert_eq!(gemini::normalize("STOP", true), FinishReason::ToolCalls);
    assert_eq!(gemini::normalize("MAX_TOKENS", false), FinishReason::Length);
    for filtered in [
        "SAFETY",
        "RECITATION",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
    ] {
        assert_eq!(
            gemini::normalize(filtered, false),
            FinishReason::ContentFilter,
            "{filtered}"
        );
    }
    assert_eq!(
        gemini::normalize("MALFORMED_FUNCTION_CALL", true),
        FinishReason::Other
    );
    assert_eq!(gemini::normalize("OTHER", false), FinishReason::Other);

    let run = GEMINI.synthetic("finish_max_tokens.sse");
    assert_eq!(run.choice().text, "Cut he");
    assert_eq!(run.choice().finish, Some(FinishReason::Length));
    assert_eq!(run.choice().finish_reason.as_deref(), Some("MAX_TOKENS"));

    let run = GEMINI.synthetic("finish_safety.sse");
    assert_eq!(run.choice().finish, Some(FinishReason::ContentFilter));
    assert_eq!(
        run.choice().finish_details,
        Some(Value::from("blocked for safety"))
    );
}

#[test]
fn quirk_multiple_candidates() {
    let run = GEMINI.synthetic("multiple_candidates.sse");
    let zero = run.message.choices.get(&0).unwrap();
    let one = run.message.choices.get(&1).unwrap();
    assert_eq!(zero.text, "zero ");
    assert_eq!(one.text, "one done");
    assert_eq!(zero.finish, Some(FinishReason::ToolCalls));
    assert_eq!(one.finish, Some(FinishReason::Stop));
    assert_eq!(
        zero.tool_calls.get(&0).map(|c| c.id.as_str()),
        Some("call_0_0_f")
    );
    assert!(run.message.complete);
    // Complete only once every candidate has finished.
    let body = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/gemini/multiple_candidates.sse"),
    )
    .unwrap();
    let mut acc = Provider::Gemini.accumulator();
    let mut complete = Vec::new();
    for line in body.lines().filter_map(|l| l.strip_prefix("data: ")) {
        acc.feed("message", &json::parse(line.as_bytes()).unwrap());
        complete.push(acc.message().complete);
    }
    assert_eq!(complete, [false, false, true]);
}

#[test]
fn quirk_sparse_candidate_index() {
    let run = GEMINI.synthetic("sparse_candidate_index.sse");
    let c = run
        .message
        .choices
        .get(&u64::MAX)
        .expect("keyed by its index");
    assert_eq!(c.text, "far");
    assert_eq!(run.message.choices.len(), 1);
}

#[test]
fn quirk_prompt_blocked() {
    let run = GEMINI.synthetic("prompt_blocked.sse");
    assert!(run.message.choices.is_empty());
    assert_eq!(
        run.message
            .details
            .get("promptFeedback")
            .and_then(|f| f.get("blockReason"))
            .and_then(Value::as_str),
        Some("SAFETY")
    );
    assert!(run.message.complete);
    assert_eq!(usage_full(&run), (Some(8), None, Some(8), None));
}

#[test]
fn quirk_error_payload() {
    let run = GEMINI.synthetic("error_payload.sse");
    let error = run.message.error.as_ref().expect("error kept");
    assert_eq!(error.message, "The model is overloaded.");
    assert_eq!(error.kind.as_deref(), Some("UNAVAILABLE"));
    assert_eq!(run.choice().text, "Partial");
    assert!(!run.message.complete);
    assert!(matches!(run.events.last(), Some(StreamEvent::Error(_))));
}

#[test]
fn quirk_other_parts_kept_raw() {
    let run = GEMINI.synthetic("other_parts.sse");
    // The code Gemini ran is a provider-run tool, its part kept as sent.
    assert_eq!(kinds(&run), ["text", "provider_tool", "raw", "raw", "text"]);
    assert!(matches!(&run.choice().content[2], Part::Raw(v)
        if v.pointer("/executableCode/code").and_then(Value::as_str) == Some("print(1+1)")));
    assert!(matches!(&run.choice().content[3], Part::Raw(v)
        if v.pointer("/codeExecutionResult/output").and_then(Value::as_str) == Some("2\n")));
    let tool = run
        .choice()
        .provider_tools
        .values()
        .next()
        .expect("the code run");
    assert_eq!(tool.name, "codeExecution");
    assert_eq!(
        tool.arguments
            .as_ref()
            .and_then(|a| a.get("code"))
            .and_then(Value::as_str),
        Some("print(1+1)")
    );
    assert_eq!(
        tool.result
            .as_ref()
            .and_then(|r| r.pointer("/codeExecutionResult/outcome"))
            .and_then(Value::as_str),
        Some("OUTCOME_OK")
    );
    assert_eq!(run.choice().text, "Running code.It is 2.");
}

#[test]
fn cli_json_shape() {
    let run = GEMINI.synthetic("function_call_whole.sse");
    let v = run.message.to_value();
    assert_eq!(v.get("provider").and_then(Value::as_str), Some("gemini"));
    assert_eq!(v.get("id").and_then(Value::as_str), Some("resp_1"));
    assert_eq!(v.get("model").and_then(Value::as_str), Some("gemini-test"));
    assert_eq!(
        v.pointer("/choices/0/tool_calls/0/arguments/days/1")
            .and_then(Value::as_u64),
        Some(2)
    );
    assert_eq!(
        v.pointer("/choices/0/finish_reason")
            .and_then(Value::as_str),
        Some("STOP")
    );
    assert_eq!(
        v.pointer("/usage/input_tokens").and_then(Value::as_u64),
        Some(30)
    );
}

#[test]
fn hostile_payloads_do_not_panic() {
    let payloads = [
        r#"{"candidates":{"index":0}}"#,
        r#"{"candidates":[null,1,"x",{"index":-3},{"index":"0"}]}"#,
        r#"{"candidates":[{"content":{"parts":{"text":"not an array"}}}]}"#,
        r#"{"candidates":[{"content":{"parts":[null,{"text":5},{"thought":true},{"thoughtSignature":7}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"functionCall":null}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":"x","willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$[0]","stringValue":"a"},{"jsonPath":5},{"jsonPath":"$.a","numberValue":"7"},{"jsonPath":"$.a.b[99999999999999999999]","boolValue":true},{"jsonPath":"$['x","stringValue":"y"}],"willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.s","stringValue":"open","willContinue":true}],"willContinue":true}}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"","args":"text"}}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"args":{"a":1}}}]}}]}"#,
        r#"{"candidates":[{"finishReason":5},{"finishReason":"STOP","index":18446744073709551615}]}"#,
        r#"{"usageMetadata":{"promptTokenCount":-1,"totalTokenCount":1.5}}"#,
        r#"{"usageMetadata":[]}"#,
        r#"{"promptFeedback":{"blockReason":3}}"#,
        r#"{"candidates":[],"promptFeedback":{"blockReason":""}}"#,
        r#"{"candidates":null,"promptFeedback":{"blockReason":"OTHER"}}"#,
        r#"{"candidates":[{"groundingMetadata":5},{"index":1,"groundingMetadata":null}]}"#,
        r#"{"candidates":[{"groundingMetadata":{"groundingChunks":"x"}},{"index":2,"groundingMetadata":[1]}]}"#,
        r#"{"candidates":[{"groundingMetadata":{"groundingChunks":[]}}]}"#,
        r#"{"candidates":[{"citationMetadata":{"citationSources":[{"startIndex":-1},{"startIndex":18446744073709551616},{"startIndex":"0"}]},"urlContextMetadata":{"urlMetadata":{"retrievedUrl":1}}}]}"#,
        r#"{"candidates":[{"index":3,"citationMetadata":{"citations":[{}]},"urlContextMetadata":{"x":[]}},{"index":3,"urlContextMetadata":{"x":1,"urlMetadata":[{}]}}]}"#,
        r#"{"error":"string"}"#,
        r#"{"error":{"code":"x"}}"#,
        r#"[[{"candidates":[]}], 3, null]"#,
        r#"null"#,
    ];
    let mut acc = Provider::Gemini.accumulator();
    for p in payloads {
        acc.feed("message", &obj(p));
        while acc.next_event().is_some() {}
    }
    acc.finish();
    let _ = acc.message().to_value().to_json();
}

// ---------------------------------------------------------------------------
// Bodies from the provider audit (/tmp/audit-providers/cases), inline

/// An SSE body of these payloads.
fn body(payloads: &[&str]) -> Vec<u8> {
    payloads
        .iter()
        .map(|p| format!("data: {p}\n\n"))
        .collect::<String>()
        .into_bytes()
}

/// gemini_blocked_empty_candidates.sse: `candidates: []` with a block
/// reason is the blocked prompt that has no `candidates` at all: no
/// choice, the feedback kept in the message, complete.
#[test]
fn prompt_blocked_with_empty_candidates() {
    let run = GEMINI.sse(&body(&[
        r#"{"candidates":[],"promptFeedback":{"blockReason":"SAFETY","safetyRatings":[{"category":"HARM_CATEGORY_DANGEROUS_CONTENT","probability":"HIGH"}]},"usageMetadata":{"promptTokenCount":10,"totalTokenCount":10},"modelVersion":"gemini-2.5-flash"}"#,
    ]));
    assert!(
        run.message.choices.is_empty(),
        "a blocked prompt has no answer"
    );
    let feedback = run.message.details.get("promptFeedback").expect("kept");
    assert_eq!(
        feedback.get("blockReason").and_then(Value::as_str),
        Some("SAFETY")
    );
    assert_eq!(
        feedback
            .pointer("/safetyRatings/0/probability")
            .and_then(Value::as_str),
        Some("HIGH")
    );
    assert!(run.message.complete);
    assert_eq!(run.events_named("finish").len(), 0);
    assert_eq!(run.events_named("detail").len(), 1);
    assert_eq!(usage_full(&run), (Some(10), None, Some(10), None));
}

/// gemini_block_unspecified.sse: the enum's default block reasons are
/// not blocks; the candidate's own finish that follows is the finish.
#[test]
fn unspecified_block_reasons_are_not_blocks() {
    for reason in ["BLOCK_REASON_UNSPECIFIED", "BLOCKED_REASON_UNSPECIFIED", ""] {
        let early = format!(
            r#"{{"promptFeedback":{{"blockReason":"{reason}","safetyRatings":[]}},"usageMetadata":{{"promptTokenCount":10,"totalTokenCount":10}},"modelVersion":"gemini-2.5-flash"}}"#
        );
        let run = GEMINI.sse(&body(&[&early]));
        assert!(run.message.choices.is_empty(), "{reason:?}: no choice");
        assert!(!run.message.complete, "{reason:?}: nothing finished");
        let run = GEMINI.sse(&body(&[
            &early,
            r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"Fixture text."}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":3,"totalTokenCount":13},"modelVersion":"gemini-2.5-flash"}"#,
        ]));
        let c = run.choice();
        assert_eq!(c.text, "Fixture text.", "{reason:?}");
        assert_eq!(c.finish_reason.as_deref(), Some("STOP"), "{reason:?}");
        assert_eq!(c.finish, Some(FinishReason::Stop), "{reason:?}");
        assert_eq!(run.events_named("finish").len(), 1, "{reason:?}");
        assert!(run.message.complete);
    }
}

const GROUNDING: &str = r#"{"webSearchQueries":["euro 2024 winner"],"searchEntryPoint":{"renderedContent":"<div>...</div>"},"groundingChunks":[{"web":{"uri":"https://vertexaisearch.cloud.google.com/grounding-api-redirect/abc","title":"uefa.com"}}],"groundingSupports":[{"segment":{"startIndex":0,"endIndex":20,"text":"Spain won Euro 2024."},"groundingChunkIndices":[0],"confidenceScores":[0.9]}]}"#;

/// The grounding citations of the text part at `position`.
fn groundings(run: &Run, position: usize) -> Vec<&Value> {
    run.choice()
        .citations
        .get(&position)
        .map(|list| {
            list.iter()
                .filter_map(|c| c.get("groundingMetadata"))
                .collect()
        })
        .unwrap_or_default()
}

/// gemini_grounding.sse: Google Search grounding is kept whole, as a
/// citation of the text it grounds.
#[test]
fn grounding_metadata_is_kept_as_a_citation() {
    let last = format!(
        r#"{{"candidates":[{{"content":{{"parts":[{{"text":""}}],"role":"model"}},"finishReason":"STOP","index":0,"groundingMetadata":{GROUNDING}}}],"usageMetadata":{{"promptTokenCount":10,"candidatesTokenCount":6,"totalTokenCount":16}},"modelVersion":"gemini-2.5-flash","responseId":"r1"}}"#
    );
    let run = GEMINI.sse(&body(&[
        r#"{"candidates":[{"content":{"parts":[{"text":"Spain won Euro 2024."}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":5,"totalTokenCount":15},"modelVersion":"gemini-2.5-flash","responseId":"r1"}"#,
        &last,
    ]));
    let c = run.choice();
    assert_eq!(c.content, [Part::Text("Spain won Euro 2024.".into())]);
    assert_eq!(groundings(&run, 0), [&obj(GROUNDING)]);
    assert_eq!(c.citations.values().map(Vec::len).sum::<usize>(), 1);
    let v = run.message.to_value();
    assert_eq!(
        v.pointer("/choices/0/content/0/citations/0/groundingMetadata/groundingChunks/0/web/title")
            .and_then(Value::as_str),
        Some("uefa.com")
    );
    assert_eq!(
        v.pointer("/choices/0/content/0/citations/0/groundingMetadata/webSearchQueries/0")
            .and_then(Value::as_str),
        Some("euro 2024 winner")
    );
    assert_eq!(c.finish, Some(FinishReason::Stop));
    assert!(run.message.complete);
}

/// Gemini sends the metadata again, grown, on later chunks: the latest is
/// kept, once, where the first one went; an empty one changes nothing.
#[test]
fn repeated_grounding_metadata_is_kept_once() {
    let first = r#"{"webSearchQueries":["q"],"groundingChunks":[{"web":{"uri":"https://a.example","title":"a"}}],"groundingSupports":[{"segment":{"startIndex":0,"endIndex":2,"text":"A."},"groundingChunkIndices":[0]}]}"#;
    let grown = r#"{"webSearchQueries":["q"],"groundingChunks":[{"web":{"uri":"https://a.example","title":"a"}},{"web":{"uri":"https://b.example","title":"b"}}],"groundingSupports":[{"segment":{"startIndex":0,"endIndex":2,"text":"A."},"groundingChunkIndices":[0]},{"segment":{"startIndex":3,"endIndex":5,"text":"B."},"groundingChunkIndices":[1]}]}"#;
    let chunk = |text: &str, metadata: &str, finish: &str| {
        format!(
            r#"{{"candidates":[{{"content":{{"parts":[{{"text":"{text}"}}],"role":"model"}},"index":0{finish},"groundingMetadata":{metadata}}}]}}"#
        )
    };
    let payloads = [
        chunk("A.", first, ""),
        chunk(" B.", grown, ""),
        chunk("", "{}", ""),
        chunk("", grown, r#","finishReason":"STOP""#),
    ];
    let payloads: Vec<&str> = payloads.iter().map(String::as_str).collect();
    let run = GEMINI.sse(&body(&payloads));
    assert_eq!(run.choice().content, [Part::Text("A. B.".into())]);
    assert_eq!(groundings(&run, 0), [&obj(grown)]);
    assert_eq!(run.choice().citations.len(), 1);
}

/// Grounding that comes after a function call (no text part is the
/// latest) starts the text part it then stays on.
#[test]
fn grounding_after_a_function_call() {
    let run = GEMINI.sse(&body(&[
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{}}}],"role":"model"}}]}"#,
        &format!(
            r#"{{"candidates":[{{"content":{{"parts":[{{"text":"Spain."}}],"role":"model"}},"groundingMetadata":{GROUNDING}}}]}}"#
        ),
        &format!(
            r#"{{"candidates":[{{"content":{{"parts":[{{"text":" Yes."}}],"role":"model"}},"finishReason":"STOP","groundingMetadata":{GROUNDING}}}]}}"#
        ),
    ]));
    assert_eq!(kinds(&run), ["tool_call", "text"]);
    assert_eq!(run.choice().text, "Spain. Yes.");
    assert_eq!(groundings(&run, 1), [&obj(GROUNDING)]);
    assert_eq!(run.choice().citations.len(), 1);
}

/// Grounding that comes after a function call attaches to the text before
/// the call, not to a new empty text part (Gemini rejects one sent back);
/// with no text at all it is a raw part, replaced in place when it grows.
#[test]
fn grounding_adds_no_empty_text_part() {
    let run = GEMINI.sse(&body(&[
        r#"{"candidates":[{"content":{"parts":[{"text":"Looking up."}],"role":"model"}}]}"#,
        &format!(
            r#"{{"candidates":[{{"content":{{"parts":[{{"functionCall":{{"name":"f","args":{{}}}}}}],"role":"model"}},"finishReason":"STOP","groundingMetadata":{GROUNDING}}}]}}"#
        ),
    ]));
    assert_eq!(kinds(&run), ["text", "tool_call"]);
    assert_eq!(groundings(&run, 0), [&obj(GROUNDING)]);

    let small = r#"{"webSearchQueries":["q"]}"#;
    let run = GEMINI.sse(&body(&[
        &format!(
            r#"{{"candidates":[{{"content":{{"parts":[{{"functionCall":{{"name":"f","args":{{}}}}}}],"role":"model"}},"groundingMetadata":{small}}}]}}"#
        ),
        &format!(
            r#"{{"candidates":[{{"content":{{"parts":[{{"functionCall":{{"name":"g","args":{{}}}}}}],"role":"model"}},"finishReason":"STOP","groundingMetadata":{GROUNDING}}}]}}"#
        ),
    ]));
    assert_eq!(kinds(&run), ["tool_call", "raw", "tool_call"]);
    assert_eq!(
        run.choice().content[1],
        Part::Raw(obj(&format!(r#"{{"groundingMetadata":{GROUNDING}}}"#)))
    );
    assert!(run.choice().citations.is_empty());
}

// ---------------------------------------------------------------------------
// citationMetadata and urlContextMetadata

/// The citations of the text part at `position`, as kept.
fn citations_at(run: &Run, position: usize) -> Vec<Value> {
    run.choice()
        .citations
        .get(&position)
        .cloned()
        .unwrap_or_default()
}

/// `{"<key>": <value>}`, the form a Gemini citation is kept in.
fn wrapped(key: &str, value: &str) -> Value {
    obj(&format!(r#"{{"{key}":{value}}}"#))
}

/// One Gemini candidate chunk: these parts, then these candidate members.
fn candidate_chunk(parts: &str, members: &str) -> String {
    format!(r#"{{"candidates":[{{"content":{{"role":"model","parts":[{parts}]}}{members}}}]}}"#)
}

/// Citation sources come on the chunks whose text they cite, each chunk
/// with sources of its own (as a Vertex `gemini-pro` stream recorded in
/// luiscoco/GoogleCloud_Sample15-Gemini-dotNET8-WebAPI's README does);
/// their indices are into the candidate's whole text, so each attaches to
/// the text part its `startIndex` falls in, whichever spelling
/// (`citationSources`, Vertex's `citations`) carries it.
#[test]
fn citation_metadata_across_chunks_cites_the_text_it_indexes() {
    let a = r#"{"startIndex":0,"endIndex":20,"uri":"https://a.example/euro","license":"mit"}"#;
    let b = r#"{"startIndex":39,"endIndex":50,"uri":"https://b.example/final","title":"B","publicationDate":{"year":2024,"month":7,"day":14}}"#;
    let payloads = [
        candidate_chunk(r#"{"text":"Spain won Euro 2024."}"#, ""),
        candidate_chunk(
            r#"{"text":" They beat England."}"#,
            &format!(r#","citationMetadata":{{"citationSources":[{a}]}}"#),
        ),
        candidate_chunk(r#"{"functionCall":{"name":"lookup","args":{}}}"#, ""),
        candidate_chunk(
            r#"{"text":"Final: 2-1."}"#,
            &format!(r#","finishReason":"STOP","citationMetadata":{{"citations":[{b}]}}"#),
        ),
    ];
    let payloads: Vec<&str> = payloads.iter().map(String::as_str).collect();
    let run = GEMINI.sse(&body(&payloads));
    let c = run.choice();
    assert_eq!(
        c.content,
        [
            Part::Text("Spain won Euro 2024. They beat England.".into()),
            Part::ToolCall(0),
            Part::Text("Final: 2-1.".into()),
        ]
    );
    assert_eq!(citations_at(&run, 0), [wrapped("citationSource", a)]);
    assert_eq!(citations_at(&run, 2), [wrapped("citationSource", b)]);
    assert_eq!(c.citations.len(), 2);
    assert_eq!(c.finish, Some(FinishReason::ToolCalls));
    let v = run.message.to_value();
    assert_eq!(
        v.pointer("/choices/0/content/2/citations/0/citationSource/uri")
            .and_then(Value::as_str),
        Some("https://b.example/final")
    );
    assert_eq!(
        v.pointer("/choices/0/content/0/citations/0/citationSource/license")
            .and_then(Value::as_str),
        Some("mit")
    );
}

/// A source's indices count bytes of UTF-8, as `Choice::text` does: one
/// that starts after multi-byte text still finds its part.
#[test]
fn citation_source_indices_are_bytes() {
    let src = r#"{"startIndex":9,"endIndex":14,"uri":"https://c.example"}"#;
    let payloads = [
        candidate_chunk(r#"{"text":"Olé! "}"#, ""),
        candidate_chunk(r#"{"thought":true,"text":"hm"}"#, ""),
        candidate_chunk(
            r#"{"text":"Done."}"#,
            &format!(r#","finishReason":"STOP","citationMetadata":{{"citationSources":[{src}]}}"#),
        ),
    ];
    let payloads: Vec<&str> = payloads.iter().map(String::as_str).collect();
    let run = GEMINI.sse(&body(&payloads));
    assert_eq!(kinds(&run), ["text", "reasoning", "text"]);
    assert_eq!(run.choice().text, "Olé! Done.");
    // "Olé! " is 6 bytes: byte 9 is inside "Done.", the third part.
    assert_eq!(citations_at(&run, 2), [wrapped("citationSource", src)]);
    assert_eq!(run.choice().citations.len(), 1);
}

const URL_SUCCESS: &str = r#"{"retrievedUrl":"https://ai.google.dev/","urlRetrievalStatus":"URL_RETRIEVAL_STATUS_SUCCESS"}"#;
const URL_PAYWALL: &str = r#"{"retrievedUrl":"https://news.example/x","urlRetrievalStatus":"URL_RETRIEVAL_STATUS_PAYWALL"}"#;

/// URL context (the `url_context` tool): which pages were read, kept
/// whole as a citation of the candidate's text, sent once (on the first
/// chunk, as vercel/ai#7183 and firebase-js-sdk's stream reader say).
#[test]
fn url_context_metadata_is_kept_as_a_citation() {
    let metadata = format!(r#"{{"urlMetadata":[{URL_SUCCESS},{URL_PAYWALL}]}}"#);
    let payloads = [
        candidate_chunk(
            r#"{"text":"The page says hi."}"#,
            &format!(r#","urlContextMetadata":{metadata}"#),
        ),
        candidate_chunk(r#"{"text":" Bye."}"#, r#","finishReason":"STOP""#),
    ];
    let payloads: Vec<&str> = payloads.iter().map(String::as_str).collect();
    let run = GEMINI.sse(&body(&payloads));
    assert_eq!(
        run.choice().content,
        [Part::Text("The page says hi. Bye.".into())]
    );
    assert_eq!(
        citations_at(&run, 0),
        [wrapped("urlContextMetadata", &metadata)]
    );
    assert_eq!(
        run.message
            .to_value()
            .pointer("/choices/0/content/0/citations/0/urlContextMetadata/urlMetadata/1/urlRetrievalStatus")
            .and_then(Value::as_str),
        Some("URL_RETRIEVAL_STATUS_PAYWALL")
    );
}

/// Metadata sent again on later chunks, whole (cumulative) or grown, is
/// kept once: a source already kept is not kept again, URL entries
/// already kept are not repeated, and an empty object changes nothing.
#[test]
fn repeated_citation_and_url_metadata_are_kept_once() {
    let a = r#"{"startIndex":0,"endIndex":2,"uri":"https://a.example"}"#;
    let b = r#"{"startIndex":3,"endIndex":5,"uri":"https://b.example"}"#;
    let url_one = format!(r#"{{"urlMetadata":[{URL_SUCCESS}]}}"#);
    let url_two = format!(r#"{{"urlMetadata":[{URL_SUCCESS},{URL_PAYWALL}]}}"#);
    let payloads = [
        candidate_chunk(
            r#"{"text":"A. "}"#,
            &format!(
                r#","citationMetadata":{{"citationSources":[{a}]}},"urlContextMetadata":{url_one}"#
            ),
        ),
        candidate_chunk(
            r#"{"text":"B."}"#,
            &format!(
                r#","citationMetadata":{{"citationSources":[{a},{b}]}},"urlContextMetadata":{url_one}"#
            ),
        ),
        candidate_chunk(
            r#"{"text":""}"#,
            r#","citationMetadata":{},"urlContextMetadata":{}"#,
        ),
        candidate_chunk(
            r#"{"text":""}"#,
            &format!(
                r#","finishReason":"STOP","citationMetadata":{{"citations":[{b},{a}]}},"urlContextMetadata":{url_two}"#
            ),
        ),
    ];
    let payloads: Vec<&str> = payloads.iter().map(String::as_str).collect();
    let run = GEMINI.sse(&body(&payloads));
    assert_eq!(run.choice().content, [Part::Text("A. B.".into())]);
    assert_eq!(
        citations_at(&run, 0),
        [
            wrapped("citationSource", a),
            wrapped("urlContextMetadata", &url_two),
            wrapped("citationSource", b),
        ]
    );
    assert_eq!(run.choice().citations.len(), 1);
}

/// Metadata that comes before any text waits for the text it cites
/// (no empty text part is made for it, no raw part goes before the
/// text); with no text at all by the finish, or by the end of the
/// stream, it is kept as raw parts.
#[test]
fn metadata_before_any_text_waits_for_it() {
    let src = r#"{"startIndex":0,"endIndex":5,"uri":"https://x.example"}"#;
    let url = format!(r#"{{"urlMetadata":[{URL_SUCCESS}]}}"#);
    let early = format!(
        r#"{{"candidates":[{{"content":{{"role":"model"}},"urlContextMetadata":{url},"citationMetadata":{{"citationSources":[{src}]}}}}]}}"#
    );
    let run = GEMINI.sse(&body(&[
        &early,
        &candidate_chunk(r#"{"text":"Hello world."}"#, r#","finishReason":"STOP""#),
    ]));
    assert_eq!(run.choice().content, [Part::Text("Hello world.".into())]);
    assert_eq!(
        citations_at(&run, 0),
        [
            wrapped("urlContextMetadata", &url),
            wrapped("citationSource", src)
        ]
    );

    // No text by the finish: raw parts, after what the candidate made.
    let run = GEMINI.sse(&body(&[
        &early,
        &candidate_chunk(
            r#"{"functionCall":{"name":"f","args":{}}}"#,
            r#","finishReason":"STOP""#,
        ),
    ]));
    assert_eq!(
        run.choice().content,
        [
            Part::ToolCall(0),
            Part::Raw(wrapped("urlContextMetadata", &url)),
            Part::Raw(wrapped("citationSource", src)),
        ]
    );
    assert!(run.choice().citations.is_empty());

    // No text and no finish: kept when the stream ends.
    let run = GEMINI.sse(&body(&[&early]));
    assert_eq!(
        run.choice().content,
        [
            Part::Raw(wrapped("urlContextMetadata", &url)),
            Part::Raw(wrapped("citationSource", src)),
        ]
    );
}

/// Metadata that is not an object, lists that are not arrays and
/// entries that are not objects are left out; what is well formed
/// beside them is kept.
#[test]
fn malformed_citation_and_url_metadata_are_ignored() {
    let good = r#"{"startIndex":0,"endIndex":3,"uri":"https://ok.example"}"#;
    let payloads = [
        candidate_chunk(
            r#"{"text":"Hi."}"#,
            r#","citationMetadata":5,"urlContextMetadata":"x""#,
        ),
        candidate_chunk(
            r#"{"text":""}"#,
            r#","citationMetadata":[1],"urlContextMetadata":[{"urlMetadata":[]}]"#,
        ),
        candidate_chunk(
            r#"{"text":""}"#,
            r#","citationMetadata":{"citationSources":"x","citations":{"a":1}},"urlContextMetadata":{"urlMetadata":"x"}"#,
        ),
        candidate_chunk(
            r#"{"text":""}"#,
            r#","citationMetadata":null,"urlContextMetadata":{"urlMetadata":[1,null,"s",[]]}"#,
        ),
        candidate_chunk(
            r#"{"text":""}"#,
            &format!(
                r#","finishReason":"STOP","citationMetadata":{{"citationSources":[1,null,"s",[],{good}]}},"urlContextMetadata":{{"urlMetadata":[7,{URL_SUCCESS}]}}"#
            ),
        ),
    ];
    let payloads: Vec<&str> = payloads.iter().map(String::as_str).collect();
    let run = GEMINI.sse(&body(&payloads));
    assert_eq!(run.choice().content, [Part::Text("Hi.".into())]);
    assert_eq!(
        citations_at(&run, 0),
        [
            wrapped("citationSource", good),
            wrapped(
                "urlContextMetadata",
                &format!(r#"{{"urlMetadata":[{URL_SUCCESS}]}}"#)
            ),
        ]
    );
    assert!(run.message.complete);
    assert!(run.message.error.is_none());
}

/// A later `urlContextMetadata` replaces the members it repeats where
/// they are, adds the ones it brings, and appends only its new URL
/// entries; before and after its text.
#[test]
fn url_context_members_are_replaced_in_place_and_added() {
    let first = format!(r#"{{"urlMetadata":[{URL_SUCCESS}],"note":"one","kept":true}}"#);
    let second =
        format!(r#"{{"note":"two","urlMetadata":[{URL_PAYWALL},{URL_SUCCESS}],"more":1}}"#);
    let merged = format!(
        r#"{{"urlMetadata":[{URL_SUCCESS},{URL_PAYWALL}],"note":"two","kept":true,"more":1}}"#
    );
    for early in [true, false] {
        let head = if early {
            format!(
                r#"{{"candidates":[{{"content":{{"role":"model"}},"urlContextMetadata":{first}}}]}}"#
            )
        } else {
            candidate_chunk(
                r#"{"text":"Hi."}"#,
                &format!(r#","urlContextMetadata":{first}"#),
            )
        };
        let text = if early {
            r#"{"text":"Hi."}"#
        } else {
            r#"{"text":""}"#
        };
        let payloads = [
            head,
            candidate_chunk(text, &format!(r#","urlContextMetadata":{second}"#)),
            candidate_chunk(r#"{"text":""}"#, r#","finishReason":"STOP""#),
        ];
        let payloads: Vec<&str> = payloads.iter().map(String::as_str).collect();
        let run = GEMINI.sse(&body(&payloads));
        assert_eq!(run.choice().content, [Part::Text("Hi.".into())], "{early}");
        assert_eq!(
            citations_at(&run, 0),
            [wrapped("urlContextMetadata", &merged)],
            "{early}"
        );
    }
}

/// `logprobsResult`: each step's chosen token, with that step's top
/// candidates, on the text part of its chunk; a step without top
/// candidates, and a result that is not an object, add what they have.
#[test]
fn logprobs_result_steps_are_kept_on_their_text_part() {
    let cand = |t: &str, lp: f64| format!(r#"{{"token":"{t}","tokenId":1,"logProbability":{lp}}}"#);
    let first = format!(
        r#","logprobsResult":{{"topCandidates":[{{"candidates":[{},{}]}}],"chosenCandidates":[{}]}}"#,
        cand("Hi", -0.1),
        cand("Hello", -2.5),
        cand("Hi", -0.1)
    );
    let second = format!(
        r#","logprobsResult":{{"chosenCandidates":[{}]}}"#,
        cand(" there", -0.3)
    );
    let payloads = [
        candidate_chunk(r#"{"text":"Hi"}"#, &first),
        candidate_chunk(r#"{"text":" there"}"#, &second),
        candidate_chunk(
            r#"{"text":"!"}"#,
            r#","logprobsResult":7,"finishReason":"STOP""#,
        ),
    ];
    let payloads: Vec<&str> = payloads.iter().map(String::as_str).collect();
    let run = GEMINI.sse(&body(&payloads));
    assert_eq!(run.choice().content, [Part::Text("Hi there!".into())]);
    let kept = run.choice().logprobs.get(&0).cloned().unwrap_or_default();
    let expected = [
        obj(&format!(
            r#"{{"token":"Hi","tokenId":1,"logProbability":-0.1,"topCandidates":[{},{}]}}"#,
            cand("Hi", -0.1),
            cand("Hello", -2.5)
        )),
        obj(&cand(" there", -0.3)),
    ];
    assert_eq!(kept, expected);
    assert_eq!(run.choice().logprobs.len(), 1);
}

/// A chunk's tokens go on its text part though the chunk adds parts
/// after it: a function call, or the empty text that carries a thought
/// signature (as Gemini 3 streams end).
#[test]
fn logprobs_stay_with_their_text_when_the_chunk_adds_more() {
    let lp = |t: &str| {
        format!(
            r#","logprobsResult":{{"chosenCandidates":[{{"token":"{t}","logProbability":-0.1}}]}}"#
        )
    };
    let payloads = [
        candidate_chunk(
            r#"{"text":"Let me look."},{"functionCall":{"name":"f","args":{}}}"#,
            &lp("Let"),
        ),
        candidate_chunk(
            r#"{"text":"Done."},{"text":"","thoughtSignature":"c2ln"}"#,
            &format!(r#"{},"finishReason":"STOP""#, lp("Done")),
        ),
    ];
    let payloads: Vec<&str> = payloads.iter().map(String::as_str).collect();
    let run = GEMINI.sse(&body(&payloads));
    let c = run.choice();
    let token_at = |position: usize| -> Vec<String> {
        c.logprobs
            .get(&position)
            .into_iter()
            .flatten()
            .filter_map(|l| l.get("token").and_then(Value::as_str).map(String::from))
            .collect()
    };
    assert_eq!(c.content.first(), Some(&Part::Text("Let me look.".into())));
    assert_eq!(c.content.get(2), Some(&Part::Text("Done.".into())));
    assert_eq!(token_at(0), ["Let"]);
    assert_eq!(token_at(2), ["Done"]);
    assert_eq!(c.logprobs.len(), 2);
}
