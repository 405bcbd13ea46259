//! Property tests of the incremental JSON parser, with serde_json as the
//! oracle.
//!
//! Random documents (deep nesting, astral-plane characters, every escape
//! including surrogate pairs written as `\u` escapes, numbers of every form,
//! compact, pretty and randomly spaced layouts) are written by a small
//! serializer of our own (serde_json never writes `\u` escapes for
//! printable text) and fed in random pieces, down to one byte. Properties:
//! the final value is serde_json's; after every piece the snapshot is a
//! monotonic prefix of the final value and of every later snapshot; the
//! string deltas of each path concatenate to its final string; the events,
//! consecutive deltas of a path merged, do not depend on the pieces.

use crate::common;

use std::collections::HashMap;

use crate::common::{to_serde, Rng};
use llmstream::json::{
    repair_bytes, Error, Options, OwnedEvent, OwnedEventKind, Parser, PathBuf, Segment, Value,
};
use proptest::prelude::*;

// ----- documents -----

/// A JSON document as written: numbers keep their text, objects their
/// member order and duplicate keys.
#[derive(Clone, Debug)]
enum Doc {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<Doc>),
    Obj(Vec<(String, Doc)>),
}

fn any_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => proptest::char::range(' ', '~'),
        2 => proptest::char::range('\u{0}', '\u{1f}'),
        2 => prop::sample::select(vec!['"', '\\', '/', '\u{7f}', '\u{2028}', '\u{2029}']),
        1 => proptest::char::range('\u{80}', '\u{7ff}'),
        1 => proptest::char::range('\u{800}', '\u{d7ff}'),
        1 => proptest::char::range('\u{e000}', '\u{ffff}'),
        3 => proptest::char::range('\u{10000}', '\u{10ffff}'),
        1 => prop::sample::select(vec!['😀', '🦀', '𝄞', '\u{10ffff}', '\u{10000}']),
    ]
}

fn text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(any_char(), 0..max).prop_map(|cs| cs.into_iter().collect())
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        // Few distinct keys, so duplicates happen.
        2 => prop::sample::select(vec!["a", "b", "content", "a.b", ""]).prop_map(String::from),
        1 => text(6),
    ]
}

/// Numbers of every form: sign, zero, fraction, exponent with `e`/`E` and
/// `+`/`-`/no sign. Exponents stay within f64 range so serde_json accepts
/// them.
fn number() -> impl Strategy<Value = String> {
    "-?(0|[1-9][0-9]{0,15})(\\.[0-9]{1,8})?([eE][+-]?[0-9]{1,2})?"
}

fn scalar() -> impl Strategy<Value = Doc> {
    prop_oneof![
        1 => Just(Doc::Null),
        1 => any::<bool>().prop_map(Doc::Bool),
        3 => number().prop_map(Doc::Num),
        4 => text(12).prop_map(Doc::Str),
    ]
}

fn tree() -> impl Strategy<Value = Doc> {
    scalar().prop_recursive(8, 96, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Doc::Arr),
            prop::collection::vec((key(), inner), 0..6).prop_map(Doc::Obj),
        ]
    })
}

/// A tree at the bottom of a chain of up to 110 arrays and objects (serde_json
/// and our parser both stop at 128 levels).
fn deep() -> impl Strategy<Value = Doc> {
    (
        prop::collection::vec((any::<bool>(), key()), 0..110),
        tree(),
    )
        .prop_map(|(levels, leaf)| {
            levels.into_iter().fold(leaf, |inner, (array, k)| {
                if array {
                    Doc::Arr(vec![Doc::Num("1".into()), inner])
                } else {
                    Doc::Obj(vec![(k, inner)])
                }
            })
        })
}

fn document() -> impl Strategy<Value = Doc> {
    prop_oneof![4 => tree(), 1 => deep()]
}

// ----- our own serializer: escapes and layouts chosen at random -----

#[derive(Clone, Copy, Debug)]
enum Layout {
    Compact,
    Pretty,
    RandomSpace,
}

struct Writer {
    out: String,
    rng: Rng,
    layout: Layout,
}

impl Writer {
    fn space(&mut self) {
        if let Layout::RandomSpace = self.layout {
            while self.rng.chance(30) {
                let ws = [' ', '\n', '\t', '\r'];
                self.out.push(ws[self.rng.below(4) as usize]);
            }
        }
    }

