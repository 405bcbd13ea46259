//! Every recording of ../shared/fixtures/providers and providers_more,
//! translated into every wire format (`providers::encode`) and read back
//! by that format's reader: the same answer text, reasoning, tool calls
//! (ids, names, arguments), finish (normalized) and token counts; the
//! citations and log probabilities where the target carries them (its
//! own wire's as they were, OpenAI Chat's and Responses' `url_citation`s
//! and log probabilities between the two, Anthropic's web search results
//! and Gemini's grounding as `url_citation`s in both); the same output
//! bytes whatever the cuts of the input.

use llmstream::json::Value;
use llmstream::providers::encode::{LossKind, Output, WireEncoder};
use llmstream::providers::{Choice, FinishReason, Message, Part, Pipeline, Provider, StreamEvent};
use llmstream_tests::fixtures;

/// JSON-lines recordings (one payload a line) taken too, framed as SSE:
/// those with citations to carry.
const LINES: [&str; 1] = ["providers/anthropic/anthropic-web-search-tool.1.chunks.txt"];

/// Every SSE body under both recording folders, and [`LINES`], as (name,
/// bytes).
fn bodies() -> Vec<(String, Vec<u8>)> {
    let sse = ["providers", "providers_more"].into_iter().flat_map(|dir| {
        fixtures::files(dir).into_iter().map(move |name| {
            (
                format!("{dir}/{name}"),
                fixtures::read(&format!("{dir}/{name}")),
            )
        })
    });
    let lines = LINES
        .into_iter()
        .map(|name| (name.to_string(), framed(&fixtures::read(name))));
    sse.filter(|(_, bytes)| fixtures::is_sse_body(bytes))
        .chain(lines)
        .collect()
}

/// JSON lines as SSE: a `data:` event each.
fn framed(lines: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(lines);
    let lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    lines
        .map(|line| format!("data: {line}\n\n"))
        .collect::<String>()
        .into_bytes()
}

/// The body read whole: its events and message.
fn read(body: &[u8], provider: Option<Provider>) -> (Vec<StreamEvent>, Option<Message>) {
    let mut pipeline = match provider {
        Some(p) => Pipeline::with_provider(p),
        None => Pipeline::new(),
    };
    let mut events = Vec::new();
    pipeline.feed(body).expect("within the SSE limits");
    while let Some(event) = pipeline.next_event() {
        events.push(event);
    }
    pipeline.finish().expect("within the SSE limits");
    while let Some(event) = pipeline.next_event() {
        events.push(event);
    }
    (events, pipeline.message().cloned())
}

/// The body translated for `target` as it streams in `pieces`: the bytes
/// and the kinds lost.
fn translate(pieces: &[&[u8]], target: Provider) -> (Vec<u8>, Vec<LossKind>) {
    let mut pipeline = Pipeline::new();
    let mut encoder = WireEncoder::new(target);
    let (mut bytes, mut lost) = (Vec::new(), Vec::new());
    let mut drain = |encoder: &mut WireEncoder| {
        while let Some(output) = encoder.next_event() {
            match output {
                Output::Sse(sse) => bytes.extend_from_slice(&sse),
                Output::Loss(loss) => lost.push(loss.kind),
            }
        }
    };
    for piece in pieces {
        pipeline.feed(piece).expect("within the SSE limits");
        while let Some(event) = pipeline.next_event() {
            encoder.feed(&event);
        }
        drain(&mut encoder);
    }
    pipeline.finish().expect("within the SSE limits");
    while let Some(event) = pipeline.next_event() {
        encoder.feed(&event);
    }
    let Ok(()) = encoder.finish();
    drain(&mut encoder);
    (bytes, lost)
}

/// How a target differs on purpose (docs/TRANSLATION.md), for the
/// comparison.
struct Rules {
    target: Provider,
    /// Refusal text is sent as answer text.
    refusal_as_text: bool,
    /// A final copy of a text that differs from what streamed could not
    /// be carried (said as a loss): the texts are not compared.
    replaced: bool,
    /// The source reported no finish (Responses ends with one).
    no_finish: bool,
    /// The source reported no counts (Anthropic writes zeros, as its
    /// usage is required).
    no_usage: bool,
    /// The target carries the source's provider-run tools (its own).
    provider_tools: bool,
    /// The source reported fewer output tokens than reasoning ones (xAI):
    /// Gemini, whose output is its answer's count plus its thoughts',
    /// cannot say so.
    reasoning_over_output: bool,
}

