//! One test per rule of the snapshot chunker, and one per kind of
//! bad input: each names its error and leaves the chunker as it was.

use llmstream::chunker::{ChunkError, ChunkErrorKind, SnapshotChunker};

/// Feeds every snapshot, returns the chunks of each `process` call and of
/// `flush`.
fn run(lines: &[&str]) -> (Vec<Vec<String>>, Vec<String>) {
    run_with(SnapshotChunker::new(), lines)
}

fn run_with(mut chunker: SnapshotChunker, lines: &[&str]) -> (Vec<Vec<String>>, Vec<String>) {
    let per = lines
        .iter()
        .map(|line| crate::common::chunks_of(&mut chunker, line).unwrap())
        .collect();
    (per, crate::common::closing_chunks(&mut chunker))
}

/// The whole output, checked to parse to the last snapshot.
fn concat_checked(lines: &[&str]) -> String {
    concat_checked_with(SnapshotChunker::new(), lines)
}

fn concat_checked_with(chunker: SnapshotChunker, lines: &[&str]) -> String {
    let (per, flushed) = run_with(chunker, lines);
    let text: String = per.iter().flatten().chain(&flushed).cloned().collect();
    let got: serde_json::Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {text}\nchunks: {per:?} {flushed:?}"));
    let want: serde_json::Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    assert_eq!(got, want, "{text}");
    text
}

/// The text each call emitted, joined per call.
fn texts(lines: &[&str]) -> Vec<String> {
    let (per, flushed) = run(lines);
    per.iter()
        .chain(std::iter::once(&flushed))
        .map(|chunks| chunks.concat())
        .collect()
}

