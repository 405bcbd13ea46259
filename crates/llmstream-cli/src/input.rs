//! Reading the input as it arrives and cutting it into the pieces the
//! library is fed.
//!
//! Every subcommand takes FILE or stdin and the two chunking flags of the CLI
//! contract: `--chunk-size N` (fixed pieces) and `--random-chunks SEED`
//! (pieces of 1 to 16 bytes from a seeded generator, so a failing run can be
//! replayed exactly). The input is read in blocks and fed as it comes, so
//! that `curl -N … | llmstream sse` prints each event when it arrives, and
//! an endless stream runs in bounded memory wherever the output does not
//! keep it (`sse`, `actions`, `json --emit events`; not a final value). With a chunking flag the pieces
//! are the same whatever the reads return: a piece that two reads share is
//! put together first, so a piece waits for its last byte (a flag is for
//! replaying a stream exactly, not for the lowest latency). Without one,
//! each read is a piece.

use std::io::{IsTerminal, Read};

use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;

use clap::Args;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::Failure;

/// The most one read takes: the largest piece fed without a chunking flag.
const BLOCK: usize = 64 * 1024;

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

/// One piece of the input, as fed to the library.
pub struct Piece<'a> {
    pub bytes: &'a [u8],
    /// The input offset of its first byte.
    pub offset: u64,
    /// The last piece until more is read: the time to flush what was
    /// printed.
    pub caught_up: bool,
}

impl InputArgs {
    /// Reads the input (file or stdin) as it arrives and hands it to
    /// `on_piece` piece by piece, cut per the chunking flags; returns how
    /// many bytes it read. A file that cannot be read is bad usage (exit
    /// 2), whichever subcommand names it; a read failing midway is bad
    /// input. A long file shows a progress bar when stderr is a terminal.
    pub fn each_piece(
        &self,
        mut on_piece: impl FnMut(Piece<'_>) -> Result<(), Failure>,
    ) -> Result<u64, Failure> {
        let (mut reader, size): (Box<dyn Read>, _) = match &self.file {
            Some(path) if path.as_os_str() != "-" => {
                let cannot = |e: std::io::Error| {
                    Failure::Usage(format!("cannot read {}: {e}", path.display()))
                };
                let file = std::fs::File::open(path).map_err(cannot)?;
                let meta = file.metadata().map_err(cannot)?;
                if meta.is_dir() {
                    return Err(Failure::Usage(format!(
                        "cannot read {}: Is a directory",
                        path.display()
                    )));
                }
                (Box::new(file), Some(meta.len()))
            }
            _ => (Box::new(std::io::stdin().lock()), None),
        };
        let progress = Progress::new(size);
        let mut cutter = Cutter::new(self.chunking());
        let mut buf = vec![0u8; BLOCK];
        let mut offset = 0u64;
        let mut sink = |bytes: &[u8], caught_up: bool| {
            let piece = Piece {
                bytes,
                offset,
                caught_up,
            };
            offset += bytes.len() as u64;
            on_piece(piece)
        };
        let mut read = 0u64;
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                // A FILE that cannot be read at all is bad usage, as one
                // that cannot be opened.
                Err(e) if read == 0 && size.is_some() => {
                    let path = self.file.as_ref().map(|p| p.display().to_string());
                    return Err(Failure::Usage(format!(
                        "cannot read {}: {e}",
                        path.unwrap_or_default()
                    )));
                }
                Err(e) => {
                    let what = match &self.file {
                        Some(path) if path.as_os_str() != "-" => path.display().to_string(),
                        _ => "standard input".to_string(),
                    };
                    return Err(Failure::Input(format!(
                        "cannot read {what}: {e} at byte {read}"
                    )));
                }
            };
            read += n as u64;
            cutter.feed(buf.get(..n).unwrap_or(&[]), &mut sink)?;
            progress.advance(n);
        }
        cutter.finish(&mut sink)?;
        Ok(read)
    }

    /// The chunking these flags ask for.
    pub fn chunking(&self) -> Chunking {
        match (self.chunk_size, self.random_chunks) {
            (Some(n), _) => Chunking::Fixed(usize::try_from(n).unwrap_or(usize::MAX)),
            (None, Some(seed)) => Chunking::Random(seed),
            (None, None) => Chunking::AsRead,
        }
    }
}

