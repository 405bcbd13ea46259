//! End to end over real HTTP on loopback (feature `futures`): a hyper
//! server in the test serves every recorded provider SSE body of
//! ../shared/fixtures/providers with chunked transfer encoding, in pieces of
//! 1 to 48 bytes with random short pauses; a reqwest client reads each one
//! through `bytes_stream()` and the adapters. The events and the final
//! message must equal those of the non-async `Pipeline` fed the same bytes,
//! and the SSE items those of `sse::decode`.
//!
//! Only 127.0.0.1; every loop is bounded, pauses are capped per body, and
//! the whole run is under a timeout. Ignored when the
//! fixtures are absent.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use crate::common::recordings::{pieces, pipeline_reference, recorded_bodies};
use crate::common::Rng;
use bytes::Bytes;
use futures::StreamExt;
use http_body_util::{combinators::BoxBody, BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use llmstream::sse::{self, Item};
use llmstream::stream::{BodyStreamExt, StreamError};

/// Pauses per body at most, each 1 to 3 ms.
const MAX_PAUSES: u32 = 20;

type Body = BoxBody<Bytes, std::io::Error>;

/// Serves `/bodies/{i}?seed={s}` (body `i` in pieces chosen by seed `s`)
/// and `/cut/{i}` (the first half of body `i`, then the connection breaks).
async fn serve(bodies: Arc<Vec<(String, Vec<u8>)>>) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let addr = listener.local_addr().expect("bound");
    tokio::spawn(async move {
        // Ends with the test's runtime.
        while let Ok((tcp, _)) = listener.accept().await {
            let bodies = bodies.clone();
            tokio::spawn(async move {
                let service = service_fn(move |request: Request<Incoming>| {
                    let bodies = bodies.clone();
                    async move { Ok::<_, Infallible>(respond(&request, &bodies)) }
                });
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(tcp), service)
                    .await;
            });
        }
    });
    addr
}

fn respond(request: &Request<Incoming>, bodies: &[(String, Vec<u8>)]) -> Response<Body> {
    let path = request.uri().path();
    let seed: u64 = request
        .uri()
        .query()
        .and_then(|q| q.strip_prefix("seed="))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let (cut, index) = match path.split('/').collect::<Vec<_>>()[..] {
        ["", "bodies", i] => (false, i.parse::<usize>().ok()),
        ["", "cut", i] => (true, i.parse::<usize>().ok()),
        _ => (false, None),
    };
    let Some((_, bytes)) = index.and_then(|i| bodies.get(i)) else {
        let mut response = Response::new(
            Full::new(Bytes::from_static(b"not found"))
                .map_err(|never| match never {})
                .boxed(),
        );
        *response.status_mut() = StatusCode::NOT_FOUND;
        return response;
    };
    let bytes = if cut {
        &bytes[..bytes.len() / 2]
    } else {
        &bytes[..]
    };
    let mut frames: Vec<Result<Frame<Bytes>, std::io::Error>> = pieces(bytes, seed, 48)
        .into_iter()
        .map(|piece| Ok(Frame::data(Bytes::from(piece))))
        .collect();
    if cut {
        frames.push(Err(std::io::Error::other("the server broke off")));
    }
    let mut rng = Rng::new(seed ^ 0xA5A5);
    let mut pauses = 0;
    let paced = futures::stream::iter(frames).then(move |frame| {
        let pause = if pauses < MAX_PAUSES && rng.range(0, 7) == 0 {
            pauses += 1;
            Some(Duration::from_millis(rng.range(1, 3)))
        } else {
            None
        };
        async move {
            if let Some(pause) = pause {
                tokio::time::sleep(pause).await;
            }
            frame
        }
    });
    Response::builder()
        .header("content-type", "text/event-stream")
        .body(BodyExt::boxed(StreamBody::new(paced)))
        .expect("a valid response")
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(30))
        .build()
        .expect("a client")
}

