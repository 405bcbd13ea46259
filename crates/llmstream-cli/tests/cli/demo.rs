//! `llmstream demo` and `llmstream accumulate`: the main job runs with no
//! terminal, no network and no files, and shows what the recordings hold.

use assert_cmd::Command;
use predicates::prelude::*;

fn llmstream() -> Command {
    Command::cargo_bin("llmstream").expect("the binary is built")
}

const OPENAI: &str = include_str!("../../demo/openai-parallel-tools.sse");
const ANTHROPIC: &str = include_str!("../../demo/anthropic-thinking-tool.sse");

#[test]
fn demo_replays_both_recordings_in_plain_mode() {
    let out = llmstream()
        .arg("demo")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    // Not a terminal: no escape sequences at all.
    assert!(!text.contains('\u{1b}'), "plain output has no ANSI codes");
    for expected in [
        "I'll check the weather in both cities",
        "get_weather(call_wx7Jk2) =",
        "\"city\": \"Lisbon\"",
        "search_flights(call_fl9Pq4) =",
        "\"children\": 1",
        "thinking › The user wants a short README",
        "write_file",
        "\"path\": \"docs/README.md\"",
        "finish: tool_use",
        "3 tool calls",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    // The footer times the library alone, without the pauses and drawing
    // of the replay.
    let footer = text.lines().last().unwrap_or("");
    assert!(
        footer.contains(" s on screen · library ") && footer.contains(" µs unpaced ("),
        "{footer:?}"
    );
    assert!(!footer.contains("parsing"), "{footer:?}");
}

#[test]
fn demo_rejects_a_bad_speed() {
    llmstream()
        .args(["demo", "--speed", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--speed"));
}

fn message(body: &str, flags: &[&str]) -> serde_json::Value {
    let out = llmstream()
        .arg("accumulate")
        .args(flags)
        .write_stdin(body)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).expect("one JSON line")
}

#[test]
fn accumulate_folds_the_openai_recording_into_the_contract_shape() {
    let m = message(OPENAI, &[]);
    assert_eq!(m["provider"], "openai-chat");
    assert_eq!(m["id"], "chatcmpl-demo7Qx");
    assert_eq!(m["model"], "gpt-4.1-2025-04-14");
    assert_eq!(m["complete"], true);
    assert_eq!(m["error"], serde_json::Value::Null);
    assert_eq!(m["usage"]["input_tokens"], 412);
    assert_eq!(m["usage"]["output_tokens"], 97);
    assert_eq!(m["usage"]["total_tokens"], 509);
    let choice = &m["choices"][0];
    assert_eq!(choice["index"], 0);
    assert_eq!(choice["role"], "assistant");
    assert_eq!(choice["finish_reason"], "tool_calls");
    assert!(choice["text"].as_str().unwrap().starts_with("I'll check"));
    let calls = choice["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["name"], "get_weather");
    assert_eq!(calls[0]["arguments"]["include"][1], "alerts");
    assert_eq!(calls[1]["id"], "call_fl9Pq4");
    assert_eq!(calls[1]["arguments"]["passengers"]["adults"], 2);
    let text: serde_json::Value =
        serde_json::from_str(calls[1]["arguments_text"].as_str().unwrap()).unwrap();
    assert_eq!(text, calls[1]["arguments"]);
    // Same message whatever the pieces.
    for flags in [&["--chunk-size", "1"][..], &["--random-chunks", "5"]] {
        assert_eq!(message(OPENAI, flags), m, "{flags:?}");
    }
}

#[test]
fn accumulate_folds_the_anthropic_recording() {
    let m = message(ANTHROPIC, &["--provider", "anthropic"]);
    assert_eq!(m["provider"], "anthropic");
    assert_eq!(m["complete"], true);
    let choice = &m["choices"][0];
    assert_eq!(choice["finish_reason"], "tool_use");
    assert!(choice["reasoning"]
        .as_str()
        .unwrap()
        .contains("docs/README.md"));
    assert_eq!(choice["text"], "I'll write the README now.");
    let call = &choice["tool_calls"][0];
    assert_eq!(call["name"], "write_file");
    assert_eq!(call["arguments"]["blocks"][0]["content"], "# llmstream");
    assert_eq!(m["usage"]["output_tokens"], 214);
    assert_eq!(m, message(ANTHROPIC, &["--random-chunks", "11"]));
}

/// `llmstream accumulate --events` on `body`: its events, parsed.
fn events(body: &str) -> Vec<serde_json::Value> {
    let out = llmstream()
        .args(["accumulate", "--events"])
        .write_stdin(body)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn accumulate_events_in_contract_forms() {
    let events = events(OPENAI);
    assert_eq!(events[0]["type"], "message_start");
    assert_eq!(events[0]["id"], "chatcmpl-demo7Qx");
    let start = events
        .iter()
        .find(|e| e["type"] == "tool_call_start")
        .unwrap();
    assert_eq!(
        (
            start["choice"].clone(),
            start["call"].clone(),
            start["name"].clone()
        ),
        (0.into(), 0.into(), "get_weather".into())
    );
    let fragments: String = events
        .iter()
        .filter(|e| e["type"] == "tool_call_delta" && e["call"] == 1)
        .map(|e| e["fragment"].as_str().unwrap().to_string())
        .collect();
    assert!(fragments.starts_with("{\"from\""));
    assert!(events
        .iter()
        .any(|e| e["type"] == "argument" && e["path"] == "passengers.adults" && e["value"] == 2));
    let city: String = events
        .iter()
        .filter(|e| e["type"] == "argument_delta" && e["path"] == "city")
        .map(|e| e["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(city, "Lisbon");
    assert!(events
        .iter()
        .any(|e| e["type"] == "tool_call_end" && e["arguments"]["days"] == 3));
    assert!(events
        .iter()
        .any(|e| e["type"] == "finish" && e["reason"] == "tool_calls"));
    assert!(events
        .iter()
        .any(|e| e["type"] == "usage" && e["total_tokens"] == 509));
}

#[test]
fn accumulate_live_renders_plain_text_when_piped() {
    llmstream()
        .args(["accumulate", "--live"])
        .write_stdin(ANTHROPIC)
        .assert()
        .success()
        .stdout(predicate::str::contains("write_file(toolu_01DemoWr1te) ="))
        .stdout(predicate::str::contains("I'll write the README now."));
}

#[test]
fn accumulate_without_payloads_is_an_error() {
    // The same outcome with or without `--events` (which prints what the
    // body held first).
    llmstream()
        .arg("accumulate")
        .write_stdin(": just a comment\n\n")
        .assert()
        .code(1)
        .stderr("error: no provider payload found at byte 18, the end of the input\n");
    llmstream()
        .args(["accumulate", "--events"])
        .write_stdin("data: hello\n\n")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("data is not JSON"))
        .stderr(predicate::str::contains(
            "no provider payload found at byte 13",
        ));
    // A whole completion (the request lacked `stream: true`) is no stream:
    // said, and no message.
    for live in [false, true] {
        let mut cmd = llmstream();
        cmd.arg("accumulate");
        if live {
            cmd.arg("--live");
        }
        let out = cmd
            .write_stdin(
                "{\"id\":\"x\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Hi\"}}]}\n",
            )
            .assert()
            .code(1)
            .get_output()
            .clone();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(
            stderr.starts_with("error: no provider payload found at byte 108"),
            "{stderr}"
        );
        if !live {
            assert!(
                stderr.contains("a whole chat completion, not a stream"),
                "{stderr}"
            );
        }
    }
}

/// Payloads as JSON lines (a recording's chunks) and Gemini's JSON array
/// body are read as the SSE body of the same payloads is.
#[test]
fn accumulate_reads_json_lines_and_json_array_bodies() {
    let lines = concat!(
        "{\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n",
        "{\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n",
    );
    let m = message(lines, &[]);
    assert_eq!(m["choices"][0]["text"], "Hello");
    assert_eq!(m["complete"], true);
    let array = concat!(
        "[{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Hel\"}]}}]}\r\n,\r\n",
        "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"lo\"}]},\"finishReason\":\"STOP\"}]}\r\n]",
    );
    let m = message(array, &[]);
    assert_eq!(m["provider"], "gemini");
    assert_eq!(m["choices"][0]["text"], "Hello");
    assert_eq!(m["complete"], true);
}

#[test]
fn accumulate_says_when_the_given_provider_is_not_the_bodys() {
    // Another provider's payloads are left out, each reported: no payload
    // of the given provider's is no message, an error (exit 1).
    llmstream()
        .args(["accumulate", "--provider", "gemini"])
        .write_stdin(ANTHROPIC)
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains(
            "no provider payload found at byte 8079, the end of the input (first: SSE event 1: \
             the payload is shaped like anthropic, not gemini as given)",
        ));
    llmstream()
        .args(["accumulate", "--provider", "gemini", "--events"])
        .write_stdin(ANTHROPIC)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "SSE event 2: the payload is shaped like anthropic, not gemini as given",
        ));
    // An error payload proves nothing about the provider: no such report.
    llmstream()
        .args(["accumulate", "--provider", "gemini"])
        .write_stdin("data: {\"error\":{\"message\":\"quota\",\"code\":429}}\n\n")
        .assert()
        .success()
        .stdout(predicate::str::contains("shaped like").not());
}

#[test]
fn version_and_unknown_subcommands() {
    llmstream()
        .arg("--version")
        .assert()
        .success()
        .stdout(predicate::str::starts_with("llmstream "));
    llmstream()
        .arg("nonsense")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unrecognized subcommand"));
    for sub in [
        "json",
        "repair",
        "sse",
        "accumulate",
        "chunk",
        "actions",
        "demo",
    ] {
        llmstream()
            .args([sub, "--help"])
            .assert()
            .success()
            .stdout(predicate::str::contains("Example"));
    }
}

#[test]
fn a_speed_too_small_for_a_pause_is_bad_usage() {
    llmstream()
        .args(["demo", "--speed", "1e-300", "--no-pace"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--speed 1e-300 is too small"));
}

#[test]
fn accumulate_live_without_payloads_is_an_error_too() {
    llmstream()
        .args(["accumulate", "--live"])
        .write_stdin("garbage\n\n")
        .assert()
        .code(1)
        .stderr("error: no provider payload found at byte 9, the end of the input\n");
}

/// `n` > 1 choices stream in turns; live, the first streams and the others
/// are shown whole at the end, and token counts come once, after the text.
#[test]
fn accumulate_live_shows_each_choice_whole_and_usage_at_the_end() {
    let chunk = |choice: u32, text: &str| {
        format!("data: {{\"choices\":[{{\"index\":{choice},\"delta\":{{\"content\":\"{text}\"}}}}],\"usage\":{{\"prompt_tokens\":3,\"completion_tokens\":4,\"total_tokens\":7}}}}\n\n")
    };
    let body: String = [
        chunk(0, "Hel"),
        chunk(1, "Bon"),
        chunk(0, "lo"),
        chunk(1, "jour"),
        "data: [DONE]\n\n".to_string(),
    ]
    .concat();
    llmstream()
        .args(["accumulate", "--live"])
        .write_stdin(body)
        .assert()
        .success()
        .stdout(predicate::str::contains("Hello\n"))
        .stdout(predicate::str::contains("── choice 1 ──\nBonjour\n"))
        .stdout(predicate::str::ends_with("usage: 3 in, 4 out, 7 total\n"));
}

/// A tool the provider ran itself (Anthropic's `server_tool_use`) is of
/// its own family, in the message (`provider_tools`) and in the events
/// (`provider_tool_*`), never among the client's tool calls.
#[test]
fn accumulate_keeps_the_tools_the_provider_ran_apart() {
    let body = include_str!("../data/anthropic-server-tool.sse");
    let m = message(body, &[]);
    let tool = &m["choices"][0]["provider_tools"][0];
    assert_eq!(tool["name"], "web_search");
    assert_eq!(tool["type"], "server_tool_use");
    assert!(m["choices"][0]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .all(|call| call["name"] != "web_search"));
    let names: Vec<String> = events(body)
        .into_iter()
        .map(|e| e["type"].as_str().unwrap().to_string())
        .filter(|name| name.contains("tool"))
        .collect();
    assert!(
        names.contains(&"provider_tool_start".to_string()),
        "{names:?}"
    );
    assert!(
        names.contains(&"provider_tool_end".to_string()),
        "{names:?}"
    );
    llmstream()
        .args(["accumulate", "--live"])
        .write_stdin(body)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "⚙ web_search  srvtoolu_01  (run by the provider)\n",
        ));
    let openai = message(OPENAI, &[]);
    for call in openai["choices"][0]["tool_calls"].as_array().unwrap() {
        assert_eq!(call["type"], "function");
    }
    assert_eq!(openai["choices"][0].get("provider_tools"), None);
}

/// Gemini's citation sources and URL context print as citations of the
/// text part they cite, in the message's content.
#[test]
fn accumulate_prints_gemini_citations_on_their_text_part() {
    let body = concat!(
        r#"data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Spain won."}]},"urlContextMetadata":{"urlMetadata":[{"retrievedUrl":"https://uefa.example/","urlRetrievalStatus":"URL_RETRIEVAL_STATUS_SUCCESS"}]}}]}"#,
        "\n\n",
        r#"data: {"candidates":[{"content":{"role":"model","parts":[{"text":" 2-1."}]},"finishReason":"STOP","citationMetadata":{"citationSources":[{"startIndex":0,"endIndex":10,"uri":"https://uefa.example/final"}]}}]}"#,
        "\n\n",
    );
    let m = message(body, &["--provider", "gemini"]);
    let part = &m["choices"][0]["content"][0];
    assert_eq!(part["type"], "text");
    assert_eq!(part["text"], "Spain won. 2-1.");
    assert_eq!(
        part["citations"],
        serde_json::json!([
            {"urlContextMetadata": {"urlMetadata": [{"retrievedUrl": "https://uefa.example/", "urlRetrievalStatus": "URL_RETRIEVAL_STATUS_SUCCESS"}]}},
            {"citationSource": {"startIndex": 0, "endIndex": 10, "uri": "https://uefa.example/final"}}
        ])
    );
    assert_eq!(m["choices"][0]["content"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        m,
        message(body, &["--provider", "gemini", "--chunk-size", "1"])
    );
}

/// `accumulate` reads every JSON Lines recording of the fixtures (the
/// `*.chunks.txt` files) as it reads a body: a message of its provider.
#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn accumulate_reads_every_json_lines_recording() {
    let files: Vec<String> = llmstream_tests::fixtures::files("providers")
        .into_iter()
        .filter(|f| f.ends_with(".chunks.txt"))
        .collect();
    assert!(files.len() >= 19, "{files:?}");
    for file in files {
        let body = llmstream_tests::fixtures::read(&format!("providers/{file}"));
        let m = message(std::str::from_utf8(&body).unwrap(), &[]);
        let folder = file.split('/').next().unwrap_or("");
        let provider = m["provider"].as_str().unwrap_or("");
        let expected = match folder {
            "openai_compatible" => "openai-chat",
            other => &other.replace('_', "-"),
        };
        assert_eq!(provider, expected, "{file}");
        assert!(!m["choices"].as_array().unwrap().is_empty(), "{file}: {m}");
    }
}
