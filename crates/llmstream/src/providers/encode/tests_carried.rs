//! Citations and log probabilities through the encoders, from hand-made
//! events: each wire's own back as they were, OpenAI Chat's and
//! Responses' `url_citation`s and log probabilities between the two,
//! Anthropic's web search results and Gemini's grounding as
//! `url_citation`s of both, and a loss said for what has no counterpart.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::{encode_all, LossKind, Output};
use crate::json::{parse, Value};
use crate::providers::{Message, PartKind, Pipeline, Provider, StreamEvent};

fn json(text: &str) -> Value {
    parse(text.as_bytes()).expect("valid JSON")
}

fn start(provider: Provider) -> Vec<StreamEvent> {
    vec![
        StreamEvent::MessageStart {
            provider,
            id: Some(String::from("m1")),
            model: Some(String::from("model-x")),
        },
        StreamEvent::Role {
            choice: 0,
            role: String::from("assistant"),
        },
    ]
}

fn text(part: &str) -> StreamEvent {
    StreamEvent::TextDelta {
        choice: 0,
        text: String::from(part),
    }
}

fn text_part() -> StreamEvent {
    StreamEvent::PartStart {
        choice: 0,
        kind: PartKind::Text,
    }
}

fn citation(part: usize, citation: &str) -> StreamEvent {
    StreamEvent::Citation {
        choice: 0,
        part,
        citation: json(citation),
    }
}

fn logprobs(part: usize, items: &str) -> StreamEvent {
    let Value::Array(logprobs) = json(items) else {
        panic!("an array");
    };
    StreamEvent::Logprobs {
        choice: 0,
        part,
        logprobs,
    }
}

/// `events` encoded for `target` and read back by its reader: the
/// message and the kinds said lost.
fn round(events: &[StreamEvent], target: Provider) -> (Message, Vec<LossKind>) {
    let (mut bytes, mut lost) = (Vec::new(), Vec::new());
    for output in encode_all(target, events) {
        match output {
            Output::Sse(sse) => bytes.extend_from_slice(&sse),
            Output::Loss(loss) => lost.push(loss.kind),
        }
    }
    let mut pipeline = Pipeline::with_provider(target);
    pipeline.feed(&bytes).expect("within limits");
    pipeline.finish().expect("within limits");
    while pipeline.next_event().is_some() {}
    (pipeline.message().cloned().expect("a message"), lost)
}

/// Choice 0's citations, or log probabilities, by part position.
fn kept(message: &Message, logprobs: bool) -> Vec<(usize, Vec<Value>)> {
    let choice = message.choices.get(&0).expect("choice 0");
    let map = match logprobs {
        true => &choice.logprobs,
        false => &choice.citations,
    };
    map.iter().map(|(p, list)| (*p, list.clone())).collect()
}

const LOGPROB: &str = r#"[{"token":"Hi","logprob":-0.5,"bytes":[72,105],"top_logprobs":[{"token":"Hi","logprob":-0.5,"bytes":[72,105]}]}]"#;

#[test]
fn chat_citations_and_logprobs_come_back_as_they_were() {
    let mut events = start(Provider::OpenAiChat);
    events.push(text("Hi"));
    events.push(logprobs(0, LOGPROB));
    events.push(citation(0, "\"https://perplexity.example/a\""));
    let annotation = r#"{"type":"url_citation","url_citation":{"end_index":2,"start_index":0,"title":"A","url":"https://a.example"}}"#;
    events.push(citation(0, annotation));
    events.push(StreamEvent::RefusalDelta {
        choice: 0,
        text: String::from("No"),
    });
    events.push(logprobs(
        1,
        r#"[{"token":"No","logprob":-1,"bytes":[78,111],"top_logprobs":[]}]"#,
    ));
    let (message, lost) = round(&events, Provider::OpenAiChat);
    assert_eq!(lost, []);
    let want = vec![json("\"https://perplexity.example/a\""), json(annotation)];
    assert_eq!(kept(&message, false), [(0, want)]);
    let logprobs = kept(&message, true);
    assert_eq!(logprobs.len(), 2, "the text's and the refusal's");
    assert_eq!(logprobs[0], (0, json(LOGPROB).as_array().unwrap().to_vec()));
    assert_eq!(logprobs[1].1[0].get("token"), Some(&Value::from("No")));
}

