//! OpenAI Responses: every recording in ../shared/fixtures/openai_responses
//! (the extracted SSE bodies through the pipeline, the JSON-lines payloads
//! through the accumulator directly) and the synthetic streams in
//! tests/data/openai/, each fed whole, byte by byte and in random pieces
//! with identical results, with the concrete values read from each stream.

use crate::common::providers::{obj, Run, Streams};
use llmstream::json::Value;
use llmstream::providers::{ArgumentEvent, FinishReason, Part, Pipeline, Provider, StreamEvent};

const RESPONSES: Streams = Streams::new(Provider::OpenAiResponses, "", "openai");

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

/// The finish events, in order.
fn finishes(o: &Run) -> Vec<(String, FinishReason)> {
    o.events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Finish {
                reason, normalized, ..
            } => Some((reason.clone(), *normalized)),
            _ => None,
        })
        .collect()
}

fn assert_finish(o: &Run, reason: &str, normalized: FinishReason) {
    let c = &o.message.choices.get(&0).unwrap();
    assert_eq!(c.finish_reason.as_deref(), Some(reason));
    assert_eq!(c.finish, Some(normalized));
    assert_eq!(finishes(o).last(), Some(&(reason.to_string(), normalized)));
}

fn assert_start(o: &Run, id: &str, model: &str) {
    assert_eq!(o.message.id.as_deref(), Some(id));
    assert_eq!(o.message.model.as_deref(), Some(model));
    assert_eq!(
        o.events.first(),
        Some(&StreamEvent::MessageStart {
            provider: Provider::OpenAiResponses,
            id: Some(id.to_string()),
            model: Some(model.to_string())
        })
    );
    assert_eq!(o.events_named("message_start").len(), 1);
}

/// A tool call ended with this id, name and arguments, reported once each
/// by its start and end events.
fn assert_call(o: &Run, call: u64, id: &str, name: &str, args: &Value) {
    let tc = o.call(0, call);
    assert_eq!((tc.id.as_str(), tc.name.as_str()), (id, name));
    assert!(tc.ended);
    assert_eq!(tc.arguments.as_ref(), Some(args), "arguments of {name}");
    let ends: Vec<_> = o
        .events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallEnd {
                call: k,
                id,
                name,
                arguments,
                ..
            } if *k == call => Some((id.clone(), name.clone(), arguments.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(ends, [(id.to_string(), name.to_string(), args.clone())]);
    let starts = o
        .events
        .iter()
        .filter(|e| matches!(e, StreamEvent::ToolCallStart { call: k, .. } if *k == call))
        .count();
    assert_eq!(starts, 1);
}

fn fragments(o: &Run, call: u64) -> String {
    o.events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallDelta {
                call: k, fragment, ..
            } if *k == call => Some(fragment.as_str()),
            _ => None,
        })
        .collect()
}

fn errors(o: &Run) -> Vec<&str> {
    o.events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Error(e) => Some(e.message.as_str()),
            _ => None,
        })
        .collect()
}

