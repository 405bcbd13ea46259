//! SSE bodies shaped like provider streams, generated (deterministic).
//!
//! The OpenAI and Anthropic bodies are in the exact wire shapes of the demo
//! recordings `crates/llmstream-cli/demo/openai-parallel-tools.sse` and
//! `anthropic-thinking-tool.sse`, but long; the Gemini body is in the shape
//! of `streamGenerateContent?alt=sse` (CRLF line ends, text parts, a whole
//! `functionCall`), as in `tests/data/gemini/`.

pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

pub const SENTENCES: [&str; 8] = [
    "I'll check the weather in both cities and look up flights at the same time.",
    " The parser reads each piece once — no re-parsing of what came before.",
    " Café prices in Lisbon are listed in euros (€), not dollars.",
    " Use \"quotes\" carefully; a backslash \\ must be escaped.\n",
    " 日本語のテキストも正しく扱います。",
    " Traveling with a 6-year-old 🧒 means window seats if possible.",
    " let mut parser = Parser::new();\n\tparser.push(piece)?;\n",
    " Done.",
];

/// Prose of about `len` bytes.
pub fn prose(rng: &mut Rng, len: usize) -> String {
    let mut out = String::new();
    while out.len() < len {
        out.push_str(SENTENCES[rng.below(SENTENCES.len())]);
    }
    out
}

/// `text` cut into fragments of `min..=max` bytes, at character boundaries.
pub fn fragments(rng: &mut Rng, text: &str, min: usize, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + min + rng.below(max - min + 1)).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(text[start..end].to_string());
        start = end;
    }
    out
}

/// A `write_file`-style arguments document of about `len` bytes.
pub fn big_arguments(rng: &mut Rng, len: usize) -> String {
    let mut blocks = Vec::new();
    let mut size = 0;
    let mut i = 0;
    while size < len {
        let len = 200 + rng.below(1800);
        let content = prose(rng, len);
        size += content.len() + 40;
        let kind = ["heading", "text", "code"][i % 3];
        blocks.push(serde_json::json!({"kind": kind, "content": content, "line": i * 7}));
        i += 1;
    }
    let doc = serde_json::json!({
        "path": "docs/GUIDE.md",
        "blocks": blocks,
        "overwrite": true,
        "mode": 420,
        "ratio": 0.75,
        "tags": ["docs", null, false],
    });
    // `", "` and `": "` separators, as the recordings have them.
    let compact = serde_json::to_string(&doc).unwrap();
    let mut out = String::with_capacity(compact.len() * 11 / 10);
    let mut in_string = false;
    let mut escaped = false;
    for c in compact.chars() {
        out.push(c);
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        } else if c == ',' || c == ':' {
            out.push(' ');
        }
    }
    out
}

pub fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

pub const OPENAI_HEAD: &str = "data: {\"id\":\"chatcmpl-demo7Qx\",\"object\":\"chat.completion.chunk\",\"created\":1763769600,\"model\":\"gpt-4.1-2025-04-14\",\"system_fingerprint\":\"fp_demo\",\"choices\":[{\"index\":0,\"delta\":";

pub fn openai_chunk(out: &mut String, delta: &str, finish: &str) {
    out.push_str(OPENAI_HEAD);
    out.push_str(delta);
    out.push_str(",\"logprobs\":null,\"finish_reason\":");
    out.push_str(finish);
    out.push_str("}]}\n\n");
}

pub fn openai_tool_call(
    out: &mut String,
    rng: &mut Rng,
    index: usize,
    id: &str,
    name: &str,
    args: &str,
) {
    openai_chunk(
        out,
        &format!("{{\"tool_calls\":[{{\"index\":{index},\"id\":\"{id}\",\"type\":\"function\",\"function\":{{\"name\":\"{name}\",\"arguments\":\"\"}}}}]}}"),
        "null",
    );
    for fragment in fragments(rng, args, 6, 14) {
        openai_chunk(
            out,
            &format!(
                "{{\"tool_calls\":[{{\"index\":{index},\"function\":{{\"arguments\":{}}}}}]}}",
                json_string(&fragment)
            ),
            "null",
        );
    }
}

pub fn openai_stream() -> Vec<u8> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut out = String::new();
    openai_chunk(
        &mut out,
        "{\"role\":\"assistant\",\"content\":\"\",\"refusal\":null}",
        "null",
    );
    let text = prose(&mut rng, 24_000);
    let pieces = fragments(&mut rng, &text, 2, 14);
    for piece in pieces.iter().take(3000) {
        openai_chunk(
            &mut out,
            &format!("{{\"content\":{}}}", json_string(piece)),
            "null",
        );
    }
    let weather = "{\"city\": \"Lisbon\", \"units\": \"celsius\", \"days\": 3, \"include\": [\"hourly\", \"alerts\"]}";
    openai_tool_call(&mut out, &mut rng, 0, "call_wx7Jk2", "get_weather", weather);
    let args = big_arguments(&mut rng, 256 * 1024);
    openai_tool_call(&mut out, &mut rng, 1, "call_fl9Pq4", "write_file", &args);
    openai_chunk(&mut out, "{}", "\"tool_calls\"");
    out.push_str("data: {\"id\":\"chatcmpl-demo7Qx\",\"object\":\"chat.completion.chunk\",\"created\":1763769600,\"model\":\"gpt-4.1-2025-04-14\",\"system_fingerprint\":\"fp_demo\",\"choices\":[],\"usage\":{\"prompt_tokens\":412,\"completion_tokens\":97,\"total_tokens\":509,\"completion_tokens_details\":{\"reasoning_tokens\":0},\"prompt_tokens_details\":{\"cached_tokens\":256}}}\n\n");
    out.push_str("data: [DONE]\n\n");
    out.into_bytes()
}

