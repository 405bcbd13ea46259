//! `llmstream gateway` on loopback: a fake upstream (a thread replaying a
//! recorded body, keeping the request it got), the gateway as a process,
//! and a plain HTTP/1.1 client. Every pair of the four APIs, both ways:
//! the upstream gets the request in its form on its route, the client
//! reads the served form back as the same message; whole responses, error
//! statuses, bad bodies, a pausing upstream whose deltas must arrive before
//! its next write.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use llmstream::providers::{Message, Pipeline, Provider};

const APIS: [(Provider, &str); 4] = [
    (Provider::OpenAiChat, "openai-chat"),
    (Provider::OpenAiResponses, "openai-responses"),
    (Provider::Anthropic, "anthropic"),
    (Provider::Gemini, "gemini"),
];

/// A recorded body of each API, in the repository.
fn recording(api: Provider) -> Vec<u8> {
    let path = match api {
        Provider::OpenAiChat => "demo/openai-parallel-tools.sse",
        Provider::Anthropic => "demo/anthropic-thinking-tool.sse",
        Provider::Gemini => "../llmstream-tests/tests/data/gemini/function_call_whole.sse",
        Provider::OpenAiResponses => "../llmstream-tests/tests/data/openai/resp_reasoning.sse",
    };
    std::fs::read(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn read(body: &[u8], api: Provider) -> Message {
    let mut pipeline = Pipeline::with_provider(api);
    pipeline.feed(body).unwrap();
    pipeline.finish().unwrap();
    while pipeline.next_event().is_some() {}
    pipeline
        .message()
        .cloned()
        .unwrap_or_else(|| Message::new(api))
}

/// What one exchange with the fake upstream was.
struct Exchange {
    request_line: String,
    headers: String,
    body: String,
}

/// The reply of the fake upstream: a status, and the body in pieces with
/// a pause after each; with a gate, it waits after each piece until the
/// test opens it.
#[derive(Clone)]
struct Reply {
    status: u16,
    content_type: &'static str,
    pieces: Vec<Vec<u8>>,
    pause: Duration,
    gate: Option<std::sync::Arc<std::sync::Mutex<mpsc::Receiver<()>>>>,
    /// Told how many pieces were written when a write failed (the
    /// gateway closed the upstream connection).
    broken: Option<mpsc::Sender<usize>>,
}

/// A listener on a free loopback port whose queue holds a thousand
/// connections at once (std's holds 128).
fn listener() -> TcpListener {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .unwrap();
    let _entered = runtime.enter();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(4096).unwrap().into_std().unwrap();
    listener.set_nonblocking(false).unwrap();
    listener
}

/// A fake upstream on a free port, answering each request with `reply`;
/// each request it got is sent on the channel.
fn upstream(reply: Reply) -> (String, mpsc::Receiver<Exchange>) {
    let listener = listener();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let (tx, reply) = (tx.clone(), reply.clone());
            thread::spawn(move || {
                let _ = answer(stream, &reply, &tx);
            });
        }
    });
    (base, rx)
}

fn answer(stream: TcpStream, reply: &Reply, tx: &mpsc::Sender<Exchange>) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let (request_line, headers, body) = read_message(&mut reader)?;
    let _ = tx.send(Exchange {
        request_line,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 {} X\r\ncontent-type: {}\r\nconnection: close\r\n\r\n",
        reply.status, reply.content_type
    )?;
    for (written, piece) in reply.pieces.iter().enumerate() {
        if let Err(e) = stream.write_all(piece).and_then(|()| stream.flush()) {
            if let Some(broken) = &reply.broken {
                let _ = broken.send(written);
            }
            return Err(e);
        }
        thread::sleep(reply.pause);
        if let Some(gate) = &reply.gate {
            let gate = gate.lock().unwrap();
            if gate.recv_timeout(Duration::from_secs(30)).is_err() {
                break;
            }
        }
    }
    Ok(())
}