/// What a reader of the message compares: per choice kept, the text, the
/// reasoning, the tool calls, the finish; the counts.
fn summary(message: &Message, choices: &[u64], rules: &Rules) -> Vec<String> {
    let target = rules.target;
    let mut out = Vec::new();
    for key in choices {
        let Some(choice) = message.choices.get(key) else {
            out.push(format!("choice {key}: none"));
            continue;
        };
        let mut text = choice.text.clone();
        let mut refusal = choice.refusal.clone().unwrap_or_default();
        if rules.refusal_as_text {
            text.push_str(&refusal);
            refusal.clear();
        }
        if !rules.replaced {
            out.push(format!("choice {key} text: {text:?}"));
            out.push(format!("choice {key} refusal: {refusal:?}"));
            out.push(format!("choice {key} reasoning: {:?}", choice.reasoning));
        }
        for call in choice.tool_calls.values() {
            let arguments = call.arguments.as_ref().map(Value::to_json);
            out.push(format!(
                "choice {key} call {:?} {:?} {arguments:?}",
                call.id, call.name
            ));
        }
        let finish = match (choice.finish, target) {
            // Anthropic has no content filter: its nearest is `refusal`.
            (Some(FinishReason::ContentFilter), Provider::Anthropic) => Some(FinishReason::Refusal),
            (finish, _) => finish,
        };
        if !rules.no_finish {
            out.push(format!("choice {key} finish: {finish:?}"));
        }
        if rules.provider_tools {
            for tool in choice.provider_tools.values() {
                out.push(format!(
                    "choice {key} provider tool {:?} {:?}",
                    tool.id, tool.name
                ));
            }
        }
    }
    if let (Some(usage), false) = (&message.usage, rules.no_usage) {
        let usage = usage.clone().with_total();
        out.push(format!("input tokens: {:?}", usage.input_tokens));
        if !(target == Provider::Gemini && rules.reasoning_over_output) {
            out.push(format!("output tokens: {:?}", usage.output_tokens));
        }
        // Anthropic sends no total: it is the sum there.
        if target != Provider::Anthropic {
            out.push(format!("total tokens: {:?}", usage.total_tokens));
        }
        // Responses' usage details are required: an unreported count is 0.
        let (cached, reasoning) = match target {
            Provider::OpenAiResponses => (
                Some(usage.cached_input_tokens.unwrap_or(0)),
                Some(usage.reasoning_tokens.unwrap_or(0)),
            ),
            _ => (usage.cached_input_tokens, usage.reasoning_tokens),
        };
        out.push(format!("cached: {cached:?}"));
        // Anthropic reports no reasoning count.
        if target != Provider::Anthropic {
            out.push(format!("reasoning tokens: {reasoning:?}"));
        }
    }
    out
}

/// The characters of `choice`'s answer text before the part at
/// `position`: where OpenAI Chat's citation offsets (into the whole text)
/// and Responses' (into one part) differ.
fn text_before(choice: &Choice, position: usize) -> u64 {
    let parts = choice.content.iter().take(position);
    let chars = parts.map(|part| match part {
        Part::Text(text) => text.chars().count(),
        _ => 0,
    });
    chars.sum::<usize>() as u64
}

