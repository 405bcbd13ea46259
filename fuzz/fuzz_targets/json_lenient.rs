//! Lenient mode on any bytes: never a panic or a hang (libFuzzer's
//! timeout), the same value whatever the cuts (fuzzer-chosen pieces, and
//! one byte at a time for short inputs), and a value that prints as JSON
//! and parses back to itself. Only a limit passed is an error.
#![no_main]

use fuzz_common::{Input, BYTEWISE_MAX};
use libfuzzer_sys::fuzz_target;
use llmstream::json::{self, Error, ErrorKind, Options, Parser, Value};

fn read<'a>(pieces: impl IntoIterator<Item = &'a [u8]>) -> Result<Option<Value>, Error> {
    let mut parser = Parser::with_options(Options::lenient());
    for piece in pieces {
        parser.feed(piece)?;
    }
    parser.finish_partial()
}

fuzz_target!(|data: &[u8]| {
    let Some(input) = Input::new(data) else {
        return;
    };
    let doc = input.doc;
    let whole = read([doc]);
    if let Err(e) = &whole {
        assert!(
            matches!(e.kind(), ErrorKind::DepthLimit { .. }),
            "lenient mode refused {doc:?}: {e}"
        );
    }
    assert_eq!(
        read(input.pieces().iter().copied()),
        whole,
        "lenient mode depends on the cuts {:?}",
        input.cuts
    );
    if doc.len() <= BYTEWISE_MAX {
        assert_eq!(read(doc.chunks(1)), whole, "one byte at a time");
    }
    if let Ok(Some(value)) = &whole {
        let text = value.to_json();
        assert_eq!(json::parse(text.as_bytes()).as_ref(), Ok(value), "{text}");
    }
});
