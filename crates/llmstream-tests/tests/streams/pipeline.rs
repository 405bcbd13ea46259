//! `Pipeline` as a whole: which payloads make a message, where errors in a
//! payload are said to be, and the documentation's examples reading what
//! `finish` queues.

use crate::common;

use llmstream::providers::{Message, Pipeline, Provider, StreamEvent};

/// A body through a pipeline (given `provider`, or detecting it), whole,
/// byte by byte and in random pieces, all of which must agree: the events
/// (those `finish` queued included) and the message.
fn run(provider: Option<Provider>, body: &[u8]) -> (Vec<StreamEvent>, Option<Message>) {
    let once = |pieces: Vec<&[u8]>| {
        let mut pipeline = match provider {
            Some(provider) => Pipeline::with_provider(provider),
            None => Pipeline::new(),
        };
        let mut events = Vec::new();
        for piece in pieces {
            pipeline.feed(piece).unwrap();
            events.extend(std::iter::from_fn(|| pipeline.next_event()));
        }
        pipeline.finish().unwrap();
        events.extend(std::iter::from_fn(|| pipeline.next_event()));
        assert_eq!(pipeline.provider(), pipeline.message().map(|m| m.provider));
        (events, pipeline.message().cloned())
    };
    let whole = once(vec![body]);
    assert_eq!(once(body.chunks(1).collect()), whole, "byte by byte");
    for seed in [1, 7, 42] {
        let pieces = common::random_pieces(body, seed);
        assert_eq!(once(pieces), whole, "random pieces, seed {seed}");
    }
    whole
}

fn errors(events: &[StreamEvent]) -> Vec<&str> {
    events
        .iter()
        .filter_map(|event| match event {
            StreamEvent::Error(e) => Some(e.message.as_str()),
            _ => None,
        })
        .collect()
}

const OPENAI: &str = concat!(
    r#"data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"}}]}"#,
    "\n\n",
    r#"data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
    "\n\n",
    "data: [DONE]\n\n",
);

/// A provider given to a body that is all another provider's: every
/// payload is reported and left out, and there is no message (as for a
/// body where no provider can be told), not an empty message said to be
/// complete because of `[DONE]`.
#[test]
fn a_body_of_another_providers_payloads_gives_no_message() {
    let (events, message) = run(Some(Provider::Anthropic), OPENAI.as_bytes());
    assert_eq!(message, None);
    assert_eq!(
        errors(&events),
        [
            "SSE event 1: the payload is shaped like openai-chat, not anthropic as given",
            "SSE event 2: the payload is shaped like openai-chat, not anthropic as given",
        ]
    );
    assert_eq!(events.len(), 2, "{events:?}");
    // The same body, its provider detected or given rightly.
    for provider in [None, Some(Provider::OpenAiChat)] {
        let (events, message) = run(provider, OPENAI.as_bytes());
        let message = message.expect("a message");
        assert!(message.complete && message.error.is_none(), "{message:?}");
        assert_eq!(message.choice().unwrap().text, "Hi");
        assert!(errors(&events).is_empty());
    }
}

/// A recorded OpenAI body read as Anthropic.
#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn a_recorded_openai_body_given_as_anthropic_gives_no_message() {
    let body = common::fixtures::read(
        "providers/openai_chat/f82268f2fefd5cfbc7eeb59c297688be2f6ca0849a6e4f17851b517310841d9b.bin",
    );
    let (events, message) = run(Some(Provider::Anthropic), &body);
    assert_eq!(message, None);
    assert!(!events.is_empty());
    assert!(errors(&events)
        .iter()
        .all(|e| e.ends_with("the payload is shaped like openai-chat, not anthropic as given")));
    assert!(run(None, &body).1.is_some_and(|m| m.complete));
}

/// `[DONE]` completes only a message some payload made: alone, or after
/// payloads that were all left out, there is no message at all.
#[test]
fn done_alone_makes_no_message() {
    for provider in [None, Some(Provider::OpenAiChat), Some(Provider::Gemini)] {
        assert_eq!(run(provider, b"data: [DONE]\n\n"), (vec![], None));
        let (events, message) = run(provider, b"data: not json\n\ndata: [DONE]\n\n");
        assert_eq!(message, None);
        assert_eq!(errors(&events).len(), 1);
    }
    let body = format!(
        "{}data: [DONE]\n\n",
        &OPENAI[..OPENAI.find("data: [DONE]").unwrap()]
    );
    let (_, message) = run(Some(Provider::Gemini), body.as_bytes());
    assert_eq!(message, None);
}

