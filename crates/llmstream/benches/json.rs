//! The incremental JSON parser against serde_json and jiter.
//!
//! Input: a deterministic, text-heavy tool-arguments document of exactly
//! 64 KiB, shaped like an LLM "edit_file" call (a few short fields and an
//! array of blocks, each with a long `content` string of prose or code with
//! `\n`, `\"`, `\\`, `\t` escapes and non-ASCII text).
//!
//! - `json/whole`: one complete document: llmstream `json::parse`, llmstream
//!   events only (`snapshot(false)`), `serde_json::from_slice::<Value>`.
//! - `json/stream16`: the document fed in 16-byte pieces, reading the live
//!   value after every piece: llmstream push + snapshot; jiter re-parsing the
//!   accumulated text with `PartialMode::TrailingStrings` (what the Anthropic
//!   and OpenAI SDKs do); serde_json re-parsing the accumulated text after a
//!   simple closer completes it ("naive fix-and-reparse").
//!
//! Run: `cargo bench -p llmstream --bench json`. Results: BENCHMARKS.md.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use jiter::{JsonValue, PartialMode};
use llmstream::json::{self, Options, Parser};

const DOC_BYTES: usize = 64 * 1024;
const PIECE: usize = 16;

// ----- the document -----

/// A small deterministic generator (64-bit LCG, high bits).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() as usize) % items.len()]
    }
}

const PROSE: &[&str] = &[
    "The parser keeps the partial value current as bytes arrive, so the UI can render each token without waiting for the end of the call.",
    "Note: the previous implementation re-parsed the whole buffer after every chunk, which is quadratic in the length of the answer.",
    "We say \"incomplete\" when more input could still finish the document, and \"invalid\" when nothing could.",
    "Le café de la gare sert un thé très épicé ; les élèves y révisent leurs leçons à côté du comptoir.",
    "日本語のテキストもそのまま流れてきます。文字列は途中で切れても壊れません。",
    "Ship it 🚀 — then measure it 📈, and only then optimise the hot loop 🔥.",
    "Windows paths such as C:\\Users\\dev\\project\\src need their backslashes escaped.",
    "Straße, naïve, façade, smörgåsbord, Øresund and Ærø are all valid keys and values.",
    "Each block below replaces the lines between start_line and end_line inclusive.",
    "Tabs\tare\tescaped too, and so is the occasional \"quoted phrase\" inside a sentence.",
];

const CODE: &[&str] = &[
    "fn main() {",
    "    let args: Vec<String> = std::env::args().collect();",
    "    println!(\"usage: {} <file>\", args[0]);",
    "    let path = r\"C:\\temp\\out.json\";",
    "    for (i, line) in text.lines().enumerate() {",
    "        if line.contains('\\\\') { continue; }",
    "        map.insert(key.to_string(), \"défaut\".into());",
    "    }",
    "    // 日本語のコメント: エラー処理を追加する",
    "\tmatch parser.push(piece) {",
    "\t\tOk(()) => render(parser.snapshot()),",
    "\t\tErr(e) => eprintln!(\"error: {e} ❌\"),",
    "\t}",
    "    return Ok(());",
    "}",
    "",
];

fn block_content(rng: &mut Lcg, code: bool) -> String {
    let mut out = String::new();
    let target = 800 + (rng.next() as usize % 2400);
    while out.len() < target {
        if code {
            out.push_str(rng.pick(CODE));
            out.push('\n');
        } else {
            out.push_str(rng.pick(PROSE));
            out.push(if rng.next() % 4 == 0 { '\n' } else { ' ' });
        }
    }
    out
}

fn block(rng: &mut Lcg, index: usize, content: String) -> serde_json::Value {
    let start = 1 + (rng.next() % 400);
    serde_json::json!({
        "kind": if index % 2 == 0 { "code" } else { "prose" },
        "start_line": start,
        "end_line": start + rng.next() % 40,
        "replace": index % 3 != 0,
        "content": content,
    })
}

fn document(blocks: &[serde_json::Value]) -> Vec<u8> {
    let value = serde_json::json!({
        "path": "src/parser/incremental.rs",
        "mode": "edit",
        "create_if_missing": false,
        "encoding": "utf-8",
        "note": null,
        "blocks": blocks,
    });
    serde_json::to_vec_pretty(&value).expect("serializable")
}

