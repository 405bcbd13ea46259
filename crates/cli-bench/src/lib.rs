//! What the peer programs share: stdin read whole, cut into the pieces an
//! HTTP client would hand over, and the `llmstream sse` line form printed
//! with serde_json.

use std::io::{Read, Write};

/// All of standard input.
pub fn read_stdin() -> Vec<u8> {
    let mut input = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut input)
        .expect("standard input");
    input
}

/// The piece size from the first argument (`65536` when absent).
pub fn piece_size() -> usize {
    std::env::args()
        .nth(1)
        .map_or(65536, |n| n.parse().expect("a piece size in bytes"))
        .max(1)
}

/// Writes `{"event":T,"data":D,"id":I}` and a newline, each string escaped
/// by serde_json, as `llmstream sse` prints an event.
pub fn write_event(out: &mut impl Write, event: &str, data: &str, id: &str) {
    out.write_all(b"{\"event\":").expect("stdout");
    serde_json::to_writer(&mut *out, event).expect("stdout");
    out.write_all(b",\"data\":").expect("stdout");
    serde_json::to_writer(&mut *out, data).expect("stdout");
    out.write_all(b",\"id\":").expect("stdout");
    serde_json::to_writer(&mut *out, id).expect("stdout");
    out.write_all(b"}\n").expect("stdout");
}
