//! `llmstream json` built on serde_json: stdin parsed whole into a
//! `serde_json::Value` and printed compact, one line.

use std::io::{BufWriter, Write};

use llmstream_cli_bench::read_stdin;

fn main() {
    let input = read_stdin();
    let value: serde_json::Value = serde_json::from_slice(&input).expect("a JSON document");
    let mut out = BufWriter::new(std::io::stdout().lock());
    serde_json::to_writer(&mut out, &value).expect("stdout");
    out.write_all(b"\n").expect("stdout");
    out.flush().expect("stdout");
}