    fn newline(&mut self, depth: usize) {
        if let Layout::Pretty = self.layout {
            self.out.push('\n');
            for _ in 0..depth {
                self.out.push_str("  ");
            }
        }
    }

    fn unit(&mut self, unit: u32) {
        let hex = format!("\\u{unit:04x}");
        if self.rng.chance(50) {
            self.out.push_str(&hex.to_uppercase().replace("\\U", "\\u"));
        } else {
            self.out.push_str(&hex);
        }
    }

    fn string(&mut self, s: &str) {
        self.out.push('"');
        for c in s.chars() {
            let short = match c {
                '"' => Some("\\\""),
                '\\' => Some("\\\\"),
                '\u{8}' => Some("\\b"),
                '\u{c}' => Some("\\f"),
                '\n' => Some("\\n"),
                '\r' => Some("\\r"),
                '\t' => Some("\\t"),
                '/' if self.rng.chance(30) => Some("\\/"),
                _ => None,
            };
            let must_escape = c == '"' || c == '\\' || c < ' ';
            let as_unicode = if must_escape {
                short.is_none() || self.rng.chance(30)
            } else {
                self.rng.chance(20)
            };
            if as_unicode {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    self.unit(u32::from(*u));
                }
            } else if let (Some(esc), true) = (short, must_escape || c == '/') {
                self.out.push_str(esc);
            } else {
                self.out.push(c);
            }
        }
        self.out.push('"');
    }

    fn value(&mut self, doc: &Doc, depth: usize) {
        match doc {
            Doc::Null => self.out.push_str("null"),
            Doc::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Doc::Num(n) => self.out.push_str(n),
            Doc::Str(s) => self.string(s),
            Doc::Arr(items) => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.newline(depth + 1);
                    self.space();
                    self.value(item, depth + 1);
                    self.space();
                }
                if !items.is_empty() {
                    self.newline(depth);
                }
                self.space();
                self.out.push(']');
            }
            Doc::Obj(members) => {
                self.out.push('{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.newline(depth + 1);
                    self.space();
                    self.string(k);
                    self.space();
                    self.out.push(':');
                    if let Layout::Pretty = self.layout {
                        self.out.push(' ');
                    }
                    self.space();
                    self.value(v, depth + 1);
                    self.space();
                }
                if !members.is_empty() {
                    self.newline(depth);
                }
                self.space();
                self.out.push('}');
            }
        }
    }
}

fn write_doc(doc: &Doc, seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let layout = match rng.below(3) {
        0 => Layout::Compact,
        1 => Layout::Pretty,
        _ => Layout::RandomSpace,
    };
    let mut w = Writer {
        out: String::new(),
        rng,
        layout,
    };
    w.space();
    w.value(doc, 0);
    w.space();
    w.out
}

/// Cuts `bytes` into pieces of 1 to `max` bytes.
fn cut(bytes: &[u8], seed: u64, max: usize) -> Vec<&[u8]> {
    let mut rng = Rng::new(seed ^ 0x5555);
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let n = (1 + rng.below(max as u64) as usize).min(rest.len());
        let (head, tail) = rest.split_at(n);
        out.push(head);
        rest = tail;
    }
    out
}

/// A document's text and how to cut it: one byte at a time, small pieces,
/// or larger ones.
fn case() -> impl Strategy<Value = (String, u64, usize)> {
    (
        document(),
        any::<u64>(),
        prop_oneof![Just(1usize), 2usize..5, 5usize..17, 17usize..300],
    )
        .prop_map(|(doc, seed, max)| (write_doc(&doc, seed), seed, max))
}

// ----- running the parser -----

struct Run {
    events: Vec<OwnedEvent>,
    /// The snapshot after each piece.
    snapshots: Vec<Option<Value>>,
    value: Option<Value>,
}

fn run(options: Options, pieces: &[&[u8]]) -> Result<Run, Error> {
    let mut parser = Parser::with_options(options);
    let mut events = Vec::new();
    let mut snapshots = Vec::new();
    for piece in pieces {
        crate::common::feed_with(&mut parser, piece, |e| events.push(e.to_owned()))?;
        snapshots.push(parser.snapshot().cloned());
    }
    crate::common::finish_with(&mut parser, |e| events.push(e.to_owned()))?;
    Ok(Run {
        events,
        snapshots,
        value: parser.into_value(),
    })
}