/// `line L, column C` (both from 1, columns in bytes) of input offsets,
/// for error messages about multi-line inputs, counted as the pieces go
/// by (the input is not kept).
#[derive(Default)]
pub struct Position {
    /// Newlines before the current piece.
    newlines: u64,
    /// Bytes since the last newline before the current piece.
    column: u64,
}

impl Position {
    /// Where `offset` is, `piece` (which starts at `piece_offset`) being
    /// the piece not yet passed to [`pass`](Self::pass); an offset past it
    /// is placed at its end. An offset a few bytes before it (the start of
    /// a UTF-8 sequence that went wrong in this piece) is found on the
    /// line the piece starts on.
    pub fn locate(&self, piece: &[u8], piece_offset: u64, offset: u64) -> String {
        let back = piece_offset.saturating_sub(offset);
        if back > 0 && back <= self.column {
            return format!(
                "line {}, column {}",
                self.newlines + 1,
                self.column - back + 1
            );
        }
        let within = usize::try_from(offset.saturating_sub(piece_offset))
            .unwrap_or(usize::MAX)
            .min(piece.len());
        let before = piece.get(..within).unwrap_or(&[]);
        let (line, column) = match before.iter().rposition(|&b| b == b'\n') {
            Some(last) => {
                let newlines = before.iter().filter(|&&b| b == b'\n').count() as u64;
                (self.newlines + newlines, (within - last - 1) as u64)
            }
            None => (self.newlines, self.column + within as u64),
        };
        format!("line {}, column {}", line + 1, column + 1)
    }

    /// Where the end of everything passed is.
    pub fn at_end(&self) -> String {
        self.locate(&[], 0, 0)
    }

    /// Counts `piece` as read.
    pub fn pass(&mut self, piece: &[u8]) {
        match piece.iter().rposition(|&b| b == b'\n') {
            Some(last) => {
                self.newlines += piece.iter().filter(|&&b| b == b'\n').count() as u64;
                self.column = (piece.len() - last - 1) as u64;
            }
            None => self.column += piece.len() as u64,
        }
    }
}

