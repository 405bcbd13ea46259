//! OpenAI Chat Completions streams (`chat.completion.chunk`), and the many
//! gateways that speak the same format (Azure, OpenRouter, Anthropic's and
//! Fireworks' compatibility endpoints, …).
//!
//! Each chunk carries `choices[]`, each with an `index` and a `delta`. The
//! rules, and the quirks they answer:
//!
//! - Choices are keyed by their `index` (sparse: `n=3` streams interleave
//!   them, one per chunk). The first role sent wins.
//! - `delta.content`, `delta.refusal` and the `logprobs.content` /
//!   `logprobs.refusal` arrays are appended. Reasoning that some gateways
//!   stream as `delta.reasoning_content` (DeepSeek, vLLM before 0.16) or
//!   `delta.reasoning` (OpenRouter, later vLLM) is appended as reasoning;
//!   a delta that has both (vLLM between the two) counts once.
//! - Tool calls are keyed by their own `index` — never by position, so a
//!   first call at index 1 (Anthropic's endpoint puts text in slot 0) works
//!   where openai-python raises `IndexError`. `id`, `type` and `name` are
//!   set once: a gateway that repeats them in a second fragment (OpenRouter
//!   via Novita sends `id:"0"` twice) does not get `"00"`. Arguments are
//!   appended and parsed incrementally; a call with no `arguments` key, or
//!   `arguments: null` throughout, ends with `{}`.
//! - A custom tool's call (`type: "custom"`) sends `custom: {name, input}`
//!   where a function sends `function: {name, arguments}`: its input is
//!   free text, kept as text (as the Responses `custom_tool_call`).
//! - The legacy `delta.function_call` is tool call 0 of its choice.
//! - `delta.annotations` (search models' `url_citation`s, sent after the
//!   text they support) are the citations of the latest text part.
//! - `delta.audio` (audio replies, which have no `content`) is kept as one
//!   block, `{"type":"audio","id":…,"transcript":…,"data":…,
//!   "expires_at":…}`, its transcript and base64 data concatenated as the
//!   SDK does; the transcript is not answer text.
//! - A call ends as soon as its arguments are one complete JSON value
//!   (the wire says nothing until the finish reason, after every call):
//!   its tool can run while the next call streams. Whitespace may follow;
//!   other text is left out (of the value and of `arguments_text`) and
//!   reported, as the call's `arguments_error` and an error event.
//! - `finish_reason` finishes the choice (ending its open tool calls); when
//!   every choice seen has finished the message is complete. A stream that
//!   never sends one still ends its tool calls at `[DONE]` or at the end of
//!   the body.
//! - `usage` is read wherever it appears: on the final chunk with empty
//!   `choices`, or on a chunk with choices (OpenRouter).
//! - A payload with an `error` member is an error event.
//! - Azure's first chunk (`choices: []`, empty `id` and `model`,
//!   `prompt_filter_results`) starts nothing: the message starts at the
//!   first chunk with an id, a model or a choice, so the real id wins.

use alloc::string::String;

use super::{
    get_str, get_u64, Accumulator as Accumulate, ArgumentStream, ErrorInfo, FinishReason,
    MessageBuilder, Provider, Usage,
};
use crate::json::{Map, Value, View};

/// Folds OpenAI Chat Completions payloads into a message.
///
/// ```
/// use llmstream::json;
/// use llmstream::providers::{openai_chat, Accumulator};
///
/// let mut acc = openai_chat::OpenAiChatAccumulator::new();
/// for line in [
///     r#"{"id":"c1","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"}}]}"#,
///     r#"{"id":"c1","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
/// ] {
///     acc.feed("message", &json::parse(line.as_bytes()).unwrap());
/// }
/// acc.finish();
/// let choice = acc.message().choice().unwrap();
/// assert_eq!(choice.text, "Hi");
/// assert_eq!(choice.finish_reason.as_deref(), Some("stop"));
/// ```
#[derive(Debug, Clone)]
pub struct OpenAiChatAccumulator {
    builder: MessageBuilder,
    /// Wire indices that a second call reused (Ollama and some vLLM
    /// builds send `index: 0` for every parallel call): `(choice, index)`
    /// and the key the latest call at that index went to. Empty on every
    /// well-behaved stream.
    renumbered: alloc::vec::Vec<(u64, u64, u64)>,
    /// Choices that streamed `reasoning` or `reasoning_content`: their
    /// `reasoning_details` repeat it and are not read for text.
    plain_reasoning: alloc::collections::BTreeSet<u64>,
    /// Perplexity's top-level `citations` already kept (each chunk
    /// repeats the whole list).
    cited: usize,
    /// A top-level `usage` came: Groq's `x_groq.usage` is then not read.
    usage_seen: bool,
}

