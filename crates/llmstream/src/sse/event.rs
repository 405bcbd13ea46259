//! What the decoder yields and the encoder writes: events, retry changes and
//! comments, each in a borrowed form (the decoder's steady state, no
//! allocation) and an owned form (to keep, queue or re-emit).

use alloc::string::String;

/// The event type used when a stream gives none (or an empty one).
pub const DEFAULT_EVENT_TYPE: &str = "message";

/// A dispatched event, borrowed from the [`Decoder`](super::Decoder)'s buffers.
///
/// Valid until the next call on the decoder; [`EventRef::to_event`] copies it
/// out when it has to outlive that.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EventRef<'a> {
    /// The event type: the last `event` field of the block, or `"message"`.
    /// Never empty.
    pub event_type: &'a str,
    /// The `data` field values joined with LF (`\n`). May be empty (a block
    /// with a bare `data` line), never contains CR.
    pub data: &'a str,
    /// The last event ID at dispatch: set by an `id` field of this or an
    /// earlier block, `""` when none was ever set or it was cleared.
    pub last_event_id: &'a str,
}

impl EventRef<'_> {
    /// An owned copy.
    pub fn to_event(&self) -> Event {
        Event {
            event_type: String::from(self.event_type),
            data: String::from(self.data),
            last_event_id: String::from(self.last_event_id),
        }
    }
}

/// A dispatched event that owns its text. See [`EventRef`] for the fields.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Event {
    /// The event type; the encoder treats `""` like `"message"`.
    pub event_type: String,
    /// The data, lines joined with LF.
    pub data: String,
    /// The last event ID in effect for this event (`""` for none).
    pub last_event_id: String,
}

impl Event {
    /// An event of type `"message"` with this data and no ID.
    pub fn message(data: impl Into<String>) -> Self {
        Event {
            event_type: String::from(DEFAULT_EVENT_TYPE),
            data: data.into(),
            last_event_id: String::new(),
        }
    }
}

impl<'a> From<&'a Event> for EventRef<'a> {
    fn from(event: &'a Event) -> Self {
        EventRef {
            event_type: &event.event_type,
            data: &event.data,
            last_event_id: &event.last_event_id,
        }
    }
}

/// One thing the decoder read, borrowed from its buffers, in stream order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ItemRef<'a> {
    /// A blank line dispatched an event.
    Event(EventRef<'a>),
    /// A valid `retry` field set the reconnection time, in milliseconds.
    /// Reported where it is read, whether or not an event follows.
    Retry(u64),
    /// A comment line: the text after the `:`, leading space included
    /// (`": ping"` gives `" ping"`). Servers send these as heartbeats.
    Comment(&'a str),
}

impl ItemRef<'_> {
    /// Writes the item's JSON form (the CLI's `sse` line):
    /// `{"event":T,"data":D,"id":I}` for an event (`I` the last event ID,
    /// `""` when none), `{"retry":N}`, `{"comment":C}`.
    ///
    /// ```
    /// use llmstream::sse::Decoder;
    ///
    /// let mut decoder = Decoder::new();
    /// let mut feed = decoder.feed_borrowed(b"event: delta\ndata: hi\n\n");
    /// let mut out = Vec::new();
    /// while let Some(item) = feed.next_event() {
    ///     item?.write_json(&mut out);
    /// }
    /// assert_eq!(out, br#"{"event":"delta","data":"hi","id":""}"#);
    /// # Ok::<(), llmstream::sse::Error>(())
    /// ```
    pub fn write_json(&self, out: &mut dyn crate::json::Sink) {
        match self {
            ItemRef::Event(event) => {
                out.raw(b"{\"event\":");
                out.string(event.event_type);
                out.raw(b",\"data\":");
                out.string(event.data);
                out.raw(b",\"id\":");
                out.string(event.last_event_id);
                out.raw(b"}");
            }
            ItemRef::Retry(ms) => {
                out.raw(b"{\"retry\":");
                let mut digits = [0u8; 20];
                out.raw(decimal(*ms, &mut digits));
                out.raw(b"}");
            }
            ItemRef::Comment(text) => {
                out.raw(b"{\"comment\":");
                out.string(text);
                out.raw(b"}");
            }
        }
    }

    /// An owned copy.
    pub fn to_item(&self) -> Item {
        match *self {
            ItemRef::Event(event) => Item::Event(event.to_event()),
            ItemRef::Retry(ms) => Item::Retry(ms),
            ItemRef::Comment(text) => Item::Comment(String::from(text)),
        }
    }
}

/// An owned [`ItemRef`]: what [`decode`](super::decode) returns and the
/// [`Encoder`](super::Encoder) writes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Item {
    /// A dispatched event.
    Event(Event),
    /// A reconnection time in milliseconds.
    Retry(u64),
    /// A comment's text (after the `:`).
    Comment(String),
}

impl From<Event> for Item {
    fn from(event: Event) -> Self {
        Item::Event(event)
    }
}

/// `n` in decimal, written at the end of `buf` (20 digits hold any `u64`).
fn decimal(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut at = buf.len();
    for slot in buf.iter_mut().rev() {
        *slot = b'0' + (n % 10) as u8;
        at -= 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    buf.get(at..).unwrap_or(&[])
}
