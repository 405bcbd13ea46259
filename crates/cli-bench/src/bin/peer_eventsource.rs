//! `llmstream sse` built on eventsource-stream 0.2.3 and serde_json: stdin
//! as an in-memory stream of pieces (argument 1: their size), one JSON line
//! per event on stdout.

use std::convert::Infallible;
use std::io::{BufWriter, Write};

use eventsource_stream::Eventsource;
use futures::executor::block_on;
use futures::stream::{self, StreamExt};
use llmstream_cli_bench::{piece_size, read_stdin, write_event};

fn main() {
    let input = read_stdin();
    let size = piece_size();
    let mut out = BufWriter::new(std::io::stdout().lock());
    block_on(async {
        let pieces = stream::iter(input.chunks(size).map(Ok::<_, Infallible>));
        let mut events = pieces.eventsource();
        while let Some(event) = events.next().await {
            let event = event.expect("a valid event stream");
            write_event(&mut out, &event.event, &event.data, &event.id);
        }
    });
    out.flush().expect("stdout");
}