#[test]
fn responses_citations_and_logprobs_come_back_as_they_were() {
    let file = r#"{"type":"file_citation","file_id":"file-1","filename":"a.pdf","index":1}"#;
    let url = r#"{"type":"url_citation","start_index":0,"end_index":2,"url":"https://a.example","title":"A"}"#;
    let mut events = start(Provider::OpenAiResponses);
    events.push(text_part());
    events.push(citation(0, url));
    events.push(text("Hi"));
    events.push(logprobs(0, LOGPROB));
    events.push(citation(0, file));
    let (message, lost) = round(&events, Provider::OpenAiResponses);
    assert_eq!(lost, []);
    assert_eq!(kept(&message, false), [(0, vec![json(url), json(file)])]);
    assert_eq!(
        kept(&message, true),
        [(0, json(LOGPROB).as_array().unwrap().to_vec())]
    );
    assert_eq!(message.choices.get(&0).unwrap().text, "Hi");
}

/// Two text parts, "abc" and "defg", the second cited at "ef" (1..3 in
/// its part, 4..6 in the choice's text) and scored.
fn two_parts(provider: Provider, citation_json: &str) -> Vec<StreamEvent> {
    let mut events = start(provider);
    events.extend([text("abc"), text_part(), text("defg")]);
    events.push(citation(1, citation_json));
    events.push(logprobs(1, LOGPROB));
    events
}

#[test]
fn responses_url_citations_reach_chat_with_their_span_in_the_whole_text() {
    let url = r#"{"type":"url_citation","start_index":1,"end_index":3,"url":"https://a.example","title":"A"}"#;
    let file = r#"{"type":"file_citation","file_id":"file-1","filename":"a.pdf","index":1}"#;
    let mut events = two_parts(Provider::OpenAiResponses, url);
    events.push(citation(1, file));
    let (message, lost) = round(&events, Provider::OpenAiChat);
    let chat = r#"{"type":"url_citation","url_citation":{"end_index":6,"start_index":4,"title":"A","url":"https://a.example"}}"#;
    // Chat's text is one part.
    assert_eq!(kept(&message, false), [(0, vec![json(chat)])]);
    assert_eq!(
        kept(&message, true),
        [(0, json(LOGPROB).as_array().unwrap().to_vec())]
    );
    assert_eq!(lost, [LossKind::Citation], "the file citation");
}

#[test]
fn chat_url_citations_reach_responses_with_their_span_in_the_part() {
    let chat = r#"{"type":"url_citation","url_citation":{"end_index":6,"start_index":4,"title":"A","url":"https://a.example"}}"#;
    let (message, lost) = round(
        &two_parts(Provider::OpenAiChat, chat),
        Provider::OpenAiResponses,
    );
    let url = r#"{"type":"url_citation","start_index":1,"end_index":3,"url":"https://a.example","title":"A"}"#;
    assert_eq!(lost, []);
    assert_eq!(kept(&message, false), [(1, vec![json(url)])]);
    assert_eq!(
        kept(&message, true),
        [(1, json(LOGPROB).as_array().unwrap().to_vec())]
    );
}

#[test]
fn a_citation_of_an_earlier_part_is_a_loss() {
    let url = r#"{"type":"url_citation","start_index":0,"end_index":1,"url":"https://a.example","title":"A"}"#;
    let mut events = start(Provider::OpenAiResponses);
    events.extend([text("abc"), text_part(), text("defg")]);
    events.push(citation(0, url));
    events.push(logprobs(0, LOGPROB));
    for target in [Provider::OpenAiResponses, Provider::OpenAiChat] {
        let (message, lost) = round(&events, target);
        assert_eq!(kept(&message, false), [], "{target:?}");
        assert_eq!(kept(&message, true), [], "{target:?}");
        assert_eq!(lost, [LossKind::Citation, LossKind::Logprobs], "{target:?}");
    }
}

