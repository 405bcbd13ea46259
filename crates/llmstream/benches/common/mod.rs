//! Inputs shared by the benches: deterministic generators (nothing is
//! downloaded) and the naive fix-and-reparse peer.
//!
//! - [`text_args`]: text-heavy tool arguments of an exact size (an "edit_file"
//!   call: a few short fields, an array of blocks with long `content`
//!   strings of prose or code with escapes and non-ASCII text).
//! - [`geojson`]: number-heavy, a GeoJSON-like FeatureCollection of polygons.
//! - [`twitter`]: deeply nested and wide, twitter-like statuses.
//! - [`bodies`]: SSE bodies shaped like OpenAI, Anthropic and Gemini streams.
//!
//! Each bench includes this with `mod common;` and uses part of it.
#![allow(dead_code)]

pub mod bodies;

use serde_json::json;

/// A small deterministic generator (64-bit LCG, high bits).
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() as usize) % items.len()]
    }
}

pub const KIB: usize = 1024;
pub const MIB: usize = 1024 * 1024;

/// A size as the tables write it: `1 KiB`, `64 KiB`, `16 MiB`, or bytes.
pub fn size_name(bytes: usize) -> String {
    if bytes >= MIB && bytes % MIB == 0 {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB && bytes % KIB == 0 {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} B")
    }
}

// ----- text-heavy tool arguments -----

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
    json!({
        "kind": if index % 2 == 0 { "code" } else { "prose" },
        "start_line": start,
        "end_line": start + rng.next() % 40,
        "replace": index % 3 != 0,
        "content": content,
    })
}

fn text_document(blocks: &[serde_json::Value]) -> Vec<u8> {
    let value = json!({
        "path": "src/parser/incremental.rs",
        "mode": "edit",
        "create_if_missing": false,
        "encoding": "utf-8",
        "note": null,
        "blocks": blocks,
    });
    serde_json::to_vec_pretty(&value).expect("serializable")
}

/// How many bytes `c` takes inside a JSON string as serde_json writes it.
fn escaped_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\t' | '\r' | '\u{8}' | '\u{c}' => 2,
        c if (c as u32) < 0x20 => 6,
        c => c.len_utf8(),
    }
}

/// Text from `source` that takes exactly `room` bytes once escaped (the
/// tail padded with ASCII when the next character would not fit).
fn fit(source: &str, room: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    for c in source.chars() {
        let len = escaped_len(c);
        if used + len > room {
            break;
        }
        out.push(c);
        used += len;
    }
    out.extend(std::iter::repeat_n('x', room - used));
    out
}

/// Text-heavy tool arguments of exactly `size` bytes (pretty-printed), the
/// same on every run. 64 KiB gives the document of the first JSON
/// benchmark byte for byte.
pub fn text_args(size: usize) -> Vec<u8> {
    assert!(size >= 512, "text_args needs at least 512 bytes");
    let mut rng = Lcg(0x6c6c_6d73_7472_6561);
    let empty = text_document(&[]).len();
    let mut blocks = Vec::new();
    // The pretty-printed size of n blocks is the empty document plus each
    // block's own contribution plus ",\n" between blocks: computed without
    // re-serializing the whole document for every block.
    let mut total = empty;
    loop {
        let index = blocks.len();
        let content = block_content(&mut rng, index % 2 == 0);
        let b = block(&mut rng, index, content);
        let add = text_document(std::slice::from_ref(&b)).len() - empty
            + if blocks.is_empty() { 0 } else { 2 };
        if total + add > size - 512 {
            break;
        }
        total += add;
        blocks.push(b);
    }
    // A last block padded to the exact size: plain ASCII as in the first
    // document, or prose with escapes when the document is tiny.
    let index = blocks.len();
    blocks.push(block(&mut rng, index, String::new()));
    let short = size - text_document(&blocks).len();
    let source = if index == 0 {
        let mut prose = String::new();
        while prose.len() < short {
            prose.push_str(rng.pick(PROSE));
            prose.push(' ');
        }
        prose
    } else {
        "lorem ipsum dolor sit amet ".repeat(short / 27 + 1)
    };
    let last = blocks.last_mut().expect("a block");
    last["content"] = serde_json::Value::String(fit(&source, short));
    let doc = text_document(&blocks);
    assert_eq!(doc.len(), size);
    doc
}

// ----- number-heavy: GeoJSON-like -----

