//! The text the chunker emits: finished values written out, strings
//! escaped, and the chunks cut where one emitted item ends.

use alloc::string::String;
use alloc::vec::Vec;

use crate::json::Value;

/// Writes a finished value as compact JSON, with one member per key (the
/// value [`Map::get`](crate::json::Map::get) gives), as the partial output
/// does.
pub(super) fn write_value(out: &mut String, value: &Value) {
    // Writing into a `String` cannot fail.
    let _ = crate::json::write::write_unique(out, value);
}

/// Appends `text` escaped for the inside of a JSON string, as the crate's
/// writer escapes (and serde_json): a string sent in pieces reads the same
/// as sent whole.
pub(super) fn escape_into(out: &mut String, text: &str) {
    // Writing into a `String` cannot fail.
    let _ = crate::json::write::write_string_contents(out, text);
}

/// Collects emitted text as chunks: one per emitted item, an opening
/// bracket joined to what follows it and closing brackets to what they
/// follow, so no chunk is bare punctuation that could have gone with a
/// neighbour.
#[derive(Default)]
pub(super) struct Out {
    pieces: Vec<String>,
    current: String,
    /// The current piece ends in an opening bracket: join the next item.
    joining: bool,
}

impl Out {
    pub(super) fn text(&mut self, text: &str) {
        if !self.joining {
            self.cut();
        }
        self.joining = false;
        self.current.push_str(text);
    }

    pub(super) fn open(&mut self, text: &str) {
        self.text(text);
        self.joining = true;
    }

    pub(super) fn close(&mut self, bracket: &str) {
        self.joining = false;
        self.current.push_str(bracket);
    }

    pub(super) fn cut(&mut self) {
        if !self.current.is_empty() {
            self.pieces.push(core::mem::take(&mut self.current));
        }
    }

    pub(super) fn finish(mut self) -> Vec<String> {
        self.cut();
        self.pieces
    }
}
