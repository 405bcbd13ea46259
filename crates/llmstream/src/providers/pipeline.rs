//! Raw HTTP body bytes in, normalized events and the message out.

use alloc::boxed::Box;
use alloc::collections::VecDeque;
use alloc::format;
use core::fmt;

use super::body::{first_meaningful, Found, Framing, JsonValues, MAX_PAYLOAD};
use super::{
    Accumulator, ErrorInfo, Message, MessageBuilder, Provider, ProviderLimits, StreamEvent,
};
use crate::json;
use crate::json::scan::is_whitespace;
use crate::sse::{self, ItemRef};

/// The whole client-side job for one streamed response: SSE decoding, JSON
/// parsing of each payload, provider detection (or a given provider), and
/// accumulation.
///
/// ```
/// use llmstream::providers::{Pipeline, StreamEvent};
///
/// let body = concat!(
///     "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",",
///     "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hi\"}}]}\n\n",
///     "data: [DONE]\n\n",
/// );
/// let mut pipeline = Pipeline::new();
/// for piece in body.as_bytes().chunks(10) {
///     pipeline.feed(piece)?;
///     while let Some(event) = pipeline.next_event() {
///         let _ = event; // render it
///     }
/// }
/// pipeline.finish()?; // queues the last events (calls still open end)
/// while let Some(event) = pipeline.next_event() {
///     let _ = event; // render it too
/// }
/// assert!(pipeline.message().is_some());
/// # Ok::<(), llmstream::providers::PipelineError>(())
/// ```
#[derive(Debug)]
pub struct Pipeline {
    decoder: sse::Decoder,
    forced: Option<Provider>,
    accumulator: Option<Box<dyn Accumulator>>,
    /// Events found before a payload was accepted.
    early: VecDeque<StreamEvent>,
    /// The first error found before a payload was accepted.
    early_error: Option<ErrorInfo>,
    /// SSE events dispatched so far.
    events_read: u64,
    /// Parses each payload, reused so that its buffers are too: after the
    /// first few payloads, parsing one allocates nothing (boxed, and made
    /// at the first payload, so that an idle pipeline stays small).
    json: Option<Box<json::Tape>>,
    /// Limits for the message other than the defaults (boxed: most
    /// pipelines keep the defaults, and an idle one stays small).
    limits: Option<Box<ProviderLimits>>,
    /// How the body is framed: `None` until its first byte that is not
    /// whitespace (the whitespace before it waits in `lead`).
    framing: Option<Framing>,
    /// Whitespace at the body's start, before its framing is known.
    lead: alloc::vec::Vec<u8>,
    /// The payloads of a body of JSON values (boxed: SSE bodies, the
    /// usual ones, do without).
    values: Option<Box<JsonValues>>,
    /// Whether an SSE event the body ended inside (no closing blank line)
    /// is read when its data is a whole payload; see
    /// [`Pipeline::read_unterminated_event`].
    read_unterminated: bool,
    /// Tool-call arguments that are not JSON are read in lenient mode.
    lenient_arguments: bool,
}

/// The stream itself could not be read (an SSE limit was exceeded).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineError(pub sse::Error);

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl core::error::Error for PipelineError {}

impl Default for Pipeline {
    fn default() -> Self {
        Pipeline::new()
    }
}

impl Pipeline {
    /// A pipeline that detects the provider from the first payload whose
    /// shape names one (each payload before it is an error event, `cannot
    /// tell the provider from this payload`, and left out).
    pub fn new() -> Self {
        Pipeline {
            decoder: sse::Decoder::new(),
            forced: None,
            accumulator: None,
            early: VecDeque::new(),
            early_error: None,
            events_read: 0,
            json: None,
            limits: None,
            framing: None,
            lead: alloc::vec::Vec::new(),
            values: None,
            read_unterminated: true,
            lenient_arguments: false,
        }
    }