// ---- recordings ----

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn function_call_then_text() {
    let o = RESPONSES.fixture_any(
        "openai_responses/_extracted/test_openai_responses_stream.yaml.interaction0.sse",
    );
    assert_start(
        &o,
        "resp_67e554a155508191900ee113293c4c830794405d35281ae2",
        "gpt-4o-2024-08-06",
    );
    assert_call(
        &o,
        0,
        "call_kL0PCQV7M2WMoVX8V8OtYSAL",
        "get_capital",
        &obj(r#"{"country":"France"}"#),
    );
    assert_eq!(o.call(0, 0).kind.as_deref(), Some("function"));
    assert_eq!(fragments(&o, 0), r#"{"country":"France"}"#);
    assert_eq!(o.events_named("tool_call_delta").len(), 5);
    assert_finish(&o, "completed", FinishReason::ToolCalls);
    assert_usage(&o, 255, 16, 271);
    assert!(o.message.complete);
    assert_eq!(o.message.error, None);

    let o = RESPONSES.fixture_any(
        "openai_responses/_extracted/test_openai_responses_stream.yaml.interaction1.sse",
    );
    let c = &o.message.choices.get(&0).unwrap();
    assert_eq!(c.role.as_deref(), Some("assistant"));
    assert_eq!(c.text, "The capital of France is Paris.");
    assert_eq!(o.streamed_text(0), c.text);
    assert_eq!(c.content, vec![Part::Text(c.text.clone())]);
    assert_finish(&o, "completed", FinishReason::Stop);
    assert_usage(&o, 278, 9, 287);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn minimal_text() {
    let o = RESPONSES.fixture_any(
        "openai_responses/_extracted/test_responses_basic_streaming.yaml.interaction0.sse",
    );
    assert_start(
        &o,
        "resp_00592e63e61b66660169fab1b9f8e481a2b321356198d7ac1b",
        "gpt-5.5-2026-04-23",
    );
    assert_eq!(o.message.choices.get(&0).unwrap().text, "pong");
    assert_eq!(o.streamed_text(0), "pong");
    assert_finish(&o, "completed", FinishReason::Stop);
    assert_usage(&o, 11, 5, 16);
    let usage = o.message.usage.as_ref().unwrap();
    assert_eq!(
        (usage.reasoning_tokens, usage.cached_input_tokens),
        (Some(0), Some(0))
    );
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn tool_use_then_answer() {
    let o = RESPONSES.fixture_any(
        "openai_responses/_extracted/test_responses_tool_use_streaming.yaml.interaction0.sse",
    );
    assert_call(
        &o,
        0,
        "call_sVidsfFJ6zlzRpelrPkTPlpd",
        "multiply",
        &obj(r#"{"a":1231,"b":2331}"#),
    );
    assert_eq!(o.events_named("tool_call_delta").len(), 11);
    // The numbers complete as path-aware argument events.
    let completed: Vec<_> = o
        .events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Argument {
                event: ArgumentEvent::Value { path, value },
                ..
            } => Some((format!("{path}"), value.as_u64())),
            _ => None,
        })
        .collect();
    assert_eq!(
        completed,
        [("a".to_string(), Some(1231)), ("b".to_string(), Some(2331))]
    );
    assert_finish(&o, "completed", FinishReason::ToolCalls);
    assert_usage(&o, 58, 23, 81);

    let o = RESPONSES.fixture_any(
        "openai_responses/_extracted/test_responses_tool_use_streaming.yaml.interaction1.sse",
    );
    assert_eq!(
        o.message.choices.get(&0).unwrap().text,
        "1231 \u{d7} 2331 = **2,869,461**"
    );
    assert_finish(&o, "completed", FinishReason::Stop);
    assert_usage(&o, 94, 18, 112);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn error_event_nested_then_failed() {
    let o = RESPONSES.fixture_any("openai_responses/openai-error.1.chunks.txt");
    assert_start(
        &o,
        "resp_05500b38c2cd9bfc00691c7c9d222481a3b595421266dab424",
        "gpt-5-nano-2025-08-07",
    );
    let message = "You exceeded your current quota, please check your plan and billing details. \
                   For more information on this error, read the docs: \
                   https://platform.openai.com/docs/guides/error-codes/api-errors.";
    // The error event and the response.failed repeating it: one report.
    assert_eq!(errors(&o), [message]);
    let error = o.message.error.as_ref().unwrap();
    assert_eq!(error.message, message);
    assert_eq!(error.kind.as_deref(), Some("insufficient_quota"));
    assert_finish(&o, "failed", FinishReason::Other);
    assert_eq!(o.message.usage, None);
    assert!(o.message.complete);
    assert_eq!(o.message.choices.get(&0).unwrap().text, "");
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn copilot_rotating_item_ids() {
    let o = RESPONSES.fixture_any("openai_responses/github-copilot-id-rotation.1.chunks.txt");
    // Even the response id rotates: the first one is the message's.
    assert_start(&o, "capture-id-1", "gpt-5.3-codex");
    let c = &o.message.choices.get(&0).unwrap();
    let text = "There are **3** letter **\u{201c}r\u{201d}**s in **\u{201c}strawberry.\u{201d}**\n\n\
                Breakdown: **s t r a w b e r r y**  \nYou can see **r** at positions **3, 8, and 9**.";
    assert_eq!(c.text, text);
    assert_eq!(c.reasoning, "**Counting character occurrences**");
    assert_eq!(
        c.content,
        vec![
            Part::Reasoning {
                text: "**Counting character occurrences**".to_string(),
                signature: None
            },
            Part::Text(text.to_string())
        ]
    );
    assert_eq!(o.events_named("text_delta").len(), 55);
    assert_finish(&o, "completed", FinishReason::Stop);
    assert_usage(&o, 19, 105, 124);
    let usage = o.message.usage.as_ref().unwrap();
    assert_eq!(
        (usage.reasoning_tokens, usage.cached_input_tokens),
        (Some(44), Some(0))
    );
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn custom_tool_free_text_input() {
    let o = RESPONSES.fixture_any("openai_responses/openai-custom-tool.1.chunks.txt");
    let input = "SELECT * FROM users WHERE age > 25";
    assert_call(
        &o,
        0,
        "call_custom_sql_001",
        "write_sql",
        &Value::from(input),
    );
    let tc = o.call(0, 0);
    assert_eq!(tc.kind.as_deref(), Some("custom"));
    assert_eq!(tc.arguments_text, input);
    assert_eq!(tc.arguments_error, None);
    assert_eq!(fragments(&o, 0), input);
    // Free text is not parsed: no path-aware events.
    assert_eq!(o.events_named("argument_delta").len(), 0);
    assert_finish(&o, "completed", FinishReason::ToolCalls);
    assert_usage(&o, 50, 20, 70);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn four_concatenated_responses() {
    let o =
        RESPONSES.fixture_any("openai_responses/openai-reasoning-encrypted-content.1.chunks.txt");
    // One message: the first response's id, every response's content.
    assert_start(
        &o,
        "resp_01830d662ab3856501693c321345c88190b0de00f3b9975691",
        "gpt-5.1-codex-max",
    );
    let c = &o.message.choices.get(&0).unwrap();
    let summary = "**Calculating step-by-step using calculator**\n\nI'll compute 12 plus 7, then \
                   multiply the result by 3, and finally multiply that by 10, reporting the final \
                   product.";
    assert_eq!(c.reasoning, summary);
    assert_eq!(c.text, "The final result is **570**.");
    // Output index 0 of each later response continues after the last key.
    assert_eq!(c.tool_calls.keys().copied().collect::<Vec<_>>(), [1, 2, 3]);
    assert_call(
        &o,
        1,
        "call_AB6AaRZ1FYZB2RwS6A5vbdqn",
        "calculator",
        &obj(r#"{"a":12,"b":7,"op":"add"}"#),
    );
    assert_call(
        &o,
        2,
        "call_Q6pW65MUgW9vF59BmItYGos3",
        "calculator",
        &obj(r#"{"a":19,"b":3,"op":"multiply"}"#),
    );
    assert_call(
        &o,
        3,
        "call_Zl5vIMnD7dVAjgU6FkhmiCZh",
        "calculator",
        &obj(r#"{"a":57,"b":10,"op":"multiply"}"#),
    );
    match c.content.as_slice() {
        [Part::Reasoning {
            text,
            signature: Some(sig),
        }, Part::ToolCall(1), Part::ToolCall(2), Part::ToolCall(3), Part::Text(t)] => {
            assert_eq!(text, summary);
            // The encrypted content of the finished item.
            assert!(sig.starts_with("gAAAAABpPDIVOKrsHNZ0"), "{sig}");
            assert_eq!(sig.len(), 1060);
            assert_eq!(t, "The final result is **570**.");
        }
        other => panic!("content parts: {other:?}"),
    }
    // Four finishes; the last one is the message's.
    let tool = ("completed".to_string(), FinishReason::ToolCalls);
    let stop = ("completed".to_string(), FinishReason::Stop);
    assert_eq!(finishes(&o), [tool.clone(), tool.clone(), tool, stop]);
    assert_finish(&o, "completed", FinishReason::Stop);
    // Usage is the sum over the four responses.
    assert_eq!(o.events_named("usage").len(), 4);
    assert_usage(
        &o,
        134 + 221 + 260 + 299,
        28 + 26 + 26 + 12,
        162 + 247 + 286 + 311,
    );
    assert!(o.message.complete);
    assert_eq!(o.message.error, None);
}

// ---- synthetic streams, one per quirk (tests/data/openai/) ----

#[test]
fn synthetic_rotating_ids_keyed_by_output_index() {
    let o = RESPONSES.synthetic("resp_id_rotation.sse");
    // A repeated response.created before any output is the same response.
    assert_start(&o, "r-rot-1", "gpt-test");
    let c = &o.message.choices.get(&0).unwrap();
    assert_eq!(c.text, "Checking now.");
    assert_eq!(c.role.as_deref(), Some("assistant"));
    assert_call(&o, 1, "call_rot", "weather", &obj(r#"{"city":"Oslo"}"#));
    assert_eq!(
        c.content,
        vec![Part::Text("Checking now.".to_string()), Part::ToolCall(1)]
    );
    assert_finish(&o, "completed", FinishReason::ToolCalls);
    assert_usage(&o, 30, 12, 42);
    assert!(errors(&o).is_empty());
}

#[test]
fn synthetic_arguments_done_mismatch_keeps_done_text() {
    let o = RESPONSES.synthetic("resp_args_done_mismatch.sse");
    assert_call(&o, 0, "call_mis", "set", &obj(r#"{"a":2}"#));
    let tc = o.call(0, 0);
    assert_eq!(tc.arguments_text, r#"{"a":2}"#);
    // The streamed fragments were what they were.
    assert_eq!(fragments(&o, 0), r#"{"a":1}"#);
    assert_eq!(errors(&o).len(), 1);
    let error = o.message.error.as_ref().unwrap();
    assert_eq!(error.kind.as_deref(), Some("arguments_mismatch"));
    assert!(error.message.contains("tool call 0"), "{}", error.message);
    // The error comes before the end, which carries the corrected value.
    let names: Vec<_> = o.events.iter().map(StreamEvent::name).collect();
    let err = names.iter().position(|n| *n == "error").unwrap();
    let end = names.iter().position(|n| *n == "tool_call_end").unwrap();
    assert!(err < end);
    assert_finish(&o, "completed", FinishReason::ToolCalls);
    assert_usage(&o, 5, 5, 10);
}

#[test]
fn synthetic_arguments_from_done_only() {
    let o = RESPONSES.synthetic("resp_args_done_only.sse");
    // No deltas: the .done text is the arguments, streamed as one fragment.
    assert_call(&o, 0, "call_a", "only_done", &obj(r#"{"city":"Oslo"}"#));
    assert_eq!(fragments(&o, 0), r#"{"city":"Oslo"}"#);
    // Deltas a prefix of the .done text: the rest is appended.
    assert_call(&o, 1, "call_b", "lost_tail", &obj(r#"{"x":true}"#));
    assert_eq!(fragments(&o, 1), r#"{"x":true}"#);
    // Neither deltas nor .done: the finished item's arguments.
    assert_call(&o, 2, "call_c", "item_only", &obj(r#"{"y":[1]}"#));
    assert!(errors(&o).is_empty(), "{:?}", errors(&o));
    assert_eq!(o.message.error, None);
    assert_finish(&o, "completed", FinishReason::ToolCalls);
    // Only tool calls, no message item to carry a role: still the
    // assistant's reply.
    assert_eq!(o.choice().role.as_deref(), Some("assistant"));
}

#[test]
fn synthetic_custom_tool_input_is_text() {
    let o = RESPONSES.synthetic("resp_custom_tool.sse");
    let input = "*** Begin {not json\n+ line";
    assert_call(&o, 0, "call_patch", "apply_patch", &Value::from(input));
    assert_eq!(o.call(0, 0).arguments_error, None);
    assert_eq!(o.events_named("argument_delta").len(), 0);
    assert_finish(&o, "completed", FinishReason::ToolCalls);
    assert_usage(&o, 8, 6, 14);
}

#[test]
fn synthetic_reasoning_summary_text_and_encrypted_content() {
    let o = RESPONSES.synthetic("resp_reasoning.sse");
    let c = &o.message.choices.get(&0).unwrap();
    assert_eq!(c.reasoning, "First.Second.raw thoughts");
    assert_eq!(c.text, "Done.");
    let reasoning = |text: &str, signature: Option<&str>| Part::Reasoning {
        text: text.to_string(),
        signature: signature.map(String::from),
    };
    let raw_item =
        obj(r#"{"id":"rs_2","type":"reasoning","summary":[],"encrypted_content":"enc-2"}"#);
    assert_eq!(
        c.content,
        vec![
            // One part per summary_index / content_index.
            reasoning("First.", None),
            reasoning("Second.", None),
            // The item's encrypted content signs its last reasoning part.
            reasoning("raw thoughts", Some("enc-1")),
            // A reasoning item with nothing streamed, right after another:
            // kept whole rather than overwriting the previous signature.
            Part::Raw(raw_item),
            Part::Text("Done.".to_string()),
        ]
    );
    let streamed: String = o
        .events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ReasoningDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(streamed, c.reasoning);
    assert_finish(&o, "completed", FinishReason::Stop);
    let usage = o.message.usage.as_ref().unwrap();
    assert_eq!(
        (usage.reasoning_tokens, usage.cached_input_tokens),
        (Some(16), Some(4))
    );
}

#[test]
fn synthetic_refusal() {
    let o = RESPONSES.synthetic("resp_refusal.sse");
    let c = &o.message.choices.get(&0).unwrap();
    assert_eq!(c.refusal.as_deref(), Some("I can't help."));
    assert_eq!(c.text, "");
    assert_eq!(c.content, vec![Part::Refusal("I can't help.".to_string())]);
    assert_eq!(o.events_named("refusal_delta").len(), 2);
    assert_finish(&o, "completed", FinishReason::Stop);
    assert_eq!(o.message.usage, None);
}

#[test]
fn synthetic_incomplete_max_output_tokens() {
    let o = RESPONSES.synthetic("resp_incomplete.sse");
    let c = &o.message.choices.get(&0).unwrap();
    assert_eq!(c.text, "Once upon a");
    assert_finish(&o, "max_output_tokens", FinishReason::Length);
    // The cut call ends at the finish with what it had.
    let tc = o.call(0, 1);
    assert!(tc.ended);
    assert_eq!(tc.arguments_text, r#"{"k":"v"#);
    assert_eq!(tc.arguments.as_ref(), Some(&obj(r#"{"k":"v"}"#)));
    assert!(tc.arguments_error.is_some());
    assert_usage(&o, 10, 3, 13);
    assert!(o.message.complete);
}

#[test]
fn synthetic_failed_reports_its_error() {
    let o = RESPONSES.synthetic("resp_failed.sse");
    assert_eq!(errors(&o), ["Something went wrong."]);
    assert_eq!(
        o.message.error.as_ref().unwrap().kind.as_deref(),
        Some("server_error")
    );
    assert_finish(&o, "failed", FinishReason::Other);
    assert!(o.message.complete);
}

#[test]
fn synthetic_error_event_top_level_fields() {
    let o = RESPONSES.synthetic("resp_error_top_level.sse");
    assert_eq!(o.message.choices.get(&0).unwrap().text, "Hel");
    // Reported once, though response.failed repeats it.
    assert_eq!(errors(&o), ["Slow down."]);
    let error = o.message.error.as_ref().unwrap();
    assert_eq!(error.kind.as_deref(), Some("rate_limit_exceeded"));
    assert_eq!(
        error.raw.as_ref().and_then(|r| r.get("param")),
        Some(&Value::Null)
    );
    assert_finish(&o, "failed", FinishReason::Other);
}

#[test]
fn synthetic_error_event_nested_fields() {
    let o = RESPONSES.synthetic("resp_error_nested.sse");
    assert_eq!(errors(&o), ["Too long."]);
    let error = o.message.error.as_ref().unwrap();
    assert_eq!(error.kind.as_deref(), Some("invalid_request_error"));
    // No terminal event: not complete, no finish.
    assert!(!o.message.complete);
    assert!(finishes(&o).is_empty());
}

#[test]
fn synthetic_concatenated_responses() {
    let body = RESPONSES.data("resp_concatenated.sse");
    let o = RESPONSES.sse(&body);
    assert_start(&o, "r-one", "gpt-test");
    let c = &o.message.choices.get(&0).unwrap();
    assert_call(&o, 0, "call_get", "get", &obj("{}"));
    assert_eq!(c.text, "Answer.");
    assert_eq!(
        c.content,
        vec![Part::ToolCall(0), Part::Text("Answer.".to_string())]
    );
    assert_eq!(
        finishes(&o),
        [
            ("completed".to_string(), FinishReason::ToolCalls),
            ("completed".to_string(), FinishReason::Stop)
        ]
    );
    assert_usage(&o, 30, 9, 39);
    let usage = o.message.usage.as_ref().unwrap();
    assert_eq!(
        (usage.reasoning_tokens, usage.cached_input_tokens),
        (Some(1), Some(5))
    );
    assert!(o.message.complete);

    // Between the second response.created and its end, the message is
    // incomplete again.
    let text = std::str::from_utf8(&body).unwrap();
    let cut = text.find("\"delta\":\"Answer.\"").unwrap();
    let mut pipeline = Pipeline::new();
    pipeline.feed(&body[..cut]).unwrap();
    let message = pipeline.message().unwrap();
    assert!(!message.complete);
    assert_eq!(
        message.choices.get(&0).unwrap().finish_reason.as_deref(),
        Some("completed")
    );
}

#[test]
fn synthetic_sparse_output_index() {
    let o = RESPONSES.synthetic("resp_sparse_output_index.sse");
    let big = 1u64 << 63;
    assert_call(&o, big, "call_big", "far", &obj(r#"{"ok":true}"#));
    assert_eq!(o.message.choices.get(&0).unwrap().text, "Hi.");
    assert_finish(&o, "completed", FinishReason::ToolCalls);
}

#[test]
fn synthetic_server_tool_item_is_a_provider_tool() {
    let o = RESPONSES.synthetic("resp_server_tool_raw.sse");
    let c = &o.message.choices.get(&0).unwrap();
    assert_eq!(c.text, "High tide at 6.");
    match c.content.as_slice() {
        [Part::ProviderTool(key), Part::Text(t)] => {
            let tool = c.provider_tools.get(key).unwrap();
            assert_eq!(tool.name, "web_search_call");
            assert_eq!(
                tool.arguments
                    .as_ref()
                    .and_then(|a| a.get("query"))
                    .and_then(Value::as_str),
                Some("tides oslo")
            );
            // The finished item, as sent, is its result.
            let item = tool.result.as_ref().expect("the finished item");
            assert_eq!(
                item.get("type").and_then(Value::as_str),
                Some("web_search_call")
            );
            assert_eq!(
                item.pointer("/action/query").and_then(Value::as_str),
                Some("tides oslo")
            );
            assert_eq!(t, "High tide at 6.");
        }
        other => panic!("content parts: {other:?}"),
    }
    assert!(c.tool_calls.is_empty());
    assert_finish(&o, "completed", FinishReason::Stop);
}

// ---- phase, annotations, final copies, logprobs (bodies from the provider
// audit, framed as the API sends them) ----

/// An SSE body of these payloads (JSON, one per line), each with its
/// `event:` line, run whole, byte by byte and in random pieces.
fn run(lines: &str) -> Run {
    let mut body = String::new();
    for line in lines.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(ty) = obj(line).get("type").and_then(Value::as_str) {
            body.push_str(&format!("event: {ty}\n"));
        }
        body.push_str(&format!("data: {line}\n\n"));
    }
    let o = RESPONSES.sse(body.as_bytes());
    // However corrected, the running text is the text parts' concatenation.
    if let Some(c) = o.message.choice() {
        let parts: String = c
            .content
            .iter()
            .filter_map(|p| match p {
                Part::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(c.text, parts);
    }
    o
}

fn text(t: &str) -> Part {
    Part::Text(t.to_string())
}

/// The phases of the choice's text parts, by position.
fn phases(o: &Run) -> Vec<(usize, &str)> {
    let c = o.choice();
    c.phases.iter().map(|(p, s)| (*p, s.as_str())).collect()
}

/// The citations of the choice's text parts, by position.
fn citations(o: &Run) -> Vec<(usize, Vec<Value>)> {
    let c = o.choice();
    c.citations.iter().map(|(p, l)| (*p, l.clone())).collect()
}

#[test]
fn phase_of_each_message_item_on_its_text_part() {
    // A preamble (commentary) and the answer: two message items, two
    // parts, each with its item's phase; the text is all of it, as the
    // SDK's output_text.
    let o = run(r#"
        {"type":"response.created","sequence_number":0,"response":{"id":"resp_2","object":"response","model":"gpt-5.4","status":"in_progress","output":[]}}
        {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"msg_a","type":"message","status":"in_progress","role":"assistant","phase":"commentary","content":[]}}
        {"type":"response.content_part.added","sequence_number":2,"output_index":0,"item_id":"msg_a","content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}
        {"type":"response.output_text.delta","sequence_number":3,"output_index":0,"item_id":"msg_a","content_index":0,"delta":"Let me check the weather first."}
        {"type":"response.output_text.done","sequence_number":4,"output_index":0,"item_id":"msg_a","content_index":0,"text":"Let me check the weather first."}
        {"type":"response.output_item.done","sequence_number":5,"output_index":0,"item":{"id":"msg_a","type":"message","status":"completed","role":"assistant","phase":"commentary","content":[{"type":"output_text","text":"Let me check the weather first.","annotations":[]}]}}
        {"type":"response.output_item.added","sequence_number":6,"output_index":1,"item":{"id":"msg_b","type":"message","status":"in_progress","role":"assistant","phase":"final_answer","content":[]}}
        {"type":"response.content_part.added","sequence_number":7,"output_index":1,"item_id":"msg_b","content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}
        {"type":"response.output_text.delta","sequence_number":8,"output_index":1,"item_id":"msg_b","content_index":0,"delta":"It is sunny."}
        {"type":"response.output_text.done","sequence_number":9,"output_index":1,"item_id":"msg_b","content_index":0,"text":"It is sunny."}
        {"type":"response.output_item.done","sequence_number":10,"output_index":1,"item":{"id":"msg_b","type":"message","status":"completed","role":"assistant","phase":"final_answer","content":[{"type":"output_text","text":"It is sunny.","annotations":[]}]}}
        {"type":"response.completed","sequence_number":11,"response":{"id":"resp_2","object":"response","model":"gpt-5.4","status":"completed","usage":{"input_tokens":10,"output_tokens":12,"total_tokens":22}}}
    "#);
    let c = o.choice();
    assert_eq!(
        c.content,
        [
            text("Let me check the weather first."),
            text("It is sunny.")
        ]
    );
    assert_eq!(c.text, "Let me check the weather first.It is sunny.");
    assert_eq!(phases(&o), [(0, "commentary"), (1, "final_answer")]);
    let json = o.message.to_value();
    assert_eq!(
        json.pointer("/choices/0/content/0/phase"),
        Some(&Value::from("commentary"))
    );
    assert!(errors(&o).is_empty(), "{:?}", errors(&o));

    // The phase only on the finished item (and an item with none): set
    // on that item's part when it comes.
    let o = run(r#"
        {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"msg_a","type":"message","role":"assistant","content":[]}}
        {"type":"response.output_text.delta","sequence_number":2,"output_index":0,"content_index":0,"delta":"Looking."}
        {"type":"response.output_item.added","sequence_number":3,"output_index":1,"item":{"id":"msg_b","type":"message","role":"assistant","content":[]}}
        {"type":"response.output_text.delta","sequence_number":4,"output_index":1,"content_index":0,"delta":"Done."}
        {"type":"response.output_item.done","sequence_number":5,"output_index":0,"item":{"id":"msg_a","type":"message","role":"assistant","phase":"commentary","content":[{"type":"output_text","text":"Looking.","annotations":[]}]}}
        {"type":"response.output_item.done","sequence_number":6,"output_index":1,"item":{"id":"msg_b","type":"message","role":"assistant","content":[{"type":"output_text","text":"Done.","annotations":[]}]}}
        {"type":"response.completed","sequence_number":7,"response":{"id":"r","status":"completed"}}
    "#);
    assert_eq!(o.choice().content, [text("Looking."), text("Done.")]);
    assert_eq!(phases(&o), [(0, "commentary")]);
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn phase_of_recorded_gpt_5_5_answers() {
    let o = RESPONSES.fixture_any(
        "openai_responses/_extracted/test_responses_basic_streaming.yaml.interaction0.sse",
    );
    assert_eq!(o.choice().content, [text("pong")]);
    assert_eq!(phases(&o), [(0, "final_answer")]);
    let o = RESPONSES.fixture_any(
        "openai_responses/_extracted/test_responses_tool_use_streaming.yaml.interaction1.sse",
    );
    assert_eq!(phases(&o), [(0, "final_answer")]);
}

#[test]
fn annotations_become_the_text_part_citations_once() {
    let citation = obj(
        r#"{"type":"url_citation","start_index":4,"end_index":15,"title":"Example","url":"https://example.com"}"#,
    );
    // annotation.added, then repeated by content_part.done and
    // output_item.done: attached once, to the text's part (after the web
    // search item's raw part).
    let o = run(r#"
        {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","model":"gpt-5","status":"in_progress","output":[]}}
        {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"ws_1","type":"web_search_call","status":"in_progress"}}
        {"type":"response.web_search_call.in_progress","sequence_number":2,"output_index":0,"item_id":"ws_1"}
        {"type":"response.web_search_call.completed","sequence_number":3,"output_index":0,"item_id":"ws_1"}
        {"type":"response.output_item.done","sequence_number":4,"output_index":0,"item":{"id":"ws_1","type":"web_search_call","status":"completed","action":{"type":"search","query":"example"}}}
        {"type":"response.output_item.added","sequence_number":5,"output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}}
        {"type":"response.content_part.added","sequence_number":6,"output_index":1,"item_id":"msg_1","content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}
        {"type":"response.output_text.delta","sequence_number":7,"output_index":1,"item_id":"msg_1","content_index":0,"delta":"See example.com."}
        {"type":"response.output_text.annotation.added","sequence_number":8,"output_index":1,"item_id":"msg_1","content_index":0,"annotation_index":0,"annotation":{"type":"url_citation","start_index":4,"end_index":15,"title":"Example","url":"https://example.com"}}
        {"type":"response.output_text.done","sequence_number":9,"output_index":1,"item_id":"msg_1","content_index":0,"text":"See example.com."}
        {"type":"response.content_part.done","sequence_number":10,"output_index":1,"item_id":"msg_1","content_index":0,"part":{"type":"output_text","text":"See example.com.","annotations":[{"type":"url_citation","start_index":4,"end_index":15,"title":"Example","url":"https://example.com"}]}}
        {"type":"response.output_item.done","sequence_number":11,"output_index":1,"item":{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"See example.com.","annotations":[{"type":"url_citation","start_index":4,"end_index":15,"title":"Example","url":"https://example.com"}]}]}}
        {"type":"response.completed","sequence_number":12,"response":{"id":"resp_1","object":"response","model":"gpt-5","status":"completed","output":[{"id":"ws_1","type":"web_search_call","status":"completed","action":{"type":"search","query":"example"}},{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"See example.com.","annotations":[{"type":"url_citation","start_index":4,"end_index":15,"title":"Example","url":"https://example.com"}]}]}],"usage":{"input_tokens":10,"output_tokens":5,"total_tokens":15}}}
    "#);
    let c = o.choice();
    assert!(
        matches!(c.content.as_slice(), [Part::ProviderTool(_), Part::Text(t)] if t == "See example.com.")
    );
    assert_eq!(citations(&o), [(1, vec![citation.clone()])]);
    assert_eq!(
        o.message
            .to_value()
            .pointer("/choices/0/content/1/citations/0"),
        Some(&citation)
    );
    assert!(errors(&o).is_empty(), "{:?}", errors(&o));

    // Annotations only on the finished item (no annotation.added), one
    // of two added late to an earlier item's part, and one announced
    // before its text streamed: each lands on its own part, once.
    let o = run(r#"
        {"type":"response.output_text.delta","sequence_number":1,"output_index":0,"content_index":0,"delta":"First."}
        {"type":"response.output_text.annotation.added","sequence_number":2,"output_index":1,"content_index":0,"annotation_index":0,"annotation":{"type":"url_citation","url":"https://b.example"}}
        {"type":"response.output_text.delta","sequence_number":3,"output_index":1,"content_index":0,"delta":"Second."}
        {"type":"response.output_text.annotation.added","sequence_number":4,"output_index":0,"content_index":0,"annotation_index":1,"annotation":{"type":"url_citation","url":"https://a2.example"}}
        {"type":"response.output_item.done","sequence_number":5,"output_index":0,"item":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"First.","annotations":[{"type":"url_citation","url":"https://a1.example"},{"type":"url_citation","url":"https://a2.example"}]}]}}
        {"type":"response.output_item.done","sequence_number":6,"output_index":1,"item":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Second.","annotations":[{"type":"url_citation","url":"https://b.example"}]}]}}
        {"type":"response.completed","sequence_number":7,"response":{"id":"r","status":"completed"}}
    "#);
    assert_eq!(o.choice().content, [text("First."), text("Second.")]);
    let url = |u: &str| obj(&format!(r#"{{"type":"url_citation","url":"{u}"}}"#));
    assert_eq!(
        citations(&o),
        [
            (
                0,
                vec![url("https://a2.example"), url("https://a1.example")]
            ),
            (1, vec![url("https://b.example")]),
        ]
    );
    assert!(errors(&o).is_empty(), "{:?}", errors(&o));
}

#[test]
fn resumed_stream_text_is_the_final_copy() {
    // A background response resumed with `starting_after`: the deltas
    // begin mid-text; the final copies hold the whole text. Only the
    // deltas that came are events; the message is the final text.
    let o = run(r#"
        {"type":"response.output_text.delta","sequence_number":7,"output_index":0,"item_id":"msg_1","content_index":0,"delta":" world."}
        {"type":"response.output_text.done","sequence_number":8,"output_index":0,"item_id":"msg_1","content_index":0,"text":"Hello world."}
        {"type":"response.content_part.done","sequence_number":9,"output_index":0,"item_id":"msg_1","content_index":0,"part":{"type":"output_text","text":"Hello world.","annotations":[]}}
        {"type":"response.output_item.done","sequence_number":10,"output_index":0,"item":{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hello world.","annotations":[]}]}}
        {"type":"response.completed","sequence_number":11,"response":{"id":"resp_7","object":"response","model":"gpt-5","status":"completed","background":true,"output":[{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hello world.","annotations":[]}]}],"usage":{"input_tokens":5,"output_tokens":3,"total_tokens":8}}}
    "#);
    let c = o.choice();
    assert_eq!(c.text, "Hello world.");
    assert_eq!(c.content, [text("Hello world.")]);
    assert_eq!(o.streamed_text(0), " world.");
    // Resuming is not an error.
    assert!(errors(&o).is_empty(), "{:?}", errors(&o));
    assert_eq!(o.message.error, None);
    assert_eq!(o.message.id.as_deref(), Some("resp_7"));
    assert_finish(&o, "completed", FinishReason::Stop);
}

#[test]
fn final_copies_fill_lost_tails_and_correct_wrong_deltas() {
    // Deltas a prefix of the final text: the rest streams as one more
    // delta. Deltas that disagree: the final text is kept, with an error.
    // An earlier item's final copy corrects its part though another part
    // follows, the running text with it.
    let o = run(r#"
        {"type":"response.output_text.delta","sequence_number":1,"output_index":0,"content_index":0,"delta":"Hel"}
        {"type":"response.output_text.done","sequence_number":2,"output_index":0,"content_index":0,"text":"Hello."}
        {"type":"response.output_text.delta","sequence_number":3,"output_index":1,"content_index":0,"delta":"Sunny"}
        {"type":"response.output_text.delta","sequence_number":4,"output_index":2,"content_index":0,"delta":"Bye"}
        {"type":"response.output_item.done","sequence_number":5,"output_index":1,"item":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Rainy.","annotations":[]}]}}
        {"type":"response.completed","sequence_number":6,"response":{"id":"r","status":"completed","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hello."}]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Rainy."}]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Bye."}]}]}}
    "#);
    let c = o.choice();
    assert_eq!(c.content, [text("Hello."), text("Rainy."), text("Bye.")]);
    assert_eq!(c.text, "Hello.Rainy.Bye.");
    assert_eq!(o.streamed_text(0), "Hello.SunnyBye.");
    assert_eq!(errors(&o).len(), 1, "{:?}", errors(&o));
    let error = o.message.error.as_ref().unwrap();
    assert_eq!(error.kind.as_deref(), Some("text_mismatch"));
    assert!(error.message.contains("output 1"), "{}", error.message);
}

#[test]
fn terminal_output_fills_items_never_streamed() {
    // Only response.created and response.completed: the message is the
    // completed response's output.
    let o = run(r#"
        {"type":"response.created","sequence_number":0,"response":{"id":"resp_6","object":"response","model":"gpt-5","status":"in_progress","output":[]}}
        {"type":"response.completed","sequence_number":1,"response":{"id":"resp_6","object":"response","model":"gpt-5","status":"completed","output":[{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hello from the final snapshot.","annotations":[]}]}],"usage":{"input_tokens":5,"output_tokens":6,"total_tokens":11}}}
    "#);
    let c = o.choice();
    assert_eq!(c.role.as_deref(), Some("assistant"));
    assert_eq!(c.text, "Hello from the final snapshot.");
    assert_eq!(c.content, [text("Hello from the final snapshot.")]);
    assert_finish(&o, "completed", FinishReason::Stop);
    assert_usage(&o, 5, 6, 11);

    // Every kind of item: reasoning (its summary and signature), a
    // commentary message with a citation, a function call (a tool-calls
    // finish), a refusal, a server tool kept raw.
    let o = run(r#"
        {"type":"response.created","sequence_number":0,"response":{"id":"resp_9","model":"gpt-5","status":"in_progress","output":[]}}
        {"type":"response.completed","sequence_number":1,"response":{"id":"resp_9","model":"gpt-5","status":"completed","output":[{"type":"reasoning","summary":[{"type":"summary_text","text":"Think."}],"encrypted_content":"enc"},{"type":"message","role":"assistant","phase":"commentary","content":[{"type":"output_text","text":"Checking.","annotations":[{"type":"url_citation","url":"https://x.example"}]}]},{"type":"function_call","call_id":"call_1","name":"get","arguments":"{\"q\":1}"},{"type":"message","role":"assistant","content":[{"type":"refusal","refusal":"No."}]},{"type":"web_search_call","status":"completed"}]}}
    "#);
    let c = o.choice();
    assert_eq!(c.reasoning, "Think.");
    assert_eq!(c.text, "Checking.");
    assert_eq!(c.refusal.as_deref(), Some("No."));
    match c.content.as_slice() {
        [Part::Reasoning {
            text: r,
            signature: Some(sig),
        }, Part::Text(t), Part::ToolCall(2), Part::Refusal(no), Part::ProviderTool(key)] => {
            assert_eq!((r.as_str(), sig.as_str()), ("Think.", "enc"));
            assert_eq!(t, "Checking.");
            assert_eq!(no, "No.");
            assert_eq!(c.provider_tools.get(key).unwrap().name, "web_search_call");
        }
        other => panic!("content parts: {other:?}"),
    }
    assert_eq!(phases(&o), [(1, "commentary")]);
    assert_eq!(
        citations(&o),
        [(
            1,
            vec![obj(r#"{"type":"url_citation","url":"https://x.example"}"#)]
        )]
    );
    assert_call(&o, 2, "call_1", "get", &obj(r#"{"q":1}"#));
    assert_finish(&o, "completed", FinishReason::ToolCalls);
    assert!(errors(&o).is_empty(), "{:?}", errors(&o));
}

#[test]
fn logprobs_of_text_deltas_are_kept() {
    let lp = |t: &str| {
        obj(&format!(
            r#"{{"token":"{t}","logprob":-0.5,"bytes":[],"top_logprobs":[]}}"#
        ))
    };
    // Each delta's logprobs, in order; the .done and finished item
    // repeating them add nothing.
    let o = run(r#"
        {"type":"response.output_text.delta","sequence_number":1,"output_index":0,"content_index":0,"delta":"Hi","logprobs":[{"token":"Hi","logprob":-0.5,"bytes":[],"top_logprobs":[]}]}
        {"type":"response.output_text.delta","sequence_number":2,"output_index":0,"content_index":0,"delta":" there","logprobs":[{"token":" there","logprob":-0.5,"bytes":[],"top_logprobs":[]}]}
        {"type":"response.output_text.done","sequence_number":3,"output_index":0,"content_index":0,"text":"Hi there","logprobs":[{"token":"Hi","logprob":-0.5,"bytes":[],"top_logprobs":[]},{"token":" there","logprob":-0.5,"bytes":[],"top_logprobs":[]}]}
        {"type":"response.output_item.done","sequence_number":4,"output_index":0,"item":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hi there","annotations":[],"logprobs":[{"token":"Hi","logprob":-0.5,"bytes":[],"top_logprobs":[]},{"token":" there","logprob":-0.5,"bytes":[],"top_logprobs":[]}]}]}}
        {"type":"response.output_text.delta","sequence_number":5,"output_index":1,"content_index":0,"delta":"Bye","logprobs":[]}
        {"type":"response.output_text.done","sequence_number":6,"output_index":1,"content_index":0,"text":"Bye","logprobs":[{"token":"Bye","logprob":-0.5,"bytes":[],"top_logprobs":[]}]}
        {"type":"response.completed","sequence_number":7,"response":{"id":"r","status":"completed"}}
    "#);
    // The second text's deltas had none: its final copy's are kept. Each
    // text's are on its own part.
    let logprobs: Vec<(usize, Vec<Value>)> = o
        .choice()
        .logprobs
        .iter()
        .map(|(p, l)| (*p, l.clone()))
        .collect();
    assert_eq!(
        logprobs,
        [(0, vec![lp("Hi"), lp(" there")]), (1, vec![lp("Bye")])]
    );
    assert_eq!(
        o.message
            .to_value()
            .pointer("/choices/0/content/0/logprobs/1/token"),
        Some(&Value::from(" there"))
    );
}

#[test]
fn error_first_without_sequence_number_is_responses() {
    // A proxy dropped `sequence_number`: the top-level `code` and `param`
    // are not Anthropic's shape.
    let o = run(r#"
        {"type":"error","code":"server_error","message":"boom","param":null}
    "#);
    assert_eq!(o.message.provider, Provider::OpenAiResponses);
    let error = o.message.error.as_ref().unwrap();
    assert_eq!(error.message, "boom");
    assert_eq!(error.kind.as_deref(), Some("server_error"));
    // The public detection says the same; Anthropic's own error does not.
    let payload = |text: &str| llmstream::json::parse(text.as_bytes()).unwrap();
    let responses = payload(r#"{"type":"error","code":"server_error","message":"boom"}"#);
    let anthropic =
        payload(r#"{"type":"error","error":{"type":"overloaded_error","message":"x"}}"#);
    assert_eq!(
        Provider::detect("error", &responses),
        Some(Provider::OpenAiResponses)
    );
    assert_eq!(
        Provider::detect("error", &anthropic),
        Some(Provider::Anthropic)
    );
}

#[test]
fn correcting_early_parts_costs_no_more_than_the_stream() {
    // Wrong final copies of early parts, each followed by a long text:
    // each correction moves that text. The first is made; once the
    // corrections would move more than the stream brought, they are
    // reported and left out. Choice::text stays the parts' concatenation.
    let long = "z".repeat(1000);
    let mut lines = String::new();
    for (index, delta) in ["a", "b", "c"].iter().enumerate() {
        lines.push_str(&format!(
            r#"{{"type":"response.output_text.delta","output_index":{index},"content_index":0,"delta":"{delta}"}}"#
        ));
        lines.push('\n');
    }
    lines.push_str(&format!(
        r#"{{"type":"response.output_text.delta","output_index":3,"content_index":0,"delta":"{long}"}}"#
    ));
    lines.push('\n');
    for index in 0..3 {
        lines.push_str(&format!(
            r#"{{"type":"response.output_text.done","output_index":{index},"content_index":0,"text":"x"}}"#
        ));
        lines.push('\n');
    }
    let o = run(&lines);
    let c = o.choice();
    assert_eq!(
        c.content,
        [text("x"), text("b"), text("c"), text(&long)],
        "only the first correction is made"
    );
    assert_eq!(c.text, format!("xbc{long}"));
    let errors = errors(&o);
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(errors[0].contains("keeping the final text"), "{errors:?}");
    assert!(errors[1].contains("not corrected"), "{errors:?}");
    assert!(errors[2].contains("not corrected"), "{errors:?}");
}

/// A reasoning item whose end was lost, filled from the terminal
/// response: its signature goes on the part its summary streamed into,
/// though text came after it (it made a second, empty reasoning part).
#[test]
fn signature_of_a_reasoning_item_filled_late_goes_on_its_part() {
    let o = run(r#"
        {"type":"response.created","sequence_number":0,"response":{"id":"resp_s","object":"response","model":"gpt-5","status":"in_progress","output":[]}}
        {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}}
        {"type":"response.reasoning_summary_text.delta","sequence_number":2,"output_index":0,"item_id":"rs_1","summary_index":0,"delta":"Think"}
        {"type":"response.output_item.added","sequence_number":3,"output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}}
        {"type":"response.output_text.delta","sequence_number":4,"output_index":1,"item_id":"msg_1","content_index":0,"delta":"Done."}
        {"type":"response.completed","sequence_number":5,"response":{"id":"resp_s","object":"response","model":"gpt-5","status":"completed","output":[{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"Think"}],"encrypted_content":"ENC"},{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Done.","annotations":[]}]}]}}
    "#);
    let c = o.choice();
    assert_eq!(
        c.content,
        [
            Part::Reasoning {
                text: "Think".into(),
                signature: Some("ENC".into())
            },
            Part::Text("Done.".into())
        ]
    );
}

/// The concatenated text of the `reasoning_delta` events.
fn streamed_reasoning(o: &Run) -> String {
    o.events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ReasoningDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// The concatenated text of the `refusal_delta` events.
fn streamed_refusal(o: &Run) -> String {
    o.events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::RefusalDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn reasoning(text: &str, signature: Option<&str>) -> Part {
    Part::Reasoning {
        text: text.to_string(),
        signature: signature.map(String::from),
    }
}

#[test]
fn refusal_and_reasoning_follow_their_final_copies() {
    // As answer text does: a summary whose deltas were wrong is replaced
    // by its `.done` (an error); reasoning text whose deltas lost their
    // end gets the rest from the finished item (no error); a refusal
    // whose deltas were wrong is replaced by `refusal.done` (an error),
    // and the part and item copies repeating it change nothing; the
    // terminal response's copy of an earlier reasoning part, longer at
    // its end, corrects it though a part follows (no error).
    let o = run(r#"
        {"type":"response.created","sequence_number":0,"response":{"id":"resp_r","object":"response","model":"gpt-5","status":"in_progress","output":[]}}
        {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}}
        {"type":"response.reasoning_summary_text.delta","sequence_number":2,"output_index":0,"item_id":"rs_1","summary_index":0,"delta":"Thinkng about it"}
        {"type":"response.reasoning_summary_text.done","sequence_number":3,"output_index":0,"item_id":"rs_1","summary_index":0,"text":"Thinking about it."}
        {"type":"response.reasoning_text.delta","sequence_number":4,"output_index":0,"item_id":"rs_1","content_index":0,"delta":"step one"}
        {"type":"response.output_item.done","sequence_number":5,"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"Thinking about it."}],"content":[{"type":"reasoning_text","text":"step one, step two"}],"encrypted_content":"ENC"}}
        {"type":"response.output_item.added","sequence_number":6,"output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}}
        {"type":"response.content_part.added","sequence_number":7,"output_index":1,"item_id":"msg_1","content_index":0,"part":{"type":"refusal","refusal":""}}
        {"type":"response.refusal.delta","sequence_number":8,"output_index":1,"item_id":"msg_1","content_index":0,"delta":"I can"}
        {"type":"response.refusal.delta","sequence_number":9,"output_index":1,"item_id":"msg_1","content_index":0,"delta":"not"}
        {"type":"response.refusal.done","sequence_number":10,"output_index":1,"item_id":"msg_1","content_index":0,"refusal":"I can't help."}
        {"type":"response.content_part.done","sequence_number":11,"output_index":1,"item_id":"msg_1","content_index":0,"part":{"type":"refusal","refusal":"I can't help."}}
        {"type":"response.output_item.done","sequence_number":12,"output_index":1,"item":{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"refusal","refusal":"I can't help."}]}}
        {"type":"response.completed","sequence_number":13,"response":{"id":"resp_r","object":"response","model":"gpt-5","status":"completed","output":[{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"Thinking about it."}],"content":[{"type":"reasoning_text","text":"step one, step two!"}],"encrypted_content":"ENC"},{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"refusal","refusal":"I can't help."}]}]}}
    "#);
    let c = o.choice();
    assert_eq!(
        c.content,
        [
            reasoning("Thinking about it.", None),
            reasoning("step one, step two!", Some("ENC")),
            Part::Refusal("I can't help.".to_string()),
        ]
    );
    assert_eq!(c.reasoning, "Thinking about it.step one, step two!");
    assert_eq!(c.refusal.as_deref(), Some("I can't help."));
    assert_eq!(c.text, "");
    // The deltas reported stay as they were; a lost end is one more.
    assert_eq!(streamed_reasoning(&o), "Thinkng about itstep one, step two");
    assert_eq!(streamed_refusal(&o), "I cannot");
    let errors = errors(&o);
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].contains("output 0, summary 0"), "{errors:?}");
    assert!(errors[1].contains("output 1, content 0"), "{errors:?}");
    let error = o.message.error.as_ref().unwrap();
    assert_eq!(error.kind.as_deref(), Some("text_mismatch"));
    assert_finish(&o, "completed", FinishReason::Stop);
}

#[test]
fn terminal_output_items_take_their_output_index_place() {
    // Items 2 (a commentary message with a citation) and 4 (a function
    // call) streamed; the rest only in the terminal response. Each goes
    // where its output_index says, the citation and phase staying on the
    // streamed text, the text in output order.
    let citation = obj(r#"{"type":"url_citation","url":"https://x.example"}"#);
    let o = run(r#"
        {"type":"response.created","sequence_number":0,"response":{"id":"resp_o","object":"response","model":"gpt-5","status":"in_progress","output":[]}}
        {"type":"response.output_item.added","sequence_number":1,"output_index":2,"item":{"id":"msg_2","type":"message","status":"in_progress","role":"assistant","phase":"commentary","content":[]}}
        {"type":"response.output_text.delta","sequence_number":2,"output_index":2,"item_id":"msg_2","content_index":0,"delta":"See x.example."}
        {"type":"response.output_text.annotation.added","sequence_number":3,"output_index":2,"item_id":"msg_2","content_index":0,"annotation_index":0,"annotation":{"type":"url_citation","url":"https://x.example"}}
        {"type":"response.output_item.done","sequence_number":4,"output_index":2,"item":{"id":"msg_2","type":"message","status":"completed","role":"assistant","phase":"commentary","content":[{"type":"output_text","text":"See x.example.","annotations":[{"type":"url_citation","url":"https://x.example"}]}]}}
        {"type":"response.output_item.added","sequence_number":5,"output_index":4,"item":{"id":"fc_4","type":"function_call","call_id":"call_4","name":"get","arguments":""}}
        {"type":"response.function_call_arguments.delta","sequence_number":6,"output_index":4,"item_id":"fc_4","delta":"{\"q\":1}"}
        {"type":"response.completed","sequence_number":7,"response":{"id":"resp_o","object":"response","model":"gpt-5","status":"completed","output":[{"id":"msg_0","type":"message","role":"assistant","content":[{"type":"output_text","text":"Intro. ","annotations":[]}]},{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"Think."}],"encrypted_content":"ENC"},{"id":"msg_2","type":"message","status":"completed","role":"assistant","phase":"commentary","content":[{"type":"output_text","text":"See x.example.","annotations":[{"type":"url_citation","url":"https://x.example"}]}]},{"id":"ws_3","type":"web_search_call","status":"completed"},{"id":"fc_4","type":"function_call","call_id":"call_4","name":"get","arguments":"{\"q\":1}"},{"id":"msg_5","type":"message","role":"assistant","content":[{"type":"output_text","text":" Bye.","annotations":[]}]}]}}
    "#);
    let c = o.choice();
    match c.content.as_slice() {
        [Part::Text(intro), Part::Reasoning {
            text: think,
            signature: Some(sig),
        }, Part::Text(see), Part::ProviderTool(key), Part::ToolCall(4), Part::Text(bye)] => {
            assert_eq!(intro, "Intro. ");
            assert_eq!((think.as_str(), sig.as_str()), ("Think.", "ENC"));
            assert_eq!(see, "See x.example.");
            assert_eq!(c.provider_tools.get(key).unwrap().id, "ws_3");
            assert_eq!(bye, " Bye.");
        }
        other => panic!("content parts: {other:?}"),
    }
    assert_eq!(c.text, "Intro. See x.example. Bye.");
    assert_eq!(c.reasoning, "Think.");
    assert_eq!(citations(&o), [(2, vec![citation.clone()])]);
    assert_eq!(phases(&o), [(2, "commentary")]);
    let json = o.message.to_value();
    assert_eq!(
        json.pointer("/choices/0/content/2/citations/0"),
        Some(&citation)
    );
    assert_eq!(
        json.pointer("/choices/0/content/2/phase"),
        Some(&Value::from("commentary"))
    );
    assert_call(&o, 4, "call_4", "get", &obj(r#"{"q":1}"#));
    assert_finish(&o, "completed", FinishReason::ToolCalls);
    assert!(errors(&o).is_empty(), "{:?}", errors(&o));

    // The streamed text's part is found again by its new position: an
    // annotation and the item's phase that come after the terminal event
    // (out of order) land on it, not on the reasoning now before it.
    let o = run(r#"
        {"type":"response.output_text.delta","sequence_number":1,"output_index":1,"content_index":0,"delta":"Answ"}
        {"type":"response.completed","sequence_number":2,"response":{"id":"r","status":"completed","output":[{"type":"reasoning","summary":[{"type":"summary_text","text":"Why."}]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Answer"}]}]}}
        {"type":"response.output_text.annotation.added","sequence_number":3,"output_index":1,"content_index":0,"annotation_index":0,"annotation":{"type":"url_citation","url":"https://x.example"}}
        {"type":"response.output_item.done","sequence_number":4,"output_index":1,"item":{"type":"message","role":"assistant","phase":"final_answer","content":[{"type":"output_text","text":"Answer"}]}}
    "#);
    assert_eq!(
        o.choice().content,
        [reasoning("Why.", None), text("Answer")]
    );
    assert_eq!(o.choice().text, "Answer");
    assert_eq!(citations(&o), [(1, vec![citation])]);
    assert_eq!(phases(&o), [(1, "final_answer")]);
    assert!(errors(&o).is_empty(), "{:?}", errors(&o));
}

#[test]
fn content_part_added_text_is_kept_once() {
    // A part that begins with text (as the SDK keeps it, deltas appended
    // to it): the text is a delta, and the copies repeating the whole
    // text do not double it, nor does a repeated `content_part.added`.
    let o = run(r#"
        {"type":"response.created","sequence_number":0,"response":{"id":"resp_p","object":"response","model":"gpt-5","status":"in_progress","output":[]}}
        {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"msg_0","type":"message","status":"in_progress","role":"assistant","content":[]}}
        {"type":"response.content_part.added","sequence_number":2,"output_index":0,"item_id":"msg_0","content_index":0,"part":{"type":"output_text","text":"Hel","annotations":[]}}
        {"type":"response.output_text.delta","sequence_number":3,"output_index":0,"item_id":"msg_0","content_index":0,"delta":"lo."}
        {"type":"response.output_text.done","sequence_number":4,"output_index":0,"item_id":"msg_0","content_index":0,"text":"Hello."}
        {"type":"response.content_part.done","sequence_number":5,"output_index":0,"item_id":"msg_0","content_index":0,"part":{"type":"output_text","text":"Hello.","annotations":[]}}
        {"type":"response.output_item.done","sequence_number":6,"output_index":0,"item":{"id":"msg_0","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hello.","annotations":[]}]}}
        {"type":"response.output_item.added","sequence_number":7,"output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}}
        {"type":"response.content_part.added","sequence_number":8,"output_index":1,"item_id":"msg_1","content_index":0,"part":{"type":"refusal","refusal":"No."}}
        {"type":"response.content_part.added","sequence_number":9,"output_index":1,"item_id":"msg_1","content_index":0,"part":{"type":"refusal","refusal":"No."}}
        {"type":"response.refusal.done","sequence_number":10,"output_index":1,"item_id":"msg_1","content_index":0,"refusal":"No."}
        {"type":"response.output_item.done","sequence_number":11,"output_index":1,"item":{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"refusal","refusal":"No."}]}}
        {"type":"response.output_item.added","sequence_number":12,"output_index":2,"item":{"id":"msg_2","type":"message","status":"in_progress","role":"assistant","content":[]}}
        {"type":"response.content_part.added","sequence_number":13,"output_index":2,"item_id":"msg_2","content_index":0,"part":{"type":"output_text","text":" Bye.","annotations":[]}}
        {"type":"response.completed","sequence_number":14,"response":{"id":"resp_p","object":"response","model":"gpt-5","status":"completed","output":[{"id":"msg_0","type":"message","role":"assistant","content":[{"type":"output_text","text":"Hello.","annotations":[]}]},{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"refusal","refusal":"No."}]},{"id":"msg_2","type":"message","role":"assistant","content":[{"type":"output_text","text":" Bye.","annotations":[]}]}]}}
    "#);
    let c = o.choice();
    assert_eq!(
        c.content,
        [
            text("Hello."),
            Part::Refusal("No.".to_string()),
            text(" Bye.")
        ]
    );
    assert_eq!(c.text, "Hello. Bye.");
    assert_eq!(c.refusal.as_deref(), Some("No."));
    // The deltas and the message agree: the part's text streamed first.
    assert_eq!(o.streamed_text(0), "Hello. Bye.");
    let deltas = o.text_deltas(0);
    assert_eq!(deltas, ["Hel", "lo.", " Bye."]);
    assert_eq!(streamed_refusal(&o), "No.");
    assert!(errors(&o).is_empty(), "{:?}", errors(&o));
}

#[test]
fn placing_terminal_items_costs_no_more_than_the_stream() {
    // A long text streamed at output 9, then terminal events each with
    // one more early item: each would move the long text. The first is
    // put in place; once that would move more than the stream brought,
    // the items are reported and left after it.
    let long = "z".repeat(1000);
    let mut lines = format!(
        r#"{{"type":"response.output_text.delta","output_index":9,"content_index":0,"delta":"{long}"}}"#
    );
    for count in 1..=3 {
        let items: Vec<String> = (0..count)
            .map(|i| {
                format!(r#"{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":"{i}"}}]}}"#)
            })
            .collect();
        lines.push('\n');
        lines.push_str(&format!(
            r#"{{"type":"response.completed","response":{{"id":"r","status":"completed","output":[{}]}}}}"#,
            items.join(",")
        ));
    }
    let o = run(&lines);
    let c = o.choice();
    assert_eq!(c.content, [text("0"), text(&long), text("1"), text("2")]);
    assert_eq!(c.text, format!("0{long}12"));
    let errors = errors(&o);
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].contains("left after"), "{errors:?}");
}

/// A streamed text whose terminal copy only adds to it streams the rest on
/// as a delta, though the terminal response also brings an item that goes
/// before it: the copies of the items that streamed are read before the
/// new items' parts are made.
#[test]
fn a_terminal_copy_that_adds_to_the_latest_text_streams_on_before_new_items() {
    let o = run(r#"
        {"type":"response.output_text.delta","sequence_number":1,"output_index":1,"content_index":0,"delta":"Hello"}
        {"type":"response.completed","sequence_number":2,"response":{"id":"r","status":"completed","output":[{"type":"reasoning","summary":[{"type":"summary_text","text":"Think."}]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hello world"}]}]}}
    "#);
    assert_eq!(
        o.choice().content,
        [reasoning("Think.", None), text("Hello world")]
    );
    assert_eq!(o.streamed_text(0), "Hello world");
    assert!(errors(&o).is_empty(), "{:?}", errors(&o));
}

/// A streamed text's log probabilities move with its part when an item
/// filled from the terminal response goes before it.
#[test]
fn logprobs_move_with_their_part() {
    let o = run(r#"
        {"type":"response.output_text.delta","sequence_number":1,"output_index":1,"content_index":0,"delta":"Answer","logprobs":[{"token":"Answer","logprob":-0.5,"bytes":[],"top_logprobs":[]}]}
        {"type":"response.completed","sequence_number":2,"response":{"id":"r","status":"completed","output":[{"type":"reasoning","summary":[{"type":"summary_text","text":"Why."}]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Answer"}]}]}}
    "#);
    assert_eq!(
        o.choice().content,
        [reasoning("Why.", None), text("Answer")]
    );
    let positions: Vec<usize> = o.choice().logprobs.iter().map(|(p, _)| *p).collect();
    assert_eq!(positions, [1]);
    assert_eq!(
        o.message
            .to_value()
            .pointer("/choices/0/content/1/logprobs/0/token"),
        Some(&Value::from("Answer"))
    );
}

/// The terminal response's new parts are put in key order whichever pass
/// made them: here the streamed item 1 gets a part of its own (content 1)
/// before item 0, which only the terminal response carries, is read.
#[test]
fn terminal_parts_are_placed_in_key_order_whichever_pass_made_them() {
    let o = run(r#"
        {"type":"response.created","response":{"id":"r","model":"m","output":[]}}
        {"type":"response.output_item.added","output_index":1,"item":{"type":"message","role":"assistant","content":[]}}
        {"type":"response.output_text.delta","output_index":1,"content_index":0,"delta":"A"}
        {"type":"response.completed","response":{"id":"r","model":"m","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"X"}]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"A"},{"type":"output_text","text":"B"}]}]}}
    "#);
    assert_eq!(o.choice().content, [text("X"), text("A"), text("B")]);
    assert_eq!(o.choice().text, "XAB");
}

/// A stream resumed after an item's first text: the terminal response's
/// copy of that text goes before the text that streamed, as their
/// content indices say.
#[test]
fn a_resumed_items_earlier_text_goes_before_its_streamed_text() {
    let o = run(r#"
        {"type":"response.output_text.delta","sequence_number":40,"output_index":1,"content_index":1,"delta":"Second."}
        {"type":"response.output_text.done","sequence_number":41,"output_index":1,"content_index":1,"text":"Second."}
        {"type":"response.completed","sequence_number":42,"response":{"id":"r","model":"m","status":"completed","output":[{"type":"reasoning","id":"rs","summary":[{"type":"summary_text","text":"Thought."}]},{"type":"message","id":"msg","role":"assistant","content":[{"type":"output_text","text":"First. ","annotations":[]},{"type":"output_text","text":"Second.","annotations":[]}]}]}}
    "#);
    assert_eq!(
        o.choice().content,
        [
            reasoning("Thought.", None),
            text("First. "),
            text("Second.")
        ]
    );
    assert_eq!(o.choice().text, "First. Second.");
}
