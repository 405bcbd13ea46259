//! Gemini `streamGenerateContent?alt=sse` streams.
//!
//! Every payload is a `GenerateContentResponse` chunk: `candidates[]` (each
//! a choice, keyed by its `index`, 0 when absent) whose `content.parts[]`
//! carry what is new, plus a `usageMetadata` snapshot. The quirks handled,
//! each with a test:
//!
//! - `text` parts are answer text, or reasoning when `thought: true`.
//! - A `functionCall` usually arrives whole (`{name, args, id?}`); its
//!   `args` are fed through the incremental argument parser as JSON text so
//!   the same argument events appear as for providers that stream them.
//!   Without `id`, the call gets a stable generated one
//!   (`call_<candidate>_<ordinal>_<name>`). Without `args`, the arguments
//!   are `{}`.
//! - Streamed function-call arguments (Vertex `streamFunctionCallArguments`):
//!   `{name, willContinue: true}` opens a call; `partialArgs[]` entries
//!   (`jsonPath` + one of `stringValue` / `numberValue` / `boolValue` /
//!   `nullValue`, with `willContinue` when a string goes on in the next
//!   entry for the same path) are turned into JSON text as they arrive; the
//!   call ends at `functionCall: {}`, at a `functionCall` without
//!   `willContinue`, at the next named call, at the finish, or at the end
//!   of the stream.
//! - `thoughtSignature` goes on the tool call of its part, or else on the
//!   reasoning part it follows (see [`MessageBuilder::reasoning_signature`]).
//! - `usageMetadata` is a cumulative snapshot: the last one wins whole.
//! - `finishReason: STOP` on a candidate that made function calls is
//!   normalized to [`FinishReason::ToolCalls`]. A stream may send a
//!   candidate's `finishReason` again, changed: the last one wins (a
//!   second `finish` event).
//! - `promptFeedback` (block reason, safety ratings) is kept whole in the
//!   message's `details`, and a candidate's `safetyRatings` in its
//!   choice's. A prompt blocked before any answer
//!   (`promptFeedback.blockReason`, and no candidates: the member absent
//!   or `[]`) gives a message with no choice, complete: nothing more
//!   will come. The default values `BLOCK_REASON_UNSPECIFIED`,
//!   `BLOCKED_REASON_UNSPECIFIED` and `""` are not blocks: they end
//!   nothing.
//! - The tools Gemini runs itself are provider-run tools (see
//!   [`Choice::provider_tools`](super::Choice::provider_tools)): code
//!   execution (`executableCode`, named `codeExecution`, its result the
//!   `codeExecutionResult` part) and built-in tools (`toolCall`, named by
//!   its `toolType`, its result the `toolResponse` with its id). Their
//!   parts stay in the content as sent, to be sent back.
//! - `groundingMetadata` (Google Search grounding: `webSearchQueries`,
//!   `groundingChunks`, `groundingSupports`, `searchEntryPoint`) is kept
//!   whole, as sent, as one citation `{"groundingMetadata":…}` of the
//!   candidate's text (on its latest text part when it first comes,
//!   which need not be the latest part): the sources and the supports
//!   that tie them to the answer's text, and the search entry point
//!   Google's terms require to be shown with a grounded answer. It is not
//!   a text part: it is no `Part` Gemini takes back in `contents`, so the
//!   parts can be sent on as they are. A candidate with no text yet (a
//!   grounded function call) keeps it as a raw part instead, as other
//!   blocks that are not answer text are kept. Gemini sends it again,
//!   grown, on later chunks: the latest replaces the one kept, which
//!   stays where it was, so it is there once.
//! - `citationMetadata` (recitation sources: `citationSources[]`, spelled
//!   `citations[]` by Vertex, each `{startIndex, endIndex, uri, license,
//!   title, publicationDate}`): each source is one citation
//!   `{"citationSource":…}`, as sent, of the text part its `startIndex`
//!   falls in. The indices are bytes into the candidate's whole text
//!   ([`Choice::text`](super::Choice::text)), not into the chunk's or the
//!   part's. A chunk usually brings sources of its own, but a source sent
//!   again (a stream that repeats the list, grown) is not kept twice.
//! - `urlContextMetadata` (`urlMetadata[]` of `{retrievedUrl,
//!   urlRetrievalStatus}`, the pages the `url_context` tool read; sent on
//!   the first chunk) is one citation `{"urlContextMetadata":…}` of the
//!   candidate's text, on its latest text part; a later one is merged
//!   into it (entries not kept yet appended, other members replaced).
//! - Citations that come before the text they cite (a source whose
//!   `startIndex` is past the text so far, URL context before any text)
//!   wait for it; what still waits when the candidate finishes or the
//!   stream ends goes on the latest text part, or, with no text at all,
//!   is kept as raw parts. No empty text part is made for them.
//! - Metadata that is not an object, and list entries that are not
//!   objects, are left out.
//! - `logprobsResult` (with `responseLogprobs`): each decoding step's
//!   chosen token `{token, tokenId, logProbability}`, with that step's
//!   `topCandidates[].candidates` as its member `topCandidates`, goes in
//!   [`Choice::logprobs`](super::Choice::logprobs) on the text part the
//!   chunk's text extends.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::sorted_map::SortedMap;
use super::{
    get_str, get_u64, Accumulator as Accumulate, ArgumentStream, ErrorInfo, FinishReason,
    MessageBuilder, Part, Provider, Usage,
};
use crate::json::{Map, Value, View};

