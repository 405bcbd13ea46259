//! The HTTP side: one task per connection (hyper, HTTP/1.1), one upstream
//! request per client request, the translated stream handed to the client
//! piece by piece as the upstream's arrive.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request as HttpRequest, Response, StatusCode};
use hyper_util::rt::TokioIo;
use llmstream::providers::encode::{Output, WireEncoder};
use llmstream::providers::{ErrorInfo, Pipeline, Provider, StreamEvent};
use llmstream::sse::{Decoder, ItemRef};
use serde_json::{json, Value};
use tokio::net::{TcpListener, TcpSocket};
use tokio::sync::mpsc;

use super::request::Request;
use super::{upstream, whole, Config};
use crate::Failure;

/// The largest request body read (images in base64 make them large).
const MAX_BODY: usize = 64 << 20;

type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

struct State {
    config: Config,
    client: reqwest::Client,
}

pub async fn serve(listen: SocketAddr, config: Config) -> Result<(), Failure> {
    let listener =
        bind(listen).map_err(|e| Failure::Usage(format!("cannot listen on {listen}: {e}")))?;
    let client = reqwest::Client::builder()
        .connect_timeout(config.timeout)
        .build()
        .map_err(|e| Failure::Input(format!("cannot make the HTTP client: {e}")))?;
    let state = Arc::new(State { config, client });
    eprintln!(
        "llmstream gateway: serving {} on http://{}, upstream {} ({})",
        state.config.served.name(),
        listener.local_addr().map_or(listen, |a| a),
        state.config.upstream,
        state.config.upstream_format.name()
    );
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let state = Arc::clone(&state);
        tokio::spawn(async move {
            let service = service_fn(move |request| {
                let state = Arc::clone(&state);
                async move { Ok::<_, Infallible>(handle(&state, request).await) }
            });
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// The listening socket, its queue long enough for a burst of thousands
/// of connections (the system's own limit, `somaxconn`, may cap it).
fn bind(listen: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = match listen {
        SocketAddr::V4(_) => TcpSocket::new_v4()?,
        SocketAddr::V6(_) => TcpSocket::new_v6()?,
    };
    socket.set_reuseaddr(true)?;
    socket.bind(listen)?;
    socket.listen(4096)
}

async fn handle(state: &State, request: HttpRequest<Incoming>) -> Response<Body> {
    let served = state.config.served;
    let Some((model, stream_path)) = route(served, request.method(), request.uri().path()) else {
        return error(
            served,
            StatusCode::NOT_FOUND,
            "no such route on this gateway",
        );
    };
    let body = match Limited::new(request.into_body(), MAX_BODY).collect().await {
        Ok(body) => body.to_bytes(),
        Err(e) => {
            return error(
                served,
                StatusCode::BAD_REQUEST,
                &format!("cannot read the body: {e}"),
            )
        }
    };
    let neutral = match Request::read(served, &body, model.as_deref(), stream_path) {
        Ok(request) => request,
        Err(bad) => return error(served, StatusCode::BAD_REQUEST, &bad.0),
    };
    let upstream_body = neutral.write(state.config.upstream_format);
    let sent = upstream::build(&state.client, &state.config, &neutral.model, &upstream_body).send();
    let response = match tokio::time::timeout(state.config.timeout, sent).await {
        Ok(Ok(response)) => response,
        Ok(Err(e)) => return error(served, StatusCode::BAD_GATEWAY, &format!("upstream: {e}")),
        Err(_) => {
            return error(
                served,
                StatusCode::GATEWAY_TIMEOUT,
                "upstream: no answer in time",
            )
        }
    };
    let status = response.status();
    if !status.is_success() {
        let text = response.text().await.unwrap_or_default();
        let status = StatusCode::from_u16(status.as_u16()).unwrap_or(StatusCode::BAD_GATEWAY);
        return error(served, status, &upstream_message(&text));
    }
    let (sender, receiver) = mpsc::channel::<Bytes>(64);
    let timeout = state.config.timeout;
    let task = tokio::spawn(translate(response, served, sender, timeout));
    if neutral.stream {
        let body = StreamBody::new(futures_util::stream::unfold(
            receiver,
            |mut receiver| async move {
                let bytes = receiver.recv().await?;
                Some((Ok::<_, Infallible>(Frame::data(bytes)), receiver))
            },
        ));
        return Response::builder()
            .header("content-type", "text/event-stream")
            .header("cache-control", "no-cache")
            .body(BodyExt::boxed(body))
            .unwrap_or_else(|_| internal());
    }
    let mut receiver = receiver;
    let mut translated = Vec::new();
    while let Some(bytes) = receiver.recv().await {
        translated.extend_from_slice(&bytes);
    }
    let _ = task.await;
    let whole = whole::fold(served, &payloads(&translated));
    json_response(StatusCode::OK, &whole)
}

/// The upstream's body through the library: SSE, the upstream's reader,
/// the served wire's encoder, each piece sent on as it is made. An error
/// mid-stream or a stall becomes the served wire's error event, and the
/// stream ends cleanly; a client that went away stops it (and drops the
/// upstream request).
async fn translate(
    mut response: reqwest::Response,
    served: Provider,
    sender: mpsc::Sender<Bytes>,
    timeout: std::time::Duration,
) {
    let mut pipeline = Pipeline::new();
    let mut encoder = WireEncoder::new(served);
    let mut failure = None;
    loop {
        match tokio::time::timeout(timeout, response.chunk()).await {
            Ok(Ok(Some(piece))) => {
                if let Err(e) = pipeline.feed(&piece) {
                    failure = Some(e.to_string());
                    break;
                }
                if !send(&mut pipeline, &mut encoder, &sender).await {
                    return;
                }
            }
            Ok(Ok(None)) => break,
            Ok(Err(e)) => {
                failure = Some(format!("upstream: {e}"));
                break;
            }
            Err(_) => {
                failure = Some(String::from("upstream: stalled past the timeout"));
                break;
            }
        }
    }
    if let Err(e) = pipeline.finish() {
        failure.get_or_insert(e.to_string());
    }
    if !send(&mut pipeline, &mut encoder, &sender).await {
        return;
    }
    if let Some(message) = failure {
        encoder.feed(&StreamEvent::Error(
            ErrorInfo::new(message).with_kind("api_error"),
        ));
    }
    let Ok(()) = encoder.finish();
    flush(&mut encoder, &sender).await;
}

/// The events the pipeline has, through the encoder, to the client;
/// false when the client went away.
async fn send(
    pipeline: &mut Pipeline,
    encoder: &mut WireEncoder,
    sender: &mpsc::Sender<Bytes>,
) -> bool {
    while let Some(event) = pipeline.next_event() {
        encoder.feed(&event);
    }
    flush(encoder, sender).await
}

async fn flush(encoder: &mut WireEncoder, sender: &mpsc::Sender<Bytes>) -> bool {
    let mut out = Vec::new();
    while let Some(output) = encoder.next_event() {
        match output {
            Output::Sse(bytes) => out.extend_from_slice(&bytes),
            Output::Loss(loss) => eprintln!("llmstream gateway: {loss}"),
        }
    }
    out.is_empty() || sender.send(Bytes::from(out)).await.is_ok()
}

/// The data of each event of a translated stream, as JSON.
fn payloads(bytes: &[u8]) -> Vec<Value> {
    let mut decoder = Decoder::new();
    let mut out = Vec::new();
    let mut take = |decoder: &mut Decoder| {
        while let Some(Ok(item)) = decoder.next_event() {
            if let ItemRef::Event(event) = item {
                if let Ok(value) = serde_json::from_str(event.data) {
                    out.push(value);
                }
            }
        }
    };
    decoder.feed(bytes);
    take(&mut decoder);
    let _ = decoder.finish();
    take(&mut decoder);
    out
}

/// The served route: the model (Gemini's URL names it) and whether the
/// route itself asks for a stream (Gemini's `streamGenerateContent`).
fn route(served: Provider, method: &Method, path: &str) -> Option<(Option<String>, bool)> {
    if method != Method::POST {
        return None;
    }
    match served {
        Provider::OpenAiChat => path.ends_with("/chat/completions").then_some((None, false)),
        Provider::OpenAiResponses => path.ends_with("/responses").then_some((None, false)),
        Provider::Anthropic => path.ends_with("/messages").then_some((None, false)),
        Provider::Gemini => {
            let (_, tail) = path.rsplit_once("/models/")?;
            let (model, method) = tail.split_once(':')?;
            match method {
                "streamGenerateContent" => Some((Some(model.to_string()), true)),
                "generateContent" => Some((Some(model.to_string()), false)),
                _ => None,
            }
        }
    }
}

/// The message of an upstream error body, in any API's error shape.
fn upstream_message(text: &str) -> String {
    let value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    let message = value["error"]["message"]
        .as_str()
        .or_else(|| value["message"].as_str())
        .or_else(|| value["error"].as_str());
    match message {
        Some(m) => m.to_string(),
        None if text.is_empty() => String::from("upstream error"),
        None => text.chars().take(500).collect(),
    }
}

/// An error response in the served API's shape.
fn error(served: Provider, status: StatusCode, message: &str) -> Response<Body> {
    let kind = match status.as_u16() {
        400 => "invalid_request_error",
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        429 => "rate_limit_error",
        _ => "api_error",
    };
    let body = match served {
        Provider::Anthropic => {
            json!({"type": "error", "error": {"type": kind, "message": message}})
        }
        Provider::Gemini => json!({"error": {
        "code": status.as_u16(), "message": message,
        "status": match status.as_u16() {
            400 => "INVALID_ARGUMENT", 401 => "UNAUTHENTICATED", 403 => "PERMISSION_DENIED",
            404 => "NOT_FOUND", 429 => "RESOURCE_EXHAUSTED", 504 => "DEADLINE_EXCEEDED",
            _ => "INTERNAL",
        }}}),
        _ => json!({"error": {"message": message, "type": kind, "param": null, "code": null}}),
    };
    json_response(status, &body)
}

fn json_response(status: StatusCode, body: &Value) -> Response<Body> {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(BodyExt::boxed(Full::new(Bytes::from(body.to_string()))))
        .unwrap_or_else(|_| internal())
}

fn internal() -> Response<Body> {
    let mut response = Response::new(BodyExt::boxed(Full::new(Bytes::new())));
    *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
    response
}