fn merge_deltas(events: &[OwnedEvent]) -> Vec<OwnedEvent> {
    let mut out: Vec<OwnedEvent> = Vec::new();
    for e in events {
        if let (Some(last), OwnedEventKind::StringDelta(more)) = (out.last_mut(), &e.kind) {
            if last.path == e.path {
                if let OwnedEventKind::StringDelta(text) = &mut last.kind {
                    text.push_str(more);
                    continue;
                }
            }
        }
        out.push(e.clone());
    }
    out
}

// ----- checkers -----

/// Whether `snapshot` may be shown for a prefix of a document whose value is
/// `last` (the final value, or any later snapshot), under docs/ARCHITECTURE.md's
/// monotonic policy: same type; a string is a prefix; in arrays and objects
/// every member but the last is equal (same keys, same order) and the last
/// is itself a prefix-snapshot; scalars are equal.
fn is_monotonic_prefix(snapshot: &Value, last: &Value) -> Result<(), String> {
    match (snapshot, last) {
        (Value::String(a), Value::String(b)) => {
            if b.starts_with(a.as_str()) {
                Ok(())
            } else {
                Err(format!("string {a:?} is not a prefix of {b:?}"))
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() > b.len() {
                return Err(format!("array of {} items became {}", a.len(), b.len()));
            }
            let Some((tail, init)) = a.split_last() else {
                return Ok(());
            };
            for (i, (x, y)) in init.iter().zip(b).enumerate() {
                if x != y {
                    return Err(format!(
                        "item {i} {} changed to {}",
                        x.to_json(),
                        y.to_json()
                    ));
                }
            }
            is_monotonic_prefix(tail, &b[init.len()]).map_err(|e| format!("[{}]: {e}", init.len()))
        }
        (Value::Object(a), Value::Object(b)) => {
            let (a, b) = (a.as_slice(), b.as_slice());
            if a.len() > b.len() {
                return Err(format!("object of {} members became {}", a.len(), b.len()));
            }
            let Some(((tail_key, tail), init)) = a.split_last() else {
                return Ok(());
            };
            for (i, (x, y)) in init.iter().zip(b).enumerate() {
                if x != y {
                    return Err(format!("member {i} {x:?} changed to {y:?}"));
                }
            }
            let (key, value) = &b[init.len()];
            if key != tail_key {
                return Err(format!("key {tail_key:?} changed to {key:?}"));
            }
            is_monotonic_prefix(tail, value).map_err(|e| format!("[{key:?}]: {e}"))
        }
        (a, b) if a == b => Ok(()),
        (a, b) => Err(format!("{} changed to {}", a.to_json(), b.to_json())),
    }
}

/// Every string value (not key) of `value`, in document order.
fn strings_in_order(value: &Value, out: &mut Vec<String>) {
    // An explicit stack: documents may be deep.
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(items) => stack.extend(items.iter().rev()),
            Value::Object(map) => stack.extend(map.as_slice().iter().rev().map(|(_, v)| v)),
            _ => {}
        }
    }
}

/// Rebuilds the value from the events alone, checking each event's path
/// against the containers open at that point.
fn value_from_events(events: &[OwnedEvent]) -> Result<Option<Value>, String> {
    let mut stack: Vec<Value> = Vec::new();
    let mut root = None;
    fn attach(
        stack: &mut [Value],
        root: &mut Option<Value>,
        path: &PathBuf,
        v: Value,
    ) -> Result<(), String> {
        let segs = path.segments();
        if segs.len() != stack.len() {
            return Err(format!("path {path} at depth {}", stack.len()));
        }
        match (stack.last_mut(), segs.last()) {
            (None, None) => {
                *root = Some(v);
                Ok(())
            }
            (Some(Value::Array(items)), Some(Segment::Index(i))) if *i == items.len() => {
                items.push(v);
                Ok(())
            }
            (Some(Value::Object(map)), Some(Segment::Key(k))) => {
                map.push(k.clone(), v);
                Ok(())
            }
            _ => Err(format!("path {path} does not fit its container")),
        }
    }
    for e in events {
        let scalar = match &e.kind {
            OwnedEventKind::StartArray | OwnedEventKind::StartObject => {
                if e.path.segments().len() != stack.len() {
                    return Err(format!("start at {} at depth {}", e.path, stack.len()));
                }
                stack.push(if matches!(e.kind, OwnedEventKind::StartArray) {
                    Value::Array(Vec::new())
                } else {
                    Value::Object(Default::default())
                });
                continue;
            }
            OwnedEventKind::EndArray | OwnedEventKind::EndObject => {
                let done = stack.pop().ok_or("end without start")?;
                let kind_ok = matches!(
                    (&e.kind, &done),
                    (OwnedEventKind::EndArray, Value::Array(_))
                        | (OwnedEventKind::EndObject, Value::Object(_))
                );
                if !kind_ok {
                    return Err(format!("mismatched end at {}", e.path));
                }
                done
            }
            OwnedEventKind::StringDelta(_) => continue,
            OwnedEventKind::String(s) => Value::String(s.clone()),
            OwnedEventKind::Number(n) => Value::Number(
                llmstream::json::Number::from_text(n).ok_or(format!("bad number {n}"))?,
            ),
            OwnedEventKind::Bool(b) => Value::Bool(*b),
            OwnedEventKind::Null => Value::Null,
        };
        attach(&mut stack, &mut root, &e.path, scalar)?;
    }
    if !stack.is_empty() {
        return Err("containers left open".into());
    }
    Ok(root)
}

