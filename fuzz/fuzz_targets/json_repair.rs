//! json::repair never panics; what it returns is valid JSON (printed and
//! parsed back, it is itself); a valid document repairs to its own value; a
//! prefix of a valid document (cut where the fuzzer chose) is never an
//! error.
#![no_main]

use fuzz_common::Input;
use libfuzzer_sys::fuzz_target;
use llmstream::json::{self, Value};

fn round_trips(value: &Value) {
    let compact = value.to_json();
    assert_eq!(
        json::parse(compact.as_bytes()).as_ref(),
        Ok(value),
        "{compact}"
    );
    let pretty = value.to_json_pretty();
    assert_eq!(
        json::parse(pretty.as_bytes()).as_ref(),
        Ok(value),
        "{pretty}"
    );
}

fuzz_target!(|data: &[u8]| {
    let Some(input) = Input::new(data) else {
        return;
    };
    let doc = input.doc;
    let repaired = json::repair_bytes(doc);
    if let Ok(text) = std::str::from_utf8(doc) {
        assert_eq!(json::repair(text), repaired);
    }
    if let Ok(Some(value)) = &repaired {
        round_trips(value);
    }
    let Ok(value) = json::parse(doc) else {
        return;
    };
    assert_eq!(
        repaired,
        Ok(Some(value)),
        "a valid document repairs to itself"
    );
    // Incomplete is not invalid: every prefix of a valid document repairs.
    let cut = input.cuts.first().copied().unwrap_or(doc.len() / 2);
    let prefix = &doc[..cut];
    match json::repair_bytes(prefix) {
        Ok(Some(value)) => round_trips(&value),
        Ok(None) => {
            // Only whitespace, or a lone `-` (a cut number with no digit).
            let rest = prefix.trim_ascii();
            assert!(
                rest.is_empty() || rest == b"-",
                "{prefix:?} repairs to nothing"
            );
        }
        Err(e) => panic!("a prefix of a valid document fails to repair: {e}"),
    }
});
