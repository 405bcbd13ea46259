//! Feature `serde`: `Value` ⇄ serde, `from_value`, serde_json conversions.

use std::collections::{BTreeMap, HashMap};

use llmstream::json::{from_value_ref, parse, Map, Number, Value};
use serde::{Deserialize, Serialize};

fn v(text: &str) -> Value {
    parse(text.as_bytes()).unwrap()
}

#[test]
fn serialize_matches_our_own_text() {
    for text in [
        r#"{"a":[1,-2,3.5,"x\n\u00e9",true,false,null],"b":{},"c":[]}"#,
        r#"[18446744073709551615,-9223372036854775808,0.1,1e+300,-0.0]"#,
        r#""just a string""#,
        "null",
    ] {
        let value = v(text);
        let ours: serde_json::Value = serde_json::from_str(&value.to_json()).unwrap();
        let via_serde: serde_json::Value =
            serde_json::from_str(&serde_json::to_string(&value).unwrap()).unwrap();
        assert_eq!(via_serde, ours, "{text}");
    }
}

#[test]
fn serialize_keeps_member_order_and_duplicates() {
    let value = v(r#"{"z":1,"a":2,"z":3}"#);
    assert_eq!(
        serde_json::to_string(&value).unwrap(),
        r#"{"z":1,"a":2,"z":3}"#
    );
}

#[test]
fn numbers_serialize_as_best_fitting_primitive() {
    // Integers in range are exact; the rest are the nearest f64 (not a
    // 128-bit integer, which `serde_json::to_value` and `json!` refuse).
    let value = v("[1, -1, 18446744073709551615, 123456789012345678901234567890, 2.50]");
    assert_eq!(
        serde_json::to_string(&value).unwrap(),
        "[1,-1,18446744073709551615,1.2345678901234568e+29,2.5]"
    );
    let theirs = serde_json::to_value(&value).unwrap();
    assert_eq!(theirs[3], serde_json::json!(1.2345678901234568e29));
    assert_eq!(serde_json::json!({ "v": value })["v"], theirs);
}

#[test]
fn deserialize_from_serde_json_text_round_trips() {
    let text =
        r#"{"name":"x","n":[0,-7,1.0,1e-7,12345678901234567890],"nested":{"k":[null,true]}}"#;
    let value: Value = serde_json::from_str(text).unwrap();
    assert_eq!(value.get("name").and_then(Value::as_str), Some("x"));
    // Floats keep a fraction or exponent; integers stay integers.
    assert_eq!(
        value.pointer("/n").unwrap().to_json(),
        "[0,-7,1.0,1e-7,12345678901234567890]"
    );
    let again: Value = serde_json::from_str(&serde_json::to_string(&value).unwrap()).unwrap();
    assert_eq!(again, value);
}

#[test]
fn number_and_map_deserialize() {
    let n: Number = serde_json::from_str("42").unwrap();
    assert_eq!(n.as_str(), "42");
    assert!(serde_json::from_str::<Number>(r#""42""#).is_err());
    let m: Map = serde_json::from_str(r#"{"b":1,"a":2}"#).unwrap();
    let keys: Vec<&str> = m.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["b", "a"]);
    assert!(serde_json::from_str::<Map>("[]").is_err());
}

#[derive(Debug, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
enum Unit {
    Celsius,
    Fahrenheit,
}

#[derive(Debug, PartialEq, Deserialize, Serialize)]
enum Shape {
    Circle { r: f64 },
    Square(u32),
    Pair(i8, i8),
    Dot,
}

#[derive(Debug, PartialEq, Deserialize, Serialize)]
struct Everything {
    s: String,
    opt: Option<u8>,
    missing: Option<bool>,
    unit: Unit,
    shapes: Vec<Shape>,
    map: BTreeMap<String, i64>,
    int_keys: HashMap<u32, String>,
    tuple: (u8, String, bool),
    big: u128,
    neg: i128,
    f: f32,
    raw: Value,
    #[serde(default)]
    defaulted: Vec<u8>,
}

const EVERYTHING: &str = r#"{
  "s": "text", "opt": 7, "unit": "fahrenheit",
  "shapes": [{"Circle":{"r":1.5}}, {"Square":4}, {"Pair":[-1,2]}, "Dot"],
  "map": {"a": -3, "b": 9007199254740993},
  "int_keys": {"10": "ten"},
  "tuple": [1, "two", true],
  "big": 340282366920938463463374607431768211455,
  "neg": -170141183460469231731687303715884105728,
  "f": 0.1,
  "raw": {"anything": [1, "goes"]}
}"#;

#[test]
fn from_value_reads_like_serde_json() {
    let value = v(EVERYTHING);
    let ours: Everything = from_value_ref(&value).unwrap();
    let theirs: Everything = serde_json::from_str(EVERYTHING).unwrap();
    assert_eq!(ours, theirs);
    assert_eq!(ours.big, u128::MAX);
    assert_eq!(ours.neg, i128::MIN);
    assert_eq!(ours.map["b"], 9007199254740993); // exact, not through f64
    assert_eq!(ours.f, 0.1f32);
    assert_eq!(ours.raw, v(r#"{"anything":[1,"goes"]}"#));
}

#[test]
fn from_value_borrows_strings() {
    #[derive(Deserialize)]
    struct Borrowed<'a> {
        name: &'a str,
        tags: Vec<&'a str>,
    }
    let value = v(r#"{"name":"n","tags":["a","b"]}"#);
    let b: Borrowed = from_value_ref(&value).unwrap();
    assert_eq!(b.name, "n");
    assert_eq!(b.tags, ["a", "b"]);
}

#[test]
fn from_value_errors_name_the_path() {
    let value = v(r#"{"shapes":[{"Square":1},{"Square":-1}]}"#);
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct S {
        shapes: Vec<Shape>,
    }
    let err = from_value_ref::<S>(&value).unwrap_err();
    assert_eq!(err.path().to_string(), "shapes[1].Square");
    assert!(
        err.message().contains("invalid value: integer `-1`"),
        "{err}"
    );

    let err = from_value_ref::<Everything>(&v(r#"{"s":"x"}"#)).unwrap_err();
    assert_eq!(err.to_string(), "missing field `unit`");
    assert!(from_value_ref::<(u8, u8)>(&v("[1,2,3]")).is_err());
    assert!(from_value_ref::<u8>(&v("256")).is_err());
    assert!(from_value_ref::<Unit>(&v(r#""kelvin""#)).is_err());
    assert!(from_value_ref::<Shape>(&v(r#"{"Dot":null,"Square":1}"#)).is_err());
}

#[test]
fn value_itself_through_from_value() {
    let value = v(EVERYTHING);
    let copy: Value = from_value_ref(&value).unwrap();
    assert_eq!(copy, value);
    // Numbers keep their text exactly, however long or precise, in a
    // `Value`, in a `Number` and in a field of either type.
    let exact = v(r#"{"n":12345678901234567890123,"p":1.10,"x":1e400,"z":-0,"e":[2E-3]}"#);
    assert_eq!(
        from_value_ref::<Value>(&exact).unwrap().to_json(),
        exact.to_json()
    );
    let n: Number = from_value_ref(exact.get("p").unwrap()).unwrap();
    assert_eq!(n.as_str(), "1.10");
    #[derive(Deserialize)]
    struct Call {
        x: Number,
        e: Value,
    }
    let call: Call = from_value_ref(&exact).unwrap();
    assert_eq!(
        (call.x.as_str(), call.e.to_json().as_str()),
        ("1e400", "[2E-3]")
    );
    // A float target out of its range is an error, as in serde_json.
    let error = from_value_ref::<f64>(exact.get("x").unwrap()).unwrap_err();
    assert!(error.to_string().contains("out of range"), "{error}");
    assert!(from_value_ref::<f32>(&v("1e40")).is_err());
    // Through `deserialize_any` too (an untagged enum buffers the number).
    #[derive(Debug, Deserialize)]
    #[serde(untagged)]
    #[allow(dead_code)]
    enum Either {
        F(f64),
        S(String),
    }
    let error = from_value_ref::<Either>(exact.get("x").unwrap()).unwrap_err();
    assert!(!error.to_string().is_empty());
    assert!(from_value_ref::<Either>(&v("1.5")).is_ok());
    assert_eq!(from_value_ref::<f32>(&v("1.5")).unwrap(), 1.5);
    let s: serde_json::Value = from_value_ref(&value).unwrap();
    assert_eq!(s["int_keys"]["10"], "ten");
}

#[test]
fn serde_json_conversions() {
    let theirs = serde_json::json!({"a": [1, -2, 2.5, "x", null, true], "b": {"c": {}}});
    let ours = Value::from(&theirs);
    assert_eq!(ours, v(r#"{"a":[1,-2,2.5,"x",null,true],"b":{"c":{}}}"#));
    assert_eq!(serde_json::Value::from(&ours), theirs);
    assert_eq!(serde_json::Value::from(ours.clone()), theirs);
    assert_eq!(Value::from(theirs.clone()), ours);

    // Out of serde_json's range: null; duplicates: the last one.
    let odd = v(r#"{"huge":1e400,"k":1,"k":2}"#);
    assert_eq!(
        serde_json::Value::from(&odd),
        serde_json::json!({"huge": null, "k": 2})
    );
}

/// Map keys read as numbers or bools exactly where serde_json reads them:
/// the key is the whole JSON number grammar, or `true` / `false`.
#[test]
fn map_keys_parse_as_serde_json_parses_them() {
    fn both<T>(key: &str) -> (Result<T, String>, Result<T, String>)
    where
        T: serde::de::DeserializeOwned + Ord,
    {
        let text = format!("{{{}: 0}}", serde_json::to_string(key).unwrap());
        let ours = from_value_ref::<BTreeMap<T, i32>>(&v(&text))
            .map(|m| m.into_keys().next().unwrap())
            .map_err(|e| e.to_string());
        let theirs = serde_json::from_str::<BTreeMap<T, i32>>(&text)
            .map(|m| m.into_keys().next().unwrap())
            .map_err(|e| e.to_string());
        (ours, theirs)
    }
    for key in [
        "1",
        "+1",
        "01",
        " 1",
        "1 ",
        "1.5",
        "1e2",
        "-",
        "abc",
        "true",
        "",
        "300",
        "-129",
        "18446744073709551616",
    ] {
        let (ours, theirs) = both::<i64>(key);
        assert_eq!(
            ours.is_ok(),
            theirs.is_ok(),
            "i64 {key:?}: {ours:?} vs {theirs:?}"
        );
        if let (Ok(a), Ok(b)) = (&ours, &theirs) {
            assert_eq!(a, b);
        }
        let (ours, theirs) = both::<u8>(key);
        assert_eq!(
            ours.is_ok(),
            theirs.is_ok(),
            "u8 {key:?}: {ours:?} vs {theirs:?}"
        );
        let (ours, theirs) = both::<bool>(key);
        assert_eq!(
            ours.is_ok(),
            theirs.is_ok(),
            "bool {key:?}: {ours:?} vs {theirs:?}"
        );
    }
    let floats = |text: &str| {
        from_value_ref::<HashMap<Float, i32>>(&v(text)).map(|m| m.into_keys().next().unwrap().0)
    };
    assert_eq!(floats(r#"{"-2e3": 0}"#).unwrap(), -2000.0);
    assert_eq!(floats(r#"{"1.5": 0}"#).unwrap(), 1.5);
    for bad in [
        r#"{"1e999": 0}"#,
        r#"{"+1": 0}"#,
        r#"{"nan": 0}"#,
        r#"{"inf": 0}"#,
    ] {
        assert!(floats(bad).is_err(), "{bad}");
    }
    // The one difference: `-0` is an integer here, as the number is.
    let (ours, theirs) = both::<i64>("-0");
    assert_eq!(ours, Ok(0));
    assert!(theirs.is_err());
    assert_eq!(from_value_ref::<i64>(&v("-0")).unwrap(), 0);
    assert_eq!(
        from_value_ref::<BTreeMap<i64, i32>>(&v(r#"{"+1": 0}"#))
            .unwrap_err()
            .to_string(),
        "expected the key \"+1\" to be a number in quotes"
    );
}

/// An f64 that can be a map key (by its bits).
#[derive(Debug)]
struct Float(f64);

impl PartialEq for Float {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}
impl Eq for Float {}
impl std::hash::Hash for Float {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.to_bits().hash(state);
    }
}
impl<'de> Deserialize<'de> for Float {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        f64::deserialize(d).map(Float)
    }
}