// ----- properties -----

proptest! {
    #![proptest_config(common::config(192))]

    /// The final value equals serde_json's, and the events alone rebuild it.
    #[test]
    fn final_value_equals_serde_json((text, seed, max) in case()) {
        let expected: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| TestCaseError::fail(format!("oracle rejects {text:?}: {e}")))?;
        let pieces = cut(text.as_bytes(), seed, max);
        let out = run(Options::new(), &pieces)
            .map_err(|e| TestCaseError::fail(format!("{e} in {text:?}")))?;
        let value = out.value.clone().expect("a value");
        prop_assert_eq!(to_serde(&value), expected, "{:?}", text);
        let rebuilt = value_from_events(&out.events).map_err(TestCaseError::fail)?;
        prop_assert_eq!(rebuilt.as_ref(), Some(&value));
        // `json::parse` builds the value its own way (on a stack, attached
        // as containers close): the same value.
        let parsed = llmstream::json::parse(text.as_bytes())
            .map_err(|e| TestCaseError::fail(format!("{e} in {text:?}")))?;
        prop_assert_eq!(&parsed, &value);
    }

    /// After every piece the snapshot is a monotonic prefix of the final
    /// value, and of every later snapshot: it only grows.
    #[test]
    fn snapshots_are_monotonic_prefixes((text, seed, max) in case()) {
        let pieces = cut(text.as_bytes(), seed, max);
        let out = run(Options::new(), &pieces)
            .map_err(|e| TestCaseError::fail(format!("{e} in {text:?}")))?;
        let fin = out.value.clone().expect("a value");
        let mut previous: Option<&Value> = None;
        let mut fed = 0;
        for (piece, snapshot) in pieces.iter().zip(&out.snapshots) {
            fed += piece.len();
            let prefix = String::from_utf8_lossy(&text.as_bytes()[..fed]);
            match snapshot {
                Some(s) => {
                    is_monotonic_prefix(s, &fin).map_err(|e| {
                        TestCaseError::fail(format!("after {prefix:?}: {e}"))
                    })?;
                    if let Some(p) = previous {
                        is_monotonic_prefix(p, s).map_err(|e| {
                            TestCaseError::fail(format!("shrank after {prefix:?}: {e}"))
                        })?;
                    }
                    previous = Some(s);
                }
                None => prop_assert!(
                    previous.is_none(),
                    "snapshot vanished after {:?}", prefix
                ),
            }
        }
    }

    /// The deltas of each path concatenate to its final string; deltas are
    /// never empty; strings complete in document order.
    #[test]
    fn string_deltas_concatenate_to_final_strings((text, seed, max) in case()) {
        let pieces = cut(text.as_bytes(), seed, max);
        let out = run(Options::new(), &pieces)
            .map_err(|e| TestCaseError::fail(format!("{e} in {text:?}")))?;
        let mut open: HashMap<PathBuf, String> = HashMap::new();
        let mut completed = Vec::new();
        for e in &out.events {
            match &e.kind {
                OwnedEventKind::StringDelta(t) => {
                    prop_assert!(!t.is_empty(), "empty delta at {}", e.path);
                    open.entry(e.path.clone()).or_default().push_str(t);
                }
                OwnedEventKind::String(s) => {
                    let streamed = open.remove(&e.path).unwrap_or_default();
                    prop_assert_eq!(&streamed, s, "at {}", e.path);
                    completed.push(s.clone());
                }
                _ => prop_assert!(
                    !open.contains_key(&e.path),
                    "deltas at {} then a {:?}", e.path, e.kind
                ),
            }
        }
        prop_assert!(open.is_empty(), "deltas never completed: {:?}", open);
        let mut expected = Vec::new();
        strings_in_order(out.value.as_ref().expect("a value"), &mut expected);
        prop_assert_eq!(completed, expected);
    }
}