    /// Whether tool-call arguments that are not JSON (single quotes,
    /// Python literals, a missing comma…) are read in lenient mode
    /// ([`json::Options::lenient`](crate::json::Options::lenient)) at the
    /// call's end: off by default. When it repairs, the call's
    /// [`StreamEvent::ToolCallEnd`] (and its `arguments_error`) carries
    /// [`ArgumentsError::Repaired`](super::ArgumentsError::Repaired), with
    /// where the text stopped being JSON.
    pub fn lenient_arguments(mut self, on: bool) -> Self {
        self.lenient_arguments = on;
        self
    }

    /// Whether an SSE event the body ended inside, without its closing
    /// blank line, is read when its data is a whole payload (complete
    /// JSON, or `[DONE]`): `true` by default, with a
    /// [`StreamEvent::Detail`] `unterminated_event` saying so. The
    /// standard discards such an event; with `false` it is discarded, and
    /// an error event says how many bytes of data went with it (as one
    /// does by default for data that is not a whole payload).
    pub fn read_unterminated_event(mut self, read: bool) -> Self {
        self.read_unterminated = read;
        self
    }

    /// The SSE decoder's limits (bytes in a line, in an event's data)
    /// instead of the defaults.
    pub fn with_sse_limits(mut self, limits: sse::Limits) -> Self {
        let mut decoder = sse::Decoder::with_limits(limits);
        decoder.set_last_event_id(self.decoder.last_event_id());
        self.decoder = decoder;
        self
    }

    /// The message's limits (choices, tool calls, content parts) instead
    /// of the defaults: what is over one is reported as an error event and
    /// left out.
    pub fn with_provider_limits(mut self, limits: ProviderLimits) -> Self {
        self.limits = Some(Box::new(limits));
        self
    }

    /// Goes on from a stream that broke: `id` is the last event ID it
    /// delivered (see [`Pipeline::last_event_id`]), sent as `Last-Event-ID`
    /// on the new request, and the ID events carry until the server sends
    /// another.
    pub fn with_last_event_id(mut self, id: &str) -> Self {
        self.decoder.set_last_event_id(id);
        self
    }

    /// The last event ID of the stream so far, what a reconnecting client
    /// sends as `Last-Event-ID` (see [`sse::Decoder::last_event_id`]).
    pub fn last_event_id(&self) -> &str {
        self.decoder.last_event_id()
    }

    /// A pipeline for a known provider. Payloads are read by its rules
    /// from the first one that is not plainly another provider's (an
    /// OpenAI chunk given to an Anthropic pipeline): each such payload
    /// before it is an error event (`the payload is shaped like
    /// openai-chat, not anthropic as given`) and left out, so a body of
    /// another provider's payloads only gives no message.
    pub fn with_provider(provider: Provider) -> Self {
        let mut pipeline = Pipeline::new();
        pipeline.forced = Some(provider);
        pipeline
    }

    /// The provider, once a payload is accepted.
    pub fn provider(&self) -> Option<Provider> {
        self.accumulator.as_ref().map(|a| a.message().provider)
    }

    /// The message so far: `None` until a payload is accepted (its
    /// provider told, or the given one's: see [`Pipeline::new`] and
    /// [`Pipeline::with_provider`]). A body with none, whatever else it
    /// held (`[DONE]`, data that is not JSON, payloads of no known shape
    /// or another provider's), gives no message.
    pub fn message(&self) -> Option<&Message> {
        self.accumulator.as_ref().map(|a| a.message())
    }

    /// The accumulator (for the live tool-call arguments).
    pub fn builder(&self) -> Option<&MessageBuilder> {
        self.accumulator.as_ref().map(|a| a.builder())
    }