/// Progress through a long input file.
struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar for a file of `size` bytes that is worth one, when stderr is
    /// a terminal; nothing otherwise.
    fn new(size: Option<u64>) -> Self {
        const WORTH_A_BAR: u64 = 8 << 20;
        let bar = size
            // Not over output that goes to the same terminal as it arrives.
            .filter(|&size| {
                size >= WORTH_A_BAR
                    && std::io::stderr().is_terminal()
                    && !std::io::stdout().is_terminal()
            })
            .map(|size| {
                let bar = ProgressBar::new(size);
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

    /// `n` more bytes were read.
    fn advance(&self, n: usize) {
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
    /// Each read as it comes.
    AsRead,
    /// Pieces of this many bytes (the last may be shorter).
    Fixed(usize),
    /// Pieces of 1 to 16 bytes from a ChaCha8 generator with this seed.
    Random(u64),
}

/// The sink of [`Cutter`]: a piece, and whether it is the last whole
/// piece of what was read so far.
type Sink<'s> = dyn FnMut(&[u8], bool) -> Result<(), Failure> + 's;

/// Cuts the blocks that reads return into the pieces of a [`Chunking`],
/// the same pieces however the reads fall: a piece two blocks share is put
/// together in `carry` (at most one piece, so at most `N` or 16 bytes).
struct Cutter {
    chunking: Chunking,
    rng: ChaCha8Rng,
    /// The length of the piece being cut.
    want: usize,
    /// Its first bytes, from an earlier block.
    carry: Vec<u8>,
}

impl Cutter {
    fn new(chunking: Chunking) -> Self {
        let seed = match chunking {
            Chunking::Random(seed) => seed,
            _ => 0,
        };
        let mut cutter = Cutter {
            chunking,
            rng: ChaCha8Rng::seed_from_u64(seed),
            want: 0,
            carry: Vec::new(),
        };
        cutter.want = cutter.next_len();
        cutter
    }

    fn next_len(&mut self) -> usize {
        match self.chunking {
            Chunking::AsRead => usize::MAX,
            Chunking::Fixed(n) => n.max(1),
            Chunking::Random(_) => self.rng.gen_range(1..=16usize),
        }
    }

    /// Cuts one block.
    fn feed(&mut self, block: &[u8], sink: &mut Sink<'_>) -> Result<(), Failure> {
        if self.chunking == Chunking::AsRead {
            return match block.is_empty() {
                true => Ok(()),
                false => sink(block, true),
            };
        }
        let mut rest = block;
        if !self.carry.is_empty() {
            let take = (self.want - self.carry.len()).min(rest.len());
            let (head, tail) = rest.split_at(take);
            self.carry.extend_from_slice(head);
            rest = tail;
            if self.carry.len() < self.want {
                return Ok(());
            }
            let piece = std::mem::take(&mut self.carry);
            self.want = self.next_len();
            sink(&piece, rest.len() < self.want)?;
        }
        while rest.len() >= self.want {
            let (head, tail) = rest.split_at(self.want);
            rest = tail;
            self.want = self.next_len();
            sink(head, rest.len() < self.want)?;
        }
        self.carry.extend_from_slice(rest);
        Ok(())
    }

    /// The last piece, shorter than the others, at the end of the input.
    fn finish(&mut self, sink: &mut Sink<'_>) -> Result<(), Failure> {
        match self.carry.is_empty() {
            true => Ok(()),
            false => sink(&std::mem::take(&mut self.carry), true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pieces `chunking` cuts `data` into when reads return `blocks`
    /// bytes at a time.
    fn cut(data: &[u8], chunking: Chunking, blocks: usize) -> Vec<Vec<u8>> {
        let mut cutter = Cutter::new(chunking);
        let mut out = Vec::new();
        let mut sink = |piece: &[u8], _: bool| {
            out.push(piece.to_vec());
            Ok(())
        };
        for block in data.chunks(blocks) {
            cutter.feed(block, &mut sink).unwrap_or(());
        }
        cutter.finish(&mut sink).unwrap_or(());
        out
    }

    #[test]
    fn random_pieces_are_reproducible_and_cover_the_input() {
        let data: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        let a = cut(&data, Chunking::Random(7), BLOCK);
        assert_eq!(a, cut(&data, Chunking::Random(7), BLOCK));
        assert!(a.iter().all(|p| (1..=16).contains(&p.len())));
        assert_eq!(a.concat(), data);
        assert_ne!(a, cut(&data, Chunking::Random(8), BLOCK));
    }

    /// Reads that return any number of bytes give the same pieces.
    #[test]
    fn pieces_do_not_depend_on_the_reads() {
        let data: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        for chunking in [Chunking::Random(3), Chunking::Fixed(7), Chunking::Fixed(1)] {
            let whole = cut(&data, chunking, BLOCK);
            for blocks in [1, 2, 5, 16, 17, 999] {
                assert_eq!(cut(&data, chunking, blocks), whole, "{chunking:?} {blocks}");
            }
        }
        assert_eq!(cut(&data, Chunking::AsRead, 300).len(), 4);
    }

    #[test]
    fn fixed_pieces() {
        let p = cut(b"abcdefg", Chunking::Fixed(3), BLOCK);
        assert_eq!(p, vec![b"abc".to_vec(), b"def".to_vec(), b"g".to_vec()]);
        assert!(cut(b"", Chunking::AsRead, BLOCK).is_empty());
        assert!(cut(b"", Chunking::Fixed(3), BLOCK).is_empty());
    }

    #[test]
    fn positions_count_lines_and_columns_from_one_across_pieces() {
        let text = b"{\n  \"a\" 1\n}";
        // Offset 8 is the `1`, in whichever piece holds it.
        for split in 0..=text.len() {
            let (a, b) = text.split_at(split);
            let mut position = Position::default();
            if split > 8 {
                assert_eq!(position.locate(a, 0, 8), "line 2, column 7", "{split}");
            }
            position.pass(a);
            if split <= 8 {
                let at = position.locate(b, split as u64, 8);
                assert_eq!(at, "line 2, column 7", "{split}");
            }
            position.pass(b);
            assert_eq!(position.at_end(), "line 3, column 2", "{split}");
        }
        // An error found in a later piece, at a byte of an earlier one.
        let mut position = Position::default();
        position.pass(b"{\n\"\xe2");
        position.pass(b"\x82");
        assert_eq!(position.locate(b"x", 5, 3), "line 2, column 2");
        let position = Position::default();
        assert_eq!(position.locate(b"[1 2]", 0, 3), "line 1, column 4");
        assert_eq!(position.locate(b"ab", 0, 99), "line 1, column 3");
    }
}
