//! `Value::same_meaning` and `Number::same_meaning` against independent
//! oracles: a decimal written many ways is one number and a changed digit,
//! exponent or sign another; and on documents, serde_json's equality
//! (objects as sorted maps; integers only, where its numbers are exact).

use llmstream::json::{self, Number, Value};
use proptest::prelude::*;

use crate::common;

/// A decimal `0.D × 10^E`: its sign, its significant digits (no leading
/// or trailing zero) and E.
#[derive(Clone, Debug)]
struct Decimal {
    negative: bool,
    digits: String,
    e: i128,
}

/// 10^30: exponents of more than 30 digits take another path.
const LINE: i128 = 1_000_000_000_000_000_000_000_000_000_000;

fn decimal() -> impl Strategy<Value = Decimal> {
    (
        any::<bool>(),
        "[1-9]([0-9]{0,30}[1-9])?",
        prop_oneof![
            -30i128..30,
            -400i128..400,
            any::<i64>().prop_map(i128::from),
            // Either side of the line, either sign, and far past it.
            (LINE - 50..LINE + 50),
            (-LINE - 50..-LINE + 50),
            any::<i128>().prop_map(|e| e / 4),
        ],
    )
        .prop_map(|(negative, digits, e)| Decimal {
            negative,
            digits,
            e,
        })
}

/// How to write a decimal: zeros added before and after its digits, the
/// exponent's letter, an explicit `+`, zeros before the exponent's digits.
#[derive(Clone, Debug)]
struct Style {
    lead: usize,
    trail: usize,
    upper: bool,
    plus: bool,
    exp_zeros: usize,
}

fn style() -> impl Strategy<Value = Style> {
    (
        0usize..4,
        0usize..4,
        any::<bool>(),
        any::<bool>(),
        0usize..3,
    )
        .prop_map(|(lead, trail, upper, plus, exp_zeros)| Style {
            lead,
            trail,
            upper,
            plus,
            exp_zeros,
        })
}

fn exponent(e: i128, style: &Style) -> String {
    let letter = if style.upper { 'E' } else { 'e' };
    let sign = match (e < 0, style.plus) {
        (true, _) => "-",
        (false, true) => "+",
        (false, false) => "",
    };
    format!(
        "{letter}{sign}{}{}",
        "0".repeat(style.exp_zeros),
        e.unsigned_abs()
    )
}

/// Three ways to write `d`, each in `style`.
fn written(d: &Decimal, style: &Style) -> [String; 3] {
    let sign = if d.negative { "-" } else { "" };
    let e = d.e;
    let lead = "0".repeat(style.lead);
    let trail = "0".repeat(style.trail);
    // 0.00D000 × 10^(E + lead)
    let fraction = format!(
        "{sign}0.{lead}{}{trail}{}",
        d.digits,
        exponent(e + style.lead as i128, style)
    );
    // D₁.D₂…000 × 10^(E − 1)
    let (first, rest) = d.digits.split_at(1);
    let point = if rest.is_empty() && trail.is_empty() {
        String::new()
    } else {
        format!(".{rest}{trail}")
    };
    let scientific = format!("{sign}{first}{point}{}", exponent(e - 1, style));
    // D000 × 10^(E − len(D) − trail), an integer and an exponent
    let shift = e - d.digits.len() as i128 - style.trail as i128;
    let integer = format!("{sign}{}{trail}{}", d.digits, exponent(shift, style));
    [fraction, scientific, integer]
}

fn number(text: &str) -> Number {
    Number::from_text(text).unwrap_or_else(|| panic!("not a JSON number: {text}"))
}