/// A `url_citation` between Chat's shape and Responses', as
/// docs/TRANSLATION.md promises it: the same URL, title and span, the span
/// moved by the text before the part.
fn url_citation(citation: &Value, from: Provider, before: u64) -> Option<Value> {
    let fields = match from {
        Provider::OpenAiChat => citation.get("url_citation")?,
        _ => citation,
    };
    if citation.get("type")?.as_str()? != "url_citation" {
        return None;
    }
    let url = fields.get("url")?.as_str()?;
    let title = fields.get("title").cloned().unwrap_or(Value::Null);
    let start = fields.get("start_index")?.as_u64()?;
    let end = fields.get("end_index")?.as_u64()?;
    let json = match from {
        Provider::OpenAiChat => format!(
            r#"{{"type":"url_citation","start_index":{},"end_index":{},"url":{},"title":{}}}"#,
            start.checked_sub(before)?,
            end.checked_sub(before)?,
            Value::from(url).to_json(),
            title.to_json()
        ),
        _ => format!(
            r#"{{"type":"url_citation","url_citation":{{"end_index":{},"start_index":{},"title":{},"url":{}}}}}"#,
            end + before,
            start + before,
            title.to_json(),
            Value::from(url).to_json()
        ),
    };
    Some(llmstream::json::parse(json.as_bytes()).expect("valid JSON"))
}

/// The bytes of `choice`'s answer text before the part at `position`:
/// where Gemini's grounding offsets (into the whole text) and a Responses
/// part differ.
fn bytes_before(choice: &Choice, position: usize) -> u64 {
    let parts = choice.content.iter().take(position);
    let bytes = parts.map(|part| match part {
        Part::Text(text) => text.len(),
        _ => 0,
    });
    bytes.sum::<usize>() as u64
}

/// A `url_citation` in `target`'s shape.
fn url_in(target: Provider, url: &str, title: &Value, start: u64, end: u64) -> Value {
    let (url, title) = (Value::from(url).to_json(), title.to_json());
    let json = match target {
        Provider::OpenAiChat => format!(
            r#"{{"type":"url_citation","url_citation":{{"end_index":{end},"start_index":{start},"title":{title},"url":{url}}}}}"#
        ),
        _ => format!(
            r#"{{"type":"url_citation","start_index":{start},"end_index":{end},"url":{url},"title":{title}}}"#
        ),
    };
    llmstream::json::parse(json.as_bytes()).expect("valid JSON")
}

/// An Anthropic `web_search_result_location` of the part at `position`
/// as docs/TRANSLATION.md promises it to an OpenAI wire: a `url_citation`
/// of the whole part (Chat: characters of the choice's text; Responses:
/// of the part).
fn anthropic_url(
    citation: &Value,
    choice: &Choice,
    position: usize,
    target: Provider,
) -> Option<Value> {
    if citation.get("type")?.as_str()? != "web_search_result_location" {
        return None;
    }
    let url = citation.get("url")?.as_str()?;
    let title = citation.get("title").cloned().unwrap_or(Value::Null);
    let Some(Part::Text(text)) = choice.content.get(position) else {
        return None;
    };
    let len = text.chars().count() as u64;
    let start = match target {
        Provider::OpenAiChat => text_before(choice, position),
        _ => 0,
    };
    Some(url_in(target, url, &title, start, start + len))
}

/// Gemini's `groundingMetadata` on the part at `position` as
/// docs/TRANSLATION.md promises it to an OpenAI wire: per support and
/// `web` chunk it names, a `url_citation` of its segment (bytes of the
/// choice's text, quoting its `text`) in characters: of the choice's text
/// (Chat), of the part, which must hold it (Responses).
fn gemini_urls(metadata: &Value, choice: &Choice, position: usize, target: Provider) -> Vec<Value> {
    let text = choice.text.as_str();
    let (from, to) = match target {
        Provider::OpenAiChat => (0, text.len() as u64),
        _ => {
            let start = bytes_before(choice, position);
            let len = match choice.content.get(position) {
                Some(Part::Text(part)) => part.len() as u64,
                _ => 0,
            };
            (start, start + len)
        }
    };
    let empty = Vec::new();
    let list = |v: Option<&Value>| {
        v.and_then(Value::as_array)
            .map(|a| a.to_vec())
            .unwrap_or_else(|| empty.clone())
    };
    let chunks = list(metadata.get("groundingChunks"));
    let mut out = Vec::new();
    for support in list(metadata.get("groundingSupports")) {
        let indices = list(support.get("groundingChunkIndices"));
        if indices.is_empty() {
            continue;
        }
        let segment = support.get("segment");
        let start = segment.map(|s| s.get("startIndex").and_then(Value::as_u64).unwrap_or(0));
        let end = segment
            .and_then(|s| s.get("endIndex"))
            .and_then(Value::as_u64);
        let span = match (start, end) {
            (Some(start), Some(end)) if from <= start && start <= end && end <= to => {
                let quoted = text.get(start as usize..end as usize);
                let said = segment.and_then(|s| s.get("text")).map(|t| t.as_str());
                let before = text.get(from as usize..start as usize);
                match (quoted, before, said) {
                    (Some(q), Some(b), None) => Some((b, q)),
                    (Some(q), Some(b), Some(Some(said))) if said == q => Some((b, q)),
                    _ => None,
                }
            }
            _ => None,
        };
        let Some((before, quoted)) = span else {
            continue;
        };
        let start = before.chars().count() as u64;
        let end = start + quoted.chars().count() as u64;
        for index in indices {
            let web = index
                .as_u64()
                .and_then(|i| chunks.get(i as usize))
                .and_then(|c| c.get("web"));
            if let Some(url) = web.and_then(|w| w.get("uri")).and_then(Value::as_str) {
                let title = web
                    .and_then(|w| w.get("title"))
                    .cloned()
                    .unwrap_or(Value::Null);
                out.push(url_in(target, url, &title, start, end));
            }
        }
    }
    out
}

