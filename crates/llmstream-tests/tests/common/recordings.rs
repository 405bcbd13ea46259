//! The recorded provider SSE bodies of ../shared/fixtures/providers, for
//! the async adapter tests (stream_adapters.rs, http_e2e.rs).

use llmstream_tests::fixtures;

/// Every raw SSE body under the providers fixtures (JSON-lines
/// recordings and cassettes are not bodies), as (path relative to the
/// folder, bytes), sorted by path.
pub fn recorded_bodies() -> Vec<(String, Vec<u8>)> {
    let out: Vec<_> = fixtures::files("providers")
        .into_iter()
        .map(|name| {
            let bytes = fixtures::read(&format!("providers/{name}"));
            (name, bytes)
        })
        .filter(|(_, bytes)| fixtures::is_sse_body(bytes))
        .collect();
    assert!(
        !out.is_empty(),
        "no SSE bodies under the providers fixtures"
    );
    out
}

/// `bytes` cut into pieces of 1 to `max` bytes.
pub fn pieces(bytes: &[u8], seed: u64, max: u64) -> Vec<Vec<u8>> {
    llmstream_tests::pieces::pieces_up_to(bytes, seed, max)
        .into_iter()
        .map(<[u8]>::to_vec)
        .collect()
}

/// The non-async path: the whole body through a `Pipeline`, with every
/// event and the final message.
pub fn pipeline_reference(
    body: &[u8],
) -> (
    Vec<llmstream::providers::StreamEvent>,
    Option<llmstream::json::Value>,
) {
    let mut pipeline = llmstream::providers::Pipeline::new();
    let mut events = Vec::new();
    pipeline.feed(body).expect("fixture within SSE limits");
    while let Some(event) = pipeline.next_event() {
        events.push(event);
    }
    pipeline.finish().expect("fixture within SSE limits");
    while let Some(event) = pipeline.next_event() {
        events.push(event);
    }
    (events, pipeline.message().map(|m| m.to_value()))
}