proptest! {
    #![proptest_config(common::config(2000))]

    #[test]
    fn a_decimal_written_many_ways_is_one_number(d in decimal(), a in style(), b in style()) {
        let all: Vec<String> = written(&d, &a).into_iter().chain(written(&d, &b)).collect();
        for x in &all {
            for y in &all {
                prop_assert!(number(x).same_meaning(&number(y)), "{x} / {y}");
            }
        }
    }

    #[test]
    fn a_changed_digit_exponent_or_sign_is_another_number(
        d in decimal(),
        a in style(),
        b in style(),
        change in 0usize..4,
        at in any::<prop::sample::Index>(),
    ) {
        let mut other = d.clone();
        match change {
            0 => other.negative = !other.negative,
            1 => other.e += 1,
            2 => {
                // Another digit, where it stays significant.
                let mut digits = other.digits.into_bytes();
                let i = at.index(digits.len());
                digits[i] = if digits[i] == b'9' { b'1' } else { digits[i] + 1 };
                other.digits = String::from_utf8(digits).unwrap();
            }
            _ => other.digits.push('7'),
        }
        for x in written(&d, &a) {
            for y in written(&other, &b) {
                prop_assert!(!number(&x).same_meaning(&number(&y)), "{x} / {y}");
            }
        }
    }

    #[test]
    fn zero_is_zero_however_written(a in style(), negative in any::<bool>(), e in -50i64..50) {
        let sign = if negative { "-" } else { "" };
        let zeros = [
            format!("{sign}0"),
            format!("{sign}0.{}", "0".repeat(a.trail + 1)),
            format!("{sign}0{}", exponent(i128::from(e), &a)),
        ];
        for x in &zeros {
            prop_assert!(number(x).same_meaning(&number("0")), "{x}");
            prop_assert!(!number(x).same_meaning(&number("1e-999")), "{x}");
        }
    }
}

/// A JSON document whose numbers are integers (serde_json compares those
/// exactly) and whose strings are short, so that two drawn apart are
/// sometimes equal.
fn doc() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::Bool),
        (-3i64..3).prop_map(serde_json::Value::from),
        "[ab]{0,1}".prop_map(serde_json::Value::String),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(serde_json::Value::Array),
            prop::collection::btree_map("[abc]", inner, 0..3)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

/// `value`'s text with every object's members in an order drawn from
/// `seed`, and each integer written as a decimal with a fraction or an
/// exponent when `seed` says so.
fn rewritten(value: &serde_json::Value, seed: &mut u64) -> String {
    let mut next = || {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    };
    fn go(value: &serde_json::Value, next: &mut dyn FnMut() -> u64) -> String {
        match value {
            serde_json::Value::Number(n) => match next() % 3 {
                0 => format!("{n}.0"),
                1 if n.as_i64() == Some(0) => "0e-1".to_string(),
                1 => format!("{n}0e-1"),
                _ => n.to_string(),
            },
            serde_json::Value::Array(items) => {
                let items: Vec<String> = items.iter().map(|v| go(v, next)).collect();
                format!("[{}]", items.join(","))
            }
            serde_json::Value::Object(map) => {
                let mut members: Vec<String> = map
                    .iter()
                    .map(|(k, v)| {
                        format!("{}:{}", serde_json::Value::from(k.as_str()), go(v, next))
                    })
                    .collect();
                let len = members.len();
                for i in (1..len).rev() {
                    members.swap(i, (next() % (i as u64 + 1)) as usize);
                }
                format!("{{{}}}", members.join(","))
            }
            other => other.to_string(),
        }
    }
    go(value, &mut next)
}

fn ours(text: &str) -> Value {
    json::parse(text.as_bytes()).unwrap_or_else(|e| panic!("{text}: {e}"))
}

proptest! {
    #![proptest_config(common::config(2000))]

    #[test]
    fn documents_mean_the_same_when_serde_json_says_they_are_equal(
        a in doc(),
        b in doc(),
        mut seed in any::<u64>(),
    ) {
        let (x, y) = (ours(&rewritten(&a, &mut seed)), ours(&rewritten(&b, &mut seed)));
        prop_assert_eq!(x.same_meaning(&y), a == b);
        prop_assert!(x.same_meaning(&ours(&rewritten(&a, &mut seed))));
    }
}

#[test]
fn duplicate_names_count_by_their_last_value() {
    let dup = ours(r#"{"a":1,"b":2,"a":3}"#);
    assert!(dup.same_meaning(&ours(r#"{"b":2,"a":3.0}"#)));
    assert!(!dup.same_meaning(&ours(r#"{"a":1,"b":2}"#)));
    assert_eq!(dup.get("a"), Some(&ours("3")));
}