/// The key of Groq's `executed_tools` entry 0 (their own indices count
/// from 0, as the client's tool calls do: these keys are past those).
const EXECUTED_TOOLS: u64 = 1 << 32;

impl Default for OpenAiChatAccumulator {
    fn default() -> Self {
        OpenAiChatAccumulator::new()
    }
}

impl OpenAiChatAccumulator {
    /// An empty accumulator.
    pub fn new() -> Self {
        OpenAiChatAccumulator::with_builder(MessageBuilder::new(Provider::OpenAiChat))
    }

    /// An accumulator over this builder (to choose its limits).
    pub fn with_builder(builder: MessageBuilder) -> Self {
        OpenAiChatAccumulator {
            builder,
            renumbered: alloc::vec::Vec::new(),
            plain_reasoning: alloc::collections::BTreeSet::new(),
            cited: 0,
            usage_seen: false,
        }
    }

    fn choice<'v>(&mut self, choice: impl View<'v>, position: usize) {
        // A missing index means the gateway sends one choice per chunk:
        // its position (0) is the only sensible key. An index that is not
        // a non-negative integer cannot be keyed at all.
        let [index, delta, logprobs, finish_reason] =
            choice.get_many(&["index", "delta", "logprobs", "finish_reason"]);
        let index = match index.filter(|v| !v.is_null()) {
            None => position as u64,
            Some(v) => match v.as_u64() {
                Some(i) => i,
                None => {
                    self.builder.error(ErrorInfo::new(alloc::format!(
                        "choice index {} is not a non-negative integer: choice ignored",
                        v.to_json()
                    )));
                    return;
                }
            },
        };
        if let Some(delta) = delta {
            self.delta(index, delta);
        }
        if let Some(logprobs) = logprobs {
            if let Some(items) = logprobs.get("content") {
                let items = items.elements().map(View::to_value);
                self.builder.logprobs(index, items);
            }
            if let Some(items) = logprobs.get("refusal") {
                let items = items.elements().map(View::to_value);
                self.builder.refusal_logprobs(index, items);
            }
        }
        if let Some(reason) = finish_reason.and_then(View::as_str) {
            self.builder.finish(index, reason, normalize(reason));
            // Complete once every choice of the message has finished (the
            // choices the builder keeps: bounded by its limits).
            let all = self
                .builder
                .message()
                .choices
                .values()
                .all(|c| c.finish_reason.is_some());
            if all {
                self.builder.complete();
            }
        }
    }

    fn delta<'v>(&mut self, choice: u64, delta: impl View<'v>) {
        // Every member read in one pass over the delta: most are absent
        // from most deltas.
        let [role, reasoning_content, reasoning, details, content, refusal, annotations, audio, calls, executed, function_call] =
            delta.get_many(&[
                "role",
                "reasoning_content",
                "reasoning",
                "reasoning_details",
                "content",
                "refusal",
                "annotations",
                "audio",
                "tool_calls",
                "executed_tools",
                "function_call",
            ]);
        if let Some(role) = role.and_then(View::as_str) {
            self.builder.role(choice, role);
        }
        // One or the other: vLLM builds between the two names send the same
        // text under both, and appending both doubled it.
        let reasoning = [reasoning_content, reasoning]
            .into_iter()
            .find_map(|value| value.and_then(View::as_str).filter(|text| !text.is_empty()));
        if let Some(text) = reasoning {
            self.plain_reasoning.insert(choice);
            self.builder.reasoning(choice, text);
        } else if let Some(details) = details {
            self.reasoning_details(choice, details);
        }
        match content {
            Some(content) if content.is_array() => self.content_parts(choice, content),
            Some(content) => {
                if let Some(text) = content.as_str() {
                    self.builder.text(choice, text);
                }
            }
            None => {}
        }
        // `refusal: ""` opens every refusal stream (and some gateways send
        // it on plain answers): only text makes a refusal.
        if let Some(text) = refusal.and_then(View::as_str).filter(|t| !t.is_empty()) {
            self.builder.refusal(choice, text);
        }
        // Search models cite their sources (`url_citation`), in the last
        // chunk of the text they support.
        if let Some(annotations) = annotations {
            for annotation in annotations.elements() {
                self.builder.citation(choice, annotation.to_value());
            }
        }
        if let Some(audio) = audio.filter(|a| a.is_object()) {
            self.audio(choice, audio);
        }
        if let Some(calls) = calls {
            for (position, call) in calls.elements().enumerate() {
                self.tool_call(choice, call, position);
            }
        }
        if let Some(tools) = executed {
            for tool in tools.elements() {
                self.executed_tool(choice, tool);
            }
        }
        if let Some(call) = function_call {
            if call.is_object() {
                let name = get_str(call, "name");
                let header = Header {
                    id: None,
                    name,
                    kind: Some("function"),
                    json: true,
                };
                self.call_fragment(choice, 0, header, call.get("arguments"));
            }
        }
    }

    /// `content` as an array of typed parts (Mistral): `text`, and
    /// `thinking` whose own parts are text (or a string); any other part
    /// is kept as it came.
    fn content_parts<'v>(&mut self, choice: u64, parts: impl View<'v>) {
        for part in parts.elements() {
            match get_str(part, "type") {
                Some("text") => {
                    if let Some(text) = get_str(part, "text") {
                        self.builder.text(choice, text);
                    }
                }
                Some("thinking") => match part.get("thinking") {
                    Some(thinking) if thinking.is_array() => {
                        for piece in thinking.elements() {
                            if let Some(text) = get_str(piece, "text") {
                                self.builder.reasoning(choice, text);
                            }
                        }
                    }
                    Some(thinking) => {
                        if let Some(text) = thinking.as_str() {
                            self.builder.reasoning(choice, text);
                        }
                    }
                    None => {}
                },
                _ => {
                    self.builder.raw_part(choice, part.to_value());
                }
            }
        }
    }

    /// `reasoning_details` (OpenRouter, Snowflake), in a stream without
    /// `reasoning`: the text of its `reasoning.text` and
    /// `reasoning.summary` entries is the reasoning (with a `signature`
    /// kept); its encrypted entries are kept as parts, to send back.
    fn reasoning_details<'v>(&mut self, choice: u64, details: impl View<'v>) {
        for entry in details.elements() {
            match get_str(entry, "type") {
                Some("reasoning.text") | Some("reasoning.summary") => {
                    if self.plain_reasoning.contains(&choice) {
                        continue;
                    }
                    let text = get_str(entry, "text").or_else(|| get_str(entry, "summary"));
                    if let Some(text) = text.filter(|t| !t.is_empty()) {
                        self.builder.reasoning(choice, text);
                    }
                    if let Some(signature) = get_str(entry, "signature").filter(|s| !s.is_empty()) {
                        self.builder.reasoning_signature(choice, signature);
                    }
                }
                Some("reasoning.encrypted") => {
                    self.builder.raw_part(choice, entry.to_value());
                }
                _ => {}
            }
        }
    }

    /// One entry of Groq's `executed_tools`: a tool Groq ran (`search`,
    /// `browser`, `code_interpreter`), its arguments, and its `output`
    /// when a later chunk brings it.
    fn executed_tool<'v>(&mut self, choice: u64, tool: impl View<'v>) {
        let Some(index) = get_u64(tool, "index") else {
            return;
        };
        let key = EXECUTED_TOOLS.saturating_add(index);
        if !self.builder.has_tool_call(choice, key) {
            let name = get_str(tool, "type")
                .or_else(|| get_str(tool, "name"))
                .unwrap_or("");
            self.builder.provider_tool_start(
                choice,
                key,
                "",
                name,
                Some("executed_tool"),
                ArgumentStream::json(),
            );
            if let Some(arguments) = get_str(tool, "arguments") {
                self.builder.tool_call_arguments(choice, key, arguments);
            }
        }
        if tool.get("output").is_some_and(|o| !o.is_null()) {
            self.builder.tool_call_end(choice, key);
            self.builder
                .provider_tool_result(choice, key, tool.to_value());
        }
    }

    fn tool_call<'v>(&mut self, choice: u64, call: impl View<'v>, position: usize) {
        let id = get_str(call, "id");
        let Some(key) = self.call_key(choice, call, id, position) else {
            return;
        };
        // A custom tool (free-text input) sends `custom: {name, input}`
        // where a function sends `function: {name, arguments}`; its
        // continuations say only `custom: {input}`.
        let kind = get_str(call, "type");
        let (body, text, json) = match custom_of(call) {
            Some(custom) => (Some(custom), "input", false),
            // A header that says `custom` before any `custom` object
            // (a proxy splitting the first fragment) still means text.
            None => (call.get("function"), "arguments", kind != Some("custom")),
        };
        let name = body.and_then(|f| get_str(f, "name"));
        let kind = kind.or((!json).then_some("custom"));
        let arguments = body.and_then(|f| f.get(text));
        let header = Header {
            id,
            name,
            kind,
            json,
        };
        self.call_fragment(choice, key, header, arguments);
    }

    /// The audio block being streamed: the position and value of the
    /// latest part of `choice`, if it is one.
    fn audio_block(&self, choice: u64) -> Option<(usize, &Map)> {
        let last = self.builder.last_part_position(choice)?;
        match self.builder.raw_part_at(choice, last)? {
            Value::Object(block) if block.get("type").and_then(Value::as_str) == Some("audio") => {
                Some((last, block))
            }
            _ => None,
        }
    }

    /// Audio replies stream their transcript and their audio data (both
    /// base64 and text in pieces) in `delta.audio`: kept as one block,
    /// `{"type":"audio","id":…,"transcript":…,"data":…,"expires_at":…}`,
    /// its strings concatenated as the SDK does (each piece appended, so
    /// that a long reply costs its size, not its size squared).
    fn audio<'v>(&mut self, choice: u64, audio: impl View<'v>) {
        // Another id is another reply's audio: a block of its own.
        let id = get_str(audio, "id").filter(|id| !id.is_empty());
        let same = |block: &Map| {
            let held = block.get("id").and_then(Value::as_str);
            id.zip(held).is_none_or(|(id, held)| id == held)
        };
        if !self.audio_block(choice).is_some_and(|(_, b)| same(b)) {
            let mut block = Map::new();
            block.push("type", Value::from("audio"));
            // (Not there if a limit refused it.)
            if self
                .builder
                .raw_part(choice, Value::Object(block))
                .is_none()
            {
                return;
            }
        }
        let Some((position, _)) = self.audio_block(choice) else {
            return;
        };
        for (key, value) in audio.members() {
            if value.is_null() {
                continue;
            }
            match (key, value.as_str()) {
                ("transcript" | "data", Some(more)) => {
                    self.builder.raw_part_append(choice, position, key, more)
                }
                // The text pieces are strings; anything else is not one.
                ("transcript" | "data", None) => {}
                _ => self
                    .builder
                    .raw_part_member(choice, position, key, value.to_value()),
            }
        }
    }

    /// The key of a tool-call fragment: its `index`. Without one (some
    /// gateways omit it), a fragment naming an id already seen continues
    /// that call, a new id starts the next key, and a fragment with
    /// neither continues the latest call of the choice.
    fn call_key<'v>(
        &mut self,
        choice: u64,
        call: impl View<'v>,
        id: Option<&str>,
        position: usize,
    ) -> Option<u64> {
        match call.get("index").filter(|v| !v.is_null()) {
            None => {}
            Some(v) => {
                return match v.as_u64() {
                    Some(i) => self.indexed_call_key(choice, i, id, call),
                    None => {
                        self.builder.error(ErrorInfo::new(alloc::format!(
                            "tool-call index {} is not a non-negative integer: fragment ignored",
                            v.to_json()
                        )));
                        None
                    }
                };
            }
        }
        let calls = self
            .builder
            .message()
            .choices
            .get(&choice)
            .map(|c| &c.tool_calls);
        let last = calls.and_then(|c| c.keys().next_back().copied());
        if let Some(id) = id.filter(|s| !s.is_empty()) {
            if let Some((key, _)) = calls.and_then(|c| c.iter().find(|(_, tc)| tc.id == id)) {
                return Some(*key);
            }
            return match last {
                Some(last) => last.checked_add(1),
                None => Some(position as u64),
            };
        }
        Some(last.unwrap_or(position as u64))
    }

    /// The key of a fragment at wire `index`: the index itself, unless a
    /// call with another id already holds it and the fragment names a
    /// tool, as a call's first fragment does. Then it starts a new call
    /// after the choice's last one, and the fragments that follow at that
    /// index continue it: parallel calls that a server numbered all `0`
    /// (Ollama, some vLLM builds) stay apart instead of having their names
    /// and arguments run together. A fragment with an id already seen goes
    /// to that call (calls interleaved at one index); one with a new id
    /// and no name continues the call at its index (servers that change a
    /// call's id after its first fragment: Poolside, mlx-openai-server,
    /// vLLM's gpt-oss).
    fn indexed_call_key<'v>(
        &mut self,
        choice: u64,
        index: u64,
        id: Option<&str>,
        call: impl View<'v>,
    ) -> Option<u64> {
        let moved = self
            .renumbered
            .iter()
            .position(|&(c, i, _)| (c, i) == (choice, index));
        let key = moved
            .and_then(|at| self.renumbered.get(at))
            .map_or(index, |r| r.2);
        let Some(id) = id.filter(|s| !s.is_empty()) else {
            return Some(key);
        };
        let Some(calls) = self
            .builder
            .message()
            .choices
            .get(&choice)
            .map(|c| &c.tool_calls)
        else {
            return Some(key);
        };
        if calls.get(&key).is_some_and(|held| held.id == id) {
            return Some(key);
        }
        if let Some((&seen, _)) = calls.iter().find(|(_, call)| call.id == id) {
            return Some(seen);
        }
        let taken = calls.get(&key).is_some_and(|held| !held.id.is_empty());
        // Looked at only here: most fragments carry no id, or their call's.
        let named = || {
            custom_of(call)
                .or_else(|| call.get("function"))
                .and_then(|f| get_str(f, "name"))
                .is_some_and(|name| !name.is_empty())
        };
        if !(taken && named()) {
            return Some(key);
        }
        // No key after the last (it is `u64::MAX`): the fragment joins the
        // call at its index, as it would have without this rule.
        let Some(next) = calls.keys().next_back().and_then(|k| k.checked_add(1)) else {
            return Some(key);
        };
        match moved.and_then(|at| self.renumbered.get_mut(at)) {
            Some(entry) => entry.2 = next,
            None => self.renumbered.push((choice, index, next)),
        }
        Some(next)
    }

    fn call_fragment<'v>(
        &mut self,
        choice: u64,
        key: u64,
        header: Header<'_>,
        arguments: Option<impl View<'v>>,
    ) {
        let Header {
            id,
            name,
            kind,
            json,
        } = header;
        if self.builder.has_tool_call(choice, key) {
            self.builder.tool_call_identify(choice, key, id, name);
        } else {
            self.builder.tool_call_start_with(
                choice,
                key,
                id.unwrap_or(""),
                name.unwrap_or(""),
                kind,
                if json {
                    ArgumentStream::json()
                } else {
                    ArgumentStream::text()
                },
            );
            if !self.builder.has_tool_call(choice, key) {
                // Refused by a limit, and reported once: its arguments
                // would only report it again.
                return;
            }
        }
        if let Some(arguments) = arguments {
            if let Some(text) = arguments.as_str() {
                self.builder.tool_call_arguments(choice, key, text);
            } else if arguments.is_object() || arguments.is_array() {
                // Some gateways send the arguments as an object, not as text.
                let text = arguments.to_json();
                self.builder.tool_call_arguments(choice, key, &text);
            }
        }
        // The wire says a call is over only with the finish reason, after
        // every other call: once its arguments are a complete JSON value
        // (nothing but whitespace may follow) it ends now, so that its
        // tool can run while the next call streams, as the AI SDK does.
        // Not before the call has its id and name, which the end reports.
        let complete = self
            .builder
            .argument_stream(choice, key)
            .is_some_and(|s| s.is_complete() && !s.is_ended());
        let named = || {
            let call = self.builder.message().tool_call(choice, key);
            call.is_some_and(|c| !c.id.is_empty() && !c.name.is_empty())
        };
        if complete && named() {
            self.builder.tool_call_end(choice, key);
        }
    }

    fn error<'v, V: View<'v>>(&mut self, payload: V, error: V) {
        let message = match error.as_str() {
            Some(s) => String::from(s),
            None => get_str(error, "message")
                .map(String::from)
                .unwrap_or_else(|| error.to_json()),
        };
        let kind = get_str(error, "type").map(String::from).or_else(|| {
            let code = error.get("code")?;
            code.as_str().or_else(|| code.as_number()).map(String::from)
        });
        self.builder.provider_error(ErrorInfo {
            message,
            kind,
            raw: Some(payload.to_value()),
            parse_error: None,
            from_provider: true,
        });
    }
}

