//! Lenient mode against the repair suites of jsonrepair (npm) and
//! json_repair (PyPI), ../shared/fixtures/json_peers: every case read
//! whole and in random pieces (the same value either way), compared as
//! JSON values. Every case read otherwise is listed, with why, in the
//! tables of docs/LENIENT.md ("Every case that differs"); this test checks
//! that list against the suites both ways: a case that differs must be in
//! it, and a case in it must still differ.

use std::collections::BTreeSet;

use llmstream::json::{self, Options, Parser, Value};

/// The document whose tables list every case that differs.
const LENIENT_MD: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../docs/LENIENT.md"
));

/// The cases the tables of docs/LENIENT.md list, as `"<file> #<n>"`: the
/// first cell of every row that names a case of a suite.
fn listed_cases(doc: &str) -> BTreeSet<String> {
    doc.lines()
        .filter(|line| {
            line.starts_with("| jsonrepair.json #") || line.starts_with("| json_repair_py.json #")
        })
        .map(|line| line[2..].split(" |").next().unwrap_or("").trim().to_owned())
        .collect()
}

/// The value lenient mode reads in `input`, fed in `pieces`.
fn lenient(pieces: &[&[u8]]) -> Option<Value> {
    let mut parser = Parser::with_options(Options::lenient());
    for piece in pieces {
        parser.feed(piece).expect("lenient mode takes any input");
    }
    parser
        .finish_partial()
        .expect("lenient mode takes any input")
}

/// (agreeing, total, the cases that disagree as (`"<file> #<n>"`, line)).
fn suite(file: &str) -> (usize, usize, Vec<(String, String)>) {
    let bytes = llmstream_tests::fixtures::read(&format!("json_peers/{file}"));
    let cases = json::parse(&bytes).expect("the suite is JSON");
    let cases = cases.as_array().expect("a list of cases");
    let mut agree = 0;
    let mut differ = Vec::new();
    for (n, case) in cases.iter().enumerate() {
        let input = case.get("input").and_then(Value::as_str).expect("input");
        let expected = case.get("expected").expect("expected");
        let whole = lenient(&[input.as_bytes()]);
        for seed in [1, 2, 3] {
            let pieces = llmstream_tests::random_pieces(input.as_bytes(), seed);
            assert_eq!(
                lenient(&pieces),
                whole,
                "{file} case {n}: cuts change {input:?}"
            );
        }
        let same = match (expected.as_str(), &whole) {
            (Some("ERROR" | "NOVALUE"), None) => true,
            (Some(s), _) if s == "ERROR" || s == "NOVALUE" || s.starts_with("NONJSON:") => false,
            (_, Some(value)) => value.same_meaning(expected),
            (_, None) => false,
        };
        if same {
            agree += 1;
        } else {
            let got = whole.map_or_else(|| String::from("<none>"), |v| v.to_json());
            differ.push((
                format!("{file} #{n}"),
                format!(
                    "{file} #{n}: {input:?} → {got} (expected {})",
                    expected.to_json()
                ),
            ));
        }
    }
    (agree, cases.len(), differ)
}

#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn the_repair_suites_read_as_their_authors_expect() {
    let (a, an, ad) = suite("jsonrepair.json");
    let (b, bn, bd) = suite("json_repair_py.json");
    let agree = a + b;
    eprintln!(
        "lenient mode: jsonrepair {a}/{an}, json_repair {b}/{bn}, {agree}/{}",
        an + bn
    );
    for (_, line) in ad.iter().chain(&bd) {
        eprintln!("{line}");
    }
    // Every case that differs is in docs/LENIENT.md with why, and every
    // case there still differs.
    let listed = listed_cases(LENIENT_MD);
    let differing: BTreeSet<&str> = ad
        .iter()
        .chain(&bd)
        .map(|(case, _)| case.as_str())
        .collect();
    let unlisted: Vec<&str> = ad
        .iter()
        .chain(&bd)
        .filter(|(case, _)| !listed.contains(case))
        .map(|(_, line)| line.as_str())
        .collect();
    let now_agree: Vec<&str> = listed
        .iter()
        .map(String::as_str)
        .filter(|case| !differing.contains(case))
        .collect();
    assert!(
        unlisted.is_empty() && now_agree.is_empty(),
        "docs/LENIENT.md lists {} cases, {} differ ({agree} of {} agree)\n\
         differ but not in docs/LENIENT.md ({}):\n{}\n\
         in docs/LENIENT.md but now agree ({}):\n{}",
        listed.len(),
        differing.len(),
        an + bn,
        unlisted.len(),
        unlisted.join("\n"),
        now_agree.len(),
        now_agree.join("\n"),
    );
}
