//! Every recording of ../shared/fixtures/providers and providers_more,
//! translated into every wire format (`providers::encode`) and read back
//! by that format's reader: the same answer text, reasoning, tool calls
//! (ids, names, arguments), finish (normalized) and token counts; the
//! citations and log probabilities where the target carries them (its
//! own wire's as they were, OpenAI Chat's and Responses' `url_citation`s
//! and log probabilities between the two); the same output bytes whatever
//! the cuts of the input.

use llmstream::json::Value;
use llmstream::providers::encode::{LossKind, Output, WireEncoder};
use llmstream::providers::{Choice, FinishReason, Message, Part, Pipeline, Provider, StreamEvent};
use llmstream_tests::fixtures;

/// Every SSE body under both recording folders, as (name, bytes).
fn bodies() -> Vec<(String, Vec<u8>)> {
    ["providers", "providers_more"]
        .into_iter()
        .flat_map(|dir| {
            fixtures::files(dir).into_iter().map(move |name| {
                (
                    format!("{dir}/{name}"),
                    fixtures::read(&format!("{dir}/{name}")),
                )
            })
        })
        .filter(|(_, bytes)| fixtures::is_sse_body(bytes))
        .collect()
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

/// The citations and log probabilities of `original`'s choice `key` that
/// `target` promises to carry, in part order.
fn carried(original: &Message, key: u64, target: Provider) -> (Vec<Value>, Vec<Value>) {
    let Some(choice) = original.choices.get(&key) else {
        return (Vec::new(), Vec::new());
    };
    let from = original.provider;
    let openai = |p: Provider| matches!(p, Provider::OpenAiChat | Provider::OpenAiResponses);
    let mut citations = Vec::new();
    for (&position, list) in choice.citations.iter() {
        for citation in list {
            if from == target {
                citations.push(citation.clone());
            } else if openai(from) && openai(target) {
                let before = text_before(choice, position);
                citations.extend(url_citation(citation, from, before));
            }
        }
    }
    let mut logprobs = Vec::new();
    for (&position, list) in choice.logprobs.iter() {
        let text = matches!(choice.content.get(position), Some(Part::Text(_)));
        if from == target || (openai(from) && openai(target) && text) {
            logprobs.extend(list.iter().cloned());
        }
    }
    (citations, logprobs)
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
    let (want_citations, want_logprobs) = carried(original, key, target);
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
    let (all_citations, all_logprobs) = both(original);
    let checks = [
        (
            "citations",
            want_citations,
            got_citations,
            all_citations,
            LossKind::Citation,
        ),
        (
            "logprobs",
            want_logprobs,
            got_logprobs,
            all_logprobs,
            LossKind::Logprobs,
        ),
    ];
    for (what, want, got, all, kind) in checks {
        let partial = want.len() < all.len() && lost.contains(&kind);
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
                let (want_citations, want_logprobs) = carried(&original, key, target);
                if !want_citations.is_empty() || !want_logprobs.is_empty() {
                    carried_checked += 1;
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
    assert!(
        failures.is_empty(),
        "{} of {checked} translations read back differently:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