mod args;
mod json_path;

use args::{ArgsWriter, Leaf};
use json_path::parse_json_path;

/// Folds Gemini payloads into a message.
#[derive(Debug, Clone)]
pub struct GeminiAccumulator {
    builder: MessageBuilder,
    /// Per-candidate state, for candidates the builder accepted.
    candidates: SortedMap<u64, Candidate>,
}

/// What a candidate needs remembered between chunks.
#[derive(Debug, Clone, Default)]
struct Candidate {
    /// Function calls begun so far: the next call's key.
    calls: u64,
    /// Tools Gemini ran itself begun so far (code execution, built-in
    /// tools): the next one's key, past [`PROVIDER_TOOLS`].
    provider_tools: u64,
    /// The call whose arguments are still streaming (`partialArgs`).
    open: Option<OpenCall>,
    /// Whether the candidate finished (later finish reasons are ignored).
    finished: bool,
    /// Where its `groundingMetadata` is kept.
    grounding: Option<Kept>,
    /// Its `urlContextMetadata`, merged from every chunk that sends one.
    url_context: UrlContext,
    /// What the kept `urlContextMetadata` holds, to merge the next in.
    url_members: UrlMembers,
    /// The citation sources kept or waiting, as JSON text: one a later
    /// chunk sends again is not kept twice.
    sources: BTreeSet<String>,
    /// Citation sources (`{"citationSource":…}`) waiting for the text
    /// they cite, by the byte they start at, then by arrival: the text
    /// reaches them in that order, so each chunk looks at the first only.
    waiting: BTreeMap<(u64, u64), Value>,
    /// Sources that have waited so far (the arrival order of equal starts).
    arrivals: u64,
    /// Where its text parts start in its text.
    text_parts: TextParts,
}

/// Where a candidate's text parts start in its text, indexed as parts
/// come: the part a citation's byte falls in is a binary search, not a
/// walk over the content at every chunk (a stream that alternates text
/// and calls, with a citation each chunk, made that quadratic).
///
/// Parts are only ever appended, and text only to the last part, so a
/// part's start is final once it is indexed.
#[derive(Debug, Clone, Default)]
struct TextParts {
    /// Per text part: the byte of the text it starts at, and its position.
    starts: Vec<(usize, usize)>,
    /// The parts of the content indexed so far.
    seen: usize,
}

impl TextParts {
    /// Indexes the parts added since the last call.
    fn update(&mut self, content: &[Part]) {
        for (position, part) in content.iter().enumerate().skip(self.seen) {
            if let Part::Text(_) = part {
                let start = match self.starts.last() {
                    Some(&(start, at)) => start + content.get(at).map_or(0, part_text_len),
                    None => 0,
                };
                self.starts.push((start, position));
            }
        }
        self.seen = self.seen.max(content.len());
    }

    /// The position of the text part that byte `at` of the text (`len`
    /// bytes so far) falls in.
    fn find(&self, at: usize, len: usize) -> Option<usize> {
        if at >= len {
            return None;
        }
        let after = self.starts.partition_point(|&(start, _)| start <= at);
        self.starts
            .get(after.checked_sub(1)?)
            .map(|&(_, position)| position)
    }
}

/// The length of a text part's text.
fn part_text_len(part: &Part) -> usize {
    match part {
        Part::Text(text) => text.len(),
        _ => 0,
    }
}

/// Where a candidate's `groundingMetadata` or `urlContextMetadata` is
/// kept, to be updated by the copies that follow.
#[derive(Debug, Clone, Copy)]
enum Kept {
    /// A citation: the position of its text part in the content, and its
    /// index among that part's citations.
    Citation(usize, usize),
    /// A raw part (no text when it came), at this position.
    Raw(usize),
}

/// What a waiting citation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A citation source.
    Source,
    /// The candidate's `urlContextMetadata`.
    UrlContext,
}

