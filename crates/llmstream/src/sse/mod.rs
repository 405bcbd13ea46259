//! Server-Sent Events: a decoder exact to the WHATWG standard's
//! "interpreting an event stream", and an encoder.
//!
//! [`Decoder`] is a push state machine. Feed it the HTTP body in whatever
//! pieces the network delivers, pull out events as soon as their blank line
//! arrives:
//!
//! ```
//! use llmstream::sse::{Decoder, ItemRef};
//!
//! let body = b"\xEF\xBB\xBFretry: 3000\r\ndata: {\"delta\":\"Hel\"}\r\n\r\ndata: [DONE]\r\n\r\n";
//! let mut decoder = Decoder::new();
//! let mut data = Vec::new();
//! for piece in body.chunks(7) {
//!     decoder.feed(piece);
//!     while let Some(item) = decoder.next_event() {
//!         match item? {
//!             ItemRef::Event(event) => data.push(event.data.to_owned()),
//!             ItemRef::Retry(ms) => assert_eq!(ms, 3000),
//!             ItemRef::Comment(_) => {}
//!         }
//!     }
//! }
//! decoder.finish()?;
//! assert_eq!(data, [r#"{"delta":"Hel"}"#, "[DONE]"]);
//! # Ok::<(), llmstream::sse::Error>(())
//! ```
//!
//! [`Decoder::feed_borrowed`] takes the same pieces without copying them: the
//! lines a piece holds whole are read where they lie, and an event's data
//! is a view into the piece when it is one line long. Only a line that a
//! piece cuts is kept in the decoder's buffer. Both give the same items,
//! however the stream is cut; `decode` pays off most when the pieces are
//! large (64 KiB reads of many small events).
//!
//! The rules, all of them (<https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation>):
//!
//! - The stream is UTF-8; invalid bytes become U+FFFD, each maximal invalid
//!   subsequence one (as `String::from_utf8_lossy`), and what follows is
//!   read normally. One leading BOM is stripped; a second is text.
//! - Lines end at CRLF, LF or CR. A CR ending one piece ends its line at
//!   once; an LF starting the next piece completes that CRLF.
//! - A line starting with `:` is a comment ([`ItemRef::Comment`]).
//! - Otherwise the field name runs to the first `:`, and the value follows
//!   it with one leading space removed; a line without `:` is a field with
//!   an empty value. Names are case-sensitive; unknown ones are ignored.
//! - `event` sets the event type; `data` appends its value and an LF to the
//!   data; `id` sets the last event ID unless the value contains NUL (an
//!   empty value clears it; it persists across events); `retry` with a
//!   value of ASCII digits only sets the reconnection time
//!   ([`ItemRef::Retry`], reported whether or not an event follows).
//! - A blank line dispatches: with no data, nothing is dispatched and the
//!   type is reset; otherwise the final LF is removed from the data and the
//!   type defaults to `message`.
//! - At the end of the stream an unfinished event is discarded.
//!
//! [`Limits`] bound the bytes of a line and of an event's data.

mod decoder;
mod encoder;
mod error;
mod error_form;
mod event;
mod limits;
mod scan;
// SIMD intrinsics and the unchecked UTF-8 conversions they justify.
#[allow(unsafe_code)]
mod simd;
#[cfg(test)]
mod tests;
#[allow(unsafe_code)]
pub(crate) mod utf8;

use alloc::vec::Vec;

pub use decoder::{Decoder, Feed};
pub use encoder::{encode, Encoder};
pub use error::{EncodeError, Error, ErrorKind, Reading};
pub use event::{Event, EventRef, Item, ItemRef, DEFAULT_EVENT_TYPE};
pub use limits::Limits;

/// Decodes a whole stream with the default limits.
///
/// ```
/// use llmstream::sse::{decode, Event, Item};
///
/// let items = decode(b"id: 1\ndata: a\ndata: b\n\nretry: 10\n").unwrap();
/// let mut event = Event::message("a\nb");
/// event.last_event_id = "1".into();
/// assert_eq!(items, [Item::Event(event), Item::Retry(10)]);
/// ```
pub fn decode(stream: &[u8]) -> Result<Vec<Item>, Error> {
    let mut decoder = Decoder::new();
    decoder.feed(stream);
    let mut items = Vec::new();
    while let Some(item) = decoder.next_event() {
        items.push(item?.to_item());
    }
    decoder.finish()?;
    Ok(items)
}
