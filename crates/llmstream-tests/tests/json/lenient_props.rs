//! Lenient mode on generated malformed documents: a value written the way
//! models write it (single and curly quotes, bare keys, Python literals,
//! comments, missing and trailing commas, prose and a code fence around
//! it) reads back as that value, whole, one byte at a time and in random
//! pieces; and the snapshot after every piece only grows.

use llmstream::json::{Map, Number, Options, Parser, Value};
use llmstream_tests::Rng;

/// A random value: strings of words, integers, literals, nested up to
/// `depth`.
fn value(rng: &mut Rng, depth: u32) -> Value {
    match rng.below(if depth == 0 { 5 } else { 7 }) {
        0 => Value::String(words(rng)),
        1 => Value::Number(Number::from(rng.range(0, 2000) as i64 - 1000)),
        2 => Value::Bool(rng.chance(50)),
        3 => Value::Null,
        4 => Value::String(words(rng)),
        5 => Value::Array((0..rng.below(4)).map(|_| value(rng, depth - 1)).collect()),
        _ => {
            let mut map = Map::new();
            for n in 0..rng.below(4) {
                map.push(
                    format!("{}{n}", rng.pick(&["name", "city", "x", "k_v"])),
                    value(rng, depth - 1),
                );
            }
            Value::Object(map)
        }
    }
}

fn words(rng: &mut Rng) -> String {
    let n = rng.range(1, 4);
    (0..n)
        .map(|_| *rng.pick(&["Paris", "sunny", "a", "42nd street", "x-y", "it is"]))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `value` as a model might write it.
fn write(rng: &mut Rng, value: &Value, out: &mut String) {
    match value {
        Value::String(s) => {
            let (open, close) = *rng.pick(&[("\"", "\""), ("'", "'"), ("\u{201C}", "\u{201D}")]);
            out.push_str(open);
            out.push_str(s);
            out.push_str(close);
        }
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::Bool(b) => out.push_str(match (b, rng.chance(50)) {
            (true, true) => "True",
            (true, false) => "true",
            (false, true) => "False",
            (false, false) => "false",
        }),
        Value::Null => out.push_str(rng.pick::<&str>(&["None", "null", "undefined"])),
        Value::Array(items) => {
            out.push('[');
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    separator(rng, out);
                }
                write(rng, item, out);
            }
            trailing(rng, !items.is_empty(), out);
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (n, (key, member)) in map.iter().enumerate() {
                if n > 0 {
                    separator(rng, out);
                }
                match rng.below(3) {
                    0 => out.push_str(&format!("\"{}\"", key.as_str())),
                    1 => out.push_str(&format!("'{}'", key.as_str())),
                    _ => out.push_str(key.as_str()),
                }
                out.push_str(rng.pick::<&str>(&[": ", ":", " : "]));
                write(rng, member, out);
            }
            trailing(rng, !map.is_empty(), out);
            out.push('}');
        }
    }
}

/// Between two elements: a comma, or none, with comments and line breaks.
fn separator(rng: &mut Rng, out: &mut String) {
    out.push_str(rng.pick::<&str>(&[
        ", ",
        ",",
        ",\n  ",
        "\n  ",
        " , ",
        ", /* note */ ",
        ", // note\n",
        ", # note\n",
    ]));
}

fn trailing(rng: &mut Rng, any: bool, out: &mut String) {
    if any && rng.chance(30) {
        out.push(',');
    }
}

/// The whole text: the value, maybe in a fence, maybe with prose around.
fn document(rng: &mut Rng, value: &Value) -> String {
    let mut out = String::new();
    if rng.chance(40) {
        out.push_str("Here is the result:\n");
    }
    let fenced = rng.chance(40);
    if fenced {
        out.push_str("```json\n");
    }
    write(rng, value, &mut out);
    if fenced {
        out.push_str("\n```");
    }
    if rng.chance(30) {
        out.push_str("\nHope this helps");
    }
    out
}

/// Whether `next` is `prev` grown: the same type; a scalar unchanged;
/// an array or object with every earlier entry the same but the last,
/// which may have grown, and maybe more after it.
fn grows(prev: &Value, next: &Value) -> bool {
    match (prev, next) {
        (Value::Array(a), Value::Array(b)) => {
            a.len() <= b.len()
                && a.iter().zip(b).enumerate().all(|(n, (x, y))| {
                    if n + 1 == a.len() {
                        grows(x, y)
                    } else {
                        x == y
                    }
                })
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() <= b.len()
                && a.iter()
                    .zip(b.iter())
                    .enumerate()
                    .all(|(n, ((k, x), (l, y)))| {
                        k == l
                            && if n + 1 == a.len() {
                                grows(x, y)
                            } else {
                                x == y
                            }
                    })
        }
        (a, b) => a == b,
    }
}

/// Reads `pieces` in lenient mode, checking that each snapshot grows the
/// one before.
fn read(pieces: &[&[u8]], text: &str) -> Option<Value> {
    let mut parser = Parser::with_options(Options::lenient());
    let mut last: Option<Value> = None;
    for piece in pieces {
        parser.feed(piece).expect("within the limits");
        let now = parser.snapshot().cloned();
        if let (Some(prev), Some(next)) = (&last, &now) {
            assert!(grows(prev, next), "{prev} then {next} reading {text:?}");
        }
        assert!(
            last.is_none() || now.is_some(),
            "the value went away in {text:?}"
        );
        last = now;
    }
    let value = parser.finish_partial().expect("within the limits");
    if let (Some(prev), Some(next)) = (&last, &value) {
        assert!(grows(prev, next), "{prev} then the end {next} in {text:?}");
    }
    value
}

#[test]
fn malformed_documents_read_as_written_and_snapshots_only_grow() {
    let mut rng = Rng::new(29);
    let mut checked = 0;
    for _ in 0..2000 {
        let original = match rng.chance(50) {
            true => value(&mut rng, 3),
            false => Value::Object([("result", value(&mut rng, 3))].into_iter().collect()),
        };
        if !matches!(original, Value::Array(_) | Value::Object(_)) {
            continue;
        }
        let text = document(&mut rng, &original);
        if checked == 7 {
            eprintln!("for example: {text}");
        }
        checked += 1;
        let bytes = text.as_bytes();
        let whole = read(&[bytes], &text);
        assert_eq!(whole.as_ref(), Some(&original), "reading {text:?}");
        let ones: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(read(&ones, &text), whole, "one byte at a time: {text:?}");
        for seed in [1, 2] {
            let pieces = llmstream_tests::random_pieces(bytes, seed);
            assert_eq!(read(&pieces, &text), whole, "random pieces: {text:?}");
        }
    }
    assert!(checked > 1000, "{checked} documents");
}
