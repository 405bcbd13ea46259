//! Async adapters (feature `futures`): an HTTP body as a `Stream` of bytes
//! in, a `Stream` of SSE items or of normalized provider events out.
//!
//! Any `Stream<Item = Result<B, E>>` with `B: AsRef<[u8]>` is a body:
//! reqwest's `Response::bytes_stream()`, a hyper body turned into a stream
//! of frames' data, a channel of `Vec<u8>`. One line with
//! [`BodyStreamExt`]:
//!
//! ```
//! use futures::{executor::block_on, stream, StreamExt};
//! use llmstream::providers::StreamEvent;
//! use llmstream::stream::BodyStreamExt;
//!
//! // What `response.bytes_stream()` gives, here from memory in two pieces.
//! let body = stream::iter([
//!     Ok::<_, std::io::Error>(&b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel"[..]),
//!     Ok(&b"lo\"}}]}\n\ndata: [DONE]\n\n"[..]),
//! ]);
//!
//! let mut events = body.provider_events();
//! let mut text = String::new();
//! block_on(async {
//!     while let Some(event) = events.next().await {
//!         if let StreamEvent::TextDelta { text: delta, .. } = event? {
//!             text.push_str(&delta);
//!         }
//!     }
//!     Ok::<(), llmstream::stream::StreamError<std::io::Error>>(())
//! })?;
//! assert_eq!(text, "Hello");
//! assert!(events.message().unwrap().complete);
//! # Ok::<(), llmstream::stream::StreamError<std::io::Error>>(())
//! ```
//!
//! Both streams are cancellation-safe: every byte a poll takes from the
//! body goes into the decoder before the poll returns, and every item is
//! produced from state kept in the stream, never from a local held across
//! an await. Dropping a stream (or a `select!` branch that was polling it)
//! loses nothing that a later poll would have produced. Errors from the body
//! are passed through as [`StreamError::Body`] and reading goes on with the
//! next poll (the body decides whether more comes); an SSE limit exceeded
//! is [`StreamError::Sse`] and ends the stream.

use alloc::boxed::Box;
use core::fmt;
use core::pin::Pin;
use core::task::{Context, Poll};

use futures_core::stream::{FusedStream, Stream};

use crate::providers::{Message, Pipeline, StreamEvent};
use crate::sse;

/// An error of an adapted stream: from the body, or from SSE decoding.
///
/// ```
/// use futures::{executor::block_on, stream, StreamExt};
/// use llmstream::stream::{BodyStreamExt, StreamError};
///
/// let body = stream::iter([Ok(b"data: a\n\n".to_vec()), Err("reset by peer")]);
/// let items: Vec<_> = block_on(body.sse_items().collect());
/// assert!(items[0].is_ok());
/// assert_eq!(items[1], Err(StreamError::Body("reset by peer")));
/// assert_eq!(items[1].as_ref().unwrap_err().to_string(), "reading the body: reset by peer");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamError<E> {
    /// The body stream yielded this error (a network error, a timeout …).
    Body(E),
    /// The event stream exceeded a [`sse::Limits`] bound; the stream ends
    /// after this.
    Sse(sse::Error),
}

impl<E: fmt::Display> fmt::Display for StreamError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StreamError::Body(e) => write!(f, "reading the body: {e}"),
            StreamError::Sse(e) => write!(f, "decoding the event stream: {e}"),
        }
    }
}

impl<E: core::error::Error + 'static> core::error::Error for StreamError<E> {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            StreamError::Body(e) => Some(e),
            StreamError::Sse(e) => Some(e),
        }
    }
}

/// The SSE items of a body stream, owned, in stream order: events, retry
/// changes and comments. Made by [`BodyStreamExt::sse_items`] or
/// [`SseStream::new`].
///
/// ```
/// use futures::{executor::block_on, stream, StreamExt};
/// use llmstream::sse::{Event, Item};
/// use llmstream::stream::SseStream;
///
/// let body = stream::iter(["id: 7\ndata: he", "llo\n\n: ping\n"].map(Ok::<_, ()>));
/// let mut items = SseStream::new(body);
/// let all: Vec<_> = block_on(items.by_ref().collect());
/// let mut event = Event::message("hello");
/// event.last_event_id = "7".into();
/// assert_eq!(all, [Ok(Item::Event(event)), Ok(Item::Comment(" ping".into()))]);
/// assert_eq!(items.decoder().last_event_id(), "7"); // for a reconnect
/// ```
pub struct SseStream<S> {
    body: Pin<Box<S>>,
    decoder: sse::Decoder,
    /// The body ended (and the decoder was finished).
    ended: bool,
    /// An SSE error was reported: nothing more comes.
    failed: bool,
    /// The error `finish` returned, to report after the last items.
    finish_error: Option<sse::Error>,
    /// `None` was returned.
    done: bool,
}