/// What a candidate's merged `urlContextMetadata` holds: its members'
/// positions by name (so that merging a copy costs its own size, not a
/// search of the kept object per member: an object of many members sent
/// once was quadratic), and its `urlMetadata` entries, as JSON text, so
/// that one sent again is not kept twice.
#[derive(Debug, Clone, Default)]
struct UrlMembers {
    positions: BTreeMap<String, usize>,
    entries: BTreeSet<String>,
}

/// A candidate's `urlContextMetadata`.
#[derive(Debug, Clone, Default)]
enum UrlContext {
    /// None sent yet (or none with anything in it).
    #[default]
    None,
    /// Sent before any text: the merged object, until text comes, and
    /// its place in the arrival order of waiting citations.
    Waiting(Value, u64),
    /// Attached where this says.
    Kept(Kept),
}

#[derive(Debug, Clone)]
struct OpenCall {
    key: u64,
    writer: ArgsWriter,
}

impl Default for GeminiAccumulator {
    fn default() -> Self {
        GeminiAccumulator::new()
    }
}

impl GeminiAccumulator {
    /// An empty accumulator.
    pub fn new() -> Self {
        GeminiAccumulator::with_builder(MessageBuilder::new(Provider::Gemini))
    }

    /// An accumulator over this builder (for custom limits).
    pub fn with_builder(builder: MessageBuilder) -> Self {
        GeminiAccumulator {
            builder,
            candidates: SortedMap::new(),
        }
    }

    fn chunk<'v, V: View<'v>>(&mut self, payload: V) {
        // Every member read in one pass over the chunk.
        let [response_id, model_version, error, candidates, usage, feedback] = payload.get_many(&[
            "responseId",
            "modelVersion",
            "error",
            "candidates",
            "usageMetadata",
            "promptFeedback",
        ]);
        self.builder.start(
            response_id.and_then(View::as_str),
            model_version.and_then(View::as_str),
        );
        if let Some(error) = error {
            self.provider_error(payload, error);
        }
        let mut finishes: Vec<(u64, V)> = Vec::new();
        if let Some(candidates) = candidates {
            for candidate in candidates.elements() {
                let index = get_u64(candidate, "index").unwrap_or(0);
                if !self.candidate(index, candidate) {
                    continue;
                }
                // In the order sent, so that citations are in arrival
                // order.
                for (key, metadata) in candidate.members() {
                    match key {
                        "groundingMetadata" => self.grounding(index, metadata),
                        // The candidate's safety ratings, the latest kept
                        // whole.
                        "safetyRatings" if metadata.is_array() => {
                            self.builder
                                .detail(Some(index), "safetyRatings", metadata.to_value());
                        }
                        "citationMetadata" => self.citation_metadata(index, metadata),
                        "urlContextMetadata" => self.url_context(index, metadata),
                        "logprobsResult" => self.logprobs(index, metadata),
                        _ => {}
                    }
                }
                self.place_waiting(index, false);
                if get_str(candidate, "finishReason").is_some() {
                    finishes.push((index, candidate));
                }
            }
        }
        if let Some(usage) = usage {
            self.usage(usage);
        }
        for (index, candidate) in finishes {
            self.finish(index, candidate);
        }
        // The prompt's feedback (block reason, safety ratings) is the
        // message's, kept whole.
        if let Some(feedback) = feedback.filter(|f| f.is_object()) {
            self.builder
                .detail(None, "promptFeedback", feedback.to_value());
        }
        // A prompt blocked before any answer: no candidates (none sent, or
        // `[]`), a reason that is not the enum's default. The message has
        // no choice, and is complete: nothing more will come.
        let blocked = feedback
            .and_then(|f| get_str(f, "blockReason"))
            .filter(|r| {
                !matches!(
                    *r,
                    "" | "BLOCK_REASON_UNSPECIFIED" | "BLOCKED_REASON_UNSPECIFIED"
                )
            });
        let no_candidates = candidates.is_none_or(|c| c.elements().next().is_none());
        if blocked.is_some() && no_candidates {
            self.builder.complete();
        }
        self.check_complete();
    }