const LOCATION: &str = r#"{"type":"web_search_result_location","cited_text":"Sunny.","url":"https://w.example","title":"W","encrypted_index":"Eo8="}"#;

#[test]
fn anthropic_citations_come_back_in_their_text_block() {
    let mut events = start(Provider::Anthropic);
    events.extend([text("Before"), text_part()]);
    // Anthropic cites before the text it supports.
    events.push(citation(1, LOCATION));
    events.push(text("Sunny"));
    let (message, lost) = round(&events, Provider::Anthropic);
    assert_eq!(lost, []);
    assert_eq!(kept(&message, false), [(1, vec![json(LOCATION)])]);
    assert_eq!(message.choices.get(&0).unwrap().text, "BeforeSunny");
}

const DOCUMENT: &str = r#"{"type":"char_location","cited_text":"Sunny.","document_index":0,"document_title":"D","start_char_index":0,"end_char_index":6}"#;

#[test]
fn what_has_no_counterpart_is_a_loss() {
    let mut anthropic = start(Provider::Anthropic);
    anthropic.extend([text("Sunny"), citation(0, DOCUMENT)]);
    let mut web = start(Provider::Anthropic);
    web.extend([text("Sunny"), citation(0, LOCATION)]);
    let mut chat = start(Provider::OpenAiChat);
    let annotation = r#"{"type":"url_citation","url_citation":{"end_index":2,"start_index":0,"title":"A","url":"https://a.example"}}"#;
    chat.extend([text("Hi"), citation(0, annotation), logprobs(0, LOGPROB)]);
    let cases = [
        (&anthropic, Provider::OpenAiChat, vec![LossKind::Citation]),
        (
            &anthropic,
            Provider::OpenAiResponses,
            vec![LossKind::Citation],
        ),
        (&web, Provider::Gemini, vec![LossKind::Citation]),
        (
            &chat,
            Provider::Anthropic,
            vec![LossKind::Citation, LossKind::Logprobs],
        ),
        (
            &chat,
            Provider::Gemini,
            vec![LossKind::Citation, LossKind::Logprobs],
        ),
    ];
    for (events, target, want) in cases {
        let (message, lost) = round(events, target);
        assert_eq!(lost, want, "{target:?}");
        assert_eq!(kept(&message, false), [], "{target:?}");
        assert_eq!(kept(&message, true), [], "{target:?}");
    }
}

fn finish() -> StreamEvent {
    StreamEvent::Finish {
        choice: 0,
        reason: String::from("stop"),
        normalized: crate::providers::FinishReason::Stop,
    }
}

/// A Chat `url_citation` of the choice's characters `start..end`.
fn chat_url(url: &str, title: &str, start: u64, end: u64) -> Value {
    json(&alloc::format!(
        r#"{{"type":"url_citation","url_citation":{{"end_index":{end},"start_index":{start},"title":"{title}","url":"{url}"}}}}"#
    ))
}

/// A Responses `url_citation` of the part's characters `start..end`.
fn responses_url(url: &str, title: &str, start: u64, end: u64) -> Value {
    json(&alloc::format!(
        r#"{{"type":"url_citation","start_index":{start},"end_index":{end},"url":"{url}","title":"{title}"}}"#
    ))
}

/// "Before", then a block "Sunny é" cited by a web search result (before
/// its text, as Anthropic sends it) and a document, then "After".
fn anthropic_web_search() -> Vec<StreamEvent> {
    let mut events = start(Provider::Anthropic);
    events.extend([text("Before"), text_part(), citation(1, LOCATION)]);
    events.extend([text("Sunny "), citation(1, DOCUMENT), text("é")]);
    events.extend([text_part(), text("After"), finish()]);
    events
}

