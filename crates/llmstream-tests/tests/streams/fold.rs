//! The event stream is the truth: for every recorded provider stream,
//! however it is cut, `Message::default()` with the stream's events
//! applied is the message the pipeline built — also after each event went
//! through serde (serialized with serde_json and read back).

use llmstream::json::{self, Value};
use llmstream::providers::{Message, Pipeline, Provider, StreamEvent};
use llmstream_tests::{fixtures, Cutting};

/// Random cuttings each recording is also fed in (beside whole and byte
/// by byte).
const SEEDS: u64 = 3;

/// `Message::default()` with every event applied.
fn fold<'a>(events: impl IntoIterator<Item = &'a StreamEvent>) -> Message {
    let mut message = Message::default();
    for event in events {
        message.apply(event);
    }
    message
}

/// The event after a trip through serde_json.
fn through_serde(event: &StreamEvent) -> StreamEvent {
    let text = serde_json::to_string(event).expect("an event serializes");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// A message's JSON form as serde_json reads it: numbers by value, since
/// serde carries a number as an integer or an `f64`, not as its text
/// (`1.50` comes back `1.5`).
fn by_value(message: &Message) -> serde_json::Value {
    serde_json::from_str(&message.to_value().to_json()).expect("the message is JSON")
}

/// Checks the fold on `events` against `message`, plain and through serde.
fn check(name: &str, how: &str, events: &[StreamEvent], message: &Message) {
    assert_eq!(
        fold(events).to_value().to_json(),
        message.to_value().to_json(),
        "{name} ({how}): the fold of the events is not the message"
    );
    for event in events {
        assert_eq!(
            StreamEvent::from_value(&event.to_value()).as_ref(),
            Ok(event),
            "{name}: the event read back from its JSON form"
        );
    }
    let text = serde_json::to_string(message).expect("a message serializes");
    let back: Message = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(
        by_value(&back),
        by_value(message),
        "{name}: the message read back through serde"
    );
    assert_eq!(
        Message::from_value(&message.to_value())
            .map(|m| m.to_value().to_json())
            .as_deref(),
        Ok(message.to_value().to_json().as_str()),
        "{name}: the message read back from its JSON form"
    );
    let tripped: Vec<StreamEvent> = events.iter().map(through_serde).collect();
    assert_eq!(
        by_value(&fold(&tripped)),
        by_value(message),
        "{name} ({how}): the fold of the events through serde is not the message"
    );
}

/// A raw SSE body through a pipeline, cut every way; whether it gave a
/// message (a body of no provider's payloads gives none, and its events
/// are only errors).
fn check_sse(name: &str, bytes: &[u8]) -> bool {
    let mut found = false;
    for cutting in Cutting::all(SEEDS) {
        let mut pipeline = Pipeline::new();
        let mut events = Vec::new();
        for piece in cutting.cut(bytes) {
            // A line over the SSE limits ends the feeding; what came
            // before it still folds into the message.
            if pipeline.feed(piece).is_err() {
                break;
            }
            events.extend(std::iter::from_fn(|| pipeline.next_event()));
        }
        let _ = pipeline.finish();
        events.extend(std::iter::from_fn(|| pipeline.next_event()));
        match pipeline.message() {
            Some(message) => {
                found = true;
                check(name, &format!("{cutting:?}"), &events, message);
            }
            None => assert!(
                events.iter().all(|e| matches!(e, StreamEvent::Error(_))),
                "{name}: events but no message"
            ),
        }
    }
    found
}

/// A JSON-lines recording (one payload a line) through the accumulator of
/// the provider its first payload names, as the provider tests read
/// them; whether a provider was found.
fn check_lines(name: &str, bytes: &[u8]) -> bool {
    let text = String::from_utf8(bytes.to_vec()).expect("UTF-8");
    let payloads: Vec<Value> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| json::parse(l.as_bytes()).expect("each line is a JSON payload"))
        .collect();
    let Some(provider) = payloads.iter().find_map(|p| Provider::detect("message", p)) else {
        return false;
    };
    let mut acc = provider.accumulator();
    let mut events = Vec::new();
    for payload in &payloads {
        acc.feed("message", payload);
        events.extend(std::iter::from_fn(|| acc.next_event()));
    }
    acc.finish();
    events.extend(std::iter::from_fn(|| acc.next_event()));
    check(name, "JSON lines", &events, acc.message());
    true
}