    /// Feeds body bytes; pull the events with [`Pipeline::next_event`].
    ///
    /// The body's framing is told from its first byte that is not
    /// whitespace: `{` starts JSON values one after another (JSON Lines
    /// recordings, one payload a line; a whole completion, which is
    /// reported: the request lacked `stream: true`), `[` one JSON array
    /// of payloads (Gemini without `alt=sse`), anything else SSE.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), PipelineError> {
        match self.framing {
            Some(Framing::Sse) => self.feed_sse(bytes),
            Some(_) => {
                self.feed_values(bytes);
                Ok(())
            }
            None => {
                let at_start = self.lead.is_empty();
                let Some(first) = first_meaningful(bytes, at_start) else {
                    // Whitespace only, so far: kept (within a bound) until
                    // the framing shows.
                    if self.lead.len() + bytes.len() <= 4096 {
                        self.lead.extend_from_slice(bytes);
                        return Ok(());
                    }
                    self.framing = Some(Framing::Sse);
                    let lead = core::mem::take(&mut self.lead);
                    self.feed_sse(&lead)?;
                    return self.feed_sse(bytes);
                };
                let framing = Framing::of(first);
                self.framing = Some(framing);
                let lead = core::mem::take(&mut self.lead);
                if framing == Framing::Sse {
                    self.feed_sse(&lead)?;
                    self.feed_sse(bytes)
                } else {
                    self.values = Some(Box::new(JsonValues::new(framing)));
                    self.feed_values(bytes);
                    Ok(())
                }
            }
        }
    }

    /// Reads a body of JSON values: each payload as an SSE event's data.
    fn feed_values(&mut self, bytes: &[u8]) {
        let Some(mut values) = self.values.take() else {
            return;
        };
        values.feed(bytes, &mut |found| {
            self.events_read += 1;
            let number = self.events_read;
            match found {
                Found::Value(payload) => match core::str::from_utf8(payload) {
                    Ok(text) => self.payload("message", text, number),
                    Err(_) => self.report(ErrorInfo::new(format!(
                        "payload {number} is not UTF-8: left out"
                    ))),
                },
                Found::TooLarge => self.report(ErrorInfo::new(format!(
                    "payload {number} is over {MAX_PAYLOAD} bytes: left out"
                ))),
            }
        });
        self.values = Some(values);
    }

    /// Reads SSE.
    fn feed_sse(&mut self, bytes: &[u8]) -> Result<(), PipelineError> {
        // Taken out while its events are read where they lie (in `bytes`,
        // or in its buffer for a line that `bytes` finishes: no copy of
        // the piece, nor of each event's data), so that `self` stays free
        // for them.
        let mut decoder = core::mem::take(&mut self.decoder);
        let mut items = decoder.feed_borrowed(bytes);
        let mut read = Ok(());
        while let Some(item) = items.next_event() {
            read = self.item(item);
            if read.is_err() {
                break;
            }
        }
        drop(items);
        self.decoder = decoder;
        read
    }

    /// The body ended: open tool calls end with what they have. This
    /// queues final events, which [`Pipeline::next_event`] returns as it
    /// does after [`Pipeline::feed`]: read them after `finish` too, or
    /// they are lost, such as the [`StreamEvent::ToolCallEnd`] of a call
    /// the body cut off (its `arguments_error` saying so).
    ///
    /// ```
    /// use llmstream::providers::{Pipeline, StreamEvent};
    ///
    /// // A tool call cut off in its arguments: no finish, no `[DONE]`.
    /// let body = concat!(
    ///     r#"data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","#,
    ///     r#""function":{"name":"get_weather","arguments":"{\"city\":\"Par"}}]}}]}"#, "\n\n",
    /// );
    /// let mut pipeline = Pipeline::new();
    /// pipeline.feed(body.as_bytes())?;
    /// while let Some(event) = pipeline.next_event() {
    ///     assert!(!matches!(event, StreamEvent::ToolCallEnd { .. }), "still open");
    /// }
    /// pipeline.finish()?;
    /// let mut ends = Vec::new();
    /// while let Some(event) = pipeline.next_event() {
    ///     if let StreamEvent::ToolCallEnd { arguments, arguments_error, .. } = event {
    ///         ends.push((arguments.to_json(), arguments_error.is_some()));
    ///     }
    /// }
    /// assert_eq!(ends, [(r#"{"city":"Par"}"#.to_string(), true)]);
    /// # Ok::<(), llmstream::providers::PipelineError>(())
    /// ```
    pub fn finish(&mut self) -> Result<(), PipelineError> {
        let result = match self.framing {
            Some(Framing::Values | Framing::Array) => {
                if let Some(cut) = self.values.as_mut().and_then(|v| v.finish()) {
                    self.report(
                        ErrorInfo::new(format!(
                            "the body ended inside a JSON payload: its {cut} bytes were left out"
                        ))
                        .with_kind("unterminated_payload"),
                    );
                }
                Ok(())
            }
            Some(Framing::Sse) | None => {
                if self.framing.is_none() {
                    let lead = core::mem::take(&mut self.lead);
                    self.feed_sse(&lead)?;
                }
                self.unterminated_event();
                let result = self.decoder.finish().map_err(PipelineError);
                self.drain()?;
                result
            }
        };
        if let Some(acc) = self.accumulator.as_mut() {
            let Ok(()) = acc.finish();
        }
        result
    }

    /// The SSE event the body ended inside, if any (data read, no blank
    /// line after it): read, when its data is a whole payload and
    /// [`Pipeline::read_unterminated_event`] allows, else reported with the
    /// bytes of data lost.
    fn unterminated_event(&mut self) {
        // What a blank line would have dispatched, asked of a copy: the
        // decoder itself ends as the standard says.
        let mut probe = self.decoder.clone();
        probe.feed(b"\n\n");
        let mut pending = None;
        while let Some(item) = probe.next_event() {
            if let Ok(ItemRef::Event(event)) = item {
                pending = Some((
                    alloc::string::String::from(event.event_type),
                    alloc::string::String::from(event.data),
                ));
            }
        }
        let Some((event_type, data)) = pending else {
            return;
        };
        self.events_read += 1;
        let number = self.events_read;
        let trimmed = data.trim_matches(is_space);
        let whole = trimmed == "[DONE]" || json::parse(trimmed.as_bytes()).is_ok();
        if whole && self.read_unterminated {
            self.payload(&event_type, &data, number);
            let mut said = json::Map::new();
            said.push("event", json::Value::from(number));
            said.push("data_bytes", json::Value::from(data.len() as u64));
            if let Some(acc) = self.accumulator.as_mut() {
                acc.builder_mut()
                    .detail(None, "unterminated_event", json::Value::Object(said));
            }
        } else {
            let why = if whole {
                "discarded, as the standard says"
            } else {
                "discarded: it is not a whole payload"
            };
            self.report(
                ErrorInfo::new(format!(
                    "the body ended inside SSE event {number}, without its closing blank line: \
                     its {} bytes of data were {why}",
                    data.len()
                ))
                .with_kind("unterminated_event"),
            );
        }
    }

    /// The next normalized event.
    pub fn next_event(&mut self) -> Option<StreamEvent> {
        if let Some(event) = self.early.pop_front() {
            return Some(event);
        }
        self.accumulator.as_mut()?.next_event()
    }

    fn drain(&mut self) -> Result<(), PipelineError> {
        // Taken out while its events are read where they lie (no copy of
        // each event's data), so that `self` stays free for them.
        let mut decoder = core::mem::take(&mut self.decoder);
        let drained = self.drain_from(&mut decoder);
        self.decoder = decoder;
        drained
    }

    fn drain_from(&mut self, decoder: &mut sse::Decoder) -> Result<(), PipelineError> {
        while let Some(item) = decoder.next_event() {
            self.item(item)?;
        }
        Ok(())
    }

    /// Handles one item of the SSE stream.
    fn item(&mut self, item: Result<ItemRef<'_>, sse::Error>) -> Result<(), PipelineError> {
        if let ItemRef::Event(event) = item.map_err(PipelineError)? {
            self.events_read += 1;
            let number = self.events_read;
            self.payload(event.event_type, event.data, number);
        }
        Ok(())
    }

    /// Handles one SSE event's data.
    /// `number` counts SSE events from 1: a position in the stream that,
    /// unlike a byte offset taken when the event is pulled, does not depend
    /// on how the body was cut.
    fn payload(&mut self, event_type: &str, data: &str, number: u64) {
        let trimmed = data.trim_matches(is_space);
        if trimmed.is_empty() {
            return;
        }
        if trimmed == "[DONE]" {
            if let Some(acc) = self.accumulator.as_mut() {
                acc.feed_done();
            }
            return;
        }
        // Taken out while its node is read, so that `self` stays free.
        let mut tape = self.json.take().unwrap_or_default();
        match tape.parse(trimmed.as_bytes()) {
            Ok(payload) => self.accumulate(event_type, payload, number),
            Err(e) => {
                // The offset is in the data (the decoder does not keep
                // where an event's data began: that would cost every event),
                // and says so, unlike every other "at byte"; counted from
                // the data's start, before the whitespace trimmed here.
                let lead = data.len() - data.trim_start_matches(is_space).len();
                let e = e.with_offset(lead as u64 + e.offset());
                let message = format!(
                    "{} {number}: data is not JSON: {}",
                    self.unit(),
                    e.within("its data")
                );
                self.report(ErrorInfo::new(message).with_parse_error(e));
            }
        }
        self.json = Some(tape);
    }

    /// Hands a parsed payload to the accumulator, made at the first one
    /// accepted: one whose shape names a provider, or (a provider given)
    /// any but one plainly of another provider's shape. Until then a
    /// payload is reported as an error event and left out, and `[DONE]`
    /// is ignored: a message exists only once a payload came for it.
    fn accumulate(&mut self, event_type: &str, payload: json::Node<'_>, number: u64) {
        // A whole completion is a body's only payload: looked for until a
        // payload was accepted.
        if let Some(shape) = self
            .accumulator
            .is_none()
            .then(|| whole_completion(payload))
            .flatten()
        {
            self.report(
                ErrorInfo::new(format!(
                    "{} {number}: a whole {shape}, not a stream: the request was made \
                     without `stream: true` (left out)",
                    self.unit()
                ))
                .with_kind("not_a_stream"),
            );
            return;
        }
        if self.accumulator.is_none() {
            let Some(provider) = self.provider_for(event_type, payload, number) else {
                return;
            };
            let limits = self.limits.as_deref().copied().unwrap_or_default();
            let mut acc = provider.accumulator_with(limits);
            acc.builder_mut()
                .set_lenient_arguments(self.lenient_arguments);
            if let Some(error) = self.early_error.take() {
                // The event was already reported: applied, not queued again.
                acc.builder_mut().record(&StreamEvent::Error(error));
            }
            self.accumulator = Some(acc);
        }
        if let Some(acc) = self.accumulator.as_mut() {
            acc.feed_borrowed(event_type, payload);
        }
    }

    /// The provider of the first payload to accept, or `None` (reported)
    /// if this one is not.
    fn provider_for(
        &mut self,
        event_type: &str,
        payload: json::Node<'_>,
        number: u64,
    ) -> Option<Provider> {
        let seen = Provider::detect_in(event_type, payload);
        let Some(given) = self.forced else {
            let provider = seen.or_else(|| payload.get("error").map(|_| Provider::OpenAiChat));
            if provider.is_none() {
                let message = format!(
                    "{} {number}: cannot tell the provider from this payload",
                    self.unit()
                );
                self.report(ErrorInfo::new(message));
            }
            return provider;
        };
        // A payload of another provider's unmistakable shape is not read
        // by the given one's rules: that would give an empty message and
        // no sign why. An error payload proves nothing (gateways send any
        // shape), and one of no known shape is taken on the caller's word.
        let is_error =
            payload.get("error").is_some() || super::get_str(payload, "type") == Some("error");
        match seen.filter(|&seen| seen != given && !is_error) {
            Some(seen) => {
                self.report(ErrorInfo::new(format!(
                    "{} {number}: the payload is shaped like {}, not {} as given",
                    self.unit(),
                    seen.name(),
                    given.name()
                )));
                None
            }
            None => Some(given),
        }
    }

    /// What a payload is called in messages: an SSE event's, or a JSON
    /// value's of a body of them.
    fn unit(&self) -> &'static str {
        match self.framing {
            Some(Framing::Values | Framing::Array) => "payload",
            Some(Framing::Sse) | None => "SSE event",
        }
    }

    fn report(&mut self, error: ErrorInfo) {
        match self.accumulator.as_mut() {
            Some(acc) => acc.builder_mut().error(error),
            None => {
                self.early.push_back(StreamEvent::Error(ErrorInfo {
                    from_provider: false,
                    ..error.clone()
                }));
                if self.early_error.is_none() {
                    self.early_error = Some(error);
                }
            }
        }
    }
}

