//! Reading the input and cutting it into the pieces the library is fed.
//!
//! Every subcommand takes FILE or stdin and the two chunking flags of the CLI
//! contract: `--chunk-size N` (fixed pieces) and `--random-chunks SEED`
//! (pieces of 1 to 16 bytes from a seeded generator, so a failing run can be
//! replayed exactly).

use std::io::Read;
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
    /// Reads the whole input (file or stdin).
    pub fn read(&self) -> Result<Vec<u8>, String> {
        let mut buf = Vec::new();
        match &self.file {
            Some(path) if path.as_os_str() != "-" => {
                buf = std::fs::read(path)
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            }
            _ => {
                std::io::stdin()
                    .lock()
                    .read_to_end(&mut buf)
                    .map_err(|e| format!("cannot read standard input: {e}"))?;
            }
        }
        Ok(buf)
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
    fn fixed_pieces() {
        let p = split(b"abcdefg", Chunking::Fixed(3));
        assert_eq!(p, vec![&b"abc"[..], b"def", b"g"]);
        assert!(split(b"", Chunking::Whole).is_empty());
    }
}