/// The citations and log probabilities of `original`'s choice `key` that
/// `target` promises to carry, in part order, and whether every citation
/// is carried whole.
fn carried(original: &Message, key: u64, target: Provider) -> (Vec<Value>, Vec<Value>, bool) {
    let Some(choice) = original.choices.get(&key) else {
        return (Vec::new(), Vec::new(), true);
    };
    let from = original.provider;
    let openai = |p: Provider| matches!(p, Provider::OpenAiChat | Provider::OpenAiResponses);
    let mut citations = Vec::new();
    let mut whole = true;
    for (&position, list) in choice.citations.iter() {
        for citation in list {
            let before = citations.len();
            if from == target {
                citations.push(citation.clone());
            } else if openai(from) && openai(target) {
                let before = text_before(choice, position);
                citations.extend(url_citation(citation, from, before));
            } else if from == Provider::Anthropic && openai(target) {
                // What the rule leaves out is left out exactly: the
                // read-back is the promise, whatever is said lost.
                citations.extend(anthropic_url(citation, choice, position, target));
                continue;
            } else if from == Provider::Gemini && openai(target) {
                if let Some(metadata) = citation.get("groundingMetadata") {
                    citations.extend(gemini_urls(metadata, choice, position, target));
                    // Into Responses, only while its part is open: when a
                    // part follows, whether it came before the grounding
                    // is not in the message.
                    let last = position + 1 == choice.content.len();
                    whole &= target == Provider::OpenAiChat || last;
                }
                continue;
            }
            whole &= citations.len() > before;
        }
    }
    let mut logprobs = Vec::new();
    for (&position, list) in choice.logprobs.iter() {
        let text = matches!(choice.content.get(position), Some(Part::Text(_)));
        if from == target || (openai(from) && openai(target) && text) {
            logprobs.extend(list.iter().cloned());
        }
    }
    (citations, logprobs, whole)
}

