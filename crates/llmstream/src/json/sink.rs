//! Where the JSON forms of the stages' items are written: the one
//! serializer of each form lives with its type (`json::Event`,
//! `sse::ItemRef`), and the sink decides how the bytes go out (into a
//! buffer, or a long string a block at a time, as the CLI writes).

use alloc::vec::Vec;

use super::write::write_json_string;

/// A place a JSON form is written to, piece by piece.
pub trait Sink {
    /// JSON text, written as it is.
    fn raw(&mut self, json: &[u8]);
    /// A string value, written as a JSON string literal (escaped as
    /// [`write_json_string`] escapes).
    fn string(&mut self, text: &str);
}

/// Appends the form to the buffer.
impl Sink for Vec<u8> {
    fn raw(&mut self, json: &[u8]) {
        self.extend_from_slice(json);
    }

    fn string(&mut self, text: &str) {
        write_json_string(self, text);
    }
}
