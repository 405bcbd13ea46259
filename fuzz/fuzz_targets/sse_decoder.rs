//! sse::Decoder: any cut of the stream gives identical items, the same
//! error (kind, offset, what was being read), the same last event ID and
//! offset, whether the pieces are fed or read in place (`decode`); and
//! what was decoded encodes to a stream that decodes back to the same
//! items.
#![no_main]

use fuzz_common::{Input, BYTEWISE_MAX};
use libfuzzer_sys::fuzz_target;
use llmstream::sse::{self, Decoder, Error, Item, Limits};

#[derive(Debug, PartialEq)]
struct Outcome {
    items: Vec<Item>,
    error: Option<Error>,
    last_event_id: String,
    offset: u64,
    finish: Result<(), Error>,
}

fn run<'a>(limits: Limits, pieces: impl IntoIterator<Item = &'a [u8]>, in_place: bool) -> Outcome {
    let mut decoder = Decoder::with_limits(limits);
    let mut items = Vec::new();
    let mut error = None;
    let mut take = |item: Result<sse::ItemRef<'_>, Error>| match item {
        Ok(item) => items.push(item.to_item()),
        Err(e) => {
            assert!(error.is_none(), "the error is reported once");
            error = Some(e);
        }
    };
    for piece in pieces {
        if in_place {
            let mut decode = decoder.feed_borrowed(piece);
            while let Some(item) = decode.next_event() {
                take(item);
            }
        } else {
            decoder.feed(piece);
            while let Some(item) = decoder.next_event() {
                take(item);
            }
        }
    }
    let last_event_id = decoder.last_event_id().to_owned();
    // Once failed, the decoder stops where the piece that failed it left
    // it: its offset then depends on the cuts (the error's does not).
    let offset = if error.is_none() { decoder.offset() } else { 0 };
    let finish = decoder.finish();
    assert_eq!(finish.as_ref().err(), error.as_ref());
    Outcome {
        items,
        error,
        last_event_id,
        offset,
        finish,
    }
}

fuzz_target!(|data: &[u8]| {
    let Some(input) = Input::new(data) else {
        return;
    };
    let doc = input.doc;
    let limits = if input.flags & 1 != 0 {
        Limits::new()
            .with_max_line_bytes(usize::from(input.flags >> 4) + 1)
            .with_max_event_data_bytes(usize::from(input.flags >> 1 & 7) * 4 + 1)
    } else {
        Limits::new()
    };
    let whole = run(limits, [doc], false);
    let cut = run(limits, input.pieces(), false);
    assert_eq!(whole, cut, "outcome depends on the cuts {:?}", input.cuts);
    let in_place = run(limits, input.pieces(), true);
    assert_eq!(whole, in_place, "read in place, cuts {:?}", input.cuts);
    if doc.len() <= BYTEWISE_MAX {
        let bytewise = run(limits, doc.chunks(1), false);
        assert_eq!(whole, bytewise, "outcome differs fed one byte at a time");
        let bytewise = run(limits, doc.chunks(1), true);
        assert_eq!(whole, bytewise, "outcome differs read in place bytewise");
    }
    if whole.error.is_none() && input.flags & 1 == 0 {
        assert_eq!(sse::decode(doc).as_ref(), Ok(&whole.items));
        let encoded = sse::encode(&whole.items).expect("decoded items encode");
        assert_eq!(
            sse::decode(&encoded).as_ref(),
            Ok(&whole.items),
            "re-encoded as {:?}",
            String::from_utf8_lossy(&encoded)
        );
    }
});