impl<S> SseStream<S> {
    /// Reads `body` with a decoder of default limits.
    pub fn new(body: S) -> Self {
        SseStream::with_decoder(body, sse::Decoder::new())
    }

    /// Reads `body` with this decoder (its limits, a last event ID to
    /// resume from).
    ///
    /// ```
    /// use futures::stream;
    /// use llmstream::sse::{Decoder, Limits};
    /// use llmstream::stream::SseStream;
    ///
    /// let body = stream::empty::<Result<Vec<u8>, ()>>();
    /// let limits = Limits::new().with_max_line_bytes(64 * 1024);
    /// let items = SseStream::with_decoder(body, Decoder::with_limits(limits));
    /// assert_eq!(items.decoder().limits().max_line_bytes, 64 * 1024);
    /// ```
    pub fn with_decoder(body: S, decoder: sse::Decoder) -> Self {
        SseStream {
            body: Box::pin(body),
            decoder,
            ended: false,
            failed: false,
            finish_error: None,
            done: false,
        }
    }

    /// The decoder (its last event ID, the bytes read).
    pub fn decoder(&self) -> &sse::Decoder {
        &self.decoder
    }
}

impl<S> fmt::Debug for SseStream<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SseStream")
            .field("decoder", &self.decoder)
            .field("ended", &self.ended)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl<S, B, E> Stream for SseStream<S>
where
    S: Stream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
{
    type Item = Result<sse::Item, StreamError<E>>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            if this.done {
                return Poll::Ready(None);
            }
            if !this.failed {
                if let Some(item) = this.decoder.next_event() {
                    return Poll::Ready(Some(match item {
                        Ok(item) => Ok(item.to_item()),
                        Err(e) => {
                            this.failed = true;
                            Err(StreamError::Sse(e))
                        }
                    }));
                }
            }
            if this.failed || this.ended {
                this.done = true;
                if let Some(e) = this.finish_error.take() {
                    if !this.failed {
                        return Poll::Ready(Some(Err(StreamError::Sse(e))));
                    }
                }
                return Poll::Ready(None);
            }
            match this.body.as_mut().poll_next(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Ok(bytes))) => this.decoder.feed(bytes.as_ref()),
                Poll::Ready(Some(Err(e))) => return Poll::Ready(Some(Err(StreamError::Body(e)))),
                Poll::Ready(None) => {
                    this.ended = true;
                    this.finish_error = this.decoder.finish().err();
                }
            }
        }
    }
}

impl<S, B, E> FusedStream for SseStream<S>
where
    S: Stream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
{
    fn is_terminated(&self) -> bool {
        self.done
    }
}

/// The normalized [`StreamEvent`]s of a body stream, through a
/// [`Pipeline`] (SSE decoding, JSON payloads, provider detection,
/// accumulation). Made by [`BodyStreamExt::provider_events`] or
/// [`EventStream::new`]. The message so far is
/// [`EventStream::message`]; a tool call's live arguments are in
/// [`EventStream::pipeline`]`().builder()`.
///
/// When the body ends, the pipeline is finished (open tool calls end with
/// what they have), and the stream yields the last events and then `None`.
///
/// ```
/// use futures::{executor::block_on, stream, StreamExt};
/// use llmstream::providers::{Provider, StreamEvent};
/// use llmstream::stream::EventStream;
///
/// let body = stream::iter([Ok::<_, ()>(
///     "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\n",
/// )]);
/// let mut events = EventStream::new(body);
/// let names: Vec<&str> = block_on(events.by_ref().map(|e| e.unwrap().name()).collect());
/// assert_eq!(names, ["message_start", "text_delta", "finish", "complete"]);
/// assert_eq!(events.pipeline().provider(), Some(Provider::OpenAiChat));
/// assert_eq!(events.message().unwrap().choice().unwrap().text, "Hi");
/// ```
pub struct EventStream<S> {
    body: Pin<Box<S>>,
    pipeline: Pipeline,
    /// The body ended (and the pipeline was finished).
    ended: bool,
    /// An SSE error to report once the queued events are out.
    error: Option<sse::Error>,
    /// Nothing more is read from the body.
    stopped: bool,
    /// `None` was returned.
    done: bool,
}