async fn get(client: &reqwest::Client, url: String) -> reqwest::Response {
    let response = client
        .get(&url)
        .send()
        .await
        .expect("the loopback server answers");
    assert_eq!(response.status(), 200, "{url}");
    assert_eq!(
        response
            .headers()
            .get("transfer-encoding")
            .and_then(|v| v.to_str().ok()),
        Some("chunked"),
        "{url}"
    );
    response
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
async fn recorded_streams_over_http_equal_the_non_async_path() {
    let bodies = recorded_bodies();
    let bodies = Arc::new(bodies);
    let addr = serve(bodies.clone()).await;
    let client = client();

    // All bodies at once, interleaved on this task (`join_all`: a
    // `Pipeline` is not `Send`, so its stream cannot go to `tokio::spawn`).
    let tasks = (0..bodies.len()).map(|index| {
        let (bodies, client) = (bodies.clone(), client.clone());
        async move {
            let (name, body) = &bodies[index];
            let seed = index as u64 * 7919;

            // Normalized provider events.
            let url = format!("http://{addr}/bodies/{index}?seed={seed}");
            let mut events = get(&client, url).await.bytes_stream().provider_events();
            let mut got = Vec::new();
            while let Some(event) = events.next().await {
                got.push(event.unwrap_or_else(|e| panic!("{name}: {e}")));
            }
            let (want_events, want_message) = pipeline_reference(body);
            assert_eq!(got, want_events, "{name}");
            assert_eq!(
                events.message().map(|m| m.to_value()),
                want_message,
                "{name}"
            );

            // SSE items, the same body cut differently.
            let url = format!("http://{addr}/bodies/{index}?seed={}", seed + 1);
            let mut received = 0usize;
            let items: Vec<Item> = get(&client, url)
                .await
                .bytes_stream()
                .inspect(|_| received += 1)
                .sse_items()
                .map(|item| item.unwrap_or_else(|e| panic!("{name}: {e}")))
                .collect()
                .await;
            assert_eq!(items, sse::decode(body).unwrap(), "{name}");
            (got.len(), received)
        }
    });
    let all = futures::future::join_all(tasks);
    let counts = tokio::time::timeout(Duration::from_secs(60), all)
        .await
        .expect("all bodies within a minute");
    let events: usize = counts.iter().map(|c| c.0).sum();
    let pieces: usize = counts.iter().map(|c| c.1).sum();
    eprintln!(
        "{} recorded bodies over HTTP: {events} events, the SSE pass in {pieces} pieces",
        bodies.len()
    );
    assert!(events > 0);
    // The body really arrived in pieces, not in one read.
    assert!(pieces > 4 * bodies.len(), "{pieces} pieces");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
async fn a_broken_connection_is_a_body_error() {
    let bodies = recorded_bodies();
    let bodies = Arc::new(bodies);
    let addr = serve(bodies.clone()).await;
    let client = client();
    let run = async {
        for index in [0, bodies.len() / 2, bodies.len() - 1] {
            let (name, body) = &bodies[index];
            let response = get(&client, format!("http://{addr}/cut/{index}?seed=3")).await;
            let mut events = response.bytes_stream().provider_events();
            let mut body_errors = 0;
            let mut polls = 0;
            while let Some(event) = events.next().await {
                polls += 1;
                assert!(polls < 100_000, "{name}: the stream never ended");
                match event {
                    Ok(_) => {}
                    Err(StreamError::Body(_)) => body_errors += 1,
                    Err(StreamError::Sse(e)) => panic!("{name}: {e}"),
                }
            }
            assert!(body_errors >= 1, "{name}: the break was not reported");
            // What did arrive was read (the bytes in flight when the
            // connection broke may be lost, so no exact comparison here).
            let (half_events, _) = pipeline_reference(&body[..body.len() / 2]);
            if !half_events.is_empty() {
                assert!(events.message().is_some(), "{name}");
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), run)
        .await
        .expect("within 30 s");
}
