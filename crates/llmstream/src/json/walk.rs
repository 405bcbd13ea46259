//! The grammar of a complete document, walked at full speed for what it
//! builds: the entries of a [`Tape`](super::Tape), or a tree of values
//! for [`parse`](super::parse).
//!
//! A whole document in memory needs none of what makes the incremental
//! parser resumable (a state per grammar position, a live value kept
//! current, text held across pieces): a loop over the bytes with a stack
//! of open containers does. The walk only decides valid or not; for input
//! it refuses, the incremental parser runs and reports exactly what is
//! wrong and where, so the two never disagree on an error. The grammar is
//! RFC 8259's, strictly, within [`Limits`]: input that lenient options
//! would accept (a trailing comma) is refused here, and then accepted by
//! the parser, so the walk never changes what any options accept.

use alloc::string::String;

use super::options::Limits;
use super::scan::{escaped_char, hex_value, skip_whitespace, string_run_end, surrogate_pair};
use super::value::number_len;
use crate::utf8::{valid_prefix, End};

/// `true`, `false` or `null`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Literal {
    Null,
    False,
    True,
}

/// What a walk builds, told of each piece of the grammar in document
/// order. `source` is the whole input, valid UTF-8.
pub(super) trait Sink {
    /// How many containers are open.
    fn depth(&self) -> usize;
    /// Whether the innermost open container is an object (`None` when
    /// none is open).
    fn innermost(&self) -> Option<bool>;
    /// A container opens.
    fn open(&mut self, object: bool, source: &str);
    /// Another element (or member) of the innermost container begins.
    fn element(&mut self);
    /// The innermost container ends.
    fn close(&mut self);
    /// A string, a key's or a value's, whose body starts at `start` (after
    /// its opening quote): where it ends, past its closing quote. `None`
    /// if it is not a valid string within `limits`.
    fn string(&mut self, source: &str, start: usize, key: bool, limits: &Limits) -> Option<usize>;
    /// A number, `len` bytes at `at`.
    fn number(&mut self, source: &str, at: usize, len: usize);
    /// A literal.
    fn literal(&mut self, literal: Literal, source: &str);
}

/// Walks one complete document into `sink`: the input as text, or `None`
/// for anything invalid or over a limit.
#[inline]
pub(super) fn walk<'i, S: Sink>(sink: &mut S, input: &'i [u8], limits: &Limits) -> Option<&'i str> {
    if input.len() as u64 > limits.max_input_bytes {
        return None;
    }
    // The input is validated whole, once: then every string and number is
    // sliced out of it without a check of its own.
    let (source, end) = valid_prefix(input);
    if end != End::Valid {
        return None;
    }
    let mut pos = skip_whitespace(input, 0);
    'value: loop {
        match *input.get(pos)? {
            open @ (b'{' | b'[') => {
                if sink.depth() >= limits.max_depth {
                    return None;
                }
                let object = open == b'{';
                sink.open(object, source);
                pos = skip_whitespace(input, pos + 1);
                let close = if object { b'}' } else { b']' };
                if input.get(pos) == Some(&close) {
                    pos += 1;
                    sink.close();
                } else {
                    if object {
                        pos = key(sink, source, pos, limits)?;
                    }
                    sink.element();
                    continue 'value;
                }
            }
            b'"' => pos = sink.string(source, pos + 1, false, limits)?,
            b't' => pos = literal(sink, source, pos, Literal::True)?,
            b'f' => pos = literal(sink, source, pos, Literal::False)?,
            b'n' => pos = literal(sink, source, pos, Literal::Null)?,
            _ => {
                let len = number_len(input.get(pos..)?)?;
                if len > limits.max_number_bytes {
                    return None;
                }
                sink.number(source, pos, len);
                pos += len;
            }
        }
        // After a value: its container's separators and ends.
        loop {
            pos = skip_whitespace(input, pos);
            let Some(object) = sink.innermost() else {
                return (pos == input.len()).then_some(source);
            };
            match (*input.get(pos)?, object) {
                (b',', _) => {
                    pos = skip_whitespace(input, pos + 1);
                    if object {
                        pos = key(sink, source, pos, limits)?;
                    }
                    sink.element();
                    continue 'value;
                }
                (b'}', true) | (b']', false) => {
                    pos += 1;
                    sink.close();
                }
                _ => return None,
            }
        }
    }
}

