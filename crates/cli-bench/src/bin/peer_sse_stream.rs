//! `llmstream sse` built on sse-stream 0.3 and serde_json: stdin as an
//! in-memory stream of pieces (argument 1: their size), one JSON line per
//! event on stdout. sse-stream yields field blocks; an event is a block
//! with data, its type `message` when absent and its ID the last one seen.

use std::convert::Infallible;
use std::io::{BufWriter, Write};

use futures::executor::block_on;
use futures::stream::{self, StreamExt};
use llmstream_cli_bench::{piece_size, read_stdin, write_event};
use sse_stream::SseByteStream;

fn main() {
    let input = read_stdin();
    let size = piece_size();
    let mut out = BufWriter::new(std::io::stdout().lock());
    block_on(async {
        let pieces = stream::iter(input.chunks(size).map(Ok::<_, Infallible>));
        let mut blocks = SseByteStream::new(pieces);
        let mut last_id = String::new();
        while let Some(block) = blocks.next().await {
            let block = block.expect("a valid event stream");
            if let Some(id) = block.id {
                last_id = id;
            }
            if let Some(data) = block.data {
                let event = block.event.as_deref().unwrap_or("message");
                write_event(&mut out, event, &data, &last_id);
            }
        }
    });
    out.flush().expect("stdout");
}
