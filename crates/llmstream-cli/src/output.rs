//! Buffered JSON Lines on stdout.

use std::fmt::{self, Write as _};
use std::io::{ErrorKind, StdoutLock, Write};

use llmstream::json::{self, write_json_string, Value};

use crate::Failure;

/// How much output is gathered before it is written.
const BLOCK: usize = 64 * 1024;

/// JSON Lines gathered in one reused buffer and written to the locked
/// stdout a block at a time. A line is written in place
/// ([`text`](Self::text), then [`end_line`](Self::end_line)): no string
/// per line. Write errors stop the command: a closed pipe
/// (`llmstream … | head`) quietly ([`Failure::OutputClosed`]), any other
/// (a full disk) as a failure, never as success with output lost.
pub struct Lines {
    out: StdoutLock<'static>,
    buf: Vec<u8>,
}

impl Lines {
    pub fn new() -> Self {
        Lines {
            out: std::io::stdout().lock(),
            buf: Vec::with_capacity(BLOCK + BLOCK / 4),
        }
    }

    /// Writes one line; the newline is added.
    pub fn line(&mut self, text: &str) -> Result<(), Failure> {
        self.buf.extend_from_slice(text.as_bytes());
        self.end_line()
    }

    /// The line being written: append to it, then call
    /// [`end_line`](Self::end_line).
    pub fn text(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    /// Appends `s` to the line as a JSON string literal. A long one is
    /// escaped and written a block at a time, so that the output never
    /// holds all of it.
    pub fn string(&mut self, s: &str) -> Result<(), Failure> {
        if s.len() <= BLOCK {
            write_json_string(&mut self.buf, s);
            return Ok(());
        }
        self.buf.push(b'"');
        let mut rest = s;
        while !rest.is_empty() {
            let mut cut = BLOCK.min(rest.len());
            while !rest.is_char_boundary(cut) {
                cut -= 1;
            }
            let (piece, tail) = rest.split_at(cut);
            rest = tail;
            // The literal of a piece less its quotes is the piece's part of
            // the whole literal (every escape is of a single byte): it goes
            // out around its opening quote, its closing one dropped.
            let quote = self.buf.len();
            write_json_string(&mut self.buf, piece);
            self.buf.pop();
            let (before, after) = self.buf.split_at(quote);
            let written = self
                .out
                .write_all(before)
                .and_then(|()| self.out.write_all(after.get(1..).unwrap_or(&[])));
            self.buf.clear();
            written.map_err(|e| write_failure(&e))?;
        }
        self.buf.push(b'"');
        Ok(())
    }

    /// Appends the compact JSON of `value` to the line, written out a
    /// block at a time as it goes.
    /// Writes one line of a JSON form the library writes (`write` is
    /// given the sink, as `|sink| item.write_json(sink)`).
    pub fn form_line(&mut self, write: impl FnOnce(&mut dyn json::Sink)) -> Result<(), Failure> {
        let mut sink = Sink {
            lines: self,
            failed: None,
        };
        write(&mut sink);
        match sink.failed {
            Some(failure) => Err(failure),
            None => self.end_line(),
        }
    }

    pub fn value(&mut self, value: &Value) -> Result<(), Failure> {
        let mut sink = Sink {
            lines: self,
            failed: None,
        };
        match write!(sink, "{value}") {
            Ok(()) => Ok(()),
            Err(_) => Err(sink
                .failed
                .unwrap_or_else(|| Failure::Input("cannot write the output".to_string()))),
        }
    }

    /// Writes `value` as one line of compact JSON.
    pub fn value_line(&mut self, value: &Value) -> Result<(), Failure> {
        self.value(value)?;
        self.end_line()
    }

    /// Ends the line appended to [`text`](Self::text).
    pub fn end_line(&mut self) -> Result<(), Failure> {
        self.buf.push(b'\n');
        match self.buf.len() >= BLOCK {
            true => self.write_out(),
            false => Ok(()),
        }
    }

    /// Appends raw bytes (output that is not lines, as `translate`'s SSE),
    /// handed to stdout whenever a block is full.
    pub fn bytes(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        self.buf.extend_from_slice(bytes);
        match self.buf.len() >= BLOCK {
            true => self.write_out(),
            false => Ok(()),
        }
    }

    /// Hands what is gathered to stdout.
    fn write_out(&mut self) -> Result<(), Failure> {
        let written = self.out.write_all(&self.buf);
        self.buf.clear();
        written.map_err(|e| write_failure(&e))
    }

    /// Pushes what is buffered out (for output that follows the input).
    pub fn flush(&mut self) -> Result<(), Failure> {
        self.write_out()?;
        self.out.flush().map_err(|e| write_failure(&e))
    }

    /// Flushes at the end; a command that succeeded ends with this.
    pub fn finish(mut self) -> Result<(), Failure> {
        self.flush()
    }
}

/// The `fmt::Write` of [`Lines::value`] and the JSON sink of
/// [`Lines::form_line`]: the line's buffer, handed to stdout whenever a
/// block is full.
struct Sink<'l> {
    lines: &'l mut Lines,
    /// Why the output stopped, when it did.
    failed: Option<Failure>,
}

impl Sink<'_> {
    /// Appends `bytes`, handing a full block to stdout.
    fn push(&mut self, bytes: &[u8]) -> fmt::Result {
        self.lines.buf.extend_from_slice(bytes);
        if self.lines.buf.len() >= BLOCK {
            if let Err(failure) = self.lines.write_out() {
                self.failed = Some(failure);
                return Err(fmt::Error);
            }
        }
        Ok(())
    }
}

impl fmt::Write for Sink<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.push(s.as_bytes())
    }
}

/// The library's JSON forms written into the line: strings through
/// [`Lines::string`], a long one a block at a time.
impl json::Sink for Sink<'_> {
    fn raw(&mut self, json: &[u8]) {
        if self.failed.is_none() {
            let _ = self.push(json);
        }
    }

    fn string(&mut self, text: &str) {
        if self.failed.is_none() {
            if let Err(failure) = self.lines.string(text) {
                self.failed = Some(failure);
            }
        }
    }
}

/// What a failed write of the output means for the command.
pub fn write_failure(error: &std::io::Error) -> Failure {
    match error.kind() {
        ErrorKind::BrokenPipe => Failure::OutputClosed,
        _ => Failure::Input(format!("cannot write the output: {error}")),
    }
}

impl Drop for Lines {
    /// On the way out of a failed command: what can still be written is.
    fn drop(&mut self) {
        let _ = self.out.write_all(&self.buf);
        let _ = self.out.flush();
    }
}