proptest! {
    #![proptest_config(common::config(96))]

    /// A parser cloned after any piece (the live value keeps addresses
    /// into its own tree: a clone must find its own) goes on from there to
    /// the same value, and the original is not disturbed by the clone's
    /// progress. Each piece goes to the original and to a clone made just
    /// before it, which is then dropped or kept by turns.
    #[test]
    fn a_clone_made_after_any_piece_goes_on_alike((text, seed, max) in case()) {
        let expected: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| TestCaseError::fail(format!("oracle rejects {text:?}: {e}")))?;
        let pieces = cut(text.as_bytes(), seed, max);
        let mut parser = Parser::new();
        let mut kept = Parser::new();
        for (i, piece) in pieces.iter().enumerate() {
            let mut clone = parser.clone();
            clone.feed(piece).map_err(|e| TestCaseError::fail(format!("{e} in {text:?}")))?;
            parser.feed(piece).map_err(|e| TestCaseError::fail(format!("{e} in {text:?}")))?;
            prop_assert_eq!(clone.snapshot(), parser.snapshot());
            // `kept` has had every piece so far either way: as a clone
            // made just now, or pushed this piece after one made before.
            if i % 2 == 0 {
                kept = clone;
            } else {
                kept.feed(piece).map_err(|e| TestCaseError::fail(format!("{e} in {text:?}")))?;
            }
            prop_assert_eq!(kept.snapshot(), parser.snapshot());
        }
        parser.finish().map_err(|e| TestCaseError::fail(format!("{e} in {text:?}")))?;
        kept.finish().map_err(|e| TestCaseError::fail(format!("{e} in {text:?}")))?;
        let value = parser.snapshot().expect("a value");
        prop_assert_eq!(to_serde(value), expected);
        prop_assert_eq!(kept.snapshot(), Some(value));
    }

    /// Whatever the pieces, the events are the same once consecutive deltas
    /// of a path are merged.
    #[test]
    fn events_do_not_depend_on_pieces((text, seed, max) in case()) {
        let bytes = text.as_bytes();
        let whole = run(Options::new(), &[bytes])
            .map_err(|e| TestCaseError::fail(format!("{e} in {text:?}")))?;
        let split = run(Options::new(), &cut(bytes, seed, max))
            .map_err(|e| TestCaseError::fail(format!("{e} in {text:?}")))?;
        prop_assert_eq!(merge_deltas(&split.events), merge_deltas(&whole.events));
        let bytewise: Vec<&[u8]> = bytes.chunks(1).collect();
        let bytewise = run(Options::new(), &bytewise)
            .map_err(|e| TestCaseError::fail(format!("{e} in {text:?}")))?;
        prop_assert_eq!(merge_deltas(&bytewise.events), merge_deltas(&whole.events));
    }
}

