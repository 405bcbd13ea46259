//! serde support for events and messages (feature `serde`): they
//! serialize to exactly their JSON forms of the CLI contract
//! ([`StreamEvent::to_value`], [`Message::to_value`]) and deserialize from
//! them ([`StreamEvent::from_value`], [`Message::from_value`]), through a
//! [`Value`]: one schema for the CLI, the Rust API and every binding.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Message, StreamEvent};
use crate::json::Value;

/// ```
/// use llmstream::providers::StreamEvent;
///
/// let event = StreamEvent::TextDelta { choice: 0, text: "Hi".into() };
/// let text = serde_json::to_string(&event).unwrap();
/// assert_eq!(text, r#"{"type":"text_delta","choice":0,"text":"Hi"}"#);
/// assert_eq!(serde_json::from_str::<StreamEvent>(&text).unwrap(), event);
/// ```
impl Serialize for StreamEvent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for StreamEvent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        StreamEvent::from_value(&value).map_err(D::Error::custom)
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

/// What the JSON form does not hold is read as [`Message::from_value`]
/// says (tool-call keys by order, an error's `from_provider` as `false`).
impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Message::from_value(&value).map_err(D::Error::custom)
    }
}