/// What a payload that is a whole, non-streamed reply is (`None` for a
/// stream's payload): an OpenAI `chat.completion` (its choices carry a
/// `message`, not a `delta`), an Anthropic `message` (a stream's starts
/// with `message_start`), an OpenAI Responses `response` object at the
/// top (a stream's are events with a `type`).
fn whole_completion(payload: json::Node<'_>) -> Option<&'static str> {
    let [object, ty, choices, content] =
        payload.get_many(&["object", "type", "choices", "content"]);
    let (object, ty) = (object.and_then(|o| o.as_str()), ty.and_then(|t| t.as_str()));
    let first_choice = choices.and_then(|c| c.elements().next());
    if object == Some("chat.completion")
        || first_choice.is_some_and(|c| c.get("message").is_some() && c.get("delta").is_none())
    {
        return Some("chat completion");
    }
    if ty == Some("message") && content.is_some() {
        return Some("Anthropic message");
    }
    if object == Some("response") && ty.is_none() {
        return Some("Responses response");
    }
    None
}

/// JSON whitespace, as `char`s (payloads are trimmed of it).
fn is_space(c: char) -> bool {
    c.is_ascii() && is_whitespace(c as u8)
}

#[cfg(test)]
mod tests {
    use super::Pipeline;

    /// The limits and the last event ID can be set on a pipeline, and
    /// hold: a second tool call over a limit of one is an error event and
    /// left out; a line over the SSE limit is the pipeline's error.
    #[test]
    fn limits_and_the_last_event_id_can_be_set() {
        use crate::providers::{Provider, ProviderLimits, StreamEvent};
        let limits = ProviderLimits {
            max_tool_calls: 1,
            ..ProviderLimits::default()
        };
        let mut pipeline = Pipeline::with_provider(Provider::OpenAiChat)
            .with_last_event_id("41")
            .with_sse_limits(crate::sse::Limits::default().with_max_line_bytes(200))
            .with_provider_limits(limits);
        assert_eq!(pipeline.last_event_id(), "41");
        let call = |index: u32| {
            alloc::format!(
                "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":{index},\"id\":\"c{index}\",\"function\":{{\"name\":\"f\",\"arguments\":\"{{}}\"}}}}]}}}}]}}\n\n"
            )
        };
        pipeline.feed(call(0).as_bytes()).unwrap();
        pipeline.feed(b"id: 42\n").unwrap();
        pipeline.feed(call(1).as_bytes()).unwrap();
        let mut errors = 0;
        while let Some(event) = pipeline.next_event() {
            errors += usize::from(matches!(event, StreamEvent::Error(_)));
        }
        assert_eq!(errors, 1, "the second call is over the limit");
        let message = pipeline.message().unwrap();
        assert_eq!(message.choice().unwrap().tool_calls.len(), 1);
        assert_eq!(pipeline.last_event_id(), "42");
        let long = alloc::format!("data: {}\n\n", "x".repeat(300));
        assert!(pipeline.feed(long.as_bytes()).is_err());
    }

    /// A pipeline moves between threads (e.g. into `tokio::spawn` or an
    /// axum handler) and can be read from several: every accumulator must
    /// be `Send + Sync`.
    #[test]
    fn pipeline_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Pipeline>();
    }
}