proptest! {
    #![proptest_config(common::config(48))]

    /// Every prefix of a valid document is incomplete, never invalid: the
    /// pushes succeed, the end is complete or an `is_incomplete` error, and
    /// repair succeeds.
    #[test]
    fn prefixes_are_incomplete_not_invalid(
        (text, seed, _max) in case(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 1..24),
    ) {
        let bytes = text.as_bytes();
        let _ = seed;
        for cut in cuts.iter().map(|i| i.index(bytes.len() + 1)) {
            let prefix = &bytes[..cut];
            let mut parser = Parser::new();
            parser.feed(prefix).map_err(|e| {
                TestCaseError::fail(format!("{e} in prefix {:?}", String::from_utf8_lossy(prefix)))
            })?;
            if let Err(e) = parser.finish() {
                prop_assert!(e.is_incomplete(), "{} in {:?}", e, String::from_utf8_lossy(prefix));
            }
            prop_assert!(repair_bytes(prefix).is_ok(), "repair fails on {:?}", String::from_utf8_lossy(prefix));
        }
    }

    /// Showing growing numbers changes neither the final value nor the
    /// events; only the snapshots in between.
    #[test]
    fn growing_numbers_keep_value_and_events((text, seed, max) in case()) {
        let pieces = cut(text.as_bytes(), seed, max);
        let strict = run(Options::new(), &pieces)
            .map_err(|e| TestCaseError::fail(format!("{e} in {text:?}")))?;
        let growing = run(Options::new().growing_numbers(true), &pieces)
            .map_err(|e| TestCaseError::fail(format!("{e} in {text:?}")))?;
        prop_assert_eq!(growing.value, strict.value);
        prop_assert_eq!(growing.events, strict.events);
        // Types never change even so.
        for pair in growing.snapshots.windows(2) {
            if let [Some(a), Some(b)] = pair {
                prop_assert_eq!(a.type_name(), b.type_name());
            }
        }
    }

    /// A sequence of documents, separated by whitespace, read with
    /// `multiple_values`: each value is serde_json's, in order.
    #[test]
    fn multiple_values_match_serde_json(
        docs in prop::collection::vec((tree(), any::<u64>()), 1..5),
        seps in prop::collection::vec(prop::sample::select(vec![" ", "\n", "\r\n", "\t ", "\n\n"]), 5),
        seed in any::<u64>(),
        max in prop_oneof![Just(1usize), 2usize..40],
    ) {
        let texts: Vec<String> = docs.iter().map(|(d, s)| write_doc(d, *s)).collect();
        let mut all = String::new();
        for (i, t) in texts.iter().enumerate() {
            all.push_str(t);
            all.push_str(seps[i % seps.len()]);
        }
        let mut parser = Parser::with_options(Options::new().multiple_values(true));
        let mut values = Vec::new();
        for piece in cut(all.as_bytes(), seed, max) {
            parser.feed(piece).map_err(|e| TestCaseError::fail(format!("{e} in {all:?}")))?;
            while let Some(v) = parser.take_completed() {
                values.push(to_serde(&v));
            }
        }
        parser.finish().map_err(|e| TestCaseError::fail(format!("{e} in {all:?}")))?;
        while let Some(v) = parser.take_completed() {
            values.push(to_serde(&v));
        }
        let expected: Vec<serde_json::Value> =
            texts.iter().map(|t| serde_json::from_str(t).unwrap()).collect();
        prop_assert_eq!(values, expected);
    }
}