    /// Reads one candidate's parts; false if the choice limit refused it.
    fn candidate<'v>(&mut self, index: u64, candidate: impl View<'v>) -> bool {
        let content = candidate.get("content");
        // Gemini calls the answering side "model"; the normalized message
        // says "assistant" like every other wire.
        let role = match content.and_then(|c| get_str(c, "role")) {
            None | Some("model") | Some("") => "assistant",
            Some(other) => other,
        };
        self.builder.role(index, role);
        if !self.builder.has_choice(index) {
            return false;
        }
        self.candidates.get_or_default(index);
        if let Some(parts) = content.and_then(|c| c.get("parts")) {
            for part in parts.elements() {
                self.part(index, part);
            }
        }
        true
    }

    fn part<'v>(&mut self, choice: u64, part: impl View<'v>) {
        let signature = get_str(part, "thoughtSignature").filter(|s| !s.is_empty());
        if let Some(call) = part.get("functionCall") {
            let key = self.function_call(choice, call);
            if let (Some(key), Some(sig)) = (key, signature) {
                self.builder.tool_call_signature(choice, key, sig);
            }
            return;
        }
        if let Some(text) = get_str(part, "text") {
            let thought = part.get("thought").and_then(View::as_bool) == Some(true);
            if thought {
                // The signature closes the thought it comes with.
                self.builder.reasoning(choice, text);
                if let Some(sig) = signature {
                    self.builder.reasoning_signature(choice, sig);
                }
            } else {
                // On answer text, the signature is the reasoning's that
                // came before it; placed first so the answer stays one part.
                if let Some(sig) = signature {
                    self.builder.reasoning_signature(choice, sig);
                }
                self.builder.text(choice, text);
            }
            return;
        }
        if part.is_object() && part.members().count() == 1 {
            if let Some(sig) = signature {
                self.builder.reasoning_signature(choice, sig);
                return;
            }
        }
        self.provider_tool_part(choice, part);
        // inlineData, executableCode, codeExecutionResult, functionResponse,
        // fileData, and whatever comes next: kept as sent.
        self.builder.raw_part(choice, part.to_value());
    }

    /// The tools Gemini runs itself, in parts kept as sent: code it runs
    /// (`executableCode`, its input the part's `{language, code}`) and
    /// its outcome (`codeExecutionResult`, the result of the latest code),
    /// a built-in tool's call (`toolCall`, named by its `toolType`) and
    /// its response (`toolResponse`, the result of the call with its id).
    fn provider_tool_part<'v>(&mut self, choice: u64, part: impl View<'v>) {
        let started = if let Some(code) = part.get("executableCode") {
            let id = get_str(code, "id").unwrap_or("");
            Some((id, "codeExecution", code.to_value()))
        } else if let Some(call) = part.get("toolCall") {
            let id = get_str(call, "id").unwrap_or("");
            let name = get_str(call, "toolType").unwrap_or("");
            let args = call
                .get("args")
                .map_or(Value::Object(Map::new()), View::to_value);
            Some((id, name, args))
        } else {
            None
        };
        if let Some((id, name, input)) = started {
            let Some(state) = self.candidates.get_or_default(choice) else {
                return;
            };
            let key = PROVIDER_TOOLS.saturating_add(state.provider_tools);
            state.provider_tools += 1;
            self.builder.provider_tool_start(
                choice,
                key,
                id,
                name,
                Some(name),
                ArgumentStream::json(),
            );
            self.builder
                .tool_call_arguments(choice, key, &input.to_json());
            self.builder.tool_call_end(choice, key);
            return;
        }
        let result = part
            .get("codeExecutionResult")
            .map(|r| (r, "codeExecution"))
            .or_else(|| part.get("toolResponse").map(|r| (r, "")));
        if let Some((result, code)) = result {
            let tools = self
                .builder
                .message()
                .choices
                .get(&choice)
                .map(|c| &c.provider_tools);
            let id = get_str(result, "id").filter(|id| !id.is_empty());
            let key = tools.and_then(|tools| {
                tools
                    .iter()
                    .rev()
                    .find(|(_, t)| match id {
                        Some(id) => t.id == id,
                        None => t.name == code,
                    })
                    .map(|(key, _)| *key)
            });
            if let Some(key) = key {
                self.builder
                    .provider_tool_result(choice, key, part.to_value());
            }
        }
    }

    /// A candidate's `groundingMetadata`: its citation is added the first
    /// time, replaced by the later ones.
    fn grounding<'v>(&mut self, choice: u64, metadata: impl View<'v>) {
        // `null` or `{}` (sent on chunks that ground nothing) says nothing.
        if metadata.members().next().is_none() {
            return;
        }
        let mut wrapped = Map::new();
        wrapped.push("groundingMetadata", metadata.to_value());
        let kept = Value::Object(wrapped);
        let at = self.candidates.get(&choice).and_then(|c| c.grounding);
        if let Some(at) = at.filter(|&at| kept_slot(&self.builder, choice, at).is_some()) {
            replace_kept(&mut self.builder, choice, at, kept);
            return;
        }
        let at = self.keep(choice, kept);
        if let Some(state) = self.candidates.get_mut(&choice) {
            state.grounding = at;
        }
    }

    /// Attaches `citation` to the latest text part of `choice`, or keeps
    /// it as a raw part when there is no text; where it went.
    fn keep(&mut self, choice: u64, citation: Value) -> Option<Kept> {
        match self.latest_text(choice) {
            Some(position) => self
                .builder
                .citation_at(choice, position, citation)
                .map(|index| Kept::Citation(position, index)),
            None => self.builder.raw_part(choice, citation).map(Kept::Raw),
        }
    }

    /// The position of the latest text part of `choice`.
    fn latest_text(&self, choice: u64) -> Option<usize> {
        self.builder
            .message()
            .choices
            .get(&choice)?
            .content
            .iter()
            .rposition(|p| matches!(p, Part::Text(_)))
    }

    /// A candidate's `logprobsResult`: per decoding step of the chunk, its
    /// chosen token (`{token, tokenId, logProbability}`) with that step's
    /// `topCandidates` list, on the text part the chunk's text extends.
    fn logprobs<'v>(&mut self, choice: u64, result: impl View<'v>) {
        let mut top = result
            .get("topCandidates")
            .into_iter()
            .flat_map(View::elements);
        let steps = result
            .get("chosenCandidates")
            .into_iter()
            .flat_map(View::elements);
        let items = steps.map(|chosen| {
            let mut item = chosen.to_value();
            let top = top.next().and_then(|t| t.get("candidates"));
            if let (Some(map), Some(top)) = (item.as_object_mut(), top) {
                map.push("topCandidates", top.to_value());
            }
            item
        });
        self.builder.logprobs(choice, items);
    }

    /// A candidate's `citationMetadata`: each source in its list
    /// (`citationSources`, or Vertex's `citations`) not kept before
    /// waits for the text it cites (see [`Accumulator::place_waiting`]).
    fn citation_metadata<'v>(&mut self, choice: u64, metadata: impl View<'v>) {
        let lists = [metadata.get("citationSources"), metadata.get("citations")];
        let Some(state) = self.candidates.get_mut(&choice) else {
            return;
        };
        for source in lists.into_iter().flatten().flat_map(View::elements) {
            if !source.is_object() || !state.sources.insert(source.to_json()) {
                continue;
            }
            // Absent is 0 (proto3 leaves a zero out of the JSON).
            let start = get_u64(source, "startIndex").unwrap_or(0);
            let mut wrapped = Map::new();
            wrapped.push("citationSource", source.to_value());
            state.arrivals += 1;
            state
                .waiting
                .insert((start, state.arrivals), Value::Object(wrapped));
        }
    }

    /// A candidate's `urlContextMetadata`: merged into the one kept (its
    /// `urlMetadata` entries not kept before appended, its other members
    /// replaced), which is attached like `groundingMetadata`, or waits
    /// for the first text if there is none yet.
    fn url_context<'v>(&mut self, choice: u64, metadata: impl View<'v>) {
        let Some(state) = self.candidates.get_mut(&choice) else {
            return;
        };
        let kept = match state.url_context {
            UrlContext::Kept(at) => kept_slot(&self.builder, choice, at).map(|slot| (at, slot)),
            _ => None,
        };
        // Merged into a copy, which replaces the one kept.
        if let Some((at, slot)) = kept.filter(|(_, s)| s.get("urlContextMetadata").is_some()) {
            let mut merged = slot.clone();
            if let Some(kept) = merged.get_mut("urlContextMetadata") {
                merge_url_context(kept, metadata, &mut state.url_members);
            }
            replace_kept(&mut self.builder, choice, at, merged);
            return;
        }
        match &mut state.url_context {
            UrlContext::Waiting(kept, _) => {
                merge_url_context(kept, metadata, &mut state.url_members);
            }
            UrlContext::None => {
                let mut kept = Value::Object(Map::new());
                merge_url_context(&mut kept, metadata, &mut state.url_members);
                if kept.as_object().is_some_and(|m| !m.is_empty()) {
                    state.arrivals += 1;
                    state.url_context = UrlContext::Waiting(kept, state.arrivals);
                }
            }
            // Kept, but its slot is gone (a limit refused it): nothing
            // to merge into.
            UrlContext::Kept(_) => {}
        }
    }

    /// Attaches the citations of `choice` that were waiting for text: a
    /// source to the text part its `startIndex` falls in, once the text
    /// reaches it; URL context to the latest text part. With `all` (the
    /// candidate finished, or the stream ended), what is still waiting
    /// goes to the latest text part, or is kept as a raw part when there
    /// is no text.
    fn place_waiting(&mut self, choice: u64, all: bool) {
        let Some(state) = self.candidates.get_mut(&choice) else {
            return;
        };
        let url_waits = matches!(state.url_context, UrlContext::Waiting(..));
        if state.waiting.is_empty() && !url_waits {
            return;
        }
        let Some(c) = self.builder.message().choices.get(&choice) else {
            return;
        };
        state.text_parts.update(&c.content);
        // What the text reaches now (or all, at the end): by arrival,
        // with where each goes (`None`: the latest text part).
        let mut placed = Vec::new();
        while let Some(entry) = state.waiting.first_entry() {
            let start = usize::try_from(entry.key().0).unwrap_or(usize::MAX);
            let Some(position) = state.text_parts.find(start, c.text.len()) else {
                break;
            };
            let arrival = entry.key().1;
            placed.push((arrival, Some(position), Kind::Source, entry.remove()));
        }
        if all {
            let rest = core::mem::take(&mut state.waiting);
            placed.extend(
                rest.into_iter()
                    .map(|((_, arrival), citation)| (arrival, None, Kind::Source, citation)),
            );
        }
        if all || !state.text_parts.starts.is_empty() {
            match core::mem::take(&mut state.url_context) {
                UrlContext::Waiting(value, arrival) => {
                    let mut wrapped = Map::new();
                    wrapped.push("urlContextMetadata", value);
                    placed.push((arrival, None, Kind::UrlContext, Value::Object(wrapped)));
                }
                other => state.url_context = other,
            }
        }
        placed.sort_unstable_by_key(|&(arrival, ..)| arrival);
        for (_, position, kind, citation) in placed {
            let at = match position {
                Some(position) => self
                    .builder
                    .citation_at(choice, position, citation)
                    .map(|index| Kept::Citation(position, index)),
                None => self.keep(choice, citation),
            };
            if kind == Kind::UrlContext {
                if let Some(state) = self.candidates.get_mut(&choice) {
                    state.url_context = at.map_or(UrlContext::None, UrlContext::Kept);
                }
            }
        }
    }

    /// One `functionCall` member; the key of the call it concerns.
    fn function_call<'v>(&mut self, choice: u64, call: impl View<'v>) -> Option<u64> {
        let name = get_str(call, "name").filter(|n| !n.is_empty());
        let will_continue = call.get("willContinue").and_then(View::as_bool) == Some(true);
        let partial = call.get("partialArgs");
        let no_partial = partial.is_none_or(|p| p.elements().next().is_none());
        let args = call.get("args");
        let open_key = self
            .candidates
            .get(&choice)
            .and_then(|c| c.open.as_ref())
            .map(|o| o.key);

        let key = match (name, open_key) {
            // A continuation (or the `functionCall: {}` terminator) of the
            // call whose arguments are streaming.
            (None, Some(key)) => key,
            // A terminator with nothing open: nothing to end.
            (None, None) if no_partial && args.is_none() => return None,
            // A named call, or arguments for a call never announced: a new
            // call (ending any still streaming).
            _ => {
                self.close_open_call(choice);
                let key = self.begin_call(choice, call, name.unwrap_or(""))?;
                if let Some(args) = args {
                    self.builder
                        .tool_call_arguments(choice, key, &args.to_json());
                    self.builder.tool_call_end(choice, key);
                    return Some(key);
                }
                if no_partial && !will_continue {
                    // A whole call without `args`: no arguments, `{}`.
                    self.builder.tool_call_end(choice, key);
                    return Some(key);
                }
                if let Some(state) = self.candidates.get_mut(&choice) {
                    state.open = Some(OpenCall {
                        key,
                        writer: ArgsWriter::default(),
                    });
                }
                key
            }
        };
        for arg in partial.into_iter().flat_map(View::elements) {
            self.partial_arg(choice, key, arg);
        }
        if !will_continue {
            self.close_open_call(choice);
        }
        Some(key)
    }

    /// Starts the candidate's next call; `None` if the limits refused it.
    fn begin_call<'v>(&mut self, choice: u64, call: impl View<'v>, name: &str) -> Option<u64> {
        let state = self.candidates.get_or_default(choice)?;
        let key = state.calls;
        state.calls = state.calls.saturating_add(1);
        let id = match get_str(call, "id").filter(|s| !s.is_empty()) {
            Some(id) => String::from(id),
            None => format!("call_{choice}_{key}_{name}"),
        };
        self.builder.tool_call_start_with(
            choice,
            key,
            &id,
            name,
            Some("function"),
            ArgumentStream::json(),
        );
        self.builder.has_tool_call(choice, key).then_some(key)
    }

    fn partial_arg<'v>(&mut self, choice: u64, key: u64, arg: impl View<'v>) {
        let Some(path) = get_str(arg, "jsonPath").and_then(parse_json_path) else {
            return;
        };
        let leaf = if let Some(s) = get_str(arg, "stringValue") {
            Leaf::Str(s)
        } else if let Some(n) = arg.get("numberValue").and_then(View::as_number) {
            Leaf::Json(String::from(n))
        } else if let Some(b) = arg.get("boolValue").and_then(View::as_bool) {
            Leaf::Json(String::from(if b { "true" } else { "false" }))
        } else if arg.get("nullValue").is_some() {
            Leaf::Json(String::from("null"))
        } else {
            return;
        };
        let will_continue = arg.get("willContinue").and_then(View::as_bool) == Some(true);
        let Some(open) = self
            .candidates
            .get_mut(&choice)
            .and_then(|c| c.open.as_mut())
        else {
            return;
        };
        let fragment = open.writer.write(&path, leaf, will_continue);
        if !fragment.is_empty() {
            self.builder.tool_call_arguments(choice, key, &fragment);
        }
    }

    /// Ends the call whose arguments were streaming: the JSON text is
    /// closed (open string, containers), then the call ends.
    fn close_open_call(&mut self, choice: u64) {
        let Some(mut open) = self.candidates.get_mut(&choice).and_then(|c| c.open.take()) else {
            return;
        };
        let closing = open.writer.close();
        if !closing.is_empty() {
            self.builder.tool_call_arguments(choice, open.key, &closing);
        }
        self.builder.tool_call_end(choice, open.key);
    }

    fn usage<'v>(&mut self, usage: impl View<'v>) {
        // Gemini counts the prompt of a tool's use and the thinking apart
        // from `promptTokenCount` and `candidatesTokenCount`; its total
        // has them all, and so do the input and output here.
        let add = super::event::add_counts;
        let thoughts = get_u64(usage, "thoughtsTokenCount");
        let snapshot = Usage {
            input_tokens: add(
                get_u64(usage, "promptTokenCount"),
                get_u64(usage, "toolUsePromptTokenCount"),
            ),
            output_tokens: add(get_u64(usage, "candidatesTokenCount"), thoughts),
            total_tokens: get_u64(usage, "totalTokenCount"),
            reasoning_tokens: thoughts,
            cached_input_tokens: get_u64(usage, "cachedContentTokenCount"),
            cache_write_input_tokens: None,
            server_tool_use: None,
        };
        // A snapshot with no counts at all (Vertex sends `trafficType`
        // alone on early chunks) says nothing about tokens.
        if snapshot == Usage::default() {
            return;
        }
        let snapshot = snapshot.with_total();
        if self.builder.message().usage.as_ref() != Some(&snapshot) {
            self.builder.usage(snapshot);
        }
    }

    fn finish<'v>(&mut self, choice: u64, candidate: impl View<'v>) {
        let Some(reason) = get_str(candidate, "finishReason") else {
            return;
        };
        if self.candidates.get(&choice).is_some_and(|c| c.finished) {
            // A later chunk may change the reason: the last one wins.
            let current = self.builder.message().choices.get(&choice);
            if current.and_then(|c| c.finish_reason.as_deref()) != Some(reason) {
                let called = current.is_some_and(|c| !c.tool_calls.is_empty());
                self.builder
                    .finish(choice, reason, normalize(reason, called));
            }
            return;
        }
        self.close_open_call(choice);
        self.place_waiting(choice, true);
        if let Some(state) = self.candidates.get_mut(&choice) {
            state.finished = true;
        }
        if let Some(details) = candidate.get("finishMessage") {
            self.builder.finish_details(choice, details.to_value());
        }
        let called = self
            .builder
            .message()
            .choices
            .get(&choice)
            .is_some_and(|c| !c.tool_calls.is_empty());
        self.builder
            .finish(choice, reason, normalize(reason, called));
    }

    /// The message is complete once every candidate has finished (Gemini
    /// sends no end-of-stream marker).
    fn check_complete(&mut self) {
        let choices = &self.builder.message().choices;
        if !choices.is_empty() && choices.values().all(|c| c.finish.is_some()) {
            self.builder.complete();
        }
    }

    fn read<'v>(&mut self, _event_type: &str, payload: impl View<'v>) {
        if payload.is_array() {
            // Without `alt=sse` the body is one JSON array of chunks; a
            // caller that parsed it whole may hand it over as such.
            for chunk in payload.elements() {
                self.chunk(chunk);
            }
        } else {
            self.chunk(payload);
        }
    }

    fn provider_error<'v, V: View<'v>>(&mut self, payload: V, error: V) {
        let message = get_str(error, "message").unwrap_or("error");
        let mut info = ErrorInfo::new(message);
        info.kind = get_str(error, "status")
            .map(String::from)
            .or_else(|| get_u64(error, "code").map(|c| format!("{c}")));
        info.raw = Some(payload.to_value());
        self.builder.provider_error(info);
    }
}