/// A coordinate with 6 decimals, written from integers (no float formatting).
fn coordinate(out: &mut String, micro: i64) {
    use std::fmt::Write;
    let sign = if micro < 0 { "-" } else { "" };
    let abs = micro.unsigned_abs();
    write!(out, "{sign}{}.{:06}", abs / 1_000_000, abs % 1_000_000).expect("string");
}

/// A compact GeoJSON FeatureCollection of polygons of at least `size`
/// bytes (just over it: whole features), mostly numbers.
pub fn geojson(size: usize) -> Vec<u8> {
    use std::fmt::Write;
    let mut rng = Lcg(0x6765_6f6a_736f_6e21);
    let mut out = String::from("{\"type\":\"FeatureCollection\",\"features\":[");
    let mut id = 0;
    while out.len() < size {
        if id > 0 {
            out.push(',');
        }
        let points = 16 + rng.below(48) as usize;
        let (mut lon, mut lat) = (
            -180_000_000 + rng.below(360_000_000) as i64,
            -80_000_000 + rng.below(160_000_000) as i64,
        );
        write!(
            out,
            "{{\"type\":\"Feature\",\"id\":{id},\"properties\":{{\"name\":\"parcel {id}\",\"area\":{}.{},\"elevation\":{},\"tags\":[{}]}},\"geometry\":{{\"type\":\"Polygon\",\"coordinates\":[[",
            rng.below(100_000),
            rng.below(100),
            rng.below(4000) as i64 - 100,
            rng.below(9),
        )
        .expect("string");
        let first = (lon, lat);
        for i in 0..points {
            if i > 0 {
                out.push(',');
            }
            out.push('[');
            coordinate(&mut out, lon);
            out.push(',');
            coordinate(&mut out, lat);
            out.push(']');
            lon += rng.below(20_001) as i64 - 10_000;
            lat += rng.below(20_001) as i64 - 10_000;
        }
        out.push_str(",[");
        coordinate(&mut out, first.0);
        out.push(',');
        coordinate(&mut out, first.1);
        out.push_str("]]]}}");
        id += 1;
    }
    out.push_str("]}");
    out.into_bytes()
}

// ----- deeply nested and wide: twitter-like -----

const WORDS: &[&str] = &[
    "stream",
    "parser",
    "token",
    "café",
    "naïve",
    "日本語",
    "テスト",
    "🚀",
    "delta",
    "chunk",
    "\"quoted\"",
    "back\\slash",
    "línea\nnueva",
    "json",
    "rust",
    "fast",
];

fn sentence(rng: &mut Lcg, words: usize) -> String {
    let mut out = String::new();
    for i in 0..words {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(rng.pick(WORDS));
    }
    out
}

fn user(rng: &mut Lcg, id: u64) -> serde_json::Value {
    let name = sentence(rng, 2);
    json!({
        "id": id, "id_str": id.to_string(), "name": name,
        "screen_name": format!("user_{id}"), "location": sentence(rng, 2),
        "description": sentence(rng, 12),
        "url": format!("https://example.com/u/{id}"),
        "entities": {
            "url": {"urls": [{"url": format!("https://t.co/{id}"), "expanded_url": format!("https://example.com/u/{id}"), "display_url": "example.com", "indices": [0, 22]}]},
            "description": {"urls": []}
        },
        "protected": false, "followers_count": rng.below(100_000),
        "friends_count": rng.below(5000), "listed_count": rng.below(100),
        "created_at": "Sun Aug 31 00:29:15 +0000 2014", "favourites_count": rng.below(9999),
        "utc_offset": null, "time_zone": null, "geo_enabled": rng.below(2) == 0,
        "verified": false, "statuses_count": rng.below(50_000), "lang": "ja",
        "contributors_enabled": false, "is_translator": false, "is_translation_enabled": false,
        "profile_background_color": "C0DEED", "profile_background_image_url": "http://abs.twimg.com/images/themes/theme1/bg.png",
        "profile_background_image_url_https": "https://abs.twimg.com/images/themes/theme1/bg.png",
        "profile_background_tile": false, "profile_image_url": format!("http://pbs.twimg.com/profile_images/{id}/normal.jpeg"),
        "profile_image_url_https": format!("https://pbs.twimg.com/profile_images/{id}/normal.jpeg"),
        "profile_link_color": "0084B4", "profile_sidebar_border_color": "C0DEED",
        "profile_sidebar_fill_color": "DDEEF6", "profile_text_color": "333333",
        "profile_use_background_image": true, "default_profile": true,
        "default_profile_image": false, "following": false, "follow_request_sent": false,
        "notifications": false
    })
}

