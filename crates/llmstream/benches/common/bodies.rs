//! SSE bodies shaped like provider streams, generated (deterministic).
//!
//! The OpenAI and Anthropic bodies are in the exact wire shapes of the demo
//! recordings `crates/llmstream-cli/demo/openai-parallel-tools.sse` and
//! `anthropic-thinking-tool.sse`, but long; the Gemini body is in the shape
//! of `streamGenerateContent?alt=sse` (CRLF line ends, text parts, a whole
//! `functionCall`), as in `tests/data/gemini/`; the OpenAI Responses body
//! in the shape of `POST /v1/responses` with `stream: true` (named events,
//! each with its `sequence_number`), as in `tests/data/openai/resp_*.sse`.

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

/// A generated body and what it must give: the final text, reasoning and
/// one tool call (id, name, arguments text).
pub struct Expected {
    pub body: Vec<u8>,
    pub text: String,
    pub reasoning: String,
    pub call_id: &'static str,
    pub name: &'static str,
    pub arguments: String,
}

/// An OpenAI Responses stream being written: named events, numbered.
struct Responses {
    out: String,
    sequence: u64,
}

impl Responses {
    /// `event: name` and its payload `{"type":name,"sequence_number":n` +
    /// `rest` + `}`; `rest` starts with `,`.
    fn event(&mut self, name: &str, rest: &str) {
        use std::fmt::Write;
        write!(
            self.out,
            "event: {name}\ndata: {{\"type\":\"{name}\",\"sequence_number\":{}{rest}}}\n\n",
            self.sequence
        )
        .unwrap();
        self.sequence += 1;
    }
}

/// The random padding OpenAI adds to delta events (`obfuscation`, on by
/// default since August 2025) so their sizes do not give the text away.
fn obfuscation(rng: &mut Rng) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    (0..2 + rng.below(14))
        .map(|_| ALPHABET[rng.below(ALPHABET.len())] as char)
        .collect()
}

/// The `response` object of `response.created` / `.completed`.
fn responses_response(status: &str, output: &str, usage: &str) -> String {
    format!(
        "{{\"id\":\"resp_68demoQx7\",\"object\":\"response\",\"created_at\":1763769600,\"status\":\"{status}\",\"background\":false,\"error\":null,\"incomplete_details\":null,\"instructions\":null,\"max_output_tokens\":null,\"max_tool_calls\":null,\"model\":\"gpt-5-2025-08-07\",\"output\":[{output}],\"parallel_tool_calls\":true,\"previous_response_id\":null,\"prompt_cache_key\":null,\"reasoning\":{{\"effort\":\"medium\",\"summary\":\"auto\"}},\"safety_identifier\":null,\"service_tier\":\"default\",\"store\":false,\"temperature\":1.0,\"text\":{{\"format\":{{\"type\":\"text\"}},\"verbosity\":\"medium\"}},\"tool_choice\":\"auto\",\"tools\":[{{\"type\":\"function\",\"description\":\"Write a file in the workspace.\",\"name\":\"write_file\",\"parameters\":{{\"type\":\"object\",\"properties\":{{\"path\":{{\"type\":\"string\"}},\"blocks\":{{\"type\":\"array\"}}}},\"required\":[\"path\",\"blocks\"]}},\"strict\":false}}],\"top_logprobs\":0,\"top_p\":1.0,\"truncation\":\"disabled\",\"usage\":{usage},\"user\":null,\"metadata\":{{}}}}"
    )
}