/// What a tool-call fragment says of its call, besides its arguments.
struct Header<'a> {
    id: Option<&'a str>,
    name: Option<&'a str>,
    /// The wire's `type`.
    kind: Option<&'a str>,
    /// Whether the arguments are JSON (a function's), not free text (a
    /// custom tool's input).
    json: bool,
}

/// A custom tool call's `custom` object, if the fragment has one.
fn custom_of<'v, V: View<'v>>(call: V) -> Option<V> {
    call.get("custom").filter(|c| c.is_object())
}

/// `stop`, `length`, `tool_calls` / `function_call`, `content_filter`;
/// anything else (gateways invent their own) is `Other`.
fn normalize(reason: &str) -> FinishReason {
    match reason {
        "stop" => FinishReason::Stop,
        "length" => FinishReason::Length,
        "tool_calls" | "function_call" => FinishReason::ToolCalls,
        "content_filter" => FinishReason::ContentFilter,
        _ => FinishReason::Other,
    }
}

/// Chat Completions token counts: `prompt_tokens`, `completion_tokens`,
/// `total_tokens`, with the reasoning and cached counts from the details.
fn usage<'v>(usage: impl View<'v>) -> Usage {
    Usage {
        input_tokens: get_u64(usage, "prompt_tokens"),
        output_tokens: get_u64(usage, "completion_tokens"),
        total_tokens: get_u64(usage, "total_tokens"),
        reasoning_tokens: usage
            .get("completion_tokens_details")
            .and_then(|d| get_u64(d, "reasoning_tokens")),
        cached_input_tokens: usage
            .get("prompt_tokens_details")
            .and_then(|d| get_u64(d, "cached_tokens")),
        cache_write_input_tokens: None,
        server_tool_use: None,
    }
}

