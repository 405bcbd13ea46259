//! OpenAI Chat Completions: every recording in ../shared/fixtures
//! (openai_chat/ and openai_compatible/) and the synthetic streams in
//! tests/data/openai/, each fed whole, byte by byte and in random pieces
//! with identical results, with the concrete values read from each stream.

use crate::common::providers::{obj, Run, Streams};
use llmstream::json::Value;
use llmstream::providers::{
    ArgumentEvent, Choice, ErrorInfo, FinishReason, Part, Provider, StreamEvent,
};

/// The tokens of the log probabilities on the part at `position`.
fn tokens(c: &Choice, position: usize) -> Vec<&str> {
    c.logprobs
        .get(&position)
        .into_iter()
        .flatten()
        .map(|l| l.get("token").and_then(Value::as_str).unwrap_or(""))
        .collect()
}

const CHAT: Streams = Streams::new(Provider::OpenAiChat, "", "openai");

/// Token counts in the message and in the last usage event.
fn assert_usage(o: &Run, input: u64, output: u64, total: u64) {
    let usage = o.message.usage.as_ref().expect("usage reported");
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (Some(input), Some(output), Some(total))
    );
    match o.events_named("usage").last() {
        Some(StreamEvent::Usage(u)) => assert_eq!(u, usage),
        other => panic!("no usage event: {other:?}"),
    }
}

/// Finish reason of a choice, in the message and as the last finish event
/// of that choice.
fn assert_finish(o: &Run, choice: u64, reason: &str, normalized: FinishReason) {
    let c = &o.message.choices.get(&choice).unwrap();
    assert_eq!(c.finish_reason.as_deref(), Some(reason));
    assert_eq!(c.finish, Some(normalized));
    let last = o
        .events
        .iter()
        .rev()
        .find_map(|e| match e {
            StreamEvent::Finish {
                choice: c,
                reason,
                normalized,
            } if *c == choice => Some((reason.clone(), *normalized)),
            _ => None,
        })
        .expect("finish event");
    assert_eq!(last, (reason.to_string(), normalized));
}

/// The message started with this id and model, reported once, first.
fn assert_start(o: &Run, id: &str, model: &str) {
    assert_eq!(o.message.id.as_deref(), Some(id));
    assert_eq!(o.message.model.as_deref(), Some(model));
    assert_eq!(
        o.events.first(),
        Some(&StreamEvent::MessageStart {
            provider: Provider::OpenAiChat,
            id: Some(id.to_string()),
            model: Some(model.to_string())
        })
    );
    assert_eq!(o.events_named("message_start").len(), 1);
}