/// The benchmark input: exactly `DOC_BYTES` bytes, the same on every run.
fn generate() -> Vec<u8> {
    let mut rng = Lcg(0x6c6c_6d73_7472_6561);
    let mut blocks = Vec::new();
    loop {
        let index = blocks.len();
        let content = block_content(&mut rng, index % 2 == 0);
        blocks.push(block(&mut rng, index, content));
        if document(&blocks).len() > DOC_BYTES - 512 {
            blocks.pop();
            break;
        }
    }
    // A last block padded with plain ASCII to the exact size.
    let index = blocks.len();
    blocks.push(block(&mut rng, index, String::new()));
    let short = DOC_BYTES - document(&blocks).len();
    let pad = "lorem ipsum dolor sit amet ".repeat(short / 27 + 1);
    let last = blocks.last_mut().expect("a block");
    last["content"] = serde_json::Value::String(pad[..short].to_string());
    let doc = document(&blocks);
    assert_eq!(doc.len(), DOC_BYTES);
    doc
}

// ----- the naive fix-and-reparse peer -----

/// Completes a JSON prefix the simple way: drop whatever follows the last
/// complete value or opened container (a cut key, colon, comma, number or
/// literal), close an open value string (without a cut escape or UTF-8
/// sequence), then close the open containers. Rescans the whole prefix, as
/// the partial-JSON helpers in the wild do.
fn close_prefix(text: &[u8], out: &mut Vec<u8>) {
    #[derive(PartialEq)]
    enum Ctx {
        Key,
        Value,
    }
    let mut stack: Vec<u8> = Vec::new();
    let mut expect_key = false;
    let mut cut = 0;
    let mut string: Option<Ctx> = None;
    let mut escape = false;
    let mut scalar = false;
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        if let Some(ctx) = &string {
            if escape {
                escape = false;
            } else if b == b'\\' {
                escape = true;
            } else if b == b'"' {
                if *ctx == Ctx::Value {
                    cut = i + 1;
                }
                string = None;
            }
            i += 1;
            continue;
        }
        match b {
            b'"' => {
                let ctx = if expect_key { Ctx::Key } else { Ctx::Value };
                string = Some(ctx);
                expect_key = false;
            }
            b'{' | b'[' => {
                stack.push(if b == b'{' { b'}' } else { b']' });
                expect_key = b == b'{';
                cut = i + 1;
            }
            b'}' | b']' => {
                scalar = false;
                stack.pop();
                cut = i + 1;
            }
            b',' | b' ' | b'\n' | b'\r' | b'\t' | b':' => {
                if scalar {
                    scalar = false;
                    cut = i;
                }
                if b == b',' {
                    expect_key = stack.last() == Some(&b'}');
                }
            }
            _ => scalar = true,
        }
        i += 1;
    }
    out.clear();
    match string {
        Some(Ctx::Value) => {
            let mut end = text.len();
            if escape {
                end -= 1;
            } else if let Some(u) = text[..end].iter().rposition(|&b| b == b'\\') {
                // A cut `\uXXXX`: drop it (only when the backslash is real).
                let escaped = text[..u].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 1;
                if !escaped && text.get(u + 1) == Some(&b'u') && end - u < 6 {
                    end = u;
                }
            }
            let valid = match std::str::from_utf8(&text[..end]) {
                Ok(_) => end,
                Err(e) => e.valid_up_to(),
            };
            out.extend_from_slice(&text[..valid]);
            out.push(b'"');
        }
        _ => out.extend_from_slice(&text[..cut]),
    }
    out.extend(stack.iter().rev());
}

// ----- sanity checks (outside the timed loops) -----

fn to_serde(value: &json::Value) -> serde_json::Value {
    serde_json::from_str(&value.to_json()).expect("llmstream writes valid JSON")
}

/// The number of strings and of escape sequences in a valid JSON text.
fn count_strings_and_escapes(doc: &[u8]) -> (usize, usize) {
    let (mut strings, mut escapes) = (0, 0);
    let (mut in_string, mut escaped) = (false, false);
    for &b in doc {
        if escaped {
            escaped = false;
        } else if in_string && b == b'\\' {
            escaped = true;
            escapes += 1;
        } else if b == b'"' {
            in_string = !in_string;
            strings += usize::from(in_string);
        }
    }
    (strings, escapes)
}