/// Payloads of another provider's shape before the first of the given
/// one's are reported and left out; the message is made from the first
/// accepted one on, and keeps the first problem as its error.
#[test]
fn payloads_of_another_shape_before_the_first_accepted_are_left_out() {
    let body = concat!(
        r#"data: {"candidates":[{"content":{"parts":[{"text":"gemini"}]}}]}"#,
        "\n\n",
        "data: [DONE]\n\n",
        r#"data: {"id":"c1","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}"#,
        "\n\n",
        r#"data: {"id":"c1","choices":[{"index":0,"delta":{"content":"Hi"}}]}"#,
        "\n\n",
    );
    let (events, message) = run(Some(Provider::OpenAiChat), body.as_bytes());
    let message = message.expect("a message");
    assert_eq!(message.id.as_deref(), Some("c1"));
    assert_eq!(message.usage.as_ref().unwrap().output_tokens, Some(2));
    assert_eq!(message.choice().unwrap().text, "Hi");
    assert_eq!(
        message.error.as_ref().unwrap().message,
        "SSE event 1: the payload is shaped like gemini, not openai-chat as given"
    );
    assert_eq!(errors(&events).len(), 1);
    // The [DONE] came before any accepted payload: it completed nothing.
    let cut = body.find(r#"data: {"id":"c1","choices":[{"#).unwrap();
    let (_, message) = run(Some(Provider::OpenAiChat), &body.as_bytes()[..cut]);
    let message = message.expect("a message");
    assert!(!message.complete, "{message:?}");
    // An error payload of another shape is accepted (gateways send any),
    // as is one of no known shape, on the caller's word.
    for first in [r#"{"error":{"message":"quota","code":429}}"#, r#"{"x":1}"#] {
        let body = format!("data: {first}\n\ndata: [DONE]\n\n");
        let (_, message) = run(Some(Provider::Gemini), body.as_bytes());
        assert!(message.is_some(), "{first}");
    }
}

/// A payload that is not JSON: the error's offset is in the event's data,
/// and the message says so (every other "at byte N" is in the stream),
/// wherever the body is cut and however the data came (spaces, CRLF, other
/// fields, several data lines, invalid UTF-8 replaced).
#[test]
fn a_payload_error_is_at_a_byte_of_its_data_in_so_many_words() {
    let message = |body: &[u8]| {
        let (events, _) = run(Some(Provider::OpenAiChat), body);
        errors(&events)
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
    };
    let first = r#"data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}"#;
    let body = format!("{first}\n\ndata: not json\n\n");
    assert_eq!(
        message(body.as_bytes()),
        ["SSE event 2: data is not JSON: expected 'null', found 'o' at byte 1 of its data"]
    );
    let body =
        format!("\u{feff}{first}\r\n\r\nevent: x\r\nid: 3\r\n: hi\r\ndata:   {{\"a\": x}}\r\n\r\n");
    assert_eq!(
        message(body.as_bytes()),
        ["SSE event 2: data is not JSON: expected a value after ':', found 'x' at byte 8 of its data (path a)"]
    );
    assert_eq!(
        message(b"data: {\"a\":\ndata: x}\n\n"),
        ["SSE event 1: data is not JSON: expected a value after ':', found 'x' at byte 6 of its data (path a)"]
    );
    // One invalid byte became U+FFFD (three bytes): offsets are in the
    // data as decoded.
    assert_eq!(
        message(b"data: {\"a\":\"\xff\", x}\n\n"),
        ["SSE event 1: data is not JSON: expected a string key after ',' in object, found 'x' at byte 12 of its data"]
    );
}

/// The error event of a payload that is not JSON carries the parser's
/// typed error (its kind, offset in the data and path), in the event, in
/// the message and through their JSON forms.
#[test]
fn a_payload_error_carries_the_parsers_error() {
    let (events, message) = run(Some(Provider::OpenAiChat), b"data: {\"a\":\ndata: x}\n\n");
    let error = events
        .iter()
        .find_map(|event| match event {
            StreamEvent::Error(e) => e.parse_error.clone(),
            _ => None,
        })
        .expect("a parse error");
    assert_eq!(error.offset(), 6);
    assert_eq!(error.path().to_string(), "a");
    assert!(matches!(
        error.kind(),
        llmstream::json::ErrorKind::Unexpected { found: b'x', .. }
    ));
    assert!(message.is_none(), "no payload was accepted");
    for event in &events {
        let back = StreamEvent::from_value(&event.to_value()).expect("its own form");
        assert_eq!(&back, event);
    }
}

/// The README's library example reads the events `finish` queues (a call
/// still open ends there), as the crate's own examples do: they are doc
/// tests, the README's is not compiled, so its text is checked here.
#[test]
fn the_readme_example_reads_the_events_finish_queues() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("the README");
    let manual = readme.find("Pipeline::new()").expect("the manual loop");
    let start = readme[..manual].rfind("```rust\n").expect("a Rust example");
    let block = &readme[start..];
    let block = &block[..block[8..].find("```").expect("its end") + 8];
    let finish = block.find("pipeline.finish()").expect("it finishes");
    assert!(
        block[finish..].contains("pipeline.next_event()"),
        "no events read after finish():\n{block}"
    );
}