#[test]
fn anthropic_web_search_results_reach_openai_with_their_block_span() {
    let events = anthropic_web_search();
    let (message, lost) = round(&events, Provider::OpenAiChat);
    // "Sunny é" is characters 6..13 of "BeforeSunny éAfter".
    let want = chat_url("https://w.example", "W", 6, 13);
    assert_eq!(kept(&message, false), [(0, vec![want])]);
    assert_eq!(lost, [LossKind::Citation], "the document location");
    let (message, lost) = round(&events, Provider::OpenAiResponses);
    let want = responses_url("https://w.example", "W", 0, 7);
    assert_eq!(kept(&message, false), [(1, vec![want])]);
    assert_eq!(lost, [LossKind::Citation], "the document location");
    assert_eq!(message.choices.get(&0).unwrap().text, "BeforeSunny éAfter");
}

#[test]
fn an_anthropic_web_search_result_held_to_the_end_of_the_stream() {
    let mut events = start(Provider::Anthropic);
    events.extend([text("Sunny"), citation(0, LOCATION), text(" day")]);
    let (message, lost) = round(&events, Provider::OpenAiChat);
    let want = chat_url("https://w.example", "W", 0, 9);
    assert_eq!(kept(&message, false), [(0, vec![want])]);
    assert_eq!(lost, []);
    // Of a part followed by another when it comes: a loss.
    events.extend([text_part(), text("!"), citation(0, LOCATION)]);
    for target in [Provider::OpenAiChat, Provider::OpenAiResponses] {
        let (message, lost) = round(&events, target);
        assert_eq!(lost, [LossKind::Citation], "{target:?}");
        assert_eq!(kept(&message, false).len(), 1, "{target:?}");
    }
}

/// Grounding of "Héllo world." (bytes: "Héllo" 0..6, "world." 7..13):
/// the first copy, then the fuller one that replaces it.
const GROUNDED: &str = r#"{"groundingMetadata":{"groundingChunks":[{"web":{"uri":"https://a.example","title":"A"}},{"web":{"uri":"https://b.example","title":"B"}}],"groundingSupports":[{"segment":{"endIndex":6,"text":"Héllo"},"groundingChunkIndices":[0]}]}}"#;
const GROUNDED_FULLER: &str = r#"{"groundingMetadata":{"groundingChunks":[{"web":{"uri":"https://a.example","title":"A"}},{"web":{"uri":"https://b.example","title":"B"}},{"retrievedContext":{"text":"x"}}],"groundingSupports":[{"segment":{"endIndex":6,"text":"Héllo"},"groundingChunkIndices":[0,1]},{"segment":{"startIndex":7,"endIndex":13,"text":"world."},"groundingChunkIndices":[1]},{"segment":{"startIndex":7,"endIndex":40},"groundingChunkIndices":[0]},{"segment":{"startIndex":2,"endIndex":6},"groundingChunkIndices":[0]},{"segment":{"startIndex":0,"endIndex":5,"text":"Hell"},"groundingChunkIndices":[0]},{"segment":{"endIndex":6},"groundingChunkIndices":[2]}]}}"#;

fn replace(part: usize, citation: &str) -> StreamEvent {
    StreamEvent::CitationReplace {
        choice: 0,
        part,
        index: 0,
        citation: json(citation),
    }
}