/// A reply chain nested `depth` levels deep.
fn thread(rng: &mut Lcg, depth: usize) -> serde_json::Value {
    let mut value = json!({"id": rng.below(1 << 40), "text": sentence(rng, 3)});
    for level in 0..depth {
        value = json!({"level": level, "in_reply_to": value, "flags": [level % 2 == 0, null]});
    }
    value
}

fn status(rng: &mut Lcg, id: u64, nested: bool) -> serde_json::Value {
    let words = 6 + rng.below(14) as usize;
    let text = sentence(rng, words);
    let mentions: Vec<_> = (0..rng.below(3))
        .map(|i| {
            let uid = rng.below(1 << 32);
            json!({"screen_name": format!("user_{uid}"), "name": sentence(rng, 2), "id": uid, "id_str": uid.to_string(), "indices": [i * 10, i * 10 + 8]})
        })
        .collect();
    let hashtags: Vec<_> = (0..rng.below(3))
        .map(|i| json!({"text": rng.pick(WORDS), "indices": [i * 5, i * 5 + 4]}))
        .collect();
    let user = user(rng, id / 7);
    let depth = 8 + rng.below(16) as usize;
    let mut value = json!({
        "metadata": {"result_type": "recent", "iso_language_code": "ja"},
        "created_at": "Sun Aug 31 00:29:15 +0000 2014",
        "id": id, "id_str": id.to_string(), "text": text,
        "source": "<a href=\"http://twitter.com/download/iphone\" rel=\"nofollow\">Twitter for iPhone</a>",
        "truncated": false, "in_reply_to_status_id": null, "in_reply_to_status_id_str": null,
        "in_reply_to_user_id": null, "in_reply_to_user_id_str": null, "in_reply_to_screen_name": null,
        "user": user,
        "geo": null, "coordinates": null, "place": null, "contributors": null,
        "thread": thread(rng, depth),
        "retweet_count": rng.below(1000), "favorite_count": rng.below(1000),
        "entities": {"hashtags": hashtags, "symbols": [], "urls": [], "user_mentions": mentions},
        "favorited": false, "retweeted": false, "lang": "ja"
    });
    if nested {
        value["retweeted_status"] = status(rng, id - 1, false);
    }
    value
}

/// Twitter-like search results of at least `size` bytes (compact): wide
/// user objects, nested entities, a retweeted status inside every other
/// status and a reply chain 8 to 23 levels deep in each.
pub fn twitter(size: usize) -> Vec<u8> {
    let mut rng = Lcg(0x7477_6974_7465_7221);
    let mut statuses = Vec::new();
    let mut total = 0;
    let mut id = 505_874_924_095_815_681u64;
    while total < size {
        let s = status(&mut rng, id, statuses.len() % 2 == 0);
        total += serde_json::to_vec(&s).expect("serializable").len() + 1;
        statuses.push(s);
        id += 13;
    }
    serde_json::to_vec(&json!({
        "statuses": statuses,
        "search_metadata": {"completed_in": 0.087, "max_id": id, "query": "%E4%B8%80", "count": statuses.len()}
    }))
    .expect("serializable")
}

/// The documents of the whole-document table: (name, bytes).
pub fn whole_inputs() -> Vec<(String, Vec<u8>)> {
    vec![
        ("text_64KiB".into(), text_args(64 * KIB)),
        ("text_1MiB".into(), text_args(MIB)),
        ("geojson_1MiB".into(), geojson(MIB)),
        ("twitter_1MiB".into(), twitter(MIB)),
    ]
}

// ----- the naive fix-and-reparse peer -----

/// Completes a JSON prefix the simple way: drop whatever follows the last
/// complete value or opened container (a cut key, colon, comma, number or
/// literal), close an open value string (without a cut escape or UTF-8
/// sequence), then close the open containers. Rescans the whole prefix, as
/// the partial-JSON helpers in the wild do.
pub fn close_prefix(text: &[u8], out: &mut Vec<u8>) {
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

/// The physical-limit reference: one memchr pass over all the bytes,
/// looking for a byte that valid JSON text never holds (NUL), so the scan
/// runs to the end at memchr's SIMD speed.
pub fn memchr_scan(bytes: &[u8]) -> Option<usize> {
    memchr::memchr(0, bytes)
}