/// A key, its colon and the whitespace around: where the value starts.
#[inline]
fn key<S: Sink>(sink: &mut S, source: &str, pos: usize, limits: &Limits) -> Option<usize> {
    let input = source.as_bytes();
    if input.get(pos) != Some(&b'"') {
        return None;
    }
    let pos = skip_whitespace(input, sink.string(source, pos + 1, true, limits)?);
    if input.get(pos) != Some(&b':') {
        return None;
    }
    Some(skip_whitespace(input, pos + 1))
}

fn literal<S: Sink>(sink: &mut S, source: &str, pos: usize, literal: Literal) -> Option<usize> {
    let word: &[u8] = match literal {
        Literal::Null => b"null",
        Literal::False => b"false",
        Literal::True => b"true",
    };
    if source.as_bytes().get(pos..pos + word.len())? != word {
        return None;
    }
    sink.literal(literal, source);
    Some(pos + word.len())
}

/// Where the plain run of a string body starting at `start` ends: at its
/// closing quote, an escape, or anything a string may not hold.
#[inline]
pub(super) fn plain_end(source: &str, start: usize) -> Option<usize> {
    Some(start + string_run_end(source.as_bytes().get(start..)?))
}

/// Where a string body whose text ends at `end` (before what must be its
/// closing quote: anything else there is an error, a control character
/// or the end of the input), `len` bytes decoded, ends: past its quote,
/// if it is closed and within `limits`.
#[inline]
pub(super) fn closed(input: &[u8], end: usize, len: usize, limits: &Limits) -> Option<usize> {
    (input.get(end) == Some(&b'"') && len <= limits.max_string_bytes).then_some(end + 1)
}

/// Decodes a string body onto `text`, from `start` (after its opening
/// quote) with its first escape at `pos`: where the body ends (at what
/// should be its closing quote, for the caller to check). `room` is
/// asked before each append for the bytes it adds and how many bytes of
/// the input are left from where they come (decoded text is never longer
/// than its source).
#[inline]
pub(super) fn decode(
    text: &mut String,
    source: &str,
    start: usize,
    mut pos: usize,
    mut room: impl FnMut(&mut String, usize, usize),
) -> Option<usize> {
    let input = source.as_bytes();
    let mut run = source.get(start..pos)?;
    let mut from = start;
    loop {
        // Runs end at ASCII bytes: character boundaries.
        room(text, run.len(), input.len() - from);
        text.push_str(run);
        if input.get(pos) != Some(&b'\\') {
            return Some(pos);
        }
        let (c, next) = escape(input, pos + 1)?;
        if c.is_ascii() {
            // The common escapes (`\n`, `\"`, `\\`, `\t`), apart: a push
            // known to be one byte costs much less than the general one.
            room(text, 1, input.len() - pos);
            text.push(c);
        } else {
            room(text, c.len_utf8(), input.len() - pos);
            text.push(c);
        }
        from = next;
        pos = plain_end(source, next)?;
        run = source.get(from..pos)?;
    }
}

/// The character of an escape whose letter is at `pos` (after its
/// backslash), and where the escape ends.
#[inline]
fn escape(input: &[u8], pos: usize) -> Option<(char, usize)> {
    let byte = *input.get(pos)?;
    if byte != b'u' {
        return Some((escaped_char(byte)?, pos + 1));
    }
    let unit = hex4(input, pos + 1)?;
    if (0xD800..=0xDBFF).contains(&unit) {
        if input.get(pos + 5..pos + 7)? != b"\\u" {
            return None;
        }
        return Some((surrogate_pair(unit, hex4(input, pos + 7)?)?, pos + 11));
    }
    // A lone low surrogate is not a `char`: `None`, as it should be.
    Some((char::from_u32(u32::from(unit))?, pos + 5))
}

/// The four hex digits of a `\u` escape at `pos`.
fn hex4(input: &[u8], pos: usize) -> Option<u16> {
    input
        .get(pos..pos + 4)?
        .iter()
        .try_fold(0u16, |unit, &b| Some(unit << 4 | u16::from(hex_value(b)?)))
}
