//! Gemini's streamed function-call arguments (`partialArgs` entries, each a
//! JSONPath and one scalar or piece of a string) written out as JSON text,
//! so that the argument parser reports them as it does for providers that
//! stream the text itself.

use alloc::string::String;
use alloc::vec::Vec;

pub(super) use super::json_path::Seg;

/// The value of one `partialArgs` entry.
pub(super) enum Leaf<'a> {
    /// A string, or the next piece of one.
    Str(&'a str),
    /// A number, boolean or null, as JSON text.
    Json(String),
}

/// An open container of the arguments being written.
#[derive(Clone, Debug)]
struct Frame {
    /// How the parent reaches it (`None` for the root).
    seg: Option<Seg>,
    is_array: bool,
    /// Members written so far (a comma goes before the next).
    children: usize,
}

/// Turns `partialArgs` entries into JSON text, incrementally: the text
/// written so far is always a prefix of the final arguments, so the
/// argument parser reports each value as it comes.
///
/// Paths are expected in document order (members of one object together);
/// a path that goes back to a container already closed opens it again,
/// which repeats its key. An array index different from the open element's
/// starts the next element (gaps are not filled, so a hostile index costs
/// nothing). An entry whose path contradicts the containers already open
/// (a key inside an array) is dropped.
#[derive(Clone, Debug, Default)]
pub(super) struct ArgsWriter {
    stack: Vec<Frame>,
    /// The path of a string whose closing quote is not written yet.
    open_string: Option<Vec<Seg>>,
}

impl ArgsWriter {
    pub(super) fn write(&mut self, path: &[Seg], leaf: Leaf<'_>, will_continue: bool) -> String {
        let mut out = String::new();
        let Some((last, containers)) = path.split_last() else {
            return out;
        };
        if let Leaf::Str(s) = leaf {
            if self.open_string.as_deref() == Some(path) {
                out.push_str(&escape(s));
                if !will_continue {
                    out.push('"');
                    self.open_string = None;
                }
                return out;
            }
        }
        let first = containers.first().unwrap_or(last);
        if self.stack.is_empty() {
            self.stack.push(Frame {
                seg: None,
                is_array: matches!(first, Seg::Index(_)),
                children: 0,
            });
            out.push(if matches!(first, Seg::Index(_)) {
                '['
            } else {
                '{'
            });
        }
        // How many open containers the new path shares (the root always).
        let mut common = 1;
        for (frame, seg) in self.stack.iter().skip(1).zip(containers) {
            if frame.seg.as_ref() == Some(seg) {
                common += 1;
            } else {
                break;
            }
        }
        // The next step must fit the container it goes into.
        let next = containers.get(common - 1).unwrap_or(last);
        let fits = self
            .stack
            .get(common - 1)
            .is_some_and(|f| f.is_array == matches!(next, Seg::Index(_)));
        if !fits {
            return out;
        }
        // (The root was only just opened if nothing was open, so a string
        // left open is the first thing to close.)
        if self.open_string.take().is_some() {
            out.push('"');
        }
        while self.stack.len() > common {
            if let Some(frame) = self.stack.pop() {
                out.push(if frame.is_array { ']' } else { '}' });
            }
        }
        for (i, seg) in containers.iter().enumerate().skip(common - 1) {
            let child = containers.get(i + 1).unwrap_or(last);
            let is_array = matches!(child, Seg::Index(_));
            self.member(&mut out, seg);
            out.push(if is_array { '[' } else { '{' });
            self.stack.push(Frame {
                seg: Some(seg.clone()),
                is_array,
                children: 0,
            });
        }
        self.member(&mut out, last);
        match leaf {
            Leaf::Str(s) => {
                out.push('"');
                out.push_str(&escape(s));
                if will_continue {
                    self.open_string = Some(path.to_vec());
                } else {
                    out.push('"');
                }
            }
            Leaf::Json(text) => out.push_str(&text),
        }
        out
    }

    /// The separator and key before a new member of the innermost
    /// container.
    fn member(&mut self, out: &mut String, seg: &Seg) {
        let Some(top) = self.stack.last_mut() else {
            return;
        };
        if top.children > 0 {
            out.push(',');
        }
        top.children += 1;
        if let Seg::Key(key) = seg {
            out.push('"');
            out.push_str(&escape(key));
            out.push_str("\":");
        }
    }

    /// The text that closes everything open ("" if nothing was written,
    /// which the argument stream reads as `{}`).
    pub(super) fn close(&mut self) -> String {
        let mut out = String::new();
        if self.open_string.take().is_some() {
            out.push('"');
        }
        while let Some(frame) = self.stack.pop() {
            out.push(if frame.is_array { ']' } else { '}' });
        }
        out
    }
}

/// A string's JSON text without its quotes, escaped by the crate's writer.
fn escape(s: &str) -> String {
    let mut out = String::new();
    // Writing into a `String` cannot fail.
    let _ = crate::json::write::write_string_contents(&mut out, s);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(k: &str) -> Seg {
        Seg::Key(String::from(k))
    }

    #[test]
    fn writer_nests_and_closes() {
        let mut w = ArgsWriter::default();
        let mut text = String::new();
        let ops = |i, k: &str| alloc::vec![key("ops"), Seg::Index(i), key(k)];
        text += &w.write(&ops(0, "a"), Leaf::Str("x"), true);
        text += &w.write(&ops(0, "a"), Leaf::Str("y"), false);
        text += &w.write(&ops(0, "n"), Leaf::Json(String::from("0.5")), false);
        text += &w.write(&ops(1, "a"), Leaf::Str("z"), true);
        text += &w.write(&[key("flag")], Leaf::Json(String::from("true")), false);
        text += &w.close();
        assert_eq!(
            text,
            r#"{"ops":[{"a":"xy","n":0.5},{"a":"z"}],"flag":true}"#
        );
    }

    #[test]
    fn writer_drops_contradicting_paths() {
        let mut w = ArgsWriter::default();
        let mut text = w.write(&[key("a"), Seg::Index(0)], Leaf::Str("x"), false);
        text += &w.write(&[key("a"), key("b")], Leaf::Str("y"), false);
        text += &w.close();
        assert_eq!(text, r#"{"a":["x"]}"#);
    }
}