fn sanity(doc: &[u8]) {
    let expected: serde_json::Value = serde_json::from_slice(doc).expect("serde_json parses it");
    let whole = json::parse(doc).expect("llmstream parses it");
    assert_eq!(
        to_serde(&whole),
        expected,
        "json::parse differs from serde_json"
    );

    let mut parser = Parser::new();
    let mut jiter_failures = 0;
    let mut jiter_errors = std::collections::BTreeMap::<String, usize>::new();
    let mut naive_failures = 0;
    let mut buf = Vec::new();
    let mut closed = Vec::new();
    for piece in doc.chunks(PIECE) {
        parser.push(piece).expect("llmstream accepts every piece");
        assert!(parser.snapshot().is_some());
        buf.extend_from_slice(piece);
        if let Err(e) = JsonValue::parse_with_config(&buf, false, PartialMode::TrailingStrings) {
            jiter_failures += 1;
            *jiter_errors.entry(e.error_type.to_string()).or_insert(0) += 1;
        }
        close_prefix(&buf, &mut closed);
        if serde_json::from_slice::<serde_json::Value>(&closed).is_err() {
            naive_failures += 1;
        }
    }
    parser.end().expect("llmstream accepts the end");
    let streamed = parser.into_value().expect("a value");
    assert_eq!(
        to_serde(&streamed),
        expected,
        "streamed value differs from serde_json"
    );

    let mut events = Parser::with_options(Options::new().snapshot(false));
    events.push(doc).expect("events-only parse");
    events.end().expect("events-only end");

    let jiter_final = JsonValue::parse(doc, false).expect("jiter parses it");
    assert_eq!(
        jiter_final,
        JsonValue::parse_with_config(doc, false, PartialMode::TrailingStrings).expect("jiter")
    );
    let (strings, escapes) = count_strings_and_escapes(doc);
    eprintln!(
        "json bench input: {} bytes, {} pieces of {PIECE}, {strings} strings, \
         {escapes} escapes, {} non-ASCII bytes; re-parse failures on prefixes: \
         jiter {jiter_failures} {jiter_errors:?}, naive closer + serde_json {naive_failures}",
        doc.len(),
        doc.len().div_ceil(PIECE),
        doc.iter().filter(|b| !b.is_ascii()).count(),
    );
}

// ----- the benchmarks -----

fn whole(c: &mut Criterion, doc: &[u8]) {
    let mut group = c.benchmark_group("json/whole");
    group.throughput(Throughput::Bytes(doc.len() as u64));
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(3));
    group.bench_function("llmstream_parse", |b| {
        b.iter(|| json::parse(black_box(doc)).expect("valid"))
    });
    group.bench_function("llmstream_events_only", |b| {
        b.iter(|| {
            let mut parser = Parser::with_options(Options::new().snapshot(false));
            parser.push(black_box(doc)).expect("valid");
            parser.end().expect("valid");
            parser
        })
    });
    group.bench_function("serde_json_value", |b| {
        b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(doc)).expect("valid"))
    });
    group.finish();
}

fn stream(c: &mut Criterion, doc: &[u8]) {
    let mut group = c.benchmark_group("json/stream16");
    group.throughput(Throughput::Bytes(doc.len() as u64));
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(3));
    group.bench_function(BenchmarkId::new("llmstream_push_snapshot", PIECE), |b| {
        b.iter(|| {
            let mut parser = Parser::new();
            for piece in black_box(doc).chunks(PIECE) {
                parser.push(piece).expect("valid");
                black_box(parser.snapshot());
            }
            parser.end().expect("valid");
            parser.into_value()
        })
    });

    // Quadratic peers: thousands of re-parses per iteration.
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(8));
    group.bench_function(
        BenchmarkId::new("jiter_reparse_trailing_strings", PIECE),
        |b| {
            let mut buf = Vec::with_capacity(doc.len());
            b.iter(|| {
                buf.clear();
                for piece in black_box(doc).chunks(PIECE) {
                    buf.extend_from_slice(piece);
                    let _ = black_box(JsonValue::parse_with_config(
                        &buf,
                        false,
                        PartialMode::TrailingStrings,
                    ));
                }
            })
        },
    );
    group.bench_function(
        BenchmarkId::new("naive_close_serde_json_reparse", PIECE),
        |b| {
            let mut buf = Vec::with_capacity(doc.len());
            let mut closed = Vec::with_capacity(doc.len() + 16);
            b.iter(|| {
                buf.clear();
                for piece in black_box(doc).chunks(PIECE) {
                    buf.extend_from_slice(piece);
                    close_prefix(&buf, &mut closed);
                    let _ = black_box(serde_json::from_slice::<serde_json::Value>(&closed));
                }
            })
        },
    );
    group.finish();
}

fn benches(c: &mut Criterion) {
    let doc = generate();
    sanity(&doc);
    whole(c, &doc);
    stream(c, &doc);
}

criterion_group!(json_benches, benches);
criterion_main!(json_benches);
