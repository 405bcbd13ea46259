//! The partial-JSON suites of eleven other projects
//! (../shared/fixtures/json_peers): lenient mode reads a text cut short
//! as the partial reader (`Parser::finish_partial`) reads it, wherever
//! that one gives a value.

use llmstream::json::{self, Options, Parser, Value};

fn partial(input: &[u8]) -> Option<Option<Value>> {
    let mut parser = Parser::with_options(Options::new().trailing_commas(true).events(false));
    parser.feed(input).ok()?;
    parser.finish_partial().ok()
}

fn lenient(input: &[u8]) -> Option<Value> {
    let mut parser = Parser::with_options(Options::lenient());
    parser.feed(input).expect("lenient mode takes any input");
    parser
        .finish_partial()
        .expect("lenient mode takes any input")
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn lenient_mode_reads_texts_cut_short_as_the_partial_reader() {
    let mut compared = 0;
    let mut differ = Vec::new();
    for file in llmstream_tests::fixtures::files("json_peers") {
        if !file.ends_with(".json")
            || file.starts_with("jsonrepair")
            || file.starts_with("json_repair")
        {
            continue;
        }
        let bytes = llmstream_tests::fixtures::read(&format!("json_peers/{file}"));
        let cases = json::parse(&bytes).expect("the suite is JSON");
        for (n, case) in cases.as_array().expect("a list").iter().enumerate() {
            let mode = case
                .get("mode")
                .and_then(Value::as_str)
                .unwrap_or("partial");
            if mode != "partial" || case.get("input_hex").is_some() {
                continue;
            }
            let input = case.get("input").and_then(Value::as_str).expect("input");
            let Some(Some(strict)) = partial(input.as_bytes()) else {
                continue;
            };
            compared += 1;
            let got = lenient(input.as_bytes());
            if got.as_ref() != Some(&strict) {
                differ.push(format!(
                    "{file} #{n}: {input:?}: partial {} lenient {}",
                    strict.to_json(),
                    got.map_or_else(|| String::from("<none>"), |v| v.to_json())
                ));
            }
        }
    }
    eprintln!("{compared} compared, {} differ", differ.len());
    for line in &differ {
        eprintln!("{line}");
    }
    assert!(compared > 500, "{compared}");
    assert!(differ.is_empty(), "{} differ", differ.len());
}
