//! `llmstream translate` per the CLI contract: a raw SSE body in, the SSE
//! body of the `--to` wire out, which `accumulate` reads as the same
//! message; losses on stderr; several choices into a one-choice wire need
//! `--choice`.

use assert_cmd::Command;

const DEMO_OPENAI: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/demo/openai-parallel-tools.sse"
);
const DEMO_ANTHROPIC: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/demo/anthropic-thinking-tool.sse"
);

fn run(args: &[&str], stdin: &[u8]) -> (Vec<u8>, String) {
    let output = Command::cargo_bin("llmstream")
        .unwrap()
        .args(args)
        .write_stdin(stdin)
        .assert()
        .success()
        .get_output()
        .clone();
    (output.stdout, String::from_utf8(output.stderr).unwrap())
}

/// The message `accumulate` reads, as JSON.
fn message(body: &[u8]) -> serde_json::Value {
    let (out, _) = run(&["accumulate"], body);
    serde_json::from_slice(&out).unwrap()
}

#[test]
fn every_target_reads_back_as_the_same_message() {
    for source in [DEMO_OPENAI, DEMO_ANTHROPIC] {
        let original = message(&std::fs::read(source).unwrap());
        for target in ["openai-chat", "openai-responses", "anthropic", "gemini"] {
            let (bytes, _) = run(&["translate", source, "--to", target], b"");
            let back = message(&bytes);
            assert_eq!(back["provider"], target, "{source} → {target}");
            let (want, got) = (&original["choices"][0], &back["choices"][0]);
            for field in ["text", "reasoning"] {
                assert_eq!(got[field], want[field], "{source} → {target}: {field}");
            }
            let calls = |c: &serde_json::Value| -> Vec<(serde_json::Value, serde_json::Value, serde_json::Value)> {
                c["tool_calls"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| (t["id"].clone(), t["name"].clone(), t["arguments"].clone()))
                    .collect()
            };
            assert_eq!(calls(got), calls(want), "{source} → {target}: tool calls");
            assert_eq!(
                back["usage"]["input_tokens"],
                original["usage"]["input_tokens"]
            );
            assert_eq!(
                back["usage"]["output_tokens"],
                original["usage"]["output_tokens"]
            );
        }
    }
}

#[test]
fn what_the_target_cannot_carry_is_said_on_stderr_once() {
    let (_, stderr) = run(&["translate", DEMO_ANTHROPIC, "--to", "openai-chat"], b"");
    assert_eq!(
        stderr,
        "llmstream translate: openai-chat: reasoning signatures are left out (choice 0)\n"
    );
}

#[test]
fn several_choices_into_one_choice_wire_need_choice() {
    let chunk = |index: u64, text: &str, finish: &str| {
        format!(
            "data: {{\"id\":\"c\",\"model\":\"m\",\"choices\":[{{\"index\":{index},\"delta\":{{\"content\":\"{text}\"}},\"finish_reason\":{finish}}}]}}\n\n"
        )
    };
    let body = [
        chunk(0, "zero", "null"),
        chunk(1, "one", "null"),
        chunk(0, "", "\"stop\""),
        chunk(1, "", "\"stop\""),
        String::from("data: [DONE]\n\n"),
    ]
    .concat();
    Command::cargo_bin("llmstream")
        .unwrap()
        .args(["translate", "--to", "anthropic"])
        .write_stdin(body.clone())
        .assert()
        .code(1)
        .stderr(predicates::str::contains("pick one with --choice N"));
    let (bytes, _) = run(
        &["translate", "--to", "anthropic", "--choice", "1"],
        body.as_bytes(),
    );
    let back = message(&bytes);
    assert_eq!(back["choices"][0]["text"], "one");
    assert_eq!(back["choices"].as_array().unwrap().len(), 1);
    // OpenAI Chat keeps both.
    let (bytes, _) = run(&["translate", "--to", "openai-chat"], body.as_bytes());
    let back = message(&bytes);
    assert_eq!(back["choices"][1]["text"], "one");
}

#[test]
fn a_body_with_no_payload_is_bad_input() {
    Command::cargo_bin("llmstream")
        .unwrap()
        .args(["translate", "--to", "gemini"])
        .write_stdin(": just a comment\n\n")
        .assert()
        .code(1)
        .stderr(predicates::str::contains("no provider payload"));
}
