//! Short text kept inside its owner: member names and number texts.
//!
//! Nearly every object key and number in JSON is a few bytes long. Held
//! as a `String`, each costs an allocation, a free, and a pointer to chase
//! when it is read; held here, up to [`INLINE`] bytes sit in the 24 bytes a
//! `String` would take anyway, and only longer text goes to the heap.

use alloc::boxed::Box;

/// The most bytes kept inline: with the length byte and the enum's tag,
/// the same 24 bytes as a `String`. Every `i64`, `u64` and shortest `f64`
/// fits, and nearly every key.
pub(crate) const INLINE: usize = 22;

/// UTF-8 text, inline when short.
#[derive(Clone)]
pub(crate) enum InlineText {
    Inline { len: u8, bytes: [u8; INLINE] },
    Heap(Box<str>),
}

impl InlineText {
    /// The empty text.
    pub(crate) const EMPTY: InlineText = InlineText::Inline {
        len: 0,
        bytes: [0; INLINE],
    };

    pub(crate) fn new(text: &str) -> InlineText {
        let mut bytes = [0u8; INLINE];
        match bytes.get_mut(..text.len()) {
            Some(head) => {
                head.copy_from_slice(text.as_bytes());
                InlineText::Inline {
                    len: text.len() as u8,
                    bytes,
                }
            }
            None => InlineText::Heap(text.into()),
        }
    }

    /// Keeps a string's own allocation when it is too long to go inline.
    pub(crate) fn from_string(text: alloc::string::String) -> InlineText {
        if text.len() <= INLINE {
            InlineText::new(&text)
        } else {
            InlineText::Heap(text.into_boxed_str())
        }
    }

    pub(crate) fn as_bytes(&self) -> &[u8] {
        match self {
            InlineText::Inline { len, bytes } => bytes.get(..usize::from(*len)).unwrap_or(&[]),
            InlineText::Heap(text) => text.as_bytes(),
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        match self {
            // The inline bytes are a whole `&str` copied in `new`, so they
            // are valid UTF-8 and `valid_prefix` (a few word reads on
            // ASCII) returns all of them.
            InlineText::Inline { .. } => crate::utf8::valid_prefix(self.as_bytes()).0,
            InlineText::Heap(text) => text,
        }
    }

    /// Takes the text out; a long one keeps its allocation.
    pub(crate) fn into_string(self) -> alloc::string::String {
        match self {
            InlineText::Inline { .. } => self.as_str().into(),
            InlineText::Heap(text) => text.into_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::String;

    #[test]
    fn text_round_trips_at_every_length_around_the_inline_limit() {
        for len in 0..=INLINE + 2 {
            for unit in ["a", "é", "日", "😀"] {
                let text: String = unit.repeat(len).chars().take(len).collect();
                let text = &text[..text.len()];
                let kept = InlineText::new(text);
                assert_eq!(kept.as_str(), text);
                assert_eq!(kept.as_bytes(), text.as_bytes());
                assert_eq!(
                    matches!(kept, InlineText::Inline { .. }),
                    text.len() <= INLINE,
                    "{text:?}"
                );
                assert_eq!(InlineText::from_string(text.into()).as_str(), text);
                assert_eq!(kept.into_string(), text);
            }
        }
        assert_eq!(InlineText::EMPTY.as_str(), "");
    }

    #[test]
    fn inline_text_is_no_larger_than_a_string() {
        assert_eq!(
            core::mem::size_of::<InlineText>(),
            core::mem::size_of::<String>()
        );
    }
}