/// The read-back citations and log probabilities of choice `key` against
/// what was promised: equal, or, where some could not be promised (a
/// form with no counterpart) and a loss was said, each one read back
/// among those promised. `None` when they agree.
fn compare_carried(
    original: &Message,
    back: &Message,
    key: u64,
    target: Provider,
    lost: &[LossKind],
) -> Option<String> {
    let (want_citations, want_logprobs, whole) = carried(original, key, target);
    let flat = |map: &llmstream::providers::SortedMap<usize, Vec<Value>>| -> Vec<Value> {
        map.iter()
            .flat_map(|(_, list)| list.iter().cloned())
            .collect()
    };
    let both = |m: &Message| {
        m.choices
            .get(&key)
            .map(|c| (flat(&c.citations), flat(&c.logprobs)))
            .unwrap_or_default()
    };
    let (got_citations, got_logprobs) = both(back);
    let (_, all_logprobs) = both(original);
    let logprobs_whole = want_logprobs.len() == all_logprobs.len();
    let checks = [
        (
            "citations",
            want_citations,
            got_citations,
            whole,
            LossKind::Citation,
        ),
        (
            "logprobs",
            want_logprobs,
            got_logprobs,
            logprobs_whole,
            LossKind::Logprobs,
        ),
    ];
    for (what, want, got, whole, kind) in checks {
        let partial = !whole && lost.contains(&kind);
        let agree = match partial {
            false => want == got,
            true => got.iter().all(|g| want.contains(g)),
        };
        if !agree {
            return Some(format!(
                "choice {key} {what}: want {} got {}",
                Value::Array(want).to_json(),
                Value::Array(got).to_json()
            ));
        }
    }
    None
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn every_recording_reads_back_the_same_in_every_wire() {
    let bodies = bodies();
    assert!(bodies.len() > 100, "{} recordings", bodies.len());
    let mut failures = Vec::new();
    let mut checked = 0;
    // Translations with citations or log probabilities to carry.
    let mut carried_checked = 0;
    // Recordings whose Anthropic or Gemini citations were compared whole
    // as `url_citation`s.
    let mut url_checked = std::collections::BTreeSet::new();
    for (name, body) in &bodies {
        let (_, Some(original)) = read(body, None) else {
            continue;
        };
        for target in Provider::ALL {
            let (bytes, lost) = translate(&[body.as_slice()], target);
            for seed in [1, 2] {
                let pieces = llmstream_tests::random_pieces(body, seed);
                assert_eq!(
                    translate(&pieces, target).0,
                    bytes,
                    "{name} → {target:?}: the cuts change the translation"
                );
            }
            let one_choice = matches!(target, Provider::Anthropic | Provider::OpenAiResponses);
            let choices: Vec<u64> = match one_choice {
                true => original
                    .choices
                    .keys()
                    .copied()
                    .filter(|&c| c == 0)
                    .collect(),
                false => original.choices.keys().copied().collect(),
            };
            let rules = Rules {
                target,
                refusal_as_text: lost.contains(&LossKind::RefusalAsText),
                replaced: lost.contains(&LossKind::Replaced),
                no_finish: target == Provider::OpenAiResponses
                    && original.choices.get(&0).is_some_and(|c| c.finish.is_none()),
                no_usage: original.usage.is_none(),
                provider_tools: original.provider == target
                    && matches!(target, Provider::Anthropic | Provider::OpenAiResponses),
                reasoning_over_output: original.usage.as_ref().is_some_and(|u| {
                    u.reasoning_tokens.unwrap_or(0) > u.output_tokens.unwrap_or(0)
                }),
            };
            let (_, back) = read(&bytes, Some(target));
            let back = back.unwrap_or_else(|| Message::new(target));
            let want = summary(&original, &choices, &rules);
            let got = summary(&back, &choices, &rules);
            checked += 1;
            for &key in &choices {
                let (want_citations, want_logprobs, _) = carried(&original, key, target);
                if !want_citations.is_empty() || !want_logprobs.is_empty() {
                    carried_checked += 1;
                }
                let (_, _, whole) = carried(&original, key, target);
                let mapped = matches!(original.provider, Provider::Anthropic | Provider::Gemini)
                    && original.provider != target;
                if mapped && whole && !want_citations.is_empty() {
                    url_checked.insert(name.as_str());
                }
                if let Some(diff) = compare_carried(&original, &back, key, target, &lost) {
                    failures.push(format!("{name} → {}: {diff}", target.name()));
                }
            }
            if want != got {
                let first = want.iter().zip(&got).find(|(w, g)| w != g).map_or_else(
                    || format!("{} lines vs {}", want.len(), got.len()),
                    |(w, g)| format!("want {w}\n      got  {g}"),
                );
                failures.push(format!("{name} → {}: {first}", target.name()));
            }
        }
    }
    assert!(
        carried_checked >= 20,
        "{carried_checked} translations with citations or log probabilities"
    );
    for name in [LINES[0], "providers_more/gemini/p-web-search-tool.sse"] {
        assert!(
            url_checked.contains(name),
            "{name}: no url_citation compared"
        );
    }
    assert!(url_checked.len() >= 6, "{url_checked:?}");
    assert!(
        failures.is_empty(),
        "{} of {checked} translations read back differently:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