pub fn anthropic_event(out: &mut String, name: &str, data: &str) {
    out.push_str("event: ");
    out.push_str(name);
    out.push_str("\ndata: ");
    out.push_str(data);
    out.push_str("\n\n");
}

pub fn anthropic_delta(out: &mut String, index: usize, kind: &str, field: &str, fragment: &str) {
    anthropic_event(
        out,
        "content_block_delta",
        &format!(
            "{{\"type\":\"content_block_delta\",\"index\":{index},\"delta\":{{\"type\":\"{kind}\",\"{field}\":{}}}}}",
            json_string(fragment)
        ),
    );
}

pub fn anthropic_stream() -> Vec<u8> {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let mut out = String::new();
    anthropic_event(&mut out, "message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_01DemoXq7\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":1187,\"output_tokens\":3,\"cache_read_input_tokens\":1024}}}");
    anthropic_event(&mut out, "content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}");
    anthropic_event(&mut out, "ping", "{\"type\": \"ping\"}");
    let thinking = prose(&mut rng, 12_000);
    for piece in fragments(&mut rng, &thinking, 2, 14).iter().take(1500) {
        anthropic_delta(&mut out, 0, "thinking_delta", "thinking", piece);
    }
    anthropic_delta(
        &mut out,
        0,
        "signature_delta",
        "signature",
        "EqQBCkYIBRgCKkDemoSignatureOnlyForTheRecordedDemoStream==",
    );
    anthropic_event(
        &mut out,
        "content_block_stop",
        "{\"type\":\"content_block_stop\",\"index\":0}",
    );
    anthropic_event(&mut out, "content_block_start", "{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
    let text = prose(&mut rng, 12_000);
    for piece in fragments(&mut rng, &text, 2, 14).iter().take(1500) {
        anthropic_delta(&mut out, 1, "text_delta", "text", piece);
    }
    anthropic_event(
        &mut out,
        "content_block_stop",
        "{\"type\":\"content_block_stop\",\"index\":1}",
    );
    anthropic_event(&mut out, "content_block_start", "{\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_01DemoWr1te\",\"name\":\"write_file\",\"input\":{}}}");
    anthropic_delta(&mut out, 2, "input_json_delta", "partial_json", "");
    let args = big_arguments(&mut rng, 256 * 1024);
    for fragment in fragments(&mut rng, &args, 6, 14) {
        anthropic_delta(&mut out, 2, "input_json_delta", "partial_json", &fragment);
    }
    anthropic_event(
        &mut out,
        "content_block_stop",
        "{\"type\":\"content_block_stop\",\"index\":2}",
    );
    anthropic_event(&mut out, "message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":214}}");
    anthropic_event(&mut out, "message_stop", "{\"type\":\"message_stop\"}");
    out.into_bytes()
}

/// A Gemini `streamGenerateContent?alt=sse` body (CRLF line ends): 6,000
/// text chunks of 60–400 bytes (Gemini sends larger text parts than the
/// others), then a whole `functionCall` with 64 KiB of arguments, the
/// finish reason and usage.
pub fn gemini_stream() -> Vec<u8> {
    let mut rng = Rng(0xA076_1D64_78BD_642F);
    let mut out = String::new();
    let chunk = |out: &mut String, parts: &str, tail: &str| {
        out.push_str("data: {\"candidates\":[{\"content\":{\"parts\":[");
        out.push_str(parts);
        out.push_str("],\"role\":\"model\"},\"index\":0");
        out.push_str(tail);
        out.push_str("}],\"usageMetadata\":{\"promptTokenCount\":412,\"totalTokenCount\":412},\"modelVersion\":\"gemini-2.5-flash\",\"responseId\":\"resp_demoG3m\"}\r\n\r\n");
    };
    for _ in 0..6000 {
        let len = 60 + rng.below(340);
        let text = prose(&mut rng, len);
        chunk(
            &mut out,
            &format!("{{\"text\":{}}}", json_string(&text)),
            "",
        );
    }
    let args = big_arguments(&mut rng, 64 * 1024);
    chunk(
        &mut out,
        &format!("{{\"functionCall\":{{\"name\":\"write_file\",\"args\":{args}}}}}"),
        ",\"finishReason\":\"STOP\"",
    );
    out.into_bytes()
}