/// An OpenAI Responses body (`stream: true`, `store: false` with
/// `include: ["reasoning.encrypted_content"]`): `response.created`,
/// `response.in_progress`; a reasoning item whose summary streams in 1,500
/// `reasoning_summary_text.delta` events; a message item whose text
/// streams in 3,000 `output_text.delta` events; a `write_file`
/// function_call item whose 256 KiB of arguments stream in 6–14-byte
/// `function_call_arguments.delta` fragments; each text and the
/// arguments repeated whole by their `.done` events, the items'
/// `output_item.done` and the `response.completed` output, with usage.
pub fn responses_expected() -> Expected {
    let mut rng = Rng(0x94D0_49BB_1331_11EB);
    let mut w = Responses {
        out: String::new(),
        sequence: 0,
    };
    let created = responses_response("in_progress", "", "null");
    w.event("response.created", &format!(",\"response\":{created}"));
    w.event("response.in_progress", &format!(",\"response\":{created}"));

    // Reasoning, output 0.
    let rs = "rs_68demoR3a5";
    w.event(
        "response.output_item.added",
        &format!(",\"output_index\":0,\"item\":{{\"id\":\"{rs}\",\"type\":\"reasoning\",\"summary\":[]}}"),
    );
    w.event(
        "response.reasoning_summary_part.added",
        &format!(",\"item_id\":\"{rs}\",\"output_index\":0,\"summary_index\":0,\"part\":{{\"type\":\"summary_text\",\"text\":\"\"}}"),
    );
    let thinking = prose(&mut rng, 12_000);
    let mut reasoning = String::new();
    for piece in fragments(&mut rng, &thinking, 2, 14).iter().take(1500) {
        reasoning.push_str(piece);
        let obfuscation = obfuscation(&mut rng);
        w.event(
            "response.reasoning_summary_text.delta",
            &format!(
                ",\"item_id\":\"{rs}\",\"output_index\":0,\"summary_index\":0,\"delta\":{},\"obfuscation\":\"{obfuscation}\"",
                json_string(piece)
            ),
        );
    }
    let summary = json_string(&reasoning);
    w.event(
        "response.reasoning_summary_text.done",
        &format!(",\"item_id\":\"{rs}\",\"output_index\":0,\"summary_index\":0,\"text\":{summary}"),
    );
    w.event(
        "response.reasoning_summary_part.done",
        &format!(",\"item_id\":\"{rs}\",\"output_index\":0,\"summary_index\":0,\"part\":{{\"type\":\"summary_text\",\"text\":{summary}}}"),
    );
    let reasoning_item = format!("{{\"id\":\"{rs}\",\"type\":\"reasoning\",\"encrypted_content\":\"gAAAAABoDemoEncryptedReasoningOnlyForTheGeneratedStream==\",\"summary\":[{{\"type\":\"summary_text\",\"text\":{summary}}}]}}");
    w.event(
        "response.output_item.done",
        &format!(",\"output_index\":0,\"item\":{reasoning_item}"),
    );

    // The message, output 1.
    let msg = "msg_68demoM7c2";
    w.event(
        "response.output_item.added",
        &format!(",\"output_index\":1,\"item\":{{\"id\":\"{msg}\",\"type\":\"message\",\"status\":\"in_progress\",\"content\":[],\"role\":\"assistant\"}}"),
    );
    w.event(
        "response.content_part.added",
        &format!(",\"item_id\":\"{msg}\",\"output_index\":1,\"content_index\":0,\"part\":{{\"type\":\"output_text\",\"annotations\":[],\"logprobs\":[],\"text\":\"\"}}"),
    );
    let answer = prose(&mut rng, 24_000);
    let mut text = String::new();
    for piece in fragments(&mut rng, &answer, 2, 14).iter().take(3000) {
        text.push_str(piece);
        let obfuscation = obfuscation(&mut rng);
        w.event(
            "response.output_text.delta",
            &format!(
                ",\"item_id\":\"{msg}\",\"output_index\":1,\"content_index\":0,\"delta\":{},\"logprobs\":[],\"obfuscation\":\"{obfuscation}\"",
                json_string(piece)
            ),
        );
    }
    let whole = json_string(&text);
    w.event(
        "response.output_text.done",
        &format!(",\"item_id\":\"{msg}\",\"output_index\":1,\"content_index\":0,\"text\":{whole},\"logprobs\":[]"),
    );
    let part =
        format!("{{\"type\":\"output_text\",\"annotations\":[],\"logprobs\":[],\"text\":{whole}}}");
    w.event(
        "response.content_part.done",
        &format!(",\"item_id\":\"{msg}\",\"output_index\":1,\"content_index\":0,\"part\":{part}"),
    );
    let message_item = format!("{{\"id\":\"{msg}\",\"type\":\"message\",\"status\":\"completed\",\"content\":[{part}],\"role\":\"assistant\"}}");
    w.event(
        "response.output_item.done",
        &format!(",\"output_index\":1,\"item\":{message_item}"),
    );

    // The function call, output 2.
    let fc = "fc_68demoF9d4";
    let (call_id, name) = ("call_Wr1teF1le8", "write_file");
    w.event(
        "response.output_item.added",
        &format!(",\"output_index\":2,\"item\":{{\"id\":\"{fc}\",\"type\":\"function_call\",\"status\":\"in_progress\",\"arguments\":\"\",\"call_id\":\"{call_id}\",\"name\":\"{name}\"}}"),
    );
    let arguments = big_arguments(&mut rng, 256 * 1024);
    for fragment in fragments(&mut rng, &arguments, 6, 14) {
        let obfuscation = obfuscation(&mut rng);
        w.event(
            "response.function_call_arguments.delta",
            &format!(
                ",\"item_id\":\"{fc}\",\"output_index\":2,\"delta\":{},\"obfuscation\":\"{obfuscation}\"",
                json_string(&fragment)
            ),
        );
    }
    let args = json_string(&arguments);
    w.event(
        "response.function_call_arguments.done",
        &format!(",\"item_id\":\"{fc}\",\"output_index\":2,\"arguments\":{args}"),
    );
    let call_item = format!("{{\"id\":\"{fc}\",\"type\":\"function_call\",\"status\":\"completed\",\"arguments\":{args},\"call_id\":\"{call_id}\",\"name\":\"{name}\"}}");
    w.event(
        "response.output_item.done",
        &format!(",\"output_index\":2,\"item\":{call_item}"),
    );

    let completed = responses_response(
        "completed",
        &format!("{reasoning_item},{message_item},{call_item}"),
        "{\"input_tokens\":1187,\"input_tokens_details\":{\"cached_tokens\":1024},\"output_tokens\":71420,\"output_tokens_details\":{\"reasoning_tokens\":2816},\"total_tokens\":72607}",
    );
    w.event("response.completed", &format!(",\"response\":{completed}"));
    Expected {
        body: w.out.into_bytes(),
        text,
        reasoning,
        call_id,
        name,
        arguments,
    }
}

/// The body of [`responses_expected`].
pub fn responses_stream() -> Vec<u8> {
    responses_expected().body
}
