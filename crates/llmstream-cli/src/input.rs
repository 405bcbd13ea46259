//! Reading the input and cutting it into the pieces the library is fed.
//!
//! Every subcommand takes FILE or stdin and the two chunking flags of the CLI
//! contract: `--chunk-size N` (fixed pieces) and `--random-chunks SEED`
//! (pieces of 1 to 16 bytes from a seeded generator, so a failing run can be
//! replayed exactly).

use std::io::{IsTerminal, Read};

use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;

use clap::Args;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The input options shared by every subcommand that reads a stream.
#[derive(Args, Debug, Clone)]
pub struct InputArgs {
    /// Input file; standard input when absent or `-`.
    pub file: Option<PathBuf>,
    /// Feed the input to the library N bytes at a time.
    #[arg(long, value_name = "N", conflicts_with = "random_chunks", value_parser = clap::value_parser!(u64).range(1..))]
    pub chunk_size: Option<u64>,
    /// Feed pieces of 1 to 16 bytes chosen by a generator seeded with SEED.
    #[arg(long, value_name = "SEED")]
    pub random_chunks: Option<u64>,
}

impl InputArgs {
    /// Reads the whole input (file or stdin). A file that cannot be read
    /// is bad usage (exit 2, as in [`stream`](Self::stream)), whichever
    /// subcommand names it; standard input failing is bad input.
    pub fn read(&self) -> Result<Vec<u8>, crate::Failure> {
        let mut buf = Vec::new();
        match &self.file {
            Some(path) if path.as_os_str() != "-" => {
                buf = std::fs::read(path).map_err(|e| {
                    crate::Failure::Usage(format!("cannot read {}: {e}", path.display()))
                })?;
            }
            _ => {
                std::io::stdin().lock().read_to_end(&mut buf).map_err(|e| {
                    crate::Failure::Input(format!("cannot read standard input: {e}"))
                })?;
            }
        }
        Ok(buf)
    }

    /// Reads the input as it arrives (a pipe from `curl -N`, say), handing
    /// each piece to `on_piece` as soon as it is read, cut per the chunking
    /// flags.
    pub fn stream(
        &self,
        mut on_piece: impl FnMut(&[u8]) -> Result<(), crate::Failure>,
    ) -> Result<(), crate::Failure> {
        let mut reader: Box<dyn Read> = match &self.file {
            Some(path) if path.as_os_str() != "-" => {
                Box::new(std::fs::File::open(path).map_err(|e| {
                    crate::Failure::Usage(format!("cannot read {}: {e}", path.display()))
                })?)
            }
            _ => Box::new(std::io::stdin()),
        };
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(crate::Failure::Input(format!("cannot read input: {e}"))),
            };
            for piece in split(buf.get(..n).unwrap_or(&[]), self.chunking()) {
                on_piece(piece)?;
            }
        }
    }

    /// A progress bar on stderr for a long file input, when stderr is a
    /// terminal; a no-op otherwise.
    pub fn progress(&self, total: usize) -> Progress {
        const WORTH_A_BAR: usize = 8 << 20;
        let from_file = self.file.as_ref().is_some_and(|p| p.as_os_str() != "-");
        let bar =
            (from_file && total >= WORTH_A_BAR && std::io::stderr().is_terminal()).then(|| {
                let bar = ProgressBar::new(total as u64);
                bar.set_style(
                    ProgressStyle::with_template(
                        "{bar:40} {bytes}/{total_bytes} {bytes_per_sec} {eta}",
                    )
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
                );
                bar
            });
        Progress { bar }
    }

    /// The piece lengths to cut `len` bytes into, per the chunking flags.
    pub fn pieces<'a>(&self, data: &'a [u8]) -> Vec<&'a [u8]> {
        split(data, self.chunking())
    }

    /// The chunking these flags ask for.
    pub fn chunking(&self) -> Chunking {
        match (self.chunk_size, self.random_chunks) {
            (Some(n), _) => Chunking::Fixed(usize::try_from(n).unwrap_or(usize::MAX)),
            (None, Some(seed)) => Chunking::Random(seed),
            (None, None) => Chunking::Whole,
        }
    }
}

/// `line L, column C` (both from 1, columns in bytes) of a byte offset,
/// for error messages about multi-line inputs.
pub fn locate(data: &[u8], offset: u64) -> String {
    let end = usize::try_from(offset)
        .unwrap_or(usize::MAX)
        .min(data.len());
    let before = data.get(..end).unwrap_or(&[]);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
    format!("line {line}, column {column}")
}

/// Progress through a long input (see [`InputArgs::progress`]).
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// `n` more bytes were fed.
    pub fn advance(&self, n: usize) {
        if let Some(bar) = &self.bar {
            bar.inc(n as u64);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// How the input is cut before it is fed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chunking {
    /// One piece.
    Whole,
    /// Pieces of this many bytes (the last may be shorter).
    Fixed(usize),
    /// Pieces of 1 to 16 bytes from a ChaCha8 generator with this seed.
    Random(u64),
}

/// Cuts `data` into pieces. Never yields an empty piece.
pub fn split(data: &[u8], chunking: Chunking) -> Vec<&[u8]> {
    match chunking {
        Chunking::Whole => {
            if data.is_empty() {
                Vec::new()
            } else {
                vec![data]
            }
        }
        Chunking::Fixed(n) => data.chunks(n.max(1)).collect(),
        Chunking::Random(seed) => {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut out = Vec::new();
            let mut rest = data;
            while !rest.is_empty() {
                let n = rng.gen_range(1..=16usize).min(rest.len());
                let (head, tail) = rest.split_at(n);
                out.push(head);
                rest = tail;
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_pieces_are_reproducible_and_cover_the_input() {
        let data: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        let a = split(&data, Chunking::Random(7));
        let b = split(&data, Chunking::Random(7));
        assert_eq!(a, b);
        assert!(a.iter().all(|p| (1..=16).contains(&p.len())));
        assert_eq!(a.concat(), data);
        assert_ne!(a, split(&data, Chunking::Random(8)));
    }

    #[test]
    fn locate_counts_lines_and_columns_from_one() {
        assert_eq!(locate(b"[1 2]", 3), "line 1, column 4");
        assert_eq!(locate(b"{\n  \"a\" 1\n}", 8), "line 2, column 7");
        assert_eq!(locate(b"ab", 99), "line 1, column 3");
    }

    #[test]
    fn fixed_pieces() {
        let p = split(b"abcdefg", Chunking::Fixed(3));
        assert_eq!(p, vec![&b"abc"[..], b"def", b"g"]);
        assert!(split(b"", Chunking::Whole).is_empty());
    }
}
