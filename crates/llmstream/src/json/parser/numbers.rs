//! Numbers: RFC 8259's number grammar, kept as source text.

use super::feed::Input;
use super::{Num, Parser, Raw, State, Step};
use crate::json::error::{ErrorKind, Expected};
use crate::json::options::Keep;
use crate::json::value::{number_len, Number, Value};

impl Parser {
    pub(super) fn number(
        &mut self,
        piece: &Input<'_>,
        pos: &mut usize,
        mut num: Num,
    ) -> Option<Step> {
        let input = piece.bytes;
        let limit = self.opts.limits.max_number_bytes;
        let start = *pos;
        while let Some(&byte) = input.get(*pos) {
            let next = match (num, byte) {
                (Num::Minus, b'0') => Num::Zero,
                (Num::Minus, b'1'..=b'9') => Num::Int,
                (Num::Int, b'0'..=b'9') => Num::Int,
                (Num::Zero | Num::Int, b'.') => Num::Dot,
                (Num::Dot | Num::Frac, b'0'..=b'9') => Num::Frac,
                (Num::Zero | Num::Int | Num::Frac, b'e' | b'E') => Num::Exp,
                (Num::Exp, b'+' | b'-') => Num::ExpSign,
                (Num::Exp | Num::ExpSign | Num::ExpDigits, b'0'..=b'9') => Num::ExpDigits,
                (Num::Zero, b'0'..=b'9') => {
                    let kind = ErrorKind::LeadingZero;
                    return Some(self.fail_in_number(piece, start, *pos, kind));
                }
                _ if num.is_complete() => {
                    self.push_number_bytes(piece, start, *pos);
                    self.state = State::Number(num);
                    if self.number.len() > limit {
                        let kind = ErrorKind::NumberLimit { limit };
                        return Some(self.fail_in_number(piece, *pos, *pos, kind));
                    }
                    return Some(self.complete_number());
                }
                _ => {
                    let kind = ErrorKind::Unexpected {
                        expected: Expected::Digit,
                        found: byte,
                    };
                    return Some(self.fail_in_number(piece, start, *pos, kind));
                }
            };
            num = next;
            if self.number.len() + (*pos + 1 - start) > limit {
                let kind = ErrorKind::NumberLimit { limit };
                return Some(self.fail_in_number(piece, start, *pos, kind));
            }
            *pos += 1;
            if matches!(num, Num::Int | Num::Frac | Num::ExpDigits) {
                // Runs of digits, the bulk of a number, without the state
                // match: the limit is checked once per run, at the byte
                // where a byte-by-byte check would stop.
                let rest = input.get(*pos..).unwrap_or(&[]);
                let run = rest.iter().take_while(|b| b.is_ascii_digit()).count();
                let room = limit.saturating_sub(self.number.len() + (*pos - start));
                if run > room {
                    let kind = ErrorKind::NumberLimit { limit };
                    return Some(self.fail_in_number(piece, start, *pos + room, kind));
                }
                *pos += run;
            }
        }
        self.push_number_bytes(piece, start, *pos);
        self.state = State::Number(num);
        None
    }

    /// The common case: a number that ends inside this piece, read in one
    /// go and stored straight from the input. `None` (nothing consumed)
    /// sends the number to the state machine: when it may go on in the
    /// next piece, or is invalid or over the limit, which the state machine
    /// reports at the exact byte. When `quiet`, nobody reads the number's
    /// event, so its text is not copied for one.
    pub(super) fn whole_number(
        &mut self,
        bytes: &[u8],
        pos: &mut usize,
        quiet: bool,
    ) -> Option<Step> {
        let rest = bytes.get(*pos..)?;
        let len = number_len(rest)?;
        let next = *rest.get(len)?;
        // The grammar read greedily, so a digit can follow only a leading
        // zero (`01`), an error the state machine names; any other byte
        // ends the number there, as it does in the state machine.
        if next.is_ascii_digit() || len > self.opts.limits.max_number_bytes {
            return None;
        }
        let text = rest.get(..len)?;
        if !quiet {
            self.number.clear();
            // The grammar's bytes are ASCII.
            self.number
                .push_str(core::str::from_utf8(text).unwrap_or_default());
        }
        *pos += len;
        self.number_shown = false;
        self.add_scalar(Value::Number(Number::from_valid_bytes(text)));
        let depth = self.frames.len();
        self.after_scalar();
        Some(Step::Event(Raw::Number(depth)))
    }

    /// Fails at `at`, the piece's byte that the number cannot take, whose
    /// bytes from `start` it took. With growing numbers the text taken so
    /// far is shown first, as the end of a piece at `at` would have shown
    /// it, so that the value left by the error does not depend on where
    /// the pieces were cut.
    #[cold]
    #[inline(never)]
    fn fail_in_number(
        &mut self,
        piece: &Input<'_>,
        start: usize,
        at: usize,
        kind: ErrorKind,
    ) -> Step {
        if self.opts.growing_numbers {
            self.push_number_bytes(piece, start, at);
            self.show_growing_number();
        }
        self.fail(kind, self.offset + at as u64)
    }

    /// Every byte the number grammar accepts is ASCII, so the bytes are
    /// text as they are: checked with a few word reads (`valid_prefix`'s
    /// ASCII test), not through the piece's validated window, which a
    /// number cut by a piece's end would validate for only its few bytes.
    #[inline]
    pub(super) fn push_number_bytes(&mut self, piece: &Input<'_>, start: usize, end: usize) {
        let bytes = piece.bytes.get(start..end).unwrap_or(&[]);
        self.number.push_str(crate::utf8::valid_prefix(bytes).0);
    }

    pub(super) fn complete_number(&mut self) -> Step {
        let value = Value::Number(Number::from_valid(&self.number));
        if self.number_shown {
            self.replace_current(value);
        } else {
            self.add_scalar(value);
        }
        self.number_shown = false;
        let depth = self.frames.len();
        self.after_scalar();
        Step::Event(Raw::Number(depth))
    }

    pub(super) fn show_growing_number(&mut self) {
        if self.opts.keep != Keep::Live {
            return;
        }
        if let Some(n) = number_prefix(&self.number) {
            if self.number_shown {
                self.replace_current(Value::Number(n));
            } else {
                self.add_scalar(Value::Number(n));
                self.number_shown = true;
            }
        }
    }
}

/// The longest prefix of a cut number text that is a number itself.
pub(super) fn number_prefix(text: &str) -> Option<Number> {
    let mut end = text.len();
    let bytes = text.as_bytes();
    // Drop an unfinished exponent, then an unfinished fraction.
    if let Some(e) = bytes.iter().position(|&b| b == b'e' || b == b'E') {
        if !bytes
            .get(e + 1..)
            .unwrap_or(&[])
            .iter()
            .any(u8::is_ascii_digit)
        {
            end = e;
        }
    }
    let head = text.get(..end).unwrap_or("");
    let head = head.strip_suffix('.').unwrap_or(head);
    Number::from_text(head)
}