/// Every JSON-lines recording (`*.chunks.txt`) read by the pipeline as a
/// body (whole, byte by byte, in random pieces) gives the message its
/// payloads give the accumulator one by one.
#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn json_lines_recordings_read_as_bodies() {
    let files: Vec<String> = llmstream_tests::fixtures::files("providers")
        .into_iter()
        .filter(|f| f.ends_with(".chunks.txt"))
        .collect();
    assert!(files.len() >= 19, "{files:?}");
    for file in files {
        let bytes = llmstream_tests::fixtures::read(&format!("providers/{file}"));
        let (_, message) = run(None, &bytes);
        let message = message.unwrap_or_else(|| panic!("{file}: no message"));
        let provider = message.provider;
        let streams = common::providers::Streams::new(provider, "", "");
        let text = String::from_utf8(bytes).unwrap();
        let direct = streams.lines(&text);
        assert_eq!(
            message.to_value().to_json(),
            direct.message.to_value().to_json(),
            "{file}"
        );
    }
}

/// Gemini's streaming body without `alt=sse`: one JSON array of the
/// responses, read element by element as they complete.
#[test]
fn a_json_array_body_is_read_element_by_element() {
    let body = concat!(
        "[{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"a [tricky] }\"}]}}]}\r\n",
        ",\r\n{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"!\"}]},",
        "\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":2,\"candidatesTokenCount\":3}}\r\n]",
    );
    let (events, message) = run(None, body.as_bytes());
    let message = message.expect("a message");
    assert_eq!(message.provider, Provider::Gemini);
    assert_eq!(message.choice().unwrap().text, "a [tricky] }!");
    assert!(message.complete);
    assert!(errors(&events).is_empty(), "{events:?}");
    // Streamed: the first element's text is out before the body ends.
    let mut pipeline = Pipeline::new();
    pipeline
        .feed(&body.as_bytes()[..body.find("\r\n,").unwrap() + 1])
        .unwrap();
    let early: Vec<StreamEvent> = std::iter::from_fn(|| pipeline.next_event()).collect();
    assert!(early
        .iter()
        .any(|e| matches!(e, StreamEvent::TextDelta { .. })));
}

/// A whole completion (`stream: true` forgotten) is said to be one, and
/// makes no message; a body cut inside a JSON payload says what was lost.
#[test]
fn a_whole_completion_is_no_stream_and_a_cut_payload_is_said() {
    for body in [
        r#"{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}"#,
        r#"{"id":"m","type":"message","role":"assistant","content":[{"type":"text","text":"Hi"}],"stop_reason":"end_turn"}"#,
        "{\n  \"id\": \"r\",\n  \"object\": \"response\",\n  \"status\": \"completed\",\n  \"output\": []\n}\n",
    ] {
        let (events, message) = run(None, body.as_bytes());
        assert_eq!(message, None, "{body}");
        let errors = errors(&events);
        assert_eq!(errors.len(), 1, "{events:?}");
        assert!(errors[0].contains("not a stream"), "{}", errors[0]);
    }
    let body = "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n{\"choices\":[{\"ind";
    let (events, message) = run(None, body.as_bytes());
    assert_eq!(message.unwrap().choice().unwrap().text, "Hi");
    assert_eq!(
        errors(&events),
        ["the body ended inside a JSON payload: its 17 bytes were left out"]
    );
}