/// A tool call ended with this id, name and arguments; its end event says
/// the same.
fn assert_call(o: &Run, choice: u64, call: u64, id: &str, name: &str, args: &str) {
    let tc = o.call(choice, call);
    assert_eq!(tc.id, id);
    assert_eq!(tc.name, name);
    assert!(tc.ended, "call {call} ended");
    assert_eq!(
        tc.arguments.as_ref(),
        Some(&obj(args)),
        "arguments of {name}"
    );
    assert_eq!(tc.arguments_error, None);
    let end = o
        .events
        .iter()
        .find_map(|e| match e {
            StreamEvent::ToolCallEnd {
                choice: c,
                call: k,
                id,
                name,
                arguments,
                ..
            } if *c == choice && *k == call => Some((id.clone(), name.clone(), arguments.clone())),
            _ => None,
        })
        .expect("tool_call_end event");
    assert_eq!(end, (id.to_string(), name.to_string(), obj(args)));
    let starts: Vec<_> = o
        .events
        .iter()
        .filter(|e| matches!(e, StreamEvent::ToolCallStart { choice: c, call: k, .. } if *c == choice && *k == call))
        .collect();
    assert_eq!(starts.len(), 1, "one tool_call_start for call {call}");
    // The raw fragments concatenate to the argument text.
    let fragments: String = o
        .events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallDelta {
                choice: c,
                call: k,
                fragment,
            } if *c == choice && *k == call => Some(fragment.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(fragments, tc.arguments_text);
}

fn assert_plain_text(o: &Run, text: &str) {
    let c = &o.message.choices.get(&0).unwrap();
    assert_eq!(c.role.as_deref(), Some("assistant"));
    assert_eq!(c.text, text);
    assert_eq!(o.streamed_text(0), text);
    assert_eq!(c.content, vec![Part::Text(text.to_string())]);
    assert_eq!(c.refusal, None);
    assert!(c.tool_calls.is_empty());
    assert!(o.message.complete);
    assert_eq!(o.message.error, None);
}

// ---- recordings: openai_chat/ ----

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn plain_text_answer() {
    let o = CHAT.fixture_any(
        "openai_chat/e2aad469b71d1d4894ff833ea147020a9d875eb7ce644a0ff355581690a4cbfd.bin",
    );
    assert_start(
        &o,
        "chatcmpl-ABfw031mOJeYCSHe4yI2ZjOA6kMJL",
        "gpt-4o-2024-08-06",
    );
    assert_plain_text(
        &o,
        "I'm unable to provide real-time weather updates. To get the current weather in San \
         Francisco, I recommend checking a reliable weather website or a weather app.",
    );
    assert_finish(&o, 0, "stop", FinishReason::Stop);
    assert_usage(&o, 14, 30, 44);
    assert_eq!(o.message.usage.as_ref().unwrap().reasoning_tokens, Some(0));
    // The usage chunk (choices: []) comes after the finish (which
    // completes the message: its only choice finished), before [DONE].
    let names: Vec<_> = o.events.iter().map(StreamEvent::name).collect();
    assert_eq!(&names[names.len() - 3..], ["finish", "complete", "usage"]);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn structured_output_in_content() {
    let o = CHAT.fixture_any(
        "openai_chat/7e5ea4d12e7cc064399b6631415e65923f182256b6e6b752950a3aaa2ad2320a.bin",
    );
    let text = r#"{"city":"San Francisco","temperature":61,"units":"f"}"#;
    assert_plain_text(&o, text);
    assert_eq!(
        obj(&o.message.choices.get(&0).unwrap().text)
            .get("temperature")
            .and_then(Value::as_u64),
        Some(61)
    );
    assert_finish(&o, 0, "stop", FinishReason::Stop);
    assert_usage(&o, 79, 14, 93);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn three_choices_interleaved() {
    let o = CHAT.fixture_any(
        "openai_chat/a491adda08c3d4fde95f5b2ee3f60f7f745f1a56d82e62f58031cc2add502380.bin",
    );
    assert_eq!(o.message.choices.len(), 3);
    for (index, temperature) in [(0, 65), (1, 61), (2, 59)] {
        let c = &o.message.choices.get(&index).unwrap();
        assert_eq!(c.role.as_deref(), Some("assistant"));
        assert_eq!(
            c.text,
            format!(r#"{{"city":"San Francisco","temperature":{temperature},"units":"f"}}"#)
        );
        assert_eq!(o.streamed_text(index), c.text);
        assert_finish(&o, index, "stop", FinishReason::Stop);
    }
    assert_usage(&o, 79, 42, 121);
    assert!(o.message.complete);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn max_tokens_cut() {
    let o = CHAT.fixture_any(
        "openai_chat/4cc50a6135d254573a502310e6af1246f55edb6ad95fa24059f160996b68866d.bin",
    );
    assert_plain_text(&o, "{\"");
    assert_finish(&o, 0, "length", FinishReason::Length);
    assert_usage(&o, 79, 1, 80);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn refusal() {
    let o = CHAT.fixture_any(
        "openai_chat/173417d553406f034f643e5db3f8d591fb691ebac56f5ae39a22cc7d455c5353.bin",
    );
    let c = &o.message.choices.get(&0).unwrap();
    let refusal = "I'm sorry, I can't assist with that request.";
    assert_eq!(c.refusal.as_deref(), Some(refusal));
    assert_eq!(c.text, "");
    assert_eq!(c.content, vec![Part::Refusal(refusal.to_string())]);
    let streamed: String = o
        .events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::RefusalDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(streamed, refusal);
    assert_finish(&o, 0, "stop", FinishReason::Stop);
    assert_usage(&o, 79, 11, 90);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn content_logprobs() {
    let o = CHAT.fixture_any(
        "openai_chat/83b060bae42eb41c4f1edbb7c1542b954b37d9dfd1910b964ddebc9677e6ae85.bin",
    );
    assert_plain_text(&o, "Foo!");
    let c = o.message.choices.get(&0).unwrap();
    assert_eq!(tokens(c, 0), ["Foo", "!"]);
    assert_eq!(
        c.logprobs.get(&0).unwrap()[0]
            .get("logprob")
            .and_then(Value::as_f64),
        Some(-0.0025094282)
    );
    assert_usage(&o, 9, 2, 11);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn refusal_logprobs() {
    let o = CHAT.fixture_any(
        "openai_chat/569c877e69429d4cbc1577d2cd6dd33878095c68badc6b6654a69769b391a1c1.bin",
    );
    let c = &o.message.choices.get(&0).unwrap();
    assert_eq!(
        c.refusal.as_deref(),
        Some("I'm very sorry, but I can't assist with that.")
    );
    // On the refusal part, the only part.
    assert!(matches!(c.content.as_slice(), [Part::Refusal(_)]));
    assert_eq!(tokens(c, 0).len(), 11);
    assert_eq!(
        tokens(c, 0).concat(),
        "I'm very sorry, but I can't assist with that."
    );
    assert_finish(&o, 0, "stop", FinishReason::Stop);
    assert_usage(&o, 79, 12, 91);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn single_tool_call() {
    let o = CHAT.fixture_any(
        "openai_chat/c6aa7e397b7123c3501f25df3a05d4daf7e8ad6d61ffa406ab5361fe36a8d5b1.bin",
    );
    assert_start(
        &o,
        "chatcmpl-ABfw8AOXnoa2kzy11vVTSjuQhHCQr",
        "gpt-4o-2024-08-06",
    );
    assert_call(
        &o,
        0,
        0,
        "call_c91SqDXlYFuETYv8mUHzz6pp",
        "GetWeatherArgs",
        r#"{"city":"Edinburgh","country":"UK","units":"c"}"#,
    );
    assert_eq!(o.call(0, 0).kind.as_deref(), Some("function"));
    // Path-aware argument events arrived as the fragments did.
    let city: String = o
        .events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Argument {
                event: ArgumentEvent::Delta { path, text },
                ..
            } if format!("{path}") == "city" => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(city, "Edinburgh");
    assert!(o.events.iter().any(|e| matches!(e,
        StreamEvent::Argument { event: ArgumentEvent::Value { path, value }, .. } if format!("{path}") == "units" && value.as_str() == Some("c"))));
    assert_eq!(o.message.choices.get(&0).unwrap().text, "");
    assert_finish(&o, 0, "tool_calls", FinishReason::ToolCalls);
    assert_usage(&o, 76, 24, 100);
    // The call ends at the finish, before the usage.
    let names: Vec<_> = o.events.iter().map(StreamEvent::name).collect();
    assert_eq!(
        &names[names.len() - 4..],
        ["tool_call_end", "finish", "complete", "usage"]
    );
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn parallel_tool_calls() {
    let o = CHAT.fixture_any(
        "openai_chat/f82268f2fefd5cfbc7eeb59c297688be2f6ca0849a6e4f17851b517310841d9b.bin",
    );
    assert_call(
        &o,
        0,
        0,
        "call_JMW1whyEaYG438VE1OIflxA2",
        "GetWeatherArgs",
        r#"{"city": "Edinburgh", "country": "GB", "units": "c"}"#,
    );
    assert_call(
        &o,
        0,
        1,
        "call_DNYTawLBoN8fj3KN6qU9N1Ou",
        "get_stock_price",
        r#"{"ticker": "AAPL", "exchange": "NASDAQ"}"#,
    );
    assert_eq!(
        o.message.choices.get(&0).unwrap().content,
        vec![Part::ToolCall(0), Part::ToolCall(1)]
    );
    // The first call ends when its JSON does, before the second begins
    // (the wire says so only with the finish reason, after both).
    let at = |name: &str, call: u64| {
        o.events.iter().position(|e| match e {
            StreamEvent::ToolCallStart { call: k, .. } => name == "start" && *k == call,
            StreamEvent::ToolCallEnd { call: k, .. } => name == "end" && *k == call,
            _ => false,
        })
    };
    assert!(at("end", 0) < at("start", 1), "{:?}", o.events);
    assert_finish(&o, 0, "tool_calls", FinishReason::ToolCalls);
    assert_usage(&o, 149, 60, 209);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn strict_tool_call() {
    let o = CHAT.fixture_any(
        "openai_chat/a247c49c5fcd492bfb7a02a3306ad615ed8d8f649888ebfddfbc3ee151f44d46.bin",
    );
    assert_eq!(
        o.message.choices.get(&0).unwrap().role.as_deref(),
        Some("assistant")
    );
    assert_call(
        &o,
        0,
        0,
        "call_CTf1nWJLqSeRgDqaCG27xZ74",
        "get_weather",
        r#"{"city":"San Francisco","state":"CA"}"#,
    );
    assert_finish(&o, 0, "tool_calls", FinishReason::ToolCalls);
    assert_usage(&o, 48, 19, 67);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn non_strict_tool_call() {
    let o = CHAT.fixture_any(
        "openai_chat/2018feb66ae13fcf5333d61b95849decc68d3f63bd38172889367e1afb1e04f7.bin",
    );
    assert_call(
        &o,
        0,
        0,
        "call_4XzlGBLtUe9dy3GVNV4jhq7h",
        "get_weather",
        r#"{"city":"New York City"}"#,
    );
    assert_finish(&o, 0, "tool_calls", FinishReason::ToolCalls);
    assert_usage(&o, 44, 16, 60);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn newer_wire_shape_tool_call_then_text() {
    let o = CHAT.fixture_any(
        "openai_chat/_extracted/test_run_stream_sync_streams_real_model.yaml.interaction0.sse",
    );
    assert_start(
        &o,
        "chatcmpl-Dx0XpqH8w09uBXwq1zFGYdETjtnEl",
        "gpt-4o-mini-2024-07-18",
    );
    assert_call(
        &o,
        0,
        0,
        "call_ZR5UUuTt3pf61kjwAJIYdVMj",
        "get_capital",
        r#"{"country":"UK"}"#,
    );
    assert_finish(&o, 0, "tool_calls", FinishReason::ToolCalls);
    assert_usage(&o, 53, 15, 68);
    let usage = o.message.usage.as_ref().unwrap();
    assert_eq!(
        (usage.cached_input_tokens, usage.reasoning_tokens),
        (Some(0), Some(0))
    );

    let o = CHAT.fixture_any(
        "openai_chat/_extracted/test_run_stream_sync_streams_real_model.yaml.interaction1.sse",
    );
    assert_plain_text(&o, "The capital of the UK is London.");
    assert_finish(&o, 0, "stop", FinishReason::Stop);
    assert_usage(&o, 78, 9, 87);
}

// ---- recordings: openai_compatible/ ----

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn anthropic_endpoint_first_tool_call_at_index_1() {
    let o = CHAT.fixture_any("openai_compatible/anthropic-fallback-tool-call.sse");
    assert_start(&o, "msg_sanitized", "claude-haiku-4-5-20251001");
    let c = &o.message.choices.get(&0).unwrap();
    assert_eq!(c.text, "Reading it.");
    assert_eq!(c.tool_calls.keys().copied().collect::<Vec<_>>(), [1]);
    assert_call(
        &o,
        0,
        1,
        "toolu_sanitized",
        "read_file",
        r#"{"path": "a.txt"}"#,
    );
    assert_eq!(
        c.content,
        vec![Part::Text("Reading it.".to_string()), Part::ToolCall(1)]
    );
    assert_finish(&o, 0, "tool_calls", FinishReason::ToolCalls);
    assert_eq!(o.message.usage, None);
    assert!(o.message.complete);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn azure_empty_first_chunk() {
    let o = CHAT.fixture_any("openai_compatible/azure-model-router.1.chunks.txt");
    // The first chunk's empty id and model do not win.
    assert_start(
        &o,
        "chatcmpl-CYPS1lijGoK8gd9lYzY3r9Sx50nbt",
        "gpt-5-nano-2025-08-07",
    );
    assert_plain_text(&o, "Capital of Denmark.");
    assert_finish(&o, 0, "stop", FinishReason::Stop);
    assert_usage(&o, 15, 78, 93);
    let usage = o.message.usage.as_ref().unwrap();
    assert_eq!(
        (usage.reasoning_tokens, usage.cached_input_tokens),
        (Some(64), Some(0))
    );
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn openrouter_repeated_tool_header_and_no_finish_reason() {
    let o = CHAT.fixture_any(
        "openai_compatible/_extracted/test_tools_streaming_variant_a.yaml.interaction0.sse",
    );
    assert_start(
        &o,
        "gen-1753242299-QZRAt5HJHd1ptY8sdS0s",
        "moonshotai/kimi-k2",
    );
    // id "0" and name sent twice: not "00", not "llm_versionllm_version".
    assert_call(&o, 0, 0, "0", "llm_version", "{}");
    assert_eq!(o.call(0, 0).arguments_text, "{}");
    let c = &o.message.choices.get(&0).unwrap();
    assert_eq!(c.finish_reason, None);
    assert_eq!(c.text, "");
    // [DONE] still ends the message and the call.
    assert!(o.message.complete);
    assert_eq!(o.events_named("finish").len(), 0);
    // Usage rides on a chunk with a non-empty choices array.
    assert_usage(&o, 57, 17, 74);

    let o = CHAT.fixture_any(
        "openai_compatible/_extracted/test_tools_streaming_variant_a.yaml.interaction1.sse",
    );
    assert_plain_text(&o, "The current version of *llm* is **0.fixed-version**.");
    assert_finish(&o, 0, "stop", FinishReason::Stop);
    assert_usage(&o, 107, 15, 122);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn fireworks_no_arguments_key_and_usage_after_finish() {
    let o = CHAT.fixture_any(
        "openai_compatible/_extracted/test_tools_streaming_variant_c.yaml.interaction0.sse",
    );
    // The body's first line is " data: …" (a field named " data"): a
    // conforming SSE decoder ignores it; the next chunk repeats the role.
    assert_eq!(
        o.message.choices.get(&0).unwrap().role.as_deref(),
        Some("assistant")
    );
    assert_call(&o, 0, 0, "llm_version:0", "llm_version", "{}");
    assert_eq!(o.call(0, 0).kind.as_deref(), Some("function"));
    assert_finish(&o, 0, "tool_calls", FinishReason::ToolCalls);
    assert_usage(&o, 56, 12, 68);
    let names: Vec<_> = o.events.iter().map(StreamEvent::name).collect();
    assert_eq!(&names[names.len() - 3..], ["finish", "complete", "usage"]);

    let o = CHAT.fixture_any(
        "openai_compatible/_extracted/test_tools_streaming_variant_c.yaml.interaction1.sse",
    );
    assert_plain_text(
        &o,
        "The installed version of LLM on this system is 0.fixed-version.",
    );
    assert_finish(&o, 0, "stop", FinishReason::Stop);
    assert_usage(&o, 105, 16, 121);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn arguments_null_throughout() {
    let o = CHAT.fixture_any(
        "openai_compatible/_extracted/test_tools_streaming_variant_d.yaml.interaction0.sse",
    );
    assert_start(&o, "gen-1753242299-DdArgsNullVariantD00", "muse-spark-1.1");
    assert_call(&o, 0, 0, "0", "llm_version", "{}");
    assert_eq!(o.call(0, 0).arguments_text, "");
    assert_eq!(o.events_named("tool_call_delta").len(), 0);
    assert_finish(&o, 0, "tool_calls", FinishReason::ToolCalls);
    assert_usage(&o, 57, 17, 74);

    let o = CHAT.fixture_any(
        "openai_compatible/_extracted/test_tools_streaming_variant_d.yaml.interaction1.sse",
    );
    assert_plain_text(&o, "The current version of *llm* is **0.fixed-version**.");
    assert_finish(&o, 0, "stop", FinishReason::Stop);
    assert_usage(&o, 107, 15, 122);
}

// ---- synthetic streams, one per quirk (tests/data/openai/) ----

#[test]
fn synthetic_repeated_id_and_name_set_once() {
    let o = CHAT.synthetic("chat_repeated_tool_header.sse");
    assert_call(&o, 0, 0, "call_1", "lookup", r#"{"q":"rust"}"#);
    assert_eq!(o.call(0, 0).kind.as_deref(), Some("function"));
    assert_finish(&o, 0, "tool_calls", FinishReason::ToolCalls);
}

#[test]
fn synthetic_first_tool_call_at_index_1_and_sparse_indices() {
    let o = CHAT.synthetic("chat_sparse_indices.sse");
    let keys: Vec<u64> = o.message.choices.keys().copied().collect();
    assert_eq!(keys, [0, 1 << 63]);
    assert_call(&o, 0, 1, "call_a", "first", r#"{"n":1}"#);
    let big = 1u64 << 63;
    assert_call(&o, big, big, "call_b", "second", r#"{"n":2}"#);
    assert_eq!(o.message.choices.get(&0).unwrap().tool_calls.len(), 1);
    assert_finish(&o, 0, "tool_calls", FinishReason::ToolCalls);
    assert_finish(&o, big, "tool_calls", FinishReason::ToolCalls);
    assert!(o.message.complete);
}

#[test]
fn synthetic_no_arguments_key() {
    let o = CHAT.synthetic("chat_no_arguments_key.sse");
    assert_call(&o, 0, 0, "call_x", "ping", "{}");
    assert_eq!(o.call(0, 0).arguments_text, "");
    assert_finish(&o, 0, "tool_calls", FinishReason::ToolCalls);
}

#[test]
fn synthetic_arguments_null() {
    let o = CHAT.synthetic("chat_arguments_null.sse");
    assert_call(&o, 0, 0, "call_n", "now", "{}");
    assert_call(&o, 0, 1, "call_m", "later", r#"{"in":5}"#);
    assert_finish(&o, 0, "tool_calls", FinishReason::ToolCalls);
}

#[test]
fn synthetic_no_finish_reason_done() {
    let o = CHAT.synthetic("chat_no_finish_reason.sse");
    assert_call(&o, 0, 0, "call_q", "search", r#"{"query":"tides"}"#);
    assert_eq!(o.message.choices.get(&0).unwrap().finish_reason, None);
    assert!(o.message.complete, "[DONE] completes the message");
    // The call ends at [DONE], not only at the end of the body.
    let names: Vec<_> = o.events.iter().map(StreamEvent::name).collect();
    assert_eq!(&names[names.len() - 2..], ["tool_call_end", "complete"]);
}

#[test]
fn synthetic_cut_without_done() {
    let o = CHAT.synthetic("chat_cut_stream.sse");
    let tc = o.call(0, 0);
    assert!(tc.ended, "the end of the body ends the call");
    assert_eq!(tc.arguments_text, r#"{"path":"/tmp/a","mode":"#);
    assert_eq!(tc.arguments.as_ref(), Some(&obj(r#"{"path":"/tmp/a"}"#)));
    assert!(tc.arguments_error.is_some(), "cut JSON is reported");
    assert_eq!(o.message.choices.get(&0).unwrap().text, "Writing.");
    assert!(!o.message.complete);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn synthetic_usage_chunk_with_empty_choices() {
    let o = CHAT.synthetic("chat_usage_empty_choices.sse");
    assert_plain_text(&o, "Four.");
    assert_finish(&o, 0, "stop", FinishReason::Stop);
    assert_usage(&o, 20, 30, 50);
    let usage = o.message.usage.as_ref().unwrap();
    assert_eq!(
        (usage.reasoning_tokens, usage.cached_input_tokens),
        (Some(24), Some(16))
    );
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn synthetic_usage_on_a_choice_chunk() {
    let o = CHAT.synthetic("chat_usage_on_choice_chunk.sse");
    assert_plain_text(&o, "Yes.");
    assert_finish(&o, 0, "stop", FinishReason::Stop);
    // No total_tokens on the wire: their sum.
    assert_usage(&o, 7, 2, 9);
}

#[test]
fn synthetic_error_payload() {
    let o = CHAT.synthetic("chat_error_payload.sse");
    assert_eq!(o.message.choices.get(&0).unwrap().text, "Partial");
    let error = o.message.error.as_ref().expect("error kept");
    assert_eq!(
        error.message,
        "The server had an error while processing your request."
    );
    assert_eq!(error.kind.as_deref(), Some("server_error"));
    assert!(error.raw.as_ref().and_then(|r| r.get("error")).is_some());
    assert_eq!(
        o.events.last(),
        Some(&StreamEvent::Error(ErrorInfo {
            message: "The server had an error while processing your request.".to_string(),
            kind: Some("server_error".to_string()),
            raw: error.raw.clone(),
            parse_error: None,
            from_provider: true,
        }))
    );
    assert!(!o.message.complete);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn synthetic_azure_prompt_filter_first_chunk() {
    let o = CHAT.synthetic("chat_azure_first_chunk.sse");
    assert_start(&o, "chatcmpl-az1", "gpt-4o");
    assert_plain_text(&o, "Hello there.");
    assert_finish(&o, 0, "stop", FinishReason::Stop);
}

#[test]
fn synthetic_legacy_function_call() {
    let o = CHAT.synthetic("chat_legacy_function_call.sse");
    assert_call(&o, 0, 0, "", "get_time", r#"{"zone":"UTC"}"#);
    assert_finish(&o, 0, "function_call", FinishReason::ToolCalls);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn synthetic_logprobs_appended() {
    let o = CHAT.synthetic("chat_logprobs.sse");
    let c = &o.message.choices.get(&0).unwrap();
    assert_eq!(c.text, "Hi!");
    assert_eq!(c.refusal.as_deref(), Some("No."));
    // The content's on the text part, the refusal's on the refusal part.
    assert_eq!(tokens(c, 0), ["Hi", "!"]);
    assert_eq!(tokens(c, 1), ["No."]);
    let json = o.message.to_value();
    assert_eq!(
        json.pointer("/choices/0/content/1/logprobs/0/token"),
        Some(&Value::from("No."))
    );
    assert_eq!(json.pointer("/choices/0/logprobs"), None);
    assert_eq!(
        c.content,
        vec![
            Part::Text("Hi!".to_string()),
            Part::Refusal("No.".to_string())
        ]
    );
}

#[test]
fn synthetic_role_first_wins_and_finish_reasons_normalized() {
    let o = CHAT.synthetic("chat_finish_reasons.sse");
    assert_eq!(
        o.message.choices.get(&0).unwrap().role.as_deref(),
        Some("assistant")
    );
    assert_finish(&o, 0, "stop", FinishReason::Stop);
    assert_finish(&o, 1, "length", FinishReason::Length);
    assert_finish(&o, 2, "content_filter", FinishReason::ContentFilter);
    assert_finish(&o, 3, "tool_calls", FinishReason::ToolCalls);
    assert_finish(&o, 4, "eos", FinishReason::Other);
    // Complete only once every choice finished: after the last finish.
    assert!(o.message.complete);
}

#[test]
fn synthetic_complete_waits_for_every_choice() {
    // The same stream without its last finish chunk.
    let body = CHAT.data("chat_finish_reasons.sse");
    let text = String::from_utf8(body).unwrap();
    let cut: String = text
        .split("\n\n")
        .filter(|block| !block.contains("\"eos\""))
        .map(|b| format!("{b}\n\n"))
        .collect();
    let o = CHAT.sse(cut.as_bytes());
    assert_eq!(o.message.choices.get(&4).unwrap().finish_reason, None);
    assert!(!o.message.complete);
}

#[test]
fn synthetic_gateway_reasoning() {
    let o = CHAT.synthetic("chat_reasoning_content.sse");
    let c = &o.message.choices.get(&0).unwrap();
    assert_eq!(c.reasoning, "Think: 2+2.");
    assert_eq!(c.text, "4");
    assert_eq!(
        c.content,
        vec![
            Part::Reasoning {
                text: "Think: 2+2.".to_string(),
                signature: None
            },
            Part::Text("4".to_string())
        ]
    );
}

/// A custom tool (free-text input, gpt-5.5's wire shape captured in
/// llm-rosetta#489): `custom: {name, input}` in place of `function`, the
/// continuations `custom: {input}` only. It used to end nameless with `{}`.
#[test]
fn synthetic_custom_tool_call_is_free_text() {
    let o = CHAT.synthetic("chat_custom_tool.sse");
    let tc = o.call(0, 0);
    assert_eq!(
        (tc.id.as_str(), tc.name.as_str()),
        ("call_abc", "apply_patch")
    );
    assert_eq!(tc.kind.as_deref(), Some("custom"));
    assert_eq!(tc.arguments_text, "*** Begin Patch\n*** End Patch");
    assert_eq!(
        tc.arguments,
        Some(Value::from("*** Begin Patch\n*** End Patch"))
    );
    assert_eq!(tc.arguments_error, None, "free text is not JSON to check");
    assert_finish(&o, 0, "tool_calls", FinishReason::ToolCalls);
    let fragments: String = o
        .events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallDelta { fragment, .. } => Some(fragment.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(fragments, tc.arguments_text);
}

/// Search models cite their sources in a chunk of `delta.annotations`
/// after the text: kept as the text part's citations.
#[test]
fn synthetic_annotations_are_the_texts_citations() {
    let o = CHAT.synthetic("chat_annotations.sse");
    let choice = o.choice();
    assert_eq!(choice.text, "See example.com.");
    assert_eq!(choice.content, [Part::Text("See example.com.".into())]);
    let cited = choice.citations.get(&0).expect("citations on part 0");
    assert_eq!(
        cited.as_slice(),
        [obj(
            r#"{"type":"url_citation","url_citation":{"start_index":4,"end_index":15,"title":"Example","url":"https://example.com"}}"#
        )]
    );
    let printed = choice.to_value(0);
    assert_eq!(
        printed["content"][0]["citations"][0]["url_citation"]["url"],
        Value::from("https://example.com")
    );
}

/// An audio reply (gpt-4o-audio-preview) has no `content`: its transcript
/// and audio data stream in `delta.audio`, kept as one block with both
/// concatenated. They used to be dropped, leaving an empty message.
#[test]
fn synthetic_audio_reply_is_kept() {
    let o = CHAT.synthetic("chat_audio.sse");
    let choice = o.choice();
    assert_eq!(
        choice.content,
        [Part::Raw(obj(
            r#"{"type":"audio","id":"audio_1","transcript":"Hello world","data":"UklGRg==","expires_at":1730000000}"#
        ))]
    );
    assert_eq!(choice.text, "", "the transcript is not answer text");
    assert_finish(&o, 0, "stop", FinishReason::Stop);
}

/// Calls announced from the highest index down (each insertion before all
/// the others: it used to move them all) are all kept, each ended once by
/// the finish.
#[test]
fn calls_in_descending_index_order() {
    let mut body = String::new();
    for i in (0..300).rev() {
        body.push_str(&format!(
            "data: {{\"id\":\"d\",\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":{i},\"id\":\"c{i}\",\"function\":{{\"name\":\"f\",\"arguments\":\"{{\\\"n\\\":{i}}}\"}}}}]}}}}]}}\n\n"
        ));
    }
    body.push_str(
        "data: {\"id\":\"d\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n",
    );
    let o = CHAT.sse(body.as_bytes());
    let keys: Vec<u64> = o.choice().tool_calls.keys().copied().collect();
    assert_eq!(keys, (0..300).collect::<Vec<u64>>());
    for i in [0, 1, 150, 299] {
        assert_call(&o, 0, i, &format!("c{i}"), "f", &format!(r#"{{"n":{i}}}"#));
    }
    assert_eq!(o.events_named("tool_call_end").len(), 300);
    assert_finish(&o, 0, "tool_calls", FinishReason::ToolCalls);
}

/// A custom call whose first fragment says only `type: "custom"` (its
/// `custom` object comes next): still free text, not JSON with an error.
#[test]
fn synthetic_custom_tool_call_header_first() {
    let o = CHAT.synthetic("chat_custom_header_first.sse");
    let tc = o.call(0, 0);
    assert_eq!(
        (tc.id.as_str(), tc.name.as_str()),
        ("call_abc", "apply_patch")
    );
    assert_eq!(tc.kind.as_deref(), Some("custom"));
    assert_eq!(tc.arguments_error, None);
    assert_eq!(tc.arguments, Some(Value::from(tc.arguments_text.as_str())));
}

/// A call ends as soon as its arguments are one complete JSON value;
/// whitespace may follow, anything else is reported and left out of the
/// value (it was an invalid text before, reported the same way).
#[test]
fn a_call_ends_when_its_json_does() {
    let chunk = |args: &str| {
        format!(
            "data: {{\"id\":\"e\",\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":0,\"id\":\"c1\",\"function\":{{\"name\":\"f\",\"arguments\":{}}}}}]}}}}]}}\n\n",
            serde_json::to_string(args).unwrap()
        )
    };
    let finish = "data: {\"id\":\"e\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n";
    let names = |o: &Run| -> Vec<&str> { o.events.iter().map(StreamEvent::name).collect() };

    let body = [
        chunk("{\"a\":"),
        chunk("1}"),
        chunk(" \n"),
        finish.to_string(),
    ]
    .concat();
    let o = CHAT.sse(body.as_bytes());
    assert_call(&o, 0, 0, "c1", "f", r#"{"a":1}"#);
    let events = names(&o);
    let end = events.iter().position(|n| *n == "tool_call_end").unwrap();
    let finish_at = events.iter().position(|n| *n == "finish").unwrap();
    assert!(end < finish_at, "{events:?}");
    assert_eq!(o.call(0, 0).arguments_text, "{\"a\":1}", "as the end said");

    let body = [chunk("{\"a\":1}"), chunk("{\"a\":1}"), finish.to_string()].concat();
    let o = CHAT.sse(body.as_bytes());
    let tc = o.call(0, 0);
    assert_eq!(tc.arguments, Some(obj(r#"{"a":1}"#)));
    assert_eq!(tc.arguments_text, r#"{"a":1}"#);
    assert!(tc.arguments_error.is_some(), "the text after is reported");
    assert_eq!(o.events_named("tool_call_end").len(), 1);
    // Said as an event too (the end went out before it), and no delta of
    // the call follows its end.
    let events = names(&o);
    let end = events.iter().position(|n| *n == "tool_call_end").unwrap();
    assert_eq!(
        events.get(end + 1..end + 3),
        Some(&["arguments_error", "error"][..]),
        "{events:?}"
    );
    assert!(!events[end..].contains(&"tool_call_delta"), "{events:?}");

    // Complete arguments before the fragment that names the call: the end
    // waits for the name, which it reports.
    let header = "data: {\"id\":\"e\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_x\",\"function\":{\"name\":\"f\"}}]}}]}\n\n";
    let args = "data: {\"id\":\"e\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{}\"}}]}}]}\n\n";
    let o = CHAT.sse([args, header, finish].concat().as_bytes());
    assert_call(&o, 0, 0, "call_x", "f", "{}");
}

/// Audio of two replies (another id) is two blocks; a piece that is not
/// text is not appended.
#[test]
fn audio_blocks_stay_apart() {
    let chunk = |audio: &str| {
        format!("data: {{\"id\":\"a\",\"choices\":[{{\"index\":0,\"delta\":{{\"audio\":{audio}}}}}]}}\n\n")
    };
    let body = [
        chunk(r#"{"id":"au1","transcript":"Hel","data":"AAA"}"#),
        chunk(r#"{"transcript":"lo","data":"BBB","expires_at":5}"#),
        chunk(r#"{"id":"au2","transcript":null,"data":7}"#),
        chunk(r#"{"data":"CC"}"#),
    ]
    .concat();
    let o = CHAT.sse(body.as_bytes());
    assert_eq!(
        o.choice().content,
        [
            Part::Raw(obj(
                r#"{"type":"audio","id":"au1","transcript":"Hello","data":"AAABBB","expires_at":5}"#
            )),
            Part::Raw(obj(r#"{"type":"audio","id":"au2","data":"CC"}"#)),
        ]
    );
}

/// Tokens whose text has not come yet (an empty content delta) go on the
/// part their text then extends, not on an earlier one of another kind;
/// tokens of the text after a tool call go on a new text part.
#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn logprobs_go_on_the_part_their_text_extends() {
    let chunk = |delta: &str, logprobs: &str| {
        format!(
            "data: {{\"id\":\"c\",\"choices\":[{{\"index\":0,\"delta\":{delta},\"logprobs\":{logprobs}}}]}}\n\n"
        )
    };
    let tok = |t: &str| format!(r#"{{"token":"{t}","logprob":-1.0,"bytes":[],"top_logprobs":[]}}"#);
    let body = [
        chunk(r#"{"role":"assistant","refusal":"No"}"#, &format!(r#"{{"refusal":[{}]}}"#, tok("No"))),
        chunk(r#"{"content":""}"#, &format!(r#"{{"content":[{}]}}"#, tok("A"))),
        chunk(r#"{"content":"A"}"#, r#"{"content":[]}"#),
        chunk(
            r#"{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}"#,
            "null",
        ),
        chunk(r#"{"content":"B"}"#, &format!(r#"{{"content":[{}]}}"#, tok("B"))),
        "data: [DONE]\n\n".to_string(),
    ]
    .concat();
    let o = CHAT.sse(body.as_bytes());
    let c = o.message.choices.get(&0).unwrap();
    assert_eq!(
        c.content,
        [
            Part::Refusal("No".into()),
            Part::Text("A".into()),
            Part::ToolCall(0),
            Part::Text("B".into())
        ]
    );
    assert_eq!(tokens(c, 0), ["No"]);
    assert_eq!(tokens(c, 1), ["A"]);
    assert_eq!(tokens(c, 3), ["B"]);
    assert_eq!(c.logprobs.len(), 3);
}

/// Tokens go on the latest part of their kind, whatever the same chunk
/// added after it (a refusal, a tool call), and tokens and annotations of
/// a choice that has not begun yet begin it.
#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn logprobs_stay_with_their_text_when_the_chunk_adds_more() {
    let both = concat!(
        r#"data: {"id":"c","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi","refusal":"No"},"logprobs":{"content":[{"token":"Hi","logprob":-0.1}],"refusal":[{"token":"No","logprob":-0.2}]}}]}"#,
        "\n\ndata: [DONE]\n\n"
    );
    let o = CHAT.sse(both.as_bytes());
    let c = o.message.choices.get(&0).unwrap();
    assert_eq!(
        c.content,
        [Part::Text("Hi".into()), Part::Refusal("No".into())]
    );
    assert_eq!((tokens(c, 0), tokens(c, 1)), (vec!["Hi"], vec!["No"]));

    let tool = concat!(
        r#"data: {"id":"c","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Checking.","tool_calls":[{"index":0,"id":"t1","type":"function","function":{"name":"f","arguments":"{}"}}]},"logprobs":{"content":[{"token":"Checking.","logprob":-0.1}]}}]}"#,
        "\n\ndata: [DONE]\n\n"
    );
    let o = CHAT.sse(tool.as_bytes());
    let c = o.message.choices.get(&0).unwrap();
    assert_eq!(
        c.content,
        [Part::Text("Checking.".into()), Part::ToolCall(0)]
    );
    assert_eq!(tokens(c, 0), ["Checking."]);

    let first = concat!(
        r#"data: {"id":"c","model":"m","choices":[{"index":0,"delta":{"annotations":[{"type":"url_citation","url_citation":{"url":"u"}}]},"logprobs":{"content":[{"token":"x","logprob":-1}]}}]}"#,
        "\n\n",
        r#"data: {"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}"#,
        "\n\ndata: [DONE]\n\n"
    );
    let o = CHAT.sse(first.as_bytes());
    let c = o.message.choices.get(&0).unwrap();
    assert_eq!(c.content, [Part::Text("x".into())]);
    assert_eq!(tokens(c, 0), ["x"]);
    assert_eq!(c.citations.get(&0).map(Vec::len), Some(1));
}