impl OpenAiChatAccumulator {
    fn read<'v>(&mut self, _event_type: &str, payload: impl View<'v>) {
        let [error, choices, id, model, usage_counts, citations, x_groq] = payload.get_many(&[
            "error",
            "choices",
            "id",
            "model",
            "usage",
            "citations",
            "x_groq",
        ]);
        if let Some(error) = error.filter(|e| !e.is_null()) {
            self.error(payload, error);
        }
        let id = id.and_then(View::as_str).filter(|s| !s.is_empty());
        let model = model.and_then(View::as_str).filter(|s| !s.is_empty());
        let any_choice = choices.is_some_and(|c| c.elements().next().is_some());
        if id.is_some() || model.is_some() || any_choice {
            self.builder.start(id, model);
        }
        for (position, choice) in choices.into_iter().flat_map(View::elements).enumerate() {
            self.choice(choice, position);
        }
        // Perplexity's sources, the whole list on every chunk: each kept
        // once, as a citation of the answer's text.
        if let Some(citations) = citations.filter(|c| c.is_array()) {
            for citation in citations.elements().skip(self.cited) {
                if self.builder.has_choice(0) {
                    self.builder.citation(0, citation.to_value());
                    self.cited += 1;
                }
            }
        }
        if let Some(counts) = usage_counts.filter(|u| u.is_object()) {
            self.usage_seen = true;
            self.builder.usage(usage(counts));
        } else if let Some(counts) = x_groq
            .and_then(|x| x.get("usage"))
            .filter(|u| u.is_object() && !self.usage_seen)
        {
            self.builder.usage(usage(counts));
        }
    }
}