#[test]
fn the_monotonic_checker_rejects_what_it_must() {
    let v = |t: &str| llmstream::json::parse(t.as_bytes()).unwrap();
    // Accepted prefixes.
    for (snap, fin) in [
        (r#"{"a":1}"#, r#"{"a":1,"b":2}"#),
        (r#"{"a":"he"}"#, r#"{"a":"hello"}"#),
        ("[[1,2],[]]", "[[1,2],[3]]"),
        ("[]", "[1]"),
        (r#""""#, r#""x""#),
    ] {
        assert_eq!(
            is_monotonic_prefix(&v(snap), &v(fin)),
            Ok(()),
            "{snap} {fin}"
        );
    }
    // Rejected: type change, changed completed value, non-prefix string,
    // changed key, shrinking.
    for (snap, fin) in [
        ("[1]", r#"{"a":1}"#),
        ("[1,2]", "[1,3]"),
        ("[[1],[2]]", "[[1,0],[2]]"),
        (r#"{"a":"hx"}"#, r#"{"a":"hello"}"#),
        (r#"{"a":1}"#, r#"{"b":1}"#),
        ("[1,2]", "[1]"),
        ("12", "123"),
        ("true", "false"),
    ] {
        assert!(
            is_monotonic_prefix(&v(snap), &v(fin)).is_err(),
            "{snap} {fin}"
        );
    }
}

#[test]
fn the_serializer_writes_every_escape() {
    // The generator's serializer is itself checked against serde_json on a
    // document holding every kind of escape.
    let doc = Doc::Arr(vec![
        Doc::Str("\"\\/\u{8}\u{c}\n\r\t\u{0}\u{1f}é€😀\u{10ffff}".into()),
        Doc::Num("-0.5E+2".into()),
        Doc::Obj(vec![
            ("😀".into(), Doc::Null),
            ("😀".into(), Doc::Bool(true)),
        ]),
    ]);
    let mut seen_surrogate_escape = false;
    for seed in 0..64 {
        let text = write_doc(&doc, seed);
        seen_surrogate_escape |= text.to_lowercase().contains("\\ud83d\\ude00");
        let ours = serde_json::from_str::<serde_json::Value>(&text).unwrap();
        assert_eq!(
            ours[0], "\"\\/\u{8}\u{c}\n\r\t\u{0}\u{1f}é€😀\u{10ffff}",
            "{text}"
        );
        let value = llmstream::json::parse(text.as_bytes()).unwrap();
        assert_eq!(to_serde(&value), ours, "{text}");
    }
    assert!(seen_surrogate_escape);
}

// ----- any bytes at all -----

/// Bytes that are mostly JSON tokens, with some of anything.
fn json_ish_bytes() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        6 => prop::sample::select(vec![
            "{", "}", "[", "]", ",", ":", "\"", "\\", "\\u", "d83d", "\\ude00", "dc00", "0",
            "1", "9", "-", "+", ".", "e", "E", "true", "fals", "null", "nu", " ", "\n", "\"a\"",
            "é", "😀", "\u{feff}",
        ])
        .prop_map(|s: &str| s.as_bytes().to_vec()),
        1 => any::<u8>().prop_map(|b| vec![b]),
    ];
    prop::collection::vec(token, 0..40).prop_map(|ts| ts.concat())
}

/// A valid document with one byte replaced, inserted or deleted.
fn mutated_document() -> impl Strategy<Value = Vec<u8>> {
    (case(), any::<prop::sample::Index>(), any::<u8>(), 0..3u8).prop_map(
        |((text, _, _), at, byte, how)| {
            let mut bytes = text.into_bytes();
            let i = at.index(bytes.len() + 1);
            match how {
                0 if i < bytes.len() => bytes[i] = byte,
                1 if i < bytes.len() => {
                    bytes.remove(i);
                }
                _ => bytes.insert(i, byte),
            }
            bytes
        },
    )
}

/// The verdict on `bytes` fed in these pieces: the value, or the error.
fn verdict(options: Options, pieces: &[&[u8]]) -> Result<Option<String>, Error> {
    let mut parser = Parser::with_options(options);
    for piece in pieces {
        parser.feed(piece)?;
    }
    parser.finish()?;
    let mut values = Vec::new();
    while let Some(v) = parser.take_completed() {
        values.push(v.to_json());
    }
    Ok(parser
        .into_value()
        .map(|v| v.to_json())
        .or(Some(values.join("\n"))))
}

proptest! {
    #![proptest_config(common::config(256))]

    /// Whatever the bytes, the parser never panics, and its verdict (the
    /// value, or the error with its kind, offset and path) does not depend
    /// on the pieces; valid input is accepted exactly when serde_json
    /// accepts it.
    #[test]
    fn any_bytes_give_the_same_verdict_whatever_the_pieces(
        bytes in prop_oneof![json_ish_bytes(), mutated_document()],
        seed in any::<u64>(),
        max in prop_oneof![Just(1usize), 2usize..9],
        lenient in any::<bool>(),
    ) {
        let options = Options::new()
            .trailing_commas(lenient)
            .multiple_values(lenient);
        let whole = verdict(options, &[&bytes]);
        let split = verdict(options, &cut(&bytes, seed, max));
        prop_assert_eq!(&split, &whole, "{:?}", String::from_utf8_lossy(&bytes));
        // `json::parse_with` (value built for the end only) gives the same
        // value, or the same error, as the live parser.
        let single = options.multiple_values(false);
        let parsed = llmstream::json::parse_with(&bytes, single).map(|v| Some(v.to_json()));
        prop_assert_eq!(parsed, verdict(single, &[&bytes]), "{:?}", String::from_utf8_lossy(&bytes));
        if !lenient {
            let serde = serde_json::from_slice::<serde_json::Value>(&bytes);
            prop_assert_eq!(
                whole.is_ok(),
                serde.is_ok(),
                "{:?}: ours {:?}, serde_json {:?}",
                String::from_utf8_lossy(&bytes),
                whole,
                serde
            );
        }
        // Repair never panics either, and agrees with the strict verdict on
        // complete input.
        let repaired = repair_bytes(&bytes);
        if let (Ok(Some(v)), false) = (&whole, lenient) {
            let repaired = repaired.ok().flatten().map(|r| r.to_json());
            prop_assert_eq!(repaired.as_ref(), Some(v));
        }
    }
}
