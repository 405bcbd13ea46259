//! `json::Value`, `Map` and `Number` as a program uses them: indexing,
//! mutation, conversions (the conveniences serde_json's `Value` has).

use llmstream::json::{self, Map, Number, Value};

fn v(text: &str) -> Value {
    json::parse(text.as_bytes()).expect("test JSON is valid")
}

#[test]
fn indexing_reads_like_serde_json_and_never_panics() {
    let value = v(r#"{"a":[1,{"b":"x"}],"a2":null}"#);
    assert_eq!(value["a"][1]["b"].as_str(), Some("x"));
    assert!(value["missing"].is_null());
    assert!(value["a"][9].is_null());
    assert!(value["a"]["not an object"].is_null());
    assert!(value[0].is_null(), "an object has no elements");
    assert!(Value::from(3)["k"][2].is_null());
}

#[test]
fn mutation_in_place() {
    let mut value = v(r#"{"a":[1,{"b":"x"}],"c":{"d":true}}"#);
    *value.pointer_mut("/a/1/b").unwrap() = Value::from("y");
    value
        .get_mut("c")
        .unwrap()
        .as_object_mut()
        .unwrap()
        .insert("e", Value::from(2));
    value
        .as_object_mut()
        .unwrap()
        .get_mut("a")
        .unwrap()
        .as_array_mut()
        .unwrap()
        .push(Value::Null);
    assert!(
        value.get_index_mut(0).is_none(),
        "an object has no elements"
    );
    *value.get_mut("a").unwrap().get_index_mut(0).unwrap() = Value::from(0);
    assert_eq!(
        value.to_json(),
        r#"{"a":[0,{"b":"y"},null],"c":{"d":true,"e":2}}"#
    );
    let taken = value.get_mut("c").unwrap().take();
    assert_eq!(taken.to_json(), r#"{"d":true,"e":2}"#);
    assert!(value["c"].is_null());
    assert!(value.pointer_mut("/nope").is_none());
    assert!(value.pointer_mut("").unwrap().is_object());
}

#[test]
fn type_tests() {
    let value = v(r#"[null,true,1,"s",[],{}]"#);
    let kinds: Vec<[bool; 6]> = value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            [
                v.is_null(),
                v.is_bool(),
                v.is_number(),
                v.is_string(),
                v.is_array(),
                v.is_object(),
            ]
        })
        .collect();
    for (i, kind) in kinds.iter().enumerate() {
        let expected: Vec<bool> = (0..6).map(|j| j == i).collect();
        assert_eq!(kind.to_vec(), expected, "element {i}");
    }
}

#[test]
fn conversions() {
    assert_eq!(Value::from(vec![1, 2]).to_json(), "[1,2]");
    assert_eq!(Value::from(vec!["a", "b"]).to_json(), r#"["a","b"]"#);
    assert_eq!(Value::from(vec![Value::Null]).to_json(), "[null]");
    assert_eq!(Value::from(Some("x")).to_json(), r#""x""#);
    assert_eq!(Value::from(None::<i32>), Value::Null);
    assert_eq!(Value::from(()), Value::Null);
    assert_eq!(Value::from(1.0).to_json(), "1.0");
    assert_eq!(Value::from(0.1f32).to_json(), "0.1");
    assert_eq!(Value::from(-2.5e-7).to_json(), "-2.5e-7");
    assert_eq!(Value::from(f64::NAN), Value::Null);
    assert_eq!(Value::from(f64::INFINITY), Value::Null);
    assert_eq!((1..=3).collect::<Value>().to_json(), "[1,2,3]");
    // Every float text is a JSON number that reads back as the same f64.
    for f in [
        0.0,
        -0.0,
        1.5,
        1e300,
        5e-324,
        f64::MAX,
        f64::MIN_POSITIVE,
        123456.789,
    ] {
        let n = Number::from_f64(f).unwrap();
        assert!(Number::from_text(n.as_str()).is_some(), "{}", n.as_str());
        assert_eq!(n.as_f64(), Some(f));
    }
    assert!(Number::from_f64(f64::NAN).is_none());
    let big = v("123456789012345678901234567890");
    let n = big.as_number().unwrap();
    assert_eq!(n.as_u128(), Some(123456789012345678901234567890));
    assert_eq!(n.as_i128(), Some(123456789012345678901234567890));
    assert_eq!(n.as_u64(), None);
    assert_eq!(v("-0").as_number().unwrap().as_u128(), Some(0));
    assert_eq!(v("1.5").as_number().unwrap().as_i128(), None);
}

#[test]
fn map_views_and_insert() {
    let mut map: Map = v(r#"{"a":1,"b":2,"a":3}"#).as_object().unwrap().clone();
    assert_eq!(map.keys().collect::<Vec<_>>(), ["a", "b", "a"]);
    assert_eq!(
        map.values().map(Value::to_json).collect::<Vec<_>>(),
        ["1", "2", "3"]
    );
    assert_eq!(map.insert("a", Value::from(4)), Some(Value::from(3)));
    assert_eq!(map.insert("c", Value::from(5)), None);
    for value in map.values_mut() {
        *value = Value::from(value.as_i64().unwrap() * 10);
    }
    for (key, value) in map.iter_mut() {
        if key.as_str() == "b" {
            *value = Value::Null;
        }
    }
    assert_eq!(
        Value::from(map).to_json(),
        r#"{"a":10,"b":null,"a":40,"c":50}"#
    );
}

/// RFC 6901, read and written the same way by `pointer` and `pointer_mut`.
#[test]
fn pointers_read_and_write_alike() {
    let mut value = v(r#"{"a/b":{"~k":[10,20]},"":1,"0":"zero"}"#);
    for (pointer, expected) in [
        ("", Some(value.to_json())),
        ("/a~1b/~0k/1", Some("20".to_string())),
        ("/", Some("1".to_string())),
        ("/0", Some(r#""zero""#.to_string())),
        ("/a~1b/~0k/01", None),
        ("/a~1b/~0k/-", None),
        ("/a~1b/~0k/2", None),
        ("a", None),
        ("/missing", None),
    ] {
        assert_eq!(
            value.pointer(pointer).map(Value::to_json),
            expected,
            "{pointer}"
        );
        assert_eq!(
            value.pointer_mut(pointer).map(|v| v.to_json()),
            expected,
            "{pointer}"
        );
    }
    *value.pointer_mut("/a~1b/~0k/0").unwrap() = Value::from(11);
    assert_eq!(value["a/b"]["~k"][0], Value::from(11));
}
