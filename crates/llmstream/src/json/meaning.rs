//! Equality of meaning: what two JSON values say, however they are written.
//!
//! A [`Value`]'s `==` compares the document as written (numbers by their
//! text, object members in order, duplicates included): what a round trip
//! needs, and cheap. Checking what a model sent (are these the arguments a
//! test expects? did the tool's input change?) needs the other equality,
//! which RFC 8259 leaves to the reader. serde_json's `Value` comes near it
//! through `f64` and a sorted map, and so calls `1` and `1.0` different and
//! rounds long numbers; here numbers compare as exact decimals and objects
//! as maps.

use alloc::collections::BTreeMap;
use alloc::string::ToString;
use alloc::vec::Vec;

use super::value::{Map, Number, Value};

impl Value {
    /// Whether `self` and `other` mean the same JSON value: numbers equal
    /// as exact decimals ([`Number::same_meaning`]), objects equal as maps
    /// whatever the order of their members (of a name given twice, the
    /// last counts, as [`Value::get`] reads it), arrays element by element,
    /// strings by their decoded text. `==` compares the document as written
    /// instead.
    ///
    /// ```
    /// use llmstream::json::parse;
    /// let sent = parse(br#"{"unit":"C","days":3.0,"city":"Lisbon"}"#)?;
    /// let expected = parse(br#"{"city":"Lisbon","days":3,"unit":"C"}"#)?;
    /// assert!(sent.same_meaning(&expected));
    /// assert_ne!(sent, expected);
    /// # Ok::<(), llmstream::json::Error>(())
    /// ```
    pub fn same_meaning(&self, other: &Value) -> bool {
        // A stack, not recursion: values may nest as deep as the parser's
        // limits allow.
        let mut pending = alloc::vec![(self, other)];
        while let Some(pair) = pending.pop() {
            match pair {
                (Value::Null, Value::Null) => {}
                (Value::Bool(a), Value::Bool(b)) if a == b => {}
                (Value::Number(a), Value::Number(b)) if a.same_meaning(b) => {}
                (Value::String(a), Value::String(b)) if a == b => {}
                (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
                    pending.extend(a.iter().zip(b));
                }
                (Value::Object(a), Value::Object(b)) => {
                    let (a, b) = (last_of_each(a), last_of_each(b));
                    if a.len() != b.len() {
                        return false;
                    }
                    for ((name_a, a), (name_b, b)) in a.into_iter().zip(b) {
                        if name_a != name_b {
                            return false;
                        }
                        pending.push((a, b));
                    }
                }
                _ => return false,
            }
        }
        true
    }
}

/// The members that count, by name: the last of each.
fn last_of_each(map: &Map) -> BTreeMap<&str, &Value> {
    map.iter()
        .map(|(name, value)| (name.as_str(), value))
        .collect()
}

impl Number {
    /// Whether two numbers are the same decimal value: `1`, `1.0`, `1e0`,
    /// `10E-1` and `0.1e+1` alike, `-0` and `0` alike. Exact, with no
    /// rounding through `f64` (`0.1` is not
    /// `0.1000000000000000055511151231257827`), whatever the number of
    /// digits or the size of the exponent. `==` compares the text instead.
    ///
    /// ```
    /// use llmstream::json::Number;
    /// let n = |text| Number::from_text(text).unwrap();
    /// assert!(n("1200").same_meaning(&n("1.2e3")));
    /// assert!(!n("9007199254740993").same_meaning(&n("9007199254740992")));
    /// ```
    pub fn same_meaning(&self, other: &Number) -> bool {
        let (a, b) = (Decimal::read(self.as_str()), Decimal::read(other.as_str()));
        if a.is_zero() || b.is_zero() {
            return a.is_zero() && b.is_zero();
        }
        a.negative == b.negative && a.digits().eq(b.digits()) && a.same_exponent(&b)
    }
}

/// A JSON number read as `0.D × 10^E`: its sign, its significant digits D
/// (from the first digit that is not zero to the last) and E, where
/// `E = exponent + int.len() - first`.
struct Decimal<'t> {
    negative: bool,
    /// The digits before the point, and after it.
    int: &'t [u8],
    frac: &'t [u8],
    /// Where D starts in the digits of `int` then `frac`, and its length
    /// (0 for zero).
    first: usize,
    len: usize,
    /// The exponent as written: its sign, and its digits without leading
    /// zeros.
    exp_negative: bool,
    exp: &'t [u8],
}

/// Exponents of up to this many digits are added up in an `i128`: with
/// the offset of the point (under 2^64) the sum stays far inside it.
const SMALL_EXPONENT: usize = 30;

