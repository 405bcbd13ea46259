//! Writes the inputs of run.sh into the directory given as argument 1:
//!
//! - `chat.sse`: a 21 MB OpenAI Chat Completions stream, shaped as the
//!   recordings of real streams are (a role chunk, content deltas a word or
//!   two long, tool-call argument fragments, a finish chunk, a usage chunk,
//!   `[DONE]`), many completions one after the other, their words and
//!   lengths varied by a seeded generator;
//! - `long_line.sse`: one event whose data is a single 4 MiB line of
//!   base64-like text (an image);
//! - `text.json`: a 1 MiB text-heavy JSON document (a chat transcript:
//!   long strings with some escapes and non-ASCII text, few numbers), its
//!   keys in sorted order so that serde_json's default map prints them
//!   as they came.

use std::fmt::Write as _;
use std::path::PathBuf;

/// xorshift64: the same inputs on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Content deltas as they appear in the JSON of a chunk (escapes included).
const WORDS: &[&str] = &[
    "The",
    " quick",
    " brown",
    " fox",
    " jumps",
    " over",
    " the",
    " lazy",
    " dog",
    ".",
    " It",
    " is",
    " a",
    " stream",
    " of",
    " tokens",
    ",",
    " each",
    " one",
    " small",
    "!",
    "\\n\\n",
    " \\\"quoted\\\"",
    " café",
    " naïve",
    " —",
    " 東京",
    " 🙂",
    " `code`",
    " x\\ty",
    " path\\\\to",
    " **bold**",
    "\\n-",
    " item",
    ":",
    " 42",
    " and",
    " so",
    " on",
];

/// Argument fragments of a tool call, as they appear in the chunk's JSON.
const ARGUMENTS: &[&str] = &[
    "{\\\"",
    "city",
    "\\\":\\\"",
    "San",
    " Francisco",
    "\\\",\\\"",
    "unit",
    "\\\":\\\"",
    "celsius",
    "\\\"}",
];

fn chat_stream(rng: &mut Rng, size: usize) -> Vec<u8> {
    const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut out = String::with_capacity(size + 4096);
    let mut created = 1_727_346_176u64;
    while out.len() < size {
        let id: String = (0..29).map(|_| ALNUM[rng.below(62)] as char).collect();
        let fingerprint: String = (0..10).map(|_| ALNUM[rng.below(36) + 26] as char).collect();
        created += 1 + rng.below(5) as u64;
        let head = format!(
            "data: {{\"id\":\"chatcmpl-{id}\",\"object\":\"chat.completion.chunk\",\"created\":{created},\"model\":\"gpt-4o-2024-08-06\",\"system_fingerprint\":\"fp_{fingerprint}\",\"choices\":["
        );
        let chunk = |out: &mut String, delta: &str, finish: &str| {
            out.push_str(&head);
            let _ = write!(
                out,
                "{{\"index\":0,\"delta\":{delta},\"logprobs\":null,\"finish_reason\":{finish}}}]}}\n\n"
            );
        };
        let tools = rng.below(4) == 0;
        let mut tokens = 0;
        if tools {
            let call: String = (0..24).map(|_| ALNUM[rng.below(62)] as char).collect();
            chunk(
                &mut out,
                &format!("{{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{{\"index\":0,\"id\":\"call_{call}\",\"type\":\"function\",\"function\":{{\"name\":\"get_weather\",\"arguments\":\"\"}}}}],\"refusal\":null}}"),
                "null",
            );
            for _ in 0..4 {
                for fragment in ARGUMENTS {
                    tokens += 1;
                    chunk(
                        &mut out,
                        &format!("{{\"tool_calls\":[{{\"index\":0,\"function\":{{\"arguments\":\"{fragment}\"}}}}]}}"),
                        "null",
                    );
                }
            }
            chunk(&mut out, "{}", "\"tool_calls\"");
        } else {
            chunk(
                &mut out,
                "{\"role\":\"assistant\",\"content\":\"\",\"refusal\":null}",
                "null",
            );
            for _ in 0..40 + rng.below(400) {
                tokens += 1;
                let word = WORDS[rng.below(WORDS.len())];
                chunk(&mut out, &format!("{{\"content\":\"{word}\"}}"), "null");
            }
            chunk(&mut out, "{}", "\"stop\"");
        }
        let prompt = 20 + rng.below(200);
        let _ = write!(
            out,
            "data: {{\"id\":\"chatcmpl-{id}\",\"object\":\"chat.completion.chunk\",\"created\":{created},\"model\":\"gpt-4o-2024-08-06\",\"system_fingerprint\":\"fp_{fingerprint}\",\"choices\":[],\"usage\":{{\"prompt_tokens\":{prompt},\"completion_tokens\":{tokens},\"total_tokens\":{},\"completion_tokens_details\":{{\"reasoning_tokens\":0}}}}}}\n\ndata: [DONE]\n\n",
            prompt + tokens
        );
    }
    out.into_bytes()
}

fn long_line_stream(rng: &mut Rng) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = b"event: image\ndata: ".to_vec();
    for _ in 0..4 << 20 {
        out.push(ALPHABET[rng.below(64)]);
    }
    out.extend_from_slice(b"\n\n");
    out
}

/// Prose with the escapes and non-ASCII text of real transcripts, as JSON
/// string content.
const PROSE: &[&str] = &[
    "the",
    "model",
    "writes",
    "long",
    "answers",
    "with",
    "several",
    "paragraphs",
    "about",
    "streaming",
    "parsers,",
    "incremental",
    "JSON",
    "and",
    "server-sent",
    "events.",
    "It",
    "quotes",
    "\\\"exact",
    "words\\\"",
    "and",
    "ends",
    "lines\\n\\n",
    "café",
    "déjà",
    "vu",
    "—",
    "東京",
    "🙂",
    "tab\\there",
    "C:\\\\path",
    "\\u00e9t\\u00e9",
    "numbers",
    "like",
    "3.14",
    "and",
    "lists:\\n-",
    "one\\n-",
    "two.",
];

fn text_document(rng: &mut Rng, size: usize) -> Vec<u8> {
    let mut out = String::from("{\"messages\":[");
    let mut first = true;
    while out.len() < size {
        if !first {
            out.push(',');
        }
        first = false;
        let role = ["user", "assistant"][rng.below(2)];
        out.push_str("{\"content\":\"");
        let words = 200 + rng.below(1200);
        for i in 0..words {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(PROSE[rng.below(PROSE.len())]);
        }
        let _ = write!(
            out,
            "\",\"name\":\"speaker-{}\",\"role\":\"{role}\",\"tokens\":{words}}}",
            rng.below(4)
        );
    }
    out.push_str("],\"model\":\"gpt-4o-2024-08-06\"}");
    out.into_bytes()
}

fn main() {
    let dir = PathBuf::from(std::env::args().nth(1).expect("an output directory"));
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let write = |name: &str, bytes: Vec<u8>| {
        std::fs::write(dir.join(name), bytes).expect("a writable directory");
    };
    write("chat.sse", chat_stream(&mut rng, 21_000_000));
    write("long_line.sse", long_line_stream(&mut rng));
    write("text.json", text_document(&mut rng, 1 << 20));
}
