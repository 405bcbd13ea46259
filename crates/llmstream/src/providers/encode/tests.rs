//! Each wire's encoder read back by its own reader: the same text,
//! reasoning, tool calls, finish and counts. The recordings of every
//! provider through every encoder are the integration tests'
//! (llmstream-tests, `translate`).

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::{encode_all, Output};
use crate::providers::{FinishReason, Message, Pipeline, Provider, StreamEvent, Usage};

fn events() -> Vec<StreamEvent> {
    use crate::json::Value;
    let usage = Usage {
        input_tokens: Some(10),
        output_tokens: Some(7),
        total_tokens: Some(17),
        reasoning_tokens: Some(2),
        cached_input_tokens: Some(4),
        ..Usage::default()
    };
    let mut map = crate::json::Map::new();
    map.push("city", Value::from("Paris"));
    alloc::vec![
        StreamEvent::MessageStart {
            provider: Provider::Anthropic,
            id: Some(String::from("m1")),
            model: Some(String::from("model-x")),
        },
        StreamEvent::Role {
            choice: 0,
            role: String::from("assistant")
        },
        StreamEvent::ReasoningDelta {
            choice: 0,
            text: String::from("Think")
        },
        StreamEvent::TextDelta {
            choice: 0,
            text: String::from("Hel")
        },
        StreamEvent::TextDelta {
            choice: 0,
            text: String::from("lo")
        },
        StreamEvent::ToolCallStart {
            choice: 0,
            call: 2,
            id: String::from("call_1"),
            name: String::from("weather"),
            kind: None,
        },
        StreamEvent::ToolCallDelta {
            choice: 0,
            call: 2,
            fragment: String::from("{\"city\":")
        },
        StreamEvent::ToolCallDelta {
            choice: 0,
            call: 2,
            fragment: String::from("\"Paris\"}")
        },
        StreamEvent::ToolCallEnd {
            choice: 0,
            call: 2,
            id: String::from("call_1"),
            name: String::from("weather"),
            arguments: Value::Object(map),
            arguments_error: None,
        },
        StreamEvent::Finish {
            choice: 0,
            reason: String::from("tool_use"),
            normalized: FinishReason::ToolCalls,
        },
        StreamEvent::Usage(usage),
        StreamEvent::Complete,
    ]
}

fn read_back(target: Provider) -> Message {
    let mut bytes = Vec::new();
    for output in encode_all(target, &events()) {
        if let Output::Sse(sse) = output {
            bytes.extend_from_slice(&sse);
        }
    }
    let mut pipeline = Pipeline::with_provider(target);
    pipeline.feed(&bytes).expect("within limits");
    pipeline.finish().expect("within limits");
    while pipeline.next_event().is_some() {}
    pipeline.message().cloned().expect("a message")
}

#[test]
fn every_wire_reads_back_the_same_message() {
    for target in Provider::ALL {
        let message = read_back(target);
        let choice = message.choices.get(&0).expect("choice 0");
        assert_eq!(message.provider, target);
        assert_eq!(choice.text, "Hello", "{target:?}");
        assert_eq!(choice.reasoning, "Think", "{target:?}");
        let call = choice.tool_calls.values().next().expect("a call");
        assert_eq!(
            (call.id.as_str(), call.name.as_str()),
            ("call_1", "weather")
        );
        assert_eq!(
            call.arguments.as_ref().map(|a| a.to_string()),
            Some(String::from(r#"{"city":"Paris"}"#)),
            "{target:?}"
        );
        assert_eq!(choice.finish, Some(FinishReason::ToolCalls), "{target:?}");
        let usage = message.usage.clone().expect("usage");
        assert_eq!(usage.input_tokens, Some(10), "{target:?}");
        assert_eq!(usage.output_tokens, Some(7), "{target:?}");
        assert_eq!(usage.cached_input_tokens, Some(4), "{target:?}");
        if target != Provider::Anthropic {
            assert_eq!(usage.reasoning_tokens, Some(2), "{target:?}");
        }
        assert!(message.complete, "{target:?}");
    }
}