impl<'t> Decimal<'t> {
    /// Reads a number of RFC 8259's grammar (which every [`Number`] holds).
    fn read(text: &'t str) -> Self {
        let text = text.as_bytes();
        let (negative, text) = match text.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, text),
        };
        let (mantissa, exponent) = match text.iter().position(|&b| b == b'e' || b == b'E') {
            Some(at) => (
                text.get(..at).unwrap_or(&[]),
                text.get(at + 1..).unwrap_or(&[]),
            ),
            None => (text, &[][..]),
        };
        let (int, frac) = match mantissa.iter().position(|&b| b == b'.') {
            Some(at) => (
                mantissa.get(..at).unwrap_or(&[]),
                mantissa.get(at + 1..).unwrap_or(&[]),
            ),
            None => (mantissa, &[][..]),
        };
        let (exp_negative, exp) = match exponent.split_first() {
            Some((b'-', rest)) => (true, rest),
            Some((b'+', rest)) => (false, rest),
            _ => (false, exponent),
        };
        let exp_start = exp.iter().position(|&b| b != b'0').unwrap_or(exp.len());
        let nonzero = |&b: &u8| b != b'0';
        let first = int.iter().chain(frac).position(nonzero);
        let last = match frac.iter().rposition(nonzero) {
            Some(at) => Some(int.len() + at),
            None => int.iter().rposition(nonzero),
        };
        let (first, len) = match (first, last) {
            (Some(first), Some(last)) => (first, last + 1 - first),
            _ => (0, 0),
        };
        Decimal {
            negative,
            int,
            frac,
            first,
            len,
            exp_negative,
            exp: exp.get(exp_start..).unwrap_or(&[]),
        }
    }

    fn is_zero(&self) -> bool {
        self.len == 0
    }

    /// D, digit by digit.
    fn digits(&self) -> impl Iterator<Item = &u8> + '_ {
        self.int
            .iter()
            .chain(self.frac)
            .skip(self.first)
            .take(self.len)
    }

    /// E without the exponent: where the point stands against D's first
    /// digit.
    fn offset(&self) -> i128 {
        // Both are lengths of the text: each under 2^64.
        i128::try_from(self.int.len()).unwrap_or(i128::MAX)
            - i128::try_from(self.first).unwrap_or(i128::MAX)
    }

    /// The exponent as written, if it has few digits.
    fn small_exponent(&self) -> Option<i128> {
        if self.exp.len() > SMALL_EXPONENT {
            return None;
        }
        let magnitude = self
            .exp
            .iter()
            .fold(0i128, |n, &d| n * 10 + i128::from(d.wrapping_sub(b'0')));
        Some(if self.exp_negative {
            -magnitude
        } else {
            magnitude
        })
    }

    /// E, when the exponent is small.
    fn small_e(&self) -> Option<i128> {
        Some(self.small_exponent()? + self.offset())
    }

    /// E as a sign and decimal digits without leading zeros: exact for any
    /// exponent, at the cost of an allocation.
    fn e_text(&self) -> (bool, Vec<u8>) {
        if let Some(e) = self.small_e() {
            let digits = e.unsigned_abs().to_string().into_bytes();
            return (e < 0, digits);
        }
        // |exponent| ≥ 10^30 is far above |offset|: E has the exponent's
        // sign, and its magnitude is the exponent's moved by the offset.
        let delta = if self.exp_negative {
            -self.offset()
        } else {
            self.offset()
        };
        (self.exp_negative, shifted(self.exp, delta))
    }

    fn same_exponent(&self, other: &Decimal<'_>) -> bool {
        match (self.small_e(), other.small_e()) {
            (Some(a), Some(b)) => a == b,
            _ => self.e_text() == other.e_text(),
        }
    }
}