/// The normalized reason for a Gemini `finishReason`; `called` says whether
/// the candidate made function calls (Gemini says `STOP` either way).
pub fn normalize(reason: &str, called: bool) -> FinishReason {
    match reason {
        "STOP" if called => FinishReason::ToolCalls,
        "STOP" => FinishReason::Stop,
        "MAX_TOKENS" => FinishReason::Length,
        "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" | "IMAGE_SAFETY" => {
            FinishReason::ContentFilter
        }
        _ => FinishReason::Other,
    }
}

/// The key of a candidate's first tool Gemini ran itself (function calls
/// count from 0: these keys are past theirs).
const PROVIDER_TOOLS: u64 = 1 << 32;

impl Accumulate for GeminiAccumulator {
    super::read_payloads!();

    fn finish(&mut self) -> Result<(), core::convert::Infallible> {
        let open: Vec<u64> = self
            .candidates
            .iter()
            .filter(|(_, c)| c.open.is_some())
            .map(|(k, _)| *k)
            .collect();
        for choice in open {
            self.close_open_call(choice);
        }
        let waiting: Vec<u64> = self
            .candidates
            .iter()
            .filter(|(_, c)| {
                !c.waiting.is_empty() || matches!(c.url_context, UrlContext::Waiting(..))
            })
            .map(|(k, _)| *k)
            .collect();
        for choice in waiting {
            self.place_waiting(choice, true);
        }
        self.builder.end_stream();
        Ok(())
    }
}