impl<S> EventStream<S> {
    /// Reads `body` with a pipeline that detects the provider.
    pub fn new(body: S) -> Self {
        EventStream::with_pipeline(body, Pipeline::new())
    }

    /// Reads `body` with this pipeline (a known provider, say).
    ///
    /// ```
    /// use futures::stream;
    /// use llmstream::providers::{Pipeline, Provider};
    /// use llmstream::stream::EventStream;
    ///
    /// let body = stream::empty::<Result<Vec<u8>, ()>>();
    /// let events = EventStream::with_pipeline(body, Pipeline::with_provider(Provider::Anthropic));
    /// assert!(events.message().is_none()); // no payload yet
    /// ```
    pub fn with_pipeline(body: S, pipeline: Pipeline) -> Self {
        EventStream {
            body: Box::pin(body),
            pipeline,
            ended: false,
            error: None,
            stopped: false,
            done: false,
        }
    }

    /// The message so far (`None` until the provider is known).
    pub fn message(&self) -> Option<&Message> {
        self.pipeline.message()
    }

    /// The pipeline (the provider, the live tool-call arguments).
    pub fn pipeline(&self) -> &Pipeline {
        &self.pipeline
    }

    /// Takes the pipeline out (the final message, after the stream ended).
    ///
    /// ```
    /// use futures::{executor::block_on, stream, StreamExt};
    /// use llmstream::stream::BodyStreamExt;
    ///
    /// let body = stream::iter([Ok::<_, ()>("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n")]);
    /// let mut events = body.provider_events();
    /// block_on(events.by_ref().for_each(|_| async {}));
    /// let message = events.into_pipeline().message().cloned().unwrap();
    /// assert_eq!(message.choice().unwrap().text, "Hi");
    /// ```
    pub fn into_pipeline(self) -> Pipeline {
        self.pipeline
    }
}

impl<S> fmt::Debug for EventStream<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventStream")
            .field("pipeline", &self.pipeline)
            .field("ended", &self.ended)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl<S, B, E> Stream for EventStream<S>
where
    S: Stream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
{
    type Item = Result<StreamEvent, StreamError<E>>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            if this.done {
                return Poll::Ready(None);
            }
            if let Some(event) = this.pipeline.next_event() {
                return Poll::Ready(Some(Ok(event)));
            }
            if let Some(e) = this.error.take() {
                return Poll::Ready(Some(Err(StreamError::Sse(e))));
            }
            if this.stopped {
                this.done = true;
                return Poll::Ready(None);
            }
            match this.body.as_mut().poll_next(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Ok(bytes))) => {
                    if let Err(e) = this.pipeline.feed(bytes.as_ref()) {
                        this.error = Some(e.0);
                        this.stopped = true;
                    }
                }
                Poll::Ready(Some(Err(e))) => return Poll::Ready(Some(Err(StreamError::Body(e)))),
                Poll::Ready(None) => {
                    this.ended = true;
                    this.stopped = true;
                    if let Err(e) = this.pipeline.finish() {
                        this.error = Some(e.0);
                    }
                }
            }
        }
    }
}

impl<S, B, E> FusedStream for EventStream<S>
where
    S: Stream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
{
    fn is_terminated(&self) -> bool {
        self.done
    }
}

/// `.sse_items()` and `.provider_events()` on any body stream.
///
/// ```
/// use futures::{executor::block_on, stream, StreamExt};
/// use llmstream::sse::Item;
/// use llmstream::stream::BodyStreamExt;
///
/// let body = stream::iter([Ok::<_, ()>(b"retry: 500\n".to_vec())]);
/// let items: Vec<_> = block_on(body.sse_items().collect());
/// assert_eq!(items, [Ok(Item::Retry(500))]);
/// ```
pub trait BodyStreamExt: Stream + Sized {
    /// The SSE items of this body: [`SseStream::new`].
    fn sse_items(self) -> SseStream<Self> {
        SseStream::new(self)
    }

    /// The normalized provider events of this body: [`EventStream::new`].
    fn provider_events(self) -> EventStream<Self> {
        EventStream::new(self)
    }
}

impl<S, B, E> BodyStreamExt for S
where
    S: Stream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
{
}