/// The decimal `digits` (ASCII, no leading zero) plus `delta`, whose
/// magnitude is smaller than theirs, as ASCII digits without leading zeros.
fn shifted(digits: &[u8], delta: i128) -> Vec<u8> {
    let mut out: Vec<u8> = digits.iter().map(|d| d.wrapping_sub(b'0')).collect();
    let mut carry = delta;
    for digit in out.iter_mut().rev() {
        if carry == 0 {
            break;
        }
        let sum = i128::from(*digit) + carry;
        let kept = sum.rem_euclid(10);
        carry = (sum - kept) / 10;
        *digit = u8::try_from(kept).unwrap_or(0);
    }
    // A carry past the first digit (never a borrow: |delta| is smaller).
    if carry > 0 {
        let mut head = Vec::new();
        while carry > 0 {
            head.push(u8::try_from(carry % 10).unwrap_or(0));
            carry /= 10;
        }
        head.reverse();
        head.extend(out);
        out = head;
    }
    let start = out.iter().position(|&d| d != 0).unwrap_or(out.len());
    out.drain(..start);
    out.iter_mut().for_each(|d| *d = d.wrapping_add(b'0'));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;
    use alloc::format;
    use alloc::string::String;

    fn n(text: &str) -> Number {
        Number::from_text(text).unwrap()
    }

    fn same(a: &str, b: &str) -> bool {
        let (x, y) = (n(a), n(b));
        assert_eq!(x.same_meaning(&y), y.same_meaning(&x), "{a} / {b}");
        x.same_meaning(&y)
    }

    #[test]
    fn numbers_written_differently_are_the_same() {
        for (a, b) in [
            ("1", "1.0"),
            ("1", "1e0"),
            ("1", "10E-1"),
            ("1", "0.1e+1"),
            ("1200", "1.2e3"),
            ("1200", "12000e-1"),
            ("123", "1230e-1"),
            ("0.001", "1e-3"),
            ("0.00100", "1E-3"),
            ("-2.50", "-25e-1"),
            ("0", "-0"),
            ("0", "0.000e99"),
            ("-0.0", "0E-7"),
            ("100", "1e2"),
            (
                "12345678901234567890123456789",
                "1.2345678901234567890123456789e28",
            ),
        ] {
            assert!(same(a, b), "{a} and {b}");
        }
    }

    #[test]
    fn different_numbers_differ() {
        for (a, b) in [
            ("1", "-1"),
            ("1", "2"),
            ("1", "10"),
            ("1", "0.1"),
            ("1.5", "1.50001"),
            ("0", "1e-999"),
            ("9007199254740993", "9007199254740992"),
            ("0.1", "0.1000000000000000055511151231257827"),
            ("12", "21"),
            ("1e5", "1e6"),
        ] {
            assert!(!same(a, b), "{a} and {b}");
        }
    }

    #[test]
    fn exponents_of_any_size_compare_exactly() {
        let big = "1".to_string() + &"0".repeat(40);
        let big_less_one = "9".repeat(40);
        // 1e(10^40) = 10e(10^40 - 1).
        assert!(same(&format!("1e{big}"), &format!("10e{big_less_one}")));
        assert!(same(&format!("1e-{big}"), &format!("0.1e-{big_less_one}")));
        assert!(same(&format!("1e+{big}"), &format!("1E{big}")));
        assert!(!same(&format!("1e{big}"), &format!("1e{big_less_one}")));
        assert!(!same(&format!("1e{big}"), &format!("1e-{big}")));
        // Across the 30-digit line: one small exponent, one large.
        let line = "9".repeat(30);
        let over = "1".to_string() + &"0".repeat(30);
        assert!(same(&format!("10e{line}"), &format!("1e{over}")));
        assert!(same(&format!("1e{line}"), &format!("0.1e{over}")));
        assert!(same(&format!("0.01e-{line}"), &format!("0.1e-{over}")));
        assert!(!same(&format!("1e{line}"), &format!("1e{over}")));
        assert!(same(&format!("1e000{line}"), &format!("1e{line}")));
    }

    #[test]
    fn shifted_adds_and_subtracts_with_carries() {
        let s = |digits: &str, delta: i128| {
            String::from_utf8(shifted(digits.as_bytes(), delta)).unwrap()
        };
        assert_eq!(s("1000", -1), "999");
        assert_eq!(s("999", 1), "1000");
        assert_eq!(s("999", 12345), "13344");
        assert_eq!(s("100000", -99999), "1");
        assert_eq!(s("5", 0), "5");
    }

    #[test]
    fn objects_are_maps_and_arrays_are_sequences() {
        let v = |text: &str| parse(text.as_bytes()).unwrap();
        let same = |a: &str, b: &str| v(a).same_meaning(&v(b));
        assert!(same(r#"{"a":1,"b":[1,2]}"#, r#"{"b":[1.0,2e0],"a":1}"#));
        assert!(same(r#"{"a":1,"a":2}"#, r#"{"a":2}"#));
        assert!(!same(r#"{"a":1,"a":2}"#, r#"{"a":1}"#));
        assert!(!same(r#"{"a":1}"#, r#"{"a":1,"b":null}"#));
        assert!(!same(r#"{"a":1}"#, r#"{"b":1}"#));
        assert!(!same("[1,2]", "[2,1]"));
        assert!(!same("[1,2]", "[1,2,3]"));
        assert!(same(r#""\u00e9""#, r#""é""#));
        assert!(!same("null", "false"));
        assert!(!same("0", "false"));
        assert!(!same(r#""1""#, "1"));
        assert!(same("[[[{}]]]", "[[[{}]]]"));
        assert!(!same("[[[{}]]]", "[[[[]]]]"));
    }

    #[test]
    fn deep_values_do_not_recurse() {
        // Deeper than a recursive comparison could go on a test thread's
        // stack; built by hand, and taken apart by hand too (a `Value`'s
        // drop recurses).
        let mut a = Value::Null;
        let mut b = Value::Null;
        for _ in 0..200_000 {
            a = Value::Array(alloc::vec![a]);
            b = Value::Array(alloc::vec![b]);
        }
        assert!(a.same_meaning(&b));
        for mut v in [a, b] {
            while let Value::Array(mut items) = v {
                v = items.pop().unwrap_or(Value::Null);
            }
        }
    }
}
