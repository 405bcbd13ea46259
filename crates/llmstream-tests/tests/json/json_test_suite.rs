//! JSONTestSuite (Nicolas Seriot): every `y_` file accepted with serde_json's
//! value, every `n_` file rejected — fed whole, one byte at a time and in
//! random pieces. `i_` files are recorded in a table, not judged.
//!
//! Needs ../shared/fixtures beside the repository; without it the tests
//! show as ignored.

use crate::common::{fixtures, parse_pieces, random_pieces, to_serde};

const SUITE: &str = "json/JSONTestSuite/test_parsing";

fn suite() -> Vec<(String, Vec<u8>)> {
    fixtures::files(SUITE)
        .into_iter()
        .map(|name| {
            let bytes = fixtures::read(&format!("{SUITE}/{name}"));
            (name, bytes)
        })
        .collect()
}

fn chunkings(bytes: &[u8], seed: u64) -> Vec<(String, Vec<&[u8]>)> {
    vec![
        ("whole".to_string(), vec![bytes]),
        ("bytewise".to_string(), bytes.chunks(1).collect()),
        (format!("random({seed})"), random_pieces(bytes, seed)),
    ]
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn y_files_are_accepted_with_serde_json_values() {
    let files = suite();
    let mut count = 0;
    for (seed, (name, bytes)) in files.iter().enumerate() {
        if !name.starts_with("y_") {
            continue;
        }
        count += 1;
        let expected: serde_json::Value = serde_json::from_slice(bytes)
            .unwrap_or_else(|e| panic!("serde_json rejects {name}: {e}"));
        for (how, pieces) in chunkings(bytes, seed as u64) {
            let value = parse_pieces(&pieces)
                .unwrap_or_else(|e| panic!("{name} ({how}) rejected: {e}"))
                .unwrap_or_else(|| panic!("{name} ({how}): no value"));
            assert_eq!(to_serde(&value), expected, "{name} ({how})");
        }
        let parsed = llmstream::json::parse(bytes)
            .unwrap_or_else(|e| panic!("{name} rejected by json::parse: {e}"));
        assert_eq!(to_serde(&parsed), expected, "{name} (json::parse)");
    }
    assert!(count >= 95, "only {count} y_ files found");
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn n_files_are_rejected() {
    let files = suite();
    let mut count = 0;
    for (seed, (name, bytes)) in files.iter().enumerate() {
        if !name.starts_with("n_") {
            continue;
        }
        count += 1;
        for (how, pieces) in chunkings(bytes, seed as u64) {
            if let Ok(value) = parse_pieces(&pieces) {
                panic!("{name} ({how}) accepted as {value:?}");
            }
        }
        if let Ok(value) = llmstream::json::parse(bytes) {
            panic!("{name} accepted by json::parse as {value:?}");
        }
    }
    assert!(count >= 180, "only {count} n_ files found");
}

/// What each implementation-defined file does, printed as a table (run with
/// `--nocapture`); the outcome must not depend on the chunking, and must
/// agree with serde_json's verdict except on numbers out of f64 range, which
/// serde_json rejects and we keep as text.
#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn i_files_are_recorded_and_chunking_independent() {
    let files = suite();
    for (seed, (name, bytes)) in files.iter().enumerate() {
        if !name.starts_with("i_") {
            continue;
        }
        let outcomes: Vec<String> = chunkings(bytes, seed as u64)
            .into_iter()
            .map(|(_, pieces)| match parse_pieces(&pieces) {
                Ok(Some(v)) => format!("accepted {}", v.to_json()),
                Ok(None) => "no value".to_string(),
                Err(e) => format!("rejected: {}", e.kind()),
            })
            .collect();
        assert!(
            outcomes.windows(2).all(|w| w[0] == w[1]),
            "{name}: {outcomes:?}"
        );
        // serde_json converts numbers to f64 and rejects those out of its
        // range; we keep the source text, so any grammatical number is fine.
        let serde = serde_json::from_slice::<serde_json::Value>(bytes);
        let out_of_range = matches!(&serde, Err(e) if e.to_string().contains("out of range"));
        if !out_of_range {
            let accepted = outcomes[0].starts_with("accepted");
            assert_eq!(accepted, serde.is_ok(), "{name}: {}", outcomes[0]);
        }
        println!("{name:60} {}", outcomes[0]);
    }
}
