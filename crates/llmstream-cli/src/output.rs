//! Buffered JSON Lines on stdout.

use std::io::{BufWriter, Stdout, Write};

/// A buffered stdout that ignores a closed pipe (`llmstream … | head`).
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
    pub fn line(&mut self, text: &str) {
        let _ = self.out.write_all(text.as_bytes());
        let _ = self.out.write_all(b"\n");
    }

    /// Pushes what is buffered to the terminal (for live output).
    pub fn flush(&mut self) {
        let _ = self.out.flush();
    }
}

impl Drop for Lines {
    fn drop(&mut self) {
        self.flush();
    }
}