#[test]
fn sibling_rule_a_string_that_grows_then_gets_a_sibling_is_closed() {
    let lines = [r#"{"name": "Mat"}"#, r#"{"name": "Matthew", "age": 30}"#];
    assert_eq!(texts(&lines), [r#"{"name":"Mat"#, r#"thew","age":30"#, "}"]);
    concat_checked(&lines);
}

#[test]
fn property_order_changes_are_compared_by_path() {
    let lines = [
        r#"{"title": "Tr"}"#,
        r#"{"days": [], "title": "Trip"}"#,
        r#"{"title": "Trip", "days": [{"n": "1"}]}"#,
        r#"{"days": [{"n": "1 a"}], "title": "Trip"}"#,
    ];
    assert_eq!(
        texts(&lines),
        [
            r#"{"title":"Tr"#,
            r#"ip","days":["#,
            r#"{"n":"1"#,
            " a",
            r#""}]}"#
        ]
    );
    concat_checked(&lines);
}

#[test]
fn pending_rule_two_new_strings_at_once_wait_for_the_one_that_grows() {
    let lines = [
        r#"{"count": 5}"#,
        r#"{"count": 5, "a": "Hello", "b": "Wor"}"#,
        r#"{"b": "World", "a": "Hello", "count": 5}"#,
    ];
    // Nothing of a or b until the next snapshot shows b growing; then the
    // unchanged one complete first, the growing one open.
    assert_eq!(
        texts(&lines),
        [r#"{"count":5"#, "", r#","a":"Hello","b":"World"#, r#""}"#]
    );
    let (per, _) = run(&lines);
    assert_eq!(per[2], [r#","a":"Hello""#, r#","b":"World"#]);
    concat_checked(&lines);
}

#[test]
fn pending_rule_a_string_and_a_container_at_once() {
    // The empty subtitle, left behind when the array grew, is finished:
    // it is emitted complete first, then the array that grew is opened.
    let lines = [
        r#"{"days": [{}]}"#,
        r#"{"days": [{"subtitle": "", "activities": []}]}"#,
        r#"{"days": [{"subtitle": "", "activities": [{"type": "Sight"}]}]}"#,
    ];
    assert_eq!(
        texts(&lines),
        [
            r#"{"days":[{"#,
            "",
            r#""subtitle":"","activities":[{"type":"Sight"#,
            r#""}]}]}"#
        ]
    );
    concat_checked(&lines);
}

/// docs/ARCHITECTURE.md: what is held is held at most one snapshot longer. An empty
/// value held beside siblings is out as soon as one of them grows alone,
/// not when its object closes.
#[test]
fn pending_rule_empty_values_left_behind_are_out_one_snapshot_later() {
    let lines = [
        r#"{"a": "", "b": [], "c": {}, "d": ""}"#,
        r#"{"a": "", "b": [], "c": {}, "d": "x"}"#,
        r#"{"a": "", "b": [], "c": {}, "d": "xy"}"#,
    ];
    assert_eq!(
        texts(&lines),
        ["{", r#""a":"","b":[],"c":{},"d":"x"#, "y", r#""}"#]
    );
}

#[test]
fn pending_rule_held_values_growing_together_stay_held_until_flush() {
    let lines = [r#"{"a": [], "b": []}"#, r#"{"a": ["A"], "b": ["B"]}"#];
    assert_eq!(texts(&lines), ["{", "", r#""a":["A"],"b":["B"]}"#]);
    concat_checked(&lines);
}

#[test]
fn unchanged_rule_an_open_string_that_stays_while_a_sibling_grows_is_closed() {
    // A held sibling can grow after another string opened only when empty
    // values are held (by default `b` is finished at the second snapshot,
    // and its growth is rejected: see the placeholder tests below).
    let lines = [
        r#"{"a": "", "b": ""}"#,
        r#"{"a": "Hel", "b": ""}"#,
        r#"{"a": "Hel", "b": "Wo"}"#,
    ];
    let (per, flushed) = run_with(SnapshotChunker::new().hold_placeholders(true), &lines);
    let per: Vec<String> = per.iter().chain([&flushed]).map(|c| c.concat()).collect();
    assert_eq!(per, ["{", r#""a":"Hel"#, r#"","b":"Wo"#, r#""}"#]);
    concat_checked_with(SnapshotChunker::new().hold_placeholders(true), &lines);
}

#[test]
fn unchanged_rule_an_identical_snapshot_closes_nothing() {
    let lines = [r#"{"a": "Hel"}"#, r#"{"a": "Hel"}"#, r#"{"a": "Hello"}"#];
    assert_eq!(texts(&lines), [r#"{"a":"Hel"#, "", "lo", r#""}"#]);
}

#[test]
fn parent_level_rule_the_parent_array_gaining_an_item_closes_the_previous_one() {
    let lines = [
        r#"{"items": [{"name": "Fir"}]}"#,
        r#"{"items": [{"name": "First"}, {"name": "Sec"}]}"#,
        r#"{"items": [{"name": "First"}, {"name": "Second"}]}"#,
    ];
    assert_eq!(
        texts(&lines),
        [
            r#"{"items":[{"name":"Fir"#,
            r#"st"},{"name":"Sec"#,
            "ond",
            r#""}]}"#
        ]
    );
    concat_checked(&lines);
}

#[test]
fn nested_empty_arrays_then_content() {
    let lines = [
        r#"{"days": []}"#,
        r#"{"days": [{"activities": []}]}"#,
        r#"{"days": [{"activities": [{"description": "Hello"}]}]}"#,
    ];
    assert_eq!(
        texts(&lines),
        [
            r#"{"days":["#,
            r#"{"activities":["#,
            r#"{"description":"Hello"#,
            r#""}]}]}"#
        ]
    );
    concat_checked(&lines);
}

#[test]
fn an_empty_object_in_an_array_stays_open_until_the_next_item() {
    let lines = [
        r#"{"activities": [{}]}"#,
        r#"{"activities": [{}, {"description": "Hello"}]}"#,
    ];
    assert_eq!(
        texts(&lines),
        [
            r#"{"activities":[{"#,
            r#"},{"description":"Hello"#,
            r#""}]}"#
        ]
    );
    concat_checked(&lines);
}

#[test]
fn a_new_root_member_mid_stream_closes_the_deep_chain() {
    let lines = [
        r#"{"days": [{"activities": [{"title": "Hello"}]}]}"#,
        r#"{"days": [{"activities": [{"title": "Hello World"}]}], "title": "Trip"}"#,
    ];
    assert_eq!(
        texts(&lines),
        [
            r#"{"days":[{"activities":[{"title":"Hello"#,
            r#" World"}]}],"title":"Trip"#,
            r#""}"#
        ]
    );
    concat_checked(&lines);
}

#[test]
fn deep_nesting() {
    let lines = [
        r#"{"root": {"l1": {"l2": {"l3": [[{"v": "He"}]]}}}}"#,
        r#"{"root": {"l1": {"l2": {"l3": [[{"v": "Hello"}]]}}}}"#,
        r#"{"root": {"l1": {"l2": {"l3": [[{"v": "Hello"}], ["z"]]}}}}"#,
        r#"{"end": true, "root": {"l1": {"x": 1, "l2": {"l3": [[{"v": "Hello"}], ["z"]]}}}}"#,
    ];
    assert_eq!(
        texts(&lines),
        [
            r#"{"root":{"l1":{"l2":{"l3":[[{"v":"He"#,
            "llo",
            r#""}],["z"#,
            r#""]]},"x":1}},"end":true"#,
            "}"
        ]
    );
    let (per, _) = run(&lines);
    assert_eq!(per[3], [r#""]]}"#, r#","x":1}}"#, r#","end":true"#]);
    concat_checked(&lines);
}

#[test]
fn reset_mid_string_starts_a_new_document() {
    let mut chunker = SnapshotChunker::new();
    assert_eq!(
        crate::common::chunks_of(&mut chunker, r#"{"a": "Hel"}"#)
            .unwrap()
            .concat(),
        r#"{"a":"Hel"#
    );
    chunker.reset();
    assert_eq!(chunker.snapshots(), 0);
    // A different root type is fine: nothing of the old document remains.
    assert_eq!(
        crate::common::chunks_of(&mut chunker, r#"[1, "x"]"#)
            .unwrap()
            .concat(),
        r#"[1,"x"#
    );
    assert_eq!(
        crate::common::closing_chunks(&mut chunker).concat(),
        r#""]"#
    );
}

#[test]
fn flush_ends_the_document_and_the_next_snapshot_starts_a_new_one() {
    let mut chunker = SnapshotChunker::new();
    assert!(crate::common::closing_chunks(&mut chunker).is_empty());
    crate::common::chunks_of(&mut chunker, r#"{"a": "x"}"#).unwrap();
    assert_eq!(
        crate::common::closing_chunks(&mut chunker).concat(),
        r#""}"#
    );
    assert_eq!(
        crate::common::chunks_of(&mut chunker, r#"{"b": 1}"#)
            .unwrap()
            .concat(),
        r#"{"b":1"#
    );
}

#[test]
fn an_array_root_works_like_an_object_root() {
    let lines = [r#"["a"]"#, r#"["ab", "c"]"#, r#"["ab", "cd", {"k": []}]"#];
    assert_eq!(texts(&lines), [r#"["a"#, r#"b","c"#, r#"d",{"k":["#, "]}]"]);
    concat_checked(&lines);
}

#[test]
fn numbers_booleans_and_null_are_emitted_complete() {
    let lines = [
        r#"{"n": 1.5e3}"#,
        r#"{"n": 1.5e3, "t": true, "f": false, "z": null, "s": "x"}"#,
    ];
    assert_eq!(
        texts(&lines),
        [
            r#"{"n":1.5e3"#,
            r#","t":true,"f":false,"z":null,"s":"x"#,
            r#""}"#
        ]
    );
    concat_checked(&lines);
}

/// Some producers declare every field empty, then fill them one by one.
/// By default an empty field left behind is finished, so its filling is
/// rejected, naming the field; holding placeholders takes those producers.
#[test]
fn empty_placeholders_filled_later_are_rejected_unless_held() {
    assert_rejected(
        &[r#"{"title":"","tags":[]}"#, r#"{"title":"Trip","tags":[]}"#],
        r#"{"title":"Trip","tags":["su"]}"#,
        "tags[0]",
        ChunkErrorKind::PlaceholderFilled,
        r#"{"title":"Trip plan","tags":[]}"#,
    );
    assert_rejected(
        &[
            r#"{"a":"","b":""}"#,
            r#"{"a":"x","b":""}"#,
            r#"{"a":"x","b":"","c":1}"#,
        ],
        r#"{"a":"x","b":"y","c":1}"#,
        "b",
        ChunkErrorKind::PlaceholderFilled,
        r#"{"a":"x","b":"","c":1,"d":2}"#,
    );
    assert_rejected(
        &[r#"{"a":"","o":{}}"#, r#"{"a":"x","o":{}}"#],
        r#"{"a":"x","o":{"k":1}}"#,
        "o.k",
        ChunkErrorKind::PlaceholderFilled,
        r#"{"a":"xy","o":{}}"#,
    );
    // A hollow member: its skeleton was declared up front.
    assert_rejected(
        &[r#"{"t":"","m":{"k":[]}}"#, r#"{"t":"T","m":{"k":[]}}"#],
        r#"{"t":"T","m":{"k":[1]}}"#,
        "m.k[0]",
        ChunkErrorKind::PlaceholderFilled,
        r#"{"t":"Tr","m":{"k":[]}}"#,
    );
    // Not placeholders: an array item followed by another, and a member
    // closed because a sibling came after it (holding would not help).
    assert_rejected(
        &[r#"{"a":["","x"]}"#],
        r#"{"a":["y","x"]}"#,
        "a[0]",
        ChunkErrorKind::ChangedAfterComplete,
        r#"{"a":["","xy"]}"#,
    );
    assert_rejected(
        &[r#"{"a":""}"#, r#"{"a":"","b":"x"}"#],
        r#"{"a":"y","b":"x"}"#,
        "a",
        ChunkErrorKind::ChangedAfterComplete,
        r#"{"a":"","b":"xy"}"#,
    );
    // A value that was not empty is not a placeholder.
    assert_rejected(
        &[r#"{"a":"p","b":""}"#, r#"{"a":"p","b":"q"}"#],
        r#"{"a":"pp","b":"q"}"#,
        "a",
        ChunkErrorKind::ChangedAfterComplete,
        r#"{"a":"p","b":"qq"}"#,
    );
    let error = {
        let mut chunker = SnapshotChunker::new();
        crate::common::chunks_of(&mut chunker, r#"{"t":"","u":""}"#).unwrap();
        crate::common::chunks_of(&mut chunker, r#"{"t":"","u":"x"}"#).unwrap();
        crate::common::chunks_of(&mut chunker, r#"{"t":"y","u":"x"}"#).unwrap_err()
    };
    assert_eq!(
        error.to_string(),
        "snapshot 3, at t: a member emitted complete while still empty is being filled: \
         the producer declares fields up front"
    );
}

#[test]
fn held_placeholders_wait_until_they_fill_in() {
    let held = || SnapshotChunker::new().hold_placeholders(true);
    let lines = [
        r#"{"title":"","tags":[]}"#,
        r#"{"title":"Trip","tags":[]}"#,
        r#"{"title":"Trip plan","tags":["su"]}"#,
        r#"{"title":"Trip plan","tags":["summer"]}"#,
    ];
    let (per, flushed) = run_with(held(), &lines);
    let per: Vec<String> = per.iter().chain([&flushed]).map(|c| c.concat()).collect();
    assert_eq!(
        per,
        [
            "{",
            r#""title":"Trip"#,
            r#" plan","tags":["su"#,
            "mmer",
            r#""]}"#
        ]
    );
    // Members holding only hollow values are held too.
    concat_checked_with(
        held(),
        &[
            r#"{"t":"","m":{"k":[],"n":{"o":""}}}"#,
            r#"{"t":"T","m":{"k":[],"n":{"o":""}}}"#,
            r#"{"t":"T","m":{"k":[1],"n":{"o":""}}}"#,
            r#"{"t":"T","m":{"k":[1],"n":{"o":"p"}}}"#,
        ],
    );
    // Held, a placeholder is never reported filled: what fails is a
    // member that was closed.
    let mut chunker = held();
    crate::common::chunks_of(&mut chunker, r#"{"a":""}"#).unwrap();
    crate::common::chunks_of(&mut chunker, r#"{"a":"","b":"x"}"#).unwrap();
    let error = crate::common::chunks_of(&mut chunker, r#"{"a":"y","b":"x"}"#).unwrap_err();
    assert_eq!(error.kind(), &ChunkErrorKind::ChangedAfterComplete);
    // The setting outlives a flush and a reset.
    let mut chunker = held();
    crate::common::chunks_of(&mut chunker, lines[0]).unwrap();
    crate::common::closing_chunks(&mut chunker);
    chunker.reset();
    for line in lines {
        crate::common::chunks_of(&mut chunker, line).unwrap();
    }
    concat_checked_with(
        held(),
        &[
            r#"{"summary":"","category":"","keyPoints":[],"sentiment":""}"#,
            r#"{"summary":"Hello","category":"","keyPoints":[],"sentiment":""}"#,
            r#"{"summary":"Hello there","category":"","keyPoints":[],"sentiment":""}"#,
            r#"{"summary":"Hello there friend.","category":"greeting","keyPoints":["hi","yo"],"sentiment":"positive"}"#,
        ],
    );
    concat_checked_with(
        held(),
        &[
            r#"{"title":"","tags":[]}"#,
            r#"{"title":"Trip","tags":["su"]}"#,
            r#"{"title":"Trip p","tags":["sum"]}"#,
            r#"{"title":"Trip plan","tags":["summer"]}"#,
            r#"{"title":"Trip plan","tags":["summer","beach"]}"#,
        ],
    );
}

#[test]
fn pending_values_inside_a_closing_parent_are_emitted_within_it() {
    concat_checked(&[
        r#"{"outer":{"a":"","b":""}}"#,
        r#"{"outer":{"a":"first","b":"second"},"after":true}"#,
    ]);
    concat_checked(&[
        r#"{"items":[{"inner":{"a":"","b":""}}]}"#,
        r#"{"items":[{"inner":{"a":"first","b":"second"}},{"inner":{"a":"next","b":"later"}}]}"#,
    ]);
    concat_checked(&[
        r#"{"outer":{"a":"","b":""}}"#,
        r#"{"outer":{"a":"","b":""},"alpha":"","beta":""}"#,
        r#"{"outer":{"a":"","b":""},"alpha":"","beta":"x","final":1}"#,
    ]);
}

#[test]
fn escapes_and_multibyte_text_split_across_snapshots() {
    let lines = [
        r#"{"k\"ey\n": "a\"b\\"}"#,
        r#"{"k\"ey\n": "a\"b\\c\u0001 é"}"#,
        r#"{"k\"ey\n": "a\"b\\c\u0001 é😀\t"}"#,
    ];
    let text = concat_checked(&lines);
    assert_eq!(text, r#"{"k\"ey\n":"a\"b\\c\u0001 é😀\t"}"#);
}

#[test]
fn duplicate_keys_are_read_as_the_last_one() {
    let lines = [r#"{"a": "x", "a": "y"}"#, r#"{"a": "yz"}"#];
    assert_eq!(texts(&lines), [r#"{"a":"y"#, "z", r#""}"#]);
}

// ---------------------------------------------------------------------------
// Bad input: a clear error naming the snapshot and path, state unchanged.

/// Feeds `good`, then `bad` (which must fail with `kind` at `path`), then
/// `next`; the output must be what a chunker that never saw `bad` gives.
fn assert_rejected(good: &[&str], bad: &str, path: &str, kind: ChunkErrorKind, next: &str) {
    let mut chunker = SnapshotChunker::new();
    let mut clean = SnapshotChunker::new();
    for line in good {
        crate::common::chunks_of(&mut chunker, line).unwrap();
        crate::common::chunks_of(&mut clean, line).unwrap();
    }
    let before = format!("{chunker:?}");
    let error: ChunkError = crate::common::chunks_of(&mut chunker, bad).unwrap_err();
    assert_eq!(error.kind(), &kind, "{error}");
    assert_eq!(error.snapshot(), good.len() + 1, "{error}");
    assert_eq!(error.path().to_string(), path, "{error}");
    let message = error.to_string();
    assert!(
        message.starts_with(&format!("snapshot {}, at ", good.len() + 1)),
        "{message}"
    );
    let form = error.to_value();
    assert_eq!(form["message"].as_str(), Some(message.as_str()));
    assert_eq!(form["kind"].as_str(), Some(kind.name()));
    assert_eq!(form["snapshot"].as_u64(), Some(good.len() as u64 + 1));
    assert_eq!(form["path"].as_str(), Some(path));
    assert_eq!(
        format!("{chunker:?}"),
        before,
        "state changed by a rejected snapshot"
    );
    assert_eq!(
        crate::common::chunks_of(&mut chunker, next).unwrap(),
        crate::common::chunks_of(&mut clean, next).unwrap()
    );
    assert_eq!(
        crate::common::closing_chunks(&mut chunker),
        crate::common::closing_chunks(&mut clean)
    );
}

#[test]
fn bad_input_a_line_that_is_not_json() {
    let mut chunker = SnapshotChunker::new();
    crate::common::chunks_of(&mut chunker, r#"{"a": "x"}"#).unwrap();
    let before = format!("{chunker:?}");
    let error = crate::common::chunks_of(&mut chunker, r#"{"a": "xy"#).unwrap_err();
    assert!(
        matches!(error.kind(), ChunkErrorKind::InvalidJson(_)),
        "{error}"
    );
    assert!(
        error
            .to_string()
            .starts_with("snapshot 2, at a: not valid JSON"),
        "{error}"
    );
    assert_eq!(format!("{chunker:?}"), before);
    assert_eq!(
        crate::common::chunks_of(&mut chunker, r#"{"a": "xy"}"#)
            .unwrap()
            .concat(),
        "y"
    );
}

#[test]
fn bad_input_a_string_that_no_longer_extends_what_was_emitted() {
    assert_rejected(
        &[r#"{"d": [{"t": "Hello"}]}"#],
        r#"{"d": [{"t": "Help"}]}"#,
        "d[0].t",
        ChunkErrorKind::StringNotExtended,
        r#"{"d": [{"t": "Hello!"}]}"#,
    );
}

#[test]
fn bad_input_a_member_that_disappears() {
    assert_rejected(
        &[r#"{"a": 1, "b": "x"}"#],
        r#"{"b": "xy"}"#,
        "a",
        ChunkErrorKind::Disappeared,
        r#"{"a": 1, "b": "xy"}"#,
    );
    assert_rejected(
        &[r#"{"a": [1, 2]}"#],
        r#"{"a": [1]}"#,
        "a[1]",
        ChunkErrorKind::Disappeared,
        r#"{"a": [1, 2, 3]}"#,
    );
}

#[test]
fn bad_input_a_value_that_changes_type() {
    assert_rejected(
        &[r#"{"a": {"b": "x"}}"#],
        r#"{"a": {"b": ["x"]}}"#,
        "a.b",
        ChunkErrorKind::TypeChanged {
            from: "string",
            to: "array",
        },
        r#"{"a": {"b": "xy"}}"#,
    );
}

/// The messages name each type with its article ("an" before a vowel;
/// none for null).
#[test]
fn type_errors_read_as_sentences() {
    let message = |good: &str, bad: &str| {
        let mut chunker = SnapshotChunker::new();
        if !good.is_empty() {
            crate::common::chunks_of(&mut chunker, good).unwrap();
        }
        crate::common::chunks_of(&mut chunker, bad)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        message(r#"{"a": "x"}"#, r#"{"a": 1}"#),
        "snapshot 2, at a: a string became a number"
    );
    assert_eq!(
        message(r#"{"a": []}"#, r#"{"a": {}}"#),
        "snapshot 2, at a: an array became an object"
    );
    assert_eq!(
        message(r#"{"a": null}"#, r#"{"a": true}"#),
        "snapshot 2, at a: null became a boolean"
    );
    assert_eq!(
        message(r#"{"a": {}}"#, r#"{"a": null}"#),
        "snapshot 2, at a: an object became null"
    );
    assert_eq!(
        message("", "12"),
        "snapshot 1, at the root: the root is a number, not an object or an array"
    );
    assert_eq!(
        message("", "null"),
        "snapshot 1, at the root: the root is null, not an object or an array"
    );
}

#[test]
fn bad_input_a_number_or_literal_that_changes_after_it_was_emitted() {
    assert_rejected(
        &[r#"{"n": 12}"#],
        r#"{"n": 123}"#,
        "n",
        ChunkErrorKind::ScalarChanged {
            from: "12".into(),
            to: "123".into(),
        },
        r#"{"n": 12, "m": 3}"#,
    );
    assert_rejected(
        &[r#"[true]"#],
        r#"[false]"#,
        "[0]",
        ChunkErrorKind::ScalarChanged {
            from: "true".into(),
            to: "false".into(),
        },
        r#"[true, null]"#,
    );
}

#[test]
fn bad_input_a_string_that_grows_after_it_was_closed() {
    assert_rejected(
        &[r#"{"a": "x"}"#, r#"{"a": "x", "b": "y"}"#],
        r#"{"a": "xx", "b": "y"}"#,
        "a",
        ChunkErrorKind::ChangedAfterComplete,
        r#"{"a": "x", "b": "yy"}"#,
    );
}

#[test]
fn bad_input_a_closed_container_that_gains_content() {
    assert_rejected(
        &[r#"{"a": [{"b": 1}]}"#, r#"{"a": [{"b": 1}, 2]}"#],
        r#"{"a": [{"b": 1, "c": 2}, 2]}"#,
        "a[0].c",
        ChunkErrorKind::ChangedAfterComplete,
        r#"{"a": [{"b": 1}, 2, 3]}"#,
    );
}

#[test]
fn bad_input_a_root_that_is_not_a_container() {
    let mut chunker = SnapshotChunker::new();
    let error = crate::common::chunks_of(&mut chunker, r#""text""#).unwrap_err();
    assert_eq!(
        error.kind(),
        &ChunkErrorKind::RootNotContainer { found: "string" }
    );
    assert_eq!(
        error.to_string(),
        "snapshot 1, at the root: the root is a string, not an object or an array"
    );
    assert_eq!(chunker.snapshots(), 0);
    assert_eq!(
        crate::common::chunks_of(&mut chunker, "{}")
            .unwrap()
            .concat(),
        "{"
    );
}

/// The chunker walks values by recursion: a snapshot nested deeper than the
/// parser's default limit is an error, not a stack overflow, and one at the
/// limit is fine.
#[test]
fn a_snapshot_nested_too_deep_is_an_error() {
    use llmstream::chunker::MAX_DEPTH;
    use llmstream::json::Value;
    let nest = |levels: usize| {
        let mut value = Value::from(vec![Value::from(1)]);
        for _ in 1..levels {
            value = Value::from(vec![value]);
        }
        value
    };
    let mut chunker = SnapshotChunker::new();
    let error = crate::common::chunks_of_value(&mut chunker, &nest(1000)).unwrap_err();
    assert_eq!(error.kind(), &ChunkErrorKind::TooDeep);
    let mut chunker = SnapshotChunker::new();
    let mut text: String = crate::common::chunks_of_value(&mut chunker, &nest(MAX_DEPTH))
        .unwrap()
        .concat();
    text.extend(crate::common::closing_chunks(&mut chunker));
    assert_eq!(text, nest(MAX_DEPTH).to_json());
    assert!(crate::common::chunks_of_value(&mut chunker, &nest(MAX_DEPTH + 1)).is_err());
}

// ---------------------------------------------------------------------------
// Wide and deep snapshots: members are looked up by key, not by a scan per
// member, and nested comparisons are not repeated per level. These check
// the output only (no timing).

/// `{"k0":V0,"k1":V1,...}` of `values`, in that order.
fn object_of(values: &[String]) -> String {
    let members: Vec<String> = values
        .iter()
        .enumerate()
        .map(|(i, value)| format!("\"k{i}\":{value}"))
        .collect();
    format!("{{{}}}", members.join(","))
}

#[test]
fn a_wide_object_of_held_empty_members_in_which_one_grows() {
    const K: usize = 3000;
    let empty = vec![String::from("\"\""); K];
    let mut grown = empty.clone();
    grown[0] = String::from("\"a\"");
    let (first, second) = (object_of(&empty), object_of(&grown));
    let (per, flushed) = run(&[&first, &second]);
    // All K new at once: held. Then k0 grows alone: the others are finished
    // (emitted empty, one chunk each, in document order) and k0 is opened.
    assert_eq!(per[0], ["{"]);
    let mut want: Vec<String> = (1..K)
        .map(|i| format!("{}\"k{i}\":\"\"", if i > 1 { "," } else { "" }))
        .collect();
    want.push(String::from(",\"k0\":\"a"));
    assert_eq!(per[1], want);
    assert_eq!(flushed, ["\"}"]);
    concat_checked(&[&first, &second]);

    // Filling one of them later, far down the list, is a placeholder filled.
    let mut filled = grown.clone();
    filled[K - 7] = String::from("\"x\"");
    let mut next = grown.clone();
    next[0] = String::from("\"ab\"");
    assert_rejected(
        &[&first, &second],
        &object_of(&filled),
        &format!("k{}", K - 7),
        ChunkErrorKind::PlaceholderFilled,
        &object_of(&next),
    );
}

#[test]
fn a_wide_object_declared_up_front_filled_member_by_member() {
    // K snapshots of K members: kept small for debug builds.
    const K: usize = 400;
    let mut values = vec![String::from("\"\""); K];
    let mut lines = vec![object_of(&values)];
    for i in 0..K {
        values[i] = format!("\"v{i}\"");
        lines.push(object_of(&values));
    }
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let chunker = SnapshotChunker::new().hold_placeholders(true);
    let (per, flushed) = run_with(chunker.clone(), &lines);
    // Member i opens when it is filled and closes when member i + 1 is.
    assert_eq!(per[0], ["{"]);
    assert_eq!(per[1], ["\"k0\":\"v0"]);
    for i in 1..K {
        assert_eq!(per[i + 1], ["\"".to_string(), format!(",\"k{i}\":\"v{i}")]);
    }
    assert_eq!(flushed, ["\"}"]);
    let text = concat_checked_with(chunker, &lines);
    assert_eq!(text, *lines.last().unwrap());
}

#[test]
fn a_wide_object_growing_one_member_at_a_time_with_duplicates_and_reordering() {
    // K snapshots of up to K members: kept small for debug builds.
    const K: usize = 400;
    let mut lines = Vec::new();
    for n in 1..=K {
        // Members in reverse order, and a stale duplicate of the first key
        // ahead of its real value.
        let mut members = vec![String::from("\"k0\":\"stale\"")];
        members.extend((0..n).rev().map(|i| format!("\"k{i}\":{i}")));
        lines.push(format!("{{{}}}", members.join(",")));
    }
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let text = concat_checked(&lines);
    let want: Vec<String> = (0..K).map(|i| format!("\"k{i}\":{i}")).collect();
    assert_eq!(text, format!("{{{}}}", want.join(",")));
}

#[test]
fn deep_held_containers_open_level_by_level_when_one_grows() {
    const DEPTH: usize = 100;
    let chain = |leaf: &str| {
        let mut text = String::new();
        for level in 0..DEPTH {
            text.push_str(&format!("{{\"p{level}\":[1,2,3],\"a\":"));
        }
        text.push_str(leaf);
        text.push_str(&"}".repeat(DEPTH));
        text
    };
    let first = format!("{{\"x\":{},\"y\":[]}}", chain("\"\""));
    let second = format!("{{\"x\":{},\"y\":[]}}", chain("\"z\""));
    let (per, flushed) = run(&[&first, &second]);
    assert_eq!(per[0], ["{"]);
    // `y` is finished; `x` is opened down to its string, each level's
    // unchanged array emitted whole before the level below is opened.
    let mut want = vec![String::from("\"y\":[]")];
    let mut opening = String::from(",\"x\":{");
    for level in 0..DEPTH {
        want.push(format!("{opening}\"p{level}\":[1,2,3]"));
        opening = String::from(",\"a\":{");
    }
    want.push(String::from(",\"a\":\"z"));
    assert_eq!(per[1], want);
    assert_eq!(flushed, [format!("\"{}", "}".repeat(DEPTH + 1))]);
    concat_checked(&[&first, &second]);
}
