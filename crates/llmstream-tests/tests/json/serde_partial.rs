//! Feature `serde`: typed partial values — a user's struct read from the
//! live snapshot while the JSON streams in.

use llmstream::json::{
    from_partial, from_partial_strict, from_value, from_value_ref, Parser, Value,
};
use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Deserialize)]
struct Itinerary {
    city: String,
    days: Vec<Day>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
struct Day {
    title: String,
    activities: Vec<Activity>,
    budget: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
struct Activity {
    name: String,
    kind: Kind,
    hours: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Kind {
    Museum,
    Food,
    Walk,
    /// A partial name while it streams (and any unknown kind).
    #[serde(other)]
    Other,
}

const DOC: &str = r#"{
  "city": "Lisbon",
  "days": [
    {"title": "Alfama", "activities": [
      {"name": "Tram 28", "kind": "walk", "hours": 1.5},
      {"name": "Pastéis de nata", "kind": "food"}
    ], "budget": 60},
    {"title": "Belém", "activities": [
      {"name": "Jerónimos", "kind": "museum", "hours": 2}
    ]}
  ]
}"#;

/// Every prefix, byte by byte: the typed snapshot always reads, only ever
/// grows, and ends equal to the strict reading of the final value.
#[test]
fn itinerary_fills_in_over_a_stream() {
    let mut parser = Parser::new();
    let mut seen: Vec<Itinerary> = Vec::new();
    for (i, byte) in DOC.as_bytes().iter().enumerate() {
        parser.feed(std::slice::from_ref(byte)).unwrap();
        let prefix = String::from_utf8_lossy(&DOC.as_bytes()[..=i]);
        match parser.snapshot_as::<Itinerary>() {
            Ok(None) => assert!(prefix.trim().is_empty()),
            Ok(Some(now)) => {
                if let Some(before) = seen.last() {
                    assert_grows(before, &now, &prefix);
                }
                if seen.last() != Some(&now) {
                    seen.push(now);
                }
            }
            Err(e) => panic!("prefix {prefix:?} did not read: {e}"),
        }
    }
    parser.finish().unwrap();
    let last = seen.last().unwrap().clone();
    let strict: Itinerary = from_value_ref(parser.snapshot().unwrap()).unwrap();
    assert_eq!(last, strict);
    assert_eq!(strict.days[0].activities[1].kind, Kind::Food);
    assert_eq!(strict.days[1].activities[0].hours, Some(2.0));

    // Some of the states a UI would have rendered on the way.
    let first_day_titles: Vec<&str> = seen
        .iter()
        .filter_map(|it| it.days.first().map(|d| d.title.as_str()))
        .collect();
    assert!(first_day_titles.contains(&""));
    assert!(first_day_titles.contains(&"Alf"));
    assert!(seen.iter().any(|it| it.city == "Lis" && it.days.is_empty()));
    // An activity whose kind is still streaming reads as Other.
    assert!(seen.iter().any(|it| it
        .days
        .first()
        .and_then(|d| d.activities.get(1))
        .is_some_and(|a| a.name == "Pastéis de nata" && a.kind == Kind::Other)));
}

/// Monotonic as the snapshot is: nothing already shown disappears, strings
/// only grow, lists only gain items.
fn assert_grows(before: &Itinerary, now: &Itinerary, prefix: &str) {
    assert!(now.city.starts_with(&before.city), "{prefix}");
    assert!(now.days.len() >= before.days.len(), "{prefix}");
    for (b, n) in before.days.iter().zip(&now.days) {
        assert!(n.title.starts_with(&b.title), "{prefix}");
        assert!(n.activities.len() >= b.activities.len(), "{prefix}");
        if b.budget.is_some() {
            assert_eq!(n.budget, b.budget, "{prefix}");
        }
        for (ba, na) in b.activities.iter().zip(&n.activities) {
            assert!(na.name.starts_with(&ba.name), "{prefix}");
            if ba.hours.is_some() {
                assert_eq!(na.hours, ba.hours, "{prefix}");
            }
        }
    }
}

#[test]
fn missing_members_become_empty_values() {
    #[derive(Debug, PartialEq, Deserialize)]
    struct All {
        s: String,
        n: u64,
        f: f32,
        b: bool,
        o: Option<String>,
        v: Vec<u8>,
        m: std::collections::BTreeMap<String, u8>,
        t: (u8, String),
        nested: Inner,
        unit: (),
    }
    #[derive(Debug, PartialEq, Deserialize)]
    struct Inner {
        x: String,
        deeper: Vec<Inner>,
    }
    let all: All = from_partial(&Value::Object(Default::default())).unwrap();
    assert_eq!(
        all,
        All {
            s: String::new(),
            n: 0,
            f: 0.0,
            b: false,
            o: None,
            v: vec![],
            m: Default::default(),
            t: (0, String::new()),
            nested: Inner {
                x: String::new(),
                deeper: vec![],
            },
            unit: (),
        }
    );
    // Strict reading still says what is missing.
    assert!(from_value_ref::<All>(&Value::Object(Default::default())).is_err());
}

#[test]
fn short_tuples_are_padded() {
    let mut parser = Parser::new();
    parser.feed(br#"[[1, "a"], [2"#).unwrap();
    let pairs: Vec<(u8, String)> = parser.snapshot_as().unwrap().unwrap();
    // `2` may still grow, so the snapshot holds `[]` there: padded.
    assert_eq!(pairs, [(1, "a".to_string()), (0, String::new())]);
    parser.feed(b",").unwrap();
    let pairs: Vec<(u8, String)> = parser.snapshot_as().unwrap().unwrap();
    assert_eq!(pairs, [(1, "a".to_string()), (2, String::new())]);
}

/// A type that holds itself through a `Box` in a tuple cannot be padded
/// to the end: an error, not a stack overflow.
#[test]
fn a_tuple_that_holds_itself_is_an_error_not_an_overflow() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Chain(String, Box<Chain>);
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Node {
        name: String,
        pair: (u8, Box<Node>),
    }
    let value = llmstream::json::parse(br#"["a"]"#).unwrap();
    assert!(from_partial::<Chain>(&value).is_err());
    let value = llmstream::json::parse(br#"{"name":"a"}"#).unwrap();
    assert!(from_partial::<Node>(&value).is_err());
}

#[test]
fn an_unreadable_last_element_on_the_growing_edge_is_dropped() {
    #[derive(Debug, PartialEq, Deserialize)]
    struct Step {
        kind: Strict,
    }
    #[derive(Debug, PartialEq, Deserialize)]
    enum Strict {
        Go,
        Stop,
    }
    let mut parser = Parser::new();
    parser
        .feed(br#"{"steps":[{"kind":"Go"},{"kind":"St"#)
        .unwrap();
    #[derive(Debug, PartialEq, Deserialize)]
    struct Plan {
        steps: Vec<Step>,
    }
    let plan: Plan = parser.snapshot_as().unwrap().unwrap();
    assert_eq!(plan.steps, [Step { kind: Strict::Go }]);
    parser.feed(br#"op"}"#).unwrap();
    let plan: Plan = parser.snapshot_as().unwrap().unwrap();
    assert_eq!(
        plan.steps,
        [Step { kind: Strict::Go }, Step { kind: Strict::Stop }]
    );

    // Off the growing edge nothing is dropped: the error stands.
    let done = llmstream::json::parse(br#"{"steps":[{"kind":"Nope"},{"kind":"Go"}]}"#).unwrap();
    let err = from_partial::<Plan>(&done).unwrap_err();
    assert_eq!(err.path().to_string(), "steps[0].kind");
}

#[test]
fn tool_call_arguments_read_as_a_struct_while_they_stream() {
    use llmstream::providers::{ArgumentEvent, Pipeline, StreamEvent};

    #[derive(Debug, PartialEq, Deserialize)]
    struct WriteFile {
        path: String,
        content: String,
    }
    let body = concat!(
        r#"data: {"type":"message_start","message":{"id":"m","model":"c","role":"assistant"}}"#,
        "\n\n",
        r#"data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"write_file","input":{}}}"#,
        "\n\n",
        r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"path\":\"a.txt\",\"content\":\"Hel"}}"#,
        "\n\n",
        r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"lo\"}"}}"#,
        "\n\n",
        r#"data: {"type":"content_block_stop","index":0}"#,
        "\n\n",
    );
    let mut pipeline = Pipeline::new();
    let mut contents = Vec::new();
    for piece in body.as_bytes().chunks(40) {
        pipeline.feed(piece).unwrap();
        while let Some(event) = pipeline.next_event() {
            if let StreamEvent::Argument {
                choice,
                call,
                event: ArgumentEvent::Delta { .. },
            } = event
            {
                let args = pipeline.builder().unwrap().arguments(choice, call).unwrap();
                let typed: WriteFile = from_partial(args).unwrap();
                contents.push(typed.content);
            }
        }
    }
    assert_eq!(contents.first().map(String::as_str), Some("Hel"));
    assert_eq!(contents.last().map(String::as_str), Some("Hello"));
}

#[derive(Deserialize, Debug, PartialEq)]
struct Plan {
    days: Vec<PlanDay>,
}

#[derive(Deserialize, Debug, PartialEq)]
struct PlanDay {
    title: String,
    budget: Option<u32>,
}

/// A last element on the growing edge that does not fit is dropped by
/// `from_partial` (it cannot tell "not yet" from "wrong"), and named by
/// `from_partial_strict`.
#[test]
fn a_last_element_of_the_wrong_shape_is_dropped_or_named() {
    let snapshot = v(r#"{"days":[{"title":"Museums"},{"title":"Fjords","budget":"high"}]}"#);
    let lenient: Plan = from_partial(&snapshot).unwrap();
    assert_eq!(
        lenient,
        Plan {
            days: vec![PlanDay {
                title: "Museums".into(),
                budget: None
            }]
        }
    );
    let error = from_partial_strict::<Plan>(&snapshot).unwrap_err();
    assert_eq!(error.path().to_string(), "days[1].budget");
    assert!(
        error.message().starts_with("invalid type: string \"high\""),
        "{error}"
    );
}

/// Away from the growing edge, both read a wrong shape as an error with
/// its path: only the newest element may still be on its way.
#[test]
fn a_wrong_shape_before_the_edge_is_an_error_in_both() {
    let snapshot = v(r#"{"days":[{"title":7},{"title":"Fjords"}]}"#);
    for error in [
        from_partial::<Plan>(&snapshot).unwrap_err(),
        from_partial_strict::<Plan>(&snapshot).unwrap_err(),
    ] {
        assert_eq!(error.path().to_string(), "days[0].title");
    }
    // The root itself of the wrong kind is an error at the root.
    let error = from_partial::<Plan>(&v(r#""plan""#)).unwrap_err();
    assert_eq!(error.path().to_string(), "");
}

/// The strict partial reading still fills what has not arrived yet.
#[test]
fn from_partial_strict_fills_missing_members() {
    let mut parser = Parser::new();
    parser.feed(br#"{"days":[{"title":"Muse"#).unwrap();
    let plan: Plan = from_partial_strict(parser.snapshot().unwrap()).unwrap();
    assert_eq!(plan.days[0].title, "Muse");
    let plan: Plan = from_partial_strict(&v("{}")).unwrap();
    assert!(plan.days.is_empty());
}

/// `from_value` takes the value, as serde_json's does; `from_value_ref`
/// borrows it and may lend out its strings.
#[test]
fn from_value_takes_the_value_and_from_value_ref_borrows_it() {
    let value = v(r#"{"days":[{"title":"Museums","budget":80}]}"#);
    let borrowed: Plan = from_value_ref(&value).unwrap();
    let owned: Plan = from_value(value).unwrap();
    assert_eq!(owned, borrowed);
    assert_eq!(owned.days[0].budget, Some(80));
    let error = from_value::<Plan>(v(r#"{"days":[{"budget":1}]}"#)).unwrap_err();
    assert_eq!(error.to_string(), "missing field `title` at days[0]");
}

fn v(text: &str) -> Value {
    llmstream::json::parse(text.as_bytes()).expect("test JSON")
}