#[test]
fn gemini_grounding_reaches_openai_from_its_last_copy() {
    let mut events = start(Provider::Gemini);
    events.extend([text("Héllo "), citation(0, GROUNDED), text("world.")]);
    events.extend([replace(0, GROUNDED_FULLER), finish()]);
    // The supports in the text, from web sources; out of the text, off a
    // character boundary, not the text they quote, or of a retrieved
    // document: lost.
    let (message, lost) = round(&events, Provider::OpenAiChat);
    let want = vec![
        chat_url("https://a.example", "A", 0, 5),
        chat_url("https://b.example", "B", 0, 5),
        chat_url("https://b.example", "B", 6, 12),
    ];
    assert_eq!(kept(&message, false), [(0, want)]);
    assert_eq!(lost, [LossKind::Citation]);
    let (message, lost) = round(&events, Provider::OpenAiResponses);
    let want = vec![
        responses_url("https://a.example", "A", 0, 5),
        responses_url("https://b.example", "B", 0, 5),
        responses_url("https://b.example", "B", 6, 12),
    ];
    assert_eq!(kept(&message, false), [(0, want)]);
    assert_eq!(lost, [LossKind::Citation]);
    // The first copy alone maps whole; a copy after the finish is lost.
    let mut events = start(Provider::Gemini);
    events.extend([text("Héllo "), citation(0, GROUNDED), text("world.")]);
    events.extend([finish(), replace(0, GROUNDED_FULLER)]);
    for target in [Provider::OpenAiChat, Provider::OpenAiResponses] {
        let (message, lost) = round(&events, target);
        assert_eq!(kept(&message, false)[0].1.len(), 1, "{target:?}");
        assert_eq!(lost, [LossKind::Citation], "{target:?}");
    }
}

#[test]
fn gemini_grounding_of_an_earlier_part_reaches_chat_only() {
    let mut events = start(Provider::Gemini);
    events.extend([text("Héllo ")]);
    events.push(StreamEvent::ReasoningDelta {
        choice: 0,
        text: String::from("hmm"),
    });
    events.extend([text("world."), citation(2, GROUNDED_FULLER), finish()]);
    let (message, _) = round(&events, Provider::OpenAiChat);
    let urls = &kept(&message, false)[0].1;
    assert_eq!(urls.len(), 3);
    assert_eq!(urls[2], chat_url("https://b.example", "B", 6, 12));
    // Responses counts in the part: "world." is 0..6 of the second; the
    // first part's supports have no place there.
    let (message, lost) = round(&events, Provider::OpenAiResponses);
    let want = responses_url("https://b.example", "B", 0, 6);
    assert_eq!(kept(&message, false), [(2, vec![want])]);
    assert_eq!(lost, [LossKind::Citation]);
}

#[test]
fn gemini_citations_and_logprobs_come_back_as_they_were() {
    let grounding = r#"{"groundingMetadata":{"groundingChunks":[{"web":{"uri":"https://g.example","title":"G"}}]}}"#;
    let fuller = r#"{"groundingMetadata":{"groundingChunks":[{"web":{"uri":"https://g.example","title":"G"}}],"webSearchQueries":["q"]}}"#;
    let source = r#"{"citationSource":{"startIndex":0,"endIndex":4,"uri":"https://s.example"}}"#;
    let steps = r#"[{"token":"Sun","tokenId":7,"logProbability":-0.1,"topCandidates":[{"token":"Sun","tokenId":7,"logProbability":-0.1}]},{"token":"ny","tokenId":9,"logProbability":-0.2,"topCandidates":[]}]"#;
    let mut events = start(Provider::Gemini);
    events.push(text("Sunny"));
    events.push(logprobs(0, steps));
    events.push(citation(0, grounding));
    events.push(citation(0, source));
    events.push(StreamEvent::CitationReplace {
        choice: 0,
        part: 0,
        index: 0,
        citation: json(fuller),
    });
    let (message, lost) = round(&events, Provider::Gemini);
    assert_eq!(lost, []);
    assert_eq!(
        kept(&message, false),
        [(0, vec![json(fuller), json(source)])]
    );
    assert_eq!(
        kept(&message, true),
        [(0, json(steps).as_array().unwrap().to_vec())]
    );
    // Elsewhere, Gemini's forms are a loss.
    let (message, lost) = round(&events, Provider::OpenAiChat);
    assert_eq!(lost, [LossKind::Logprobs, LossKind::Citation]);
    assert_eq!(kept(&message, false), []);
}
