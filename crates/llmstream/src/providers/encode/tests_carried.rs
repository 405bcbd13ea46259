//! Citations and log probabilities through the encoders, from hand-made
//! events: each wire's own back as they were, OpenAI Chat's and
//! Responses' `url_citation`s and log probabilities between the two, and
//! a loss said for what has no counterpart.

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

#[test]
fn what_has_no_counterpart_is_a_loss() {
    let mut anthropic = start(Provider::Anthropic);
    anthropic.extend([text("Sunny"), citation(0, LOCATION)]);
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
        (&anthropic, Provider::Gemini, vec![LossKind::Citation]),
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
