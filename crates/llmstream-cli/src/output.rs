//! Buffered JSON Lines on stdout.

use std::io::{BufWriter, ErrorKind, Stdout, Write};

use crate::Failure;

/// A buffered stdout whose write errors stop the command: a closed pipe
/// (`llmstream … | head`) quietly ([`Failure::OutputClosed`]), any other
/// (a full disk) as a failure, never as success with output lost.
pub struct Lines {
    out: BufWriter<Stdout>,
}

impl Lines {
    pub fn new() -> Self {
        Lines {
            out: BufWriter::new(std::io::stdout()),
        }
    }

    /// Writes one line; the newline is added.
    pub fn line(&mut self, text: &str) -> Result<(), Failure> {
        self.out
            .write_all(text.as_bytes())
            .and_then(|()| self.out.write_all(b"\n"))
            .map_err(|e| write_failure(&e))
    }

    /// Pushes what is buffered out (for output that follows the input).
    pub fn flush(&mut self) -> Result<(), Failure> {
        self.out.flush().map_err(|e| write_failure(&e))
    }

    /// Flushes at the end; a command that succeeded ends with this.
    pub fn finish(mut self) -> Result<(), Failure> {
        self.flush()
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
        let _ = self.out.flush();
    }
}