/// Every recording of a fixture folder: `(SSE bodies, JSON-lines files)`
/// that gave a message. Cassettes (`.yaml`, `.json`: their bodies are the
/// `_extracted/*.sse` files beside them) and notes are not streams.
fn check_folder(folder: &str) -> (usize, usize) {
    let (mut sse, mut lines) = (0, 0);
    for name in fixtures::files(folder) {
        let bytes = fixtures::read(&format!("{folder}/{name}"));
        if name.ends_with(".chunks.txt") {
            lines += usize::from(check_lines(&name, &bytes));
        } else if fixtures::is_sse_body(&bytes) {
            sse += usize::from(check_sse(&name, &bytes));
        }
    }
    (sse, lines)
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn every_recording_in_providers_is_the_fold_of_its_events() {
    let (sse, lines) = check_folder("providers");
    assert!(
        sse >= 39 && lines >= 19,
        "{sse} SSE bodies, {lines} JSON-lines files"
    );
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn every_recording_in_providers_more_is_the_fold_of_its_events() {
    let (sse, lines) = check_folder("providers_more");
    assert!(sse >= 117, "{sse} SSE bodies, {lines} JSON-lines files");
}

/// A JSON form that does not fit says which member did not.
#[test]
fn a_member_that_does_not_fit_is_named() {
    let value = json::parse(br#"{"type":"text_delta","choice":"0","text":"x"}"#).unwrap();
    let error = StreamEvent::from_value(&value).unwrap_err();
    assert_eq!(error.member, "choice");
    let value = json::parse(br#"{"type":"no_such_event"}"#).unwrap();
    assert_eq!(StreamEvent::from_value(&value).unwrap_err().member, "type");
    let mut message = Message::default().to_value();
    let text = message
        .to_json()
        .replace(r#""choices":[]"#, r#""choices":[{"index":0}]"#);
    message = json::parse(text.as_bytes()).unwrap();
    let error = Message::from_value(&message).unwrap_err();
    assert_eq!(error.member, "choices[0].text");
    assert!(serde_json::from_str::<StreamEvent>(r#"{"type":"finish","choice":0}"#).is_err());
}

/// No sequence of events, however hostile, grows a message past the
/// limits the reducer holds.
#[test]
fn untrusted_events_stay_within_the_limits() {
    use llmstream::providers::{PartKind, ProviderLimits};
    let limits = ProviderLimits::default();
    let mut message = Message::default();
    for choice in 0..1000 {
        message.apply(&StreamEvent::Role {
            choice,
            role: "assistant".into(),
        });
    }
    assert_eq!(message.choices.len(), limits.max_choices);
    for call in 0..5000 {
        message.apply(&StreamEvent::ToolCallStart {
            choice: 0,
            call,
            id: format!("c{call}"),
            name: "f".into(),
            kind: None,
        });
    }
    let c = message.choice().unwrap();
    assert_eq!(c.tool_calls.len(), limits.max_tool_calls);
    for i in 0..10_000 {
        let kind = [PartKind::Text, PartKind::Reasoning][i % 2];
        message.apply(&StreamEvent::PartStart { choice: 1, kind });
        message.apply(&StreamEvent::RawPart {
            choice: 1,
            value: Value::Null,
        });
    }
    let c = message.choices.get(&1).unwrap();
    assert_eq!(c.content.len(), limits.max_parts);
}