impl Accumulate for OpenAiChatAccumulator {
    super::read_payloads!();

    /// `data: [DONE]`: nothing more will come, so open tool calls end now
    /// (streams that never send a finish reason still get their calls).
    fn feed_done(&mut self) {
        self.builder.end_tool_calls();
        self.builder.complete();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{self, Value};

    fn run(lines: &[&str]) -> OpenAiChatAccumulator {
        let mut acc = OpenAiChatAccumulator::new();
        for line in lines {
            let value = json::parse(line.as_bytes()).unwrap_or(Value::Null);
            acc.feed("message", &value);
        }
        acc.finish();
        acc
    }

    #[test]
    fn missing_tool_call_index_uses_ids() {
        let acc = run(&[
            r#"{"id":"a","choices":[{"delta":{"tool_calls":[{"id":"x","function":{"name":"f","arguments":"{}"}}]}}]}"#,
            r#"{"id":"a","choices":[{"delta":{"tool_calls":[{"id":"y","function":{"name":"g","arguments":"{\"k\""}}]}}]}"#,
            r#"{"id":"a","choices":[{"delta":{"tool_calls":[{"function":{"arguments":":1}"}}]}}]}"#,
        ]);
        let calls = &acc.message().choices.get(&0).unwrap().tool_calls;
        assert_eq!(calls.len(), 2);
        assert_eq!(calls.get(&0).unwrap().name, "f");
        assert_eq!(calls.get(&1).unwrap().name, "g");
        assert_eq!(calls.get(&1).unwrap().arguments_text, "{\"k\":1}");
    }

    /// Ollama (ollama/ollama#15457) and some vLLM builds number every
    /// parallel call `index: 0`; the id tells them apart.
    #[test]
    fn parallel_calls_that_reuse_an_index_stay_apart() {
        let acc = run(&[
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","function":{"name":"read_file","arguments":"{\"path\""}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":\"a\"}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_b","function":{"name":"search","arguments":"{\"q\""}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_b","function":{"arguments":":\"b\"}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_c","function":{"name":"search","arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        ]);
        let calls = &acc.message().choices.get(&0).unwrap().tool_calls;
        let got: alloc::vec::Vec<_> = calls
            .iter()
            .map(|(k, c)| {
                (
                    *k,
                    c.id.as_str(),
                    c.name.as_str(),
                    c.arguments_text.as_str(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (0, "call_a", "read_file", r#"{"path":"a"}"#),
                (1, "call_b", "search", r#"{"q":"b"}"#),
                (2, "call_c", "search", "{}"),
            ]
        );
        assert!(calls.values().all(|c| c.arguments_error.is_none()));
        assert!(acc.message().error.is_none());
        // A server that repeats the same id on a call's fragments (OpenRouter
        // via Novita) still gets one call.
        let acc = run(&[
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"0","function":{"name":"f","arguments":"{"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"0","function":{"arguments":"}"}}]}}]}"#,
        ]);
        let calls = &acc.message().choices.get(&0).unwrap().tool_calls;
        assert_eq!(calls.len(), 1);
        assert_eq!(calls.get(&0).unwrap().arguments_text, "{}");
    }

    /// A call whose id changes after its first fragment (Poolside,
    /// mlx-openai-server, vLLM's gpt-oss) stays one call; calls interleaved
    /// at one index go by their ids.
    #[test]
    fn an_id_that_changes_mid_call_and_interleaved_calls() {
        let acc = run(&[
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_X","function":{"name":"get_weather","arguments":""}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_Y","function":{"arguments":"{\"city\":"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_Y","function":{"arguments":"\"Oslo\"}"}}]}}]}"#,
        ]);
        let calls = &acc.message().choices.get(&0).unwrap().tool_calls;
        assert_eq!(calls.len(), 1);
        let call = calls.get(&0).unwrap();
        assert_eq!(
            (call.id.as_str(), call.name.as_str()),
            ("call_X", "get_weather")
        );
        assert_eq!(call.arguments_text, r#"{"city":"Oslo"}"#);
        let acc = run(&[
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\":"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"g","arguments":"{\"y\":"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"arguments":"1}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","function":{"arguments":"2}"}}]}}]}"#,
        ]);
        let calls = &acc.message().choices.get(&0).unwrap().tool_calls;
        let got: alloc::vec::Vec<_> = calls
            .values()
            .map(|c| (c.id.as_str(), c.arguments_text.as_str()))
            .collect();
        assert_eq!(got, [("a", r#"{"x":1}"#), ("b", r#"{"y":2}"#)]);
    }

    /// With `n` > 1 choices finish one by one: the message is complete only
    /// when every choice it will have has finished.
    #[test]
    fn a_choice_that_starts_after_the_others_finished_reopens_the_message() {
        let mut acc = OpenAiChatAccumulator::new();
        let push = |acc: &mut OpenAiChatAccumulator, line: &str| {
            acc.feed("message", &json::parse(line.as_bytes()).unwrap());
        };
        push(
            &mut acc,
            r#"{"choices":[{"index":0,"delta":{"content":"A"},"finish_reason":"stop"}]}"#,
        );
        assert!(acc.message().complete);
        push(
            &mut acc,
            r#"{"choices":[{"index":1,"delta":{"content":"B, cut"}}]}"#,
        );
        assert!(!acc.message().complete, "choice 1 has not finished");
        push(
            &mut acc,
            r#"{"choices":[{"index":1,"delta":{},"finish_reason":"length"}]}"#,
        );
        assert!(acc.message().complete);
    }

    /// Arguments that are not JSON say so where the call ends, in the
    /// event as in the message; the message's own error stays for the
    /// stream's problems.
    #[test]
    fn invalid_arguments_are_reported_with_the_call_end() {
        let mut acc = run(&[
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{\"x\": 1, oops}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        ]);
        let end = core::iter::from_fn(|| acc.next_event())
            .find_map(|e| match e {
                crate::providers::StreamEvent::ToolCallEnd {
                    arguments_error, ..
                } => Some(arguments_error),
                _ => None,
            })
            .expect("the call ended");
        let error = end.expect("the arguments are not JSON");
        let json = error.json().expect("a JSON error");
        assert_eq!(json.offset(), 9, "the offset is within the arguments");
        assert_eq!(
            alloc::format!("{error}"),
            "expected a string key after ',' in object, found 'o' at byte 9 of the arguments"
        );
        let call = acc.message().tool_call(0, 0).unwrap();
        assert_eq!(call.arguments_error.as_ref(), Some(&error));
        assert!(acc.message().error.is_none());
    }

    /// The message keeps the provider's error over a problem found earlier.
    #[test]
    fn the_providers_error_wins_over_one_found_in_the_stream() {
        let acc = run(&[
            r#"{"choices":[{"index":-1,"delta":{"content":"x"}}]}"#,
            r#"{"error":{"message":"Overloaded","type":"overloaded_error"}}"#,
            r#"{"error":{"message":"later","type":"other"}}"#,
        ]);
        let error = acc.message().error.as_ref().unwrap();
        assert_eq!(error.message, "Overloaded");
        assert_eq!(error.kind.as_deref(), Some("overloaded_error"));
    }

    #[test]
    fn reasoning_under_both_names_counts_once() {
        let acc = run(&[
            r#"{"choices":[{"index":0,"delta":{"reasoning_content":"Think","reasoning":"Think"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"reasoning":" more"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"reasoning_content":"","reasoning":"!"}}]}"#,
        ]);
        assert_eq!(acc.message().choice().unwrap().reasoning, "Think more!");
    }

    #[test]
    fn bad_indices_are_reported_not_panicked() {
        let acc = run(&[
            r#"{"choices":[{"index":-1,"delta":{"content":"x"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1.5}]}}]}"#,
            r#"{"choices":[{"index":18446744073709551615,"delta":{"tool_calls":[{"index":18446744073709551615,"id":"z"}]}}]}"#,
        ]);
        assert!(acc.message().error.is_some());
        assert!(acc
            .message()
            .choices
            .get(&u64::MAX)
            .unwrap()
            .tool_calls
            .contains_key(&u64::MAX));
    }

    #[test]
    fn arguments_sent_as_an_object() {
        let acc = run(&[
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":{"a":[1]}}}]}}]}"#,
        ]);
        let call = acc.message().tool_call(0, 0).unwrap();
        assert_eq!(call.arguments_text, r#"{"a":[1]}"#);
    }

    #[test]
    fn string_error_member() {
        let acc = run(&[r#"{"error":"overloaded"}"#]);
        assert_eq!(
            acc.message().error.as_ref().map(|e| e.message.as_str()),
            Some("overloaded")
        );
    }
}