/// An SSE event the body ends inside (no closing blank line): by default
/// read when its data is a whole payload, with a detail saying so; strict,
/// discarded as the standard says, with an error naming the bytes lost.
#[test]
fn an_unterminated_last_event_is_read_or_said() {
    let first = r#"data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}"#;
    let last = r#"data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#;
    for ending in ["", "\n", "\r\n", "\r"] {
        let body = format!("{first}\n\n{last}{ending}");
        let (events, message) = run(None, body.as_bytes());
        let message = message.unwrap();
        assert_eq!(
            message.choice().unwrap().finish_reason.as_deref(),
            Some("stop")
        );
        assert!(
            message.details.contains_key("unterminated_event"),
            "{ending:?}"
        );
        assert!(errors(&events).is_empty());
        let mut strict = Pipeline::new().read_unterminated_event(false);
        strict.feed(body.as_bytes()).unwrap();
        strict.finish().unwrap();
        let events: Vec<StreamEvent> = std::iter::from_fn(|| strict.next_event()).collect();
        let message = strict.message().unwrap();
        assert_eq!(message.choice().unwrap().finish_reason, None);
        assert_eq!(
            errors(&events),
            ["the body ended inside SSE event 2, without its closing blank line: its 59 bytes of data were discarded, as the standard says"]
        );
    }
    // Data that is not a whole payload is discarded either way, and said.
    let body = format!("{first}\n\ndata: {{\"choices\":[");
    let (events, _) = run(None, body.as_bytes());
    assert_eq!(
        errors(&events),
        ["the body ended inside SSE event 2, without its closing blank line: its 12 bytes of data were discarded: it is not a whole payload"]
    );
}

/// A tool call whose arguments a model wrote in Python's dialect, in
/// three fragments.
const PYTHONIC_CALL: &str = concat!(
    r#"data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"weather","arguments":"{'city': "}}]}}]}"#,
    "\n\n",
    r#"data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"'Paris', units: None,"}}]}}]}"#,
    "\n\n",
    r#"data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":" days: 3}"}}]},"finish_reason":"tool_calls"}]}"#,
    "\n\n",
    "data: [DONE]\n\n",
);

/// Off by default, arguments that are not JSON stay their text with the
/// parser's error; with `lenient_arguments` they are lenient mode's
/// reading, and the call's end event says it was a repair, and where the
/// text stopped being JSON.
#[test]
fn lenient_arguments_repair_a_call_and_say_so() {
    use llmstream::providers::ArgumentsError;
    let body = PYTHONIC_CALL.as_bytes();
    let (_, message) = run(Some(Provider::OpenAiChat), body);
    let message = message.unwrap();
    let call = &message.choices.get(&0).unwrap().tool_calls.get(&0).unwrap();
    assert_eq!(
        call.arguments.as_ref().unwrap().as_str(),
        Some("{'city': 'Paris', units: None, days: 3}")
    );
    assert!(matches!(
        call.arguments_error,
        Some(ArgumentsError::Json(_))
    ));

    let read = |pieces: Vec<&[u8]>| {
        let mut pipeline = Pipeline::with_provider(Provider::OpenAiChat).lenient_arguments(true);
        let mut events = Vec::new();
        for piece in pieces {
            pipeline.feed(piece).unwrap();
            events.extend(std::iter::from_fn(|| pipeline.next_event()));
        }
        pipeline.finish().unwrap();
        events.extend(std::iter::from_fn(|| pipeline.next_event()));
        (events, pipeline.message().cloned().unwrap())
    };
    let (events, message) = read(vec![body]);
    assert_eq!(
        read(body.chunks(1).collect()),
        (events.clone(), message.clone())
    );
    let call = &message.choices.get(&0).unwrap().tool_calls.get(&0).unwrap();
    assert_eq!(
        call.arguments.as_ref().unwrap().to_json(),
        r#"{"city":"Paris","units":null,"days":3}"#
    );
    let Some(ArgumentsError::Repaired(error)) = &call.arguments_error else {
        panic!("a repair, said: {:?}", call.arguments_error);
    };
    assert_eq!(error.offset(), 1, "the single quote");
    let end = events
        .iter()
        .find_map(|event| match event {
            StreamEvent::ToolCallEnd {
                arguments,
                arguments_error,
                ..
            } => Some((arguments, arguments_error)),
            _ => None,
        })
        .expect("the call ends");
    assert_eq!(end.0, call.arguments.as_ref().unwrap());
    assert_eq!(end.1, &call.arguments_error);
    // The event's JSON form says so, and reads back.
    let form = ArgumentsError::Repaired(error.clone()).to_value();
    assert_eq!(form.get("kind").and_then(|k| k.as_str()), Some("repaired"));
    assert_eq!(
        ArgumentsError::from_value(&form),
        Some(ArgumentsError::Repaired(error.clone()))
    );
    // The message rebuilt from the events is the same.
    let mut folded = Message::new(Provider::OpenAiChat);
    for event in &events {
        folded.apply(event);
    }
    assert_eq!(folded, message);
}