/// A request or response head and its body (by content-length, or
/// chunked, or to the end).
fn read_message(reader: &mut impl BufRead) -> std::io::Result<(String, String, Vec<u8>)> {
    let mut first = String::new();
    reader.read_line(&mut first)?;
    let mut headers = String::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        if line == "\r\n" || line.is_empty() {
            break;
        }
        headers.push_str(&line.to_ascii_lowercase());
    }
    let length = headers
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map(|n| n.trim().parse::<usize>().unwrap());
    let mut body = Vec::new();
    if let Some(n) = length {
        body.resize(n, 0);
        reader.read_exact(&mut body)?;
    } else if headers.contains("transfer-encoding: chunked") {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if n == 0 {
                break;
            }
            let mut chunk = vec![0; n + 2];
            reader.read_exact(&mut chunk)?;
            body.extend_from_slice(&chunk[..n]);
        }
    } else if !first.starts_with("POST") {
        reader.read_to_end(&mut body)?;
    }
    Ok((first.trim_end().to_string(), headers, body))
}

struct Gateway {
    child: Child,
    address: String,
}

impl Drop for Gateway {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn gateway(served: &str, upstream_format: &str, base: &str, extra: &[&str]) -> Gateway {
    let mut child = Command::new(env!("CARGO_BIN_EXE_llmstream"))
        .args(["gateway", "--listen", "127.0.0.1:0", "--upstream", base])
        .args(["--upstream-format", upstream_format, "--serve", served])
        .args(extra)
        .env("OPENAI_API_KEY", "test-openai")
        .env("ANTHROPIC_API_KEY", "test-anthropic")
        .env("GEMINI_API_KEY", "test-gemini")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let address = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split(',').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    thread::spawn(move || {
        let mut rest = String::new();
        let _ = stderr.read_to_string(&mut rest);
    });
    Gateway { child, address }
}

/// The served API's request: route and body, text and a tool.
fn client_request(api: Provider, stream: bool) -> (String, String) {
    let tool_schema = r#"{"type":"object","properties":{"city":{"type":"string"}}}"#;
    match api {
        Provider::OpenAiChat => (
            "/v1/chat/completions".into(),
            format!(
                r#"{{"model":"m","stream":{stream},"messages":[{{"role":"system","content":"Be brief."}},{{"role":"user","content":"Weather?"}}],"tools":[{{"type":"function","function":{{"name":"get_weather","parameters":{tool_schema}}}}}],"max_tokens":100,"temperature":0.5,"stop":["END"]}}"#
            ),
        ),
        Provider::OpenAiResponses => (
            "/v1/responses".into(),
            format!(
                r#"{{"model":"m","stream":{stream},"instructions":"Be brief.","input":"Weather?","tools":[{{"type":"function","name":"get_weather","parameters":{tool_schema}}}],"max_output_tokens":100}}"#
            ),
        ),
        Provider::Anthropic => (
            "/v1/messages".into(),
            format!(
                r#"{{"model":"m","stream":{stream},"system":"Be brief.","max_tokens":100,"messages":[{{"role":"user","content":"Weather?"}}],"tools":[{{"name":"get_weather","input_schema":{tool_schema}}}],"stop_sequences":["END"]}}"#
            ),
        ),
        Provider::Gemini => (
            format!(
                "/v1beta/models/m:{}",
                if stream {
                    "streamGenerateContent?alt=sse"
                } else {
                    "generateContent"
                }
            ),
            format!(
                r#"{{"systemInstruction":{{"parts":[{{"text":"Be brief."}}]}},"contents":[{{"role":"user","parts":[{{"text":"Weather?"}}]}}],"tools":[{{"functionDeclarations":[{{"name":"get_weather","parameters":{tool_schema}}}]}}],"generationConfig":{{"maxOutputTokens":100}}}}"#
            ),
        ),
    }
}

/// Sends a POST of `body` to the gateway (the connection closes after the
/// response); the stream to read the response from.
fn send(address: &str, path: &str, body: &str) -> TcpStream {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nhost: {address}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    stream
}

/// POSTs `body` to the gateway; the status and the response body.
fn post(address: &str, path: &str, body: &str) -> (u16, Vec<u8>) {
    let mut reader = BufReader::new(send(address, path, body));
    let (status, headers, mut bytes) = read_message(&mut reader).unwrap();
    if !headers.contains("content-length") && !headers.contains("chunked") {
        reader.read_to_end(&mut bytes).unwrap();
    }
    let code = status.split(' ').nth(1).unwrap().parse().unwrap();
    (code, bytes)
}

fn reply(api: Provider) -> Reply {
    Reply {
        status: 200,
        content_type: "text/event-stream",
        pieces: recording(api).chunks(700).map(<[u8]>::to_vec).collect(),
        pause: Duration::ZERO,
        gate: None,
        broken: None,
    }
}

/// The part of a message a client reads: text, tool calls.
fn gist(message: &Message) -> (String, Vec<(String, String, String)>) {
    let Some(choice) = message.choices.get(&0) else {
        return (String::new(), Vec::new());
    };
    let calls = choice
        .tool_calls
        .values()
        .map(|c| {
            let arguments = c
                .arguments
                .as_ref()
                .map(|a| a.to_json())
                .unwrap_or_default();
            (c.id.clone(), c.name.clone(), arguments)
        })
        .collect();
    (choice.text.clone(), calls)
}

#[test]
fn every_pair_streams_both_ways() {
    for (upstream_api, upstream_name) in APIS {
        let (base, requests) = upstream(reply(upstream_api));
        let want = gist(&read(&recording(upstream_api), upstream_api));
        for (served, served_name) in APIS {
            let gateway = gateway(served_name, upstream_name, &base, &[]);
            let (path, body) = client_request(served, true);
            let (status, bytes) = post(&gateway.address, &path, &body);
            assert_eq!(
                status,
                200,
                "{served_name} over {upstream_name}: {}",
                String::from_utf8_lossy(&bytes)
            );
            let got = gist(&read(&bytes, served));
            assert_eq!(got, want, "{served_name} over {upstream_name}");
            let exchange = requests.recv_timeout(Duration::from_secs(5)).unwrap();
            let route = match upstream_api {
                Provider::OpenAiChat => "POST /v1/chat/completions ",
                Provider::OpenAiResponses => "POST /v1/responses ",
                Provider::Anthropic => "POST /v1/messages ",
                Provider::Gemini => "POST /v1/models/m:streamGenerateContent?alt=sse ",
            };
            assert!(
                exchange.request_line.starts_with(route),
                "{}",
                exchange.request_line
            );
            let key = match upstream_api {
                Provider::Anthropic => "x-api-key: test-anthropic",
                Provider::Gemini => "x-goog-api-key: test-gemini",
                _ => "authorization: bearer test-openai",
            };
            assert!(
                exchange.headers.contains(key),
                "{upstream_name}: {}",
                exchange.headers
            );
            let sent: serde_json::Value = serde_json::from_str(&exchange.body).unwrap();
            let text = sent.to_string();
            assert!(
                text.contains("Weather?") && text.contains("Be brief."),
                "{text}"
            );
            assert!(text.contains("get_weather"), "{text}");
        }
    }
}

#[test]
fn a_request_without_stream_gets_the_whole_response() {
    let (base, _requests) = upstream(reply(Provider::Anthropic));
    let want = gist(&read(&recording(Provider::Anthropic), Provider::Anthropic));
    for (served, served_name) in APIS {
        let gateway = gateway(served_name, "anthropic", &base, &[]);
        let (path, body) = client_request(served, false);
        let (status, bytes) = post(&gateway.address, &path, &body);
        assert_eq!(status, 200, "{served_name}");
        let whole: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let text = match served {
            Provider::OpenAiChat => whole["choices"][0]["message"]["content"].clone(),
            Provider::Anthropic => whole["content"]
                .as_array()
                .unwrap()
                .iter()
                .find(|b| b["type"] == "text")
                .map(|b| b["text"].clone())
                .unwrap(),
            Provider::OpenAiResponses => whole["output"]
                .as_array()
                .unwrap()
                .iter()
                .find(|i| i["type"] == "message")
                .map(|i| i["content"][0]["text"].clone())
                .unwrap(),
            Provider::Gemini => whole["candidates"][0]["content"]["parts"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p.get("text").is_some() && p.get("thought").is_none())
                .map(|p| p["text"].clone())
                .unwrap(),
        };
        assert_eq!(text, want.0, "{served_name}: {whole}");
    }
}

#[test]
fn errors_come_back_in_the_served_shape() {
    let (base, _requests) = upstream(Reply {
        status: 429,
        content_type: "application/json",
        pieces: vec![br#"{"error":{"message":"slow down","type":"rate_limit_error"}}"#.to_vec()],
        pause: Duration::ZERO,
        gate: None,
        broken: None,
    });
    let gateway = gateway("anthropic", "openai-chat", &base, &[]);
    let (path, body) = client_request(Provider::Anthropic, true);
    let (status, bytes) = post(&gateway.address, &path, &body);
    assert_eq!(status, 429);
    let error: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(error["type"], "error");
    assert_eq!(error["error"]["message"], "slow down");
    assert_eq!(error["error"]["type"], "rate_limit_error");
    let (status, bytes) = post(&gateway.address, &path, "{not json");
    assert_eq!(status, 400);
    let error: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(error["error"]["type"], "invalid_request_error");
    let (status, _) = post(&gateway.address, "/v1/nowhere", "{}");
    assert_eq!(status, 404);
}

#[test]
fn a_stalled_upstream_ends_the_stream_with_an_error_event() {
    let mut pieces: Vec<Vec<u8>> = recording(Provider::OpenAiChat)
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    pieces.truncate(8);
    // The upstream writes eight lines and then stays silent (its gate is
    // never opened); the gateway gives up after one second.
    let (_never, gate) = mpsc::channel();
    let (base, _requests) = upstream(Reply {
        status: 200,
        content_type: "text/event-stream",
        pieces,
        pause: Duration::ZERO,
        gate: Some(std::sync::Arc::new(std::sync::Mutex::new(gate))),
        broken: None,
    });
    let gateway = gateway("anthropic", "openai-chat", &base, &["--timeout", "1"]);
    let (path, body) = client_request(Provider::Anthropic, true);
    let (status, bytes) = post(&gateway.address, &path, &body);
    assert_eq!(status, 200);
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("event: error"), "{text}");
    assert!(text.contains("stalled past the timeout"), "{text}");
    // The stream still ends as a stream does: the last events are there.
    assert!(text.contains("event: message_delta"), "{text}");
}

#[test]
fn a_delta_reaches_the_client_before_the_upstreams_next_write() {
    let lines: Vec<Vec<u8>> = recording(Provider::OpenAiChat)
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    let count = lines.len();
    // The upstream writes one line, then waits until the test opens its
    // gate: the test opens it only once the client has read the text
    // delta. A gateway that held the delta back until more upstream bytes
    // came would leave the client waiting, and the read fails.
    let (open, gate) = mpsc::channel();
    let (base, _requests) = upstream(Reply {
        status: 200,
        content_type: "text/event-stream",
        pieces: lines,
        pause: Duration::ZERO,
        gate: Some(std::sync::Arc::new(std::sync::Mutex::new(gate))),
        broken: None,
    });
    let gateway = gateway("anthropic", "openai-chat", &base, &[]);
    let (path, body) = client_request(Provider::Anthropic, true);
    let mut stream = send(&gateway.address, &path, &body);
    // The upstream may write up to the blank line that ends the event of
    // the first text delta, and no further.
    let text_line = recording(Provider::OpenAiChat)
        .split_inclusive(|&b| b == b'\n')
        .position(|l| String::from_utf8_lossy(l).contains("\"delta\":{\"content\":\""))
        .unwrap();
    let opened = text_line + 1;
    for _ in 0..opened {
        open.send(()).unwrap();
    }
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("text_delta") {
        let n = match stream.read(&mut buf) {
            Ok(n) => n,
            Err(e) => panic!("no text delta while the upstream waits after its line: {e}"),
        };
        assert!(n > 0, "the stream ended before a text delta");
        seen.extend_from_slice(&buf[..n]);
    }
    for _ in opened..count {
        let _ = open.send(());
    }
    let mut rest = Vec::new();
    let _ = stream.read_to_end(&mut rest);
}

/// A client that goes away cancels the upstream request: the gateway
/// closes its upstream connection, and the upstream's writes fail before
/// it has written its whole body (megabytes: more than the sockets'
/// buffers hold, so the upstream can only finish if someone reads).
#[test]
fn a_client_that_disconnects_cancels_the_upstream_request() {
    let delta = br#"data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"more text, and more text "},"finish_reason":null}]}

"#;
    let mut pieces = vec![recording(Provider::OpenAiChat)
        .split_inclusive(|&b| b == b'\n')
        .take(4)
        .flatten()
        .copied()
        .collect::<Vec<u8>>()];
    pieces.extend(std::iter::repeat_n(delta.to_vec(), 40_000));
    let count = pieces.len();
    let (broken, writes) = mpsc::channel();
    let (base, _requests) = upstream(Reply {
        status: 200,
        content_type: "text/event-stream",
        pieces,
        pause: Duration::ZERO,
        gate: None,
        broken: Some(broken),
    });
    let gateway = gateway("anthropic", "openai-chat", &base, &[]);
    let (path, body) = client_request(Provider::Anthropic, true);
    let mut stream = send(&gateway.address, &path, &body);
    let mut buf = [0u8; 4096];
    assert!(stream.read(&mut buf).unwrap() > 0);
    drop(stream);
    let written = writes
        .recv_timeout(Duration::from_secs(30))
        .expect("the upstream connection was never closed");
    assert!(written < count, "{written} of {count} pieces written");
}

/// A thousand streams at once through one gateway: every one completes
/// with the translation of the whole recording.
#[test]
fn a_thousand_concurrent_streams_all_complete() {
    let (base, requests) = upstream(reply(Provider::OpenAiChat));
    let want = gist(&read(
        &recording(Provider::OpenAiChat),
        Provider::OpenAiChat,
    ));
    let gateway = gateway("anthropic", "openai-chat", &base, &[]);
    let (path, body) = client_request(Provider::Anthropic, true);
    let start = std::sync::Arc::new(std::sync::Barrier::new(1000));
    let clients: Vec<_> = (0..1000)
        .map(|_| {
            let (address, path, body) = (gateway.address.clone(), path.clone(), body.clone());
            let start = std::sync::Arc::clone(&start);
            thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn(move || {
                    start.wait();
                    let (status, bytes) = post(&address, &path, &body);
                    (status, gist(&read(&bytes, Provider::Anthropic)))
                })
                .unwrap()
        })
        .collect();
    for client in clients {
        let (status, got) = client.join().unwrap();
        assert_eq!(status, 200);
        assert_eq!(got, want);
    }
    assert_eq!(requests.try_iter().count(), 1000);
}

/// The official SDKs as clients (`tests/sdk/test_gateway_sdks.py`: the
/// openai SDK's Chat and Responses stream helpers and the anthropic SDK's,
/// over each of the four upstreams). `.ci/python.sh` runs that file in
/// its virtual environment; here it runs only when asked for, with a
/// `python3` that has pytest, the llmstream package and both SDKs.
#[test]
#[ignore = "needs python3 with pytest, llmstream, openai and anthropic: run by .ci/python.sh"]
fn the_official_sdks_as_clients() {
    let status = Command::new("python3")
        .args(["-m", "pytest", "-q"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/sdk"))
        .env("LLMSTREAM_BIN", env!("CARGO_BIN_EXE_llmstream"))
        .status()
        .unwrap();
    assert!(status.success());
}