/// The citation or raw part of `choice` kept at `at`.
fn kept_slot(builder: &MessageBuilder, choice: u64, at: Kept) -> Option<&Value> {
    match at {
        Kept::Citation(position, index) => builder
            .message()
            .choices
            .get(&choice)?
            .citations
            .get(&position)?
            .get(index),
        Kept::Raw(position) => builder.raw_part_at(choice, position),
    }
}

/// Replaces the citation or raw part of `choice` kept at `at`.
fn replace_kept(builder: &mut MessageBuilder, choice: u64, at: Kept, value: Value) {
    match at {
        Kept::Citation(position, index) => builder.citation_replace(choice, position, index, value),
        Kept::Raw(position) => builder.raw_part_replace(choice, position, value),
    }
}

/// Merges a `urlContextMetadata` object into `kept` (an object, whose
/// members `known` indexes): the `urlMetadata` entries that are objects
/// and not kept yet are appended, other members replace the kept ones.
/// What is not an object, a `urlMetadata` that is not an array, is left
/// out.
fn merge_url_context<'v>(kept: &mut Value, metadata: impl View<'v>, known: &mut UrlMembers) {
    let Some(kept) = kept.as_object_mut() else {
        return;
    };
    for (key, value) in metadata.members() {
        if key != "urlMetadata" {
            let value = value.to_value();
            match known.positions.get(key) {
                Some(&at) => {
                    if let Some((_, slot)) = kept.get_index_mut(at) {
                        *slot = value;
                    }
                }
                None => {
                    known.positions.insert(String::from(key), kept.len());
                    kept.push(key, value);
                }
            }
            continue;
        }
        for entry in value.elements() {
            if !entry.is_object() || !known.entries.insert(entry.to_json()) {
                continue;
            }
            let at = match known.positions.get(key) {
                Some(&at) => at,
                None => {
                    known.positions.insert(String::from(key), kept.len());
                    kept.push(key, Value::Array(Vec::new()));
                    kept.len() - 1
                }
            };
            if let Some((_, Value::Array(list))) = kept.get_index_mut(at) {
                list.push(entry.to_value());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Candidates finish one by one: one that first shows up after the
    /// others finished makes the message incomplete until it finishes.
    #[test]
    fn a_candidate_that_starts_after_the_others_finished_reopens_the_message() {
        use crate::providers::Accumulator as _;
        let mut acc = GeminiAccumulator::new();
        let mut push = |line: &str| {
            acc.feed("message", &crate::json::parse(line.as_bytes()).unwrap());
            acc.message().complete
        };
        let text = |index: u64, finish: &str| {
            alloc::format!(
                r#"{{"candidates":[{{"index":{index},"content":{{"role":"model","parts":[{{"text":"x"}}]}}{finish}}}]}}"#
            )
        };
        assert!(push(&text(0, r#","finishReason":"STOP""#)));
        assert!(!push(&text(1, "")), "candidate 1 has not finished");
        assert!(push(&text(1, r#","finishReason":"MAX_TOKENS""#)));
    }
}
