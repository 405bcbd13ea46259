//! Ways of cutting input into the pieces a stage is fed: a stage must give
//! the same result however its input is cut.

use crate::rng::Rng;

/// `bytes` cut into pieces of 1 to 16 bytes chosen by a generator seeded
/// with `seed` (the CLI's `--random-chunks` range).
pub fn random_pieces(bytes: &[u8], seed: u64) -> Vec<&[u8]> {
    pieces_up_to(bytes, seed, 16)
}

/// `bytes` cut into pieces of 1 to `max` bytes (`max` > 0) chosen by a
/// generator seeded with `seed`.
pub fn pieces_up_to(bytes: &[u8], seed: u64, max: u64) -> Vec<&[u8]> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let n = (rng.range(1, max) as usize).min(rest.len());
        let (head, tail) = rest.split_at(n);
        out.push(head);
        rest = tail;
    }
    out
}

/// `bytes` cut at the sorted positions `cuts` (each at most `bytes.len()`);
/// repeated positions give empty pieces, which a stage must take too.
pub fn pieces_at<'a>(bytes: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut out = Vec::with_capacity(cuts.len() + 1);
    let mut start = 0;
    for &cut in cuts {
        out.push(&bytes[start..cut]);
        start = cut;
    }
    out.push(&bytes[start..]);
    out
}

/// How a recording is fed to a stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cutting {
    /// In one piece.
    Whole,
    /// One byte at a time.
    Bytewise,
    /// In pieces of 1 to 16 bytes from this seed.
    Random(u64),
}

impl Cutting {
    /// The whole, the byte-by-byte and `seeds` random cuttings.
    pub fn all(seeds: u64) -> impl Iterator<Item = Cutting> {
        [Cutting::Whole, Cutting::Bytewise]
            .into_iter()
            .chain((0..seeds).map(Cutting::Random))
    }

    /// `bytes` cut this way.
    pub fn cut(self, bytes: &[u8]) -> Vec<&[u8]> {
        match self {
            Cutting::Whole => vec![bytes],
            Cutting::Bytewise => bytes.chunks(1).collect(),
            Cutting::Random(seed) => random_pieces(bytes, seed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cutting_joins_back_to_the_input() {
        let bytes: Vec<u8> = (0..=255).collect();
        for cutting in Cutting::all(5) {
            let pieces = cutting.cut(&bytes);
            assert_eq!(pieces.concat(), bytes, "{cutting:?}");
            assert!(pieces.iter().all(|p| p.len() <= 16) || cutting == Cutting::Whole);
        }
        assert_eq!(Cutting::Bytewise.cut(&bytes).len(), 256);
    }

    #[test]
    fn random_pieces_depend_on_the_seed_only() {
        let bytes = [7u8; 500];
        assert_eq!(random_pieces(&bytes, 3), random_pieces(&bytes, 3));
        let lens = |seed| {
            random_pieces(&bytes, seed)
                .iter()
                .map(|p| p.len())
                .collect::<Vec<_>>()
        };
        assert_ne!(lens(3), lens(4));
    }

    #[test]
    fn pieces_at_keeps_empty_pieces() {
        assert_eq!(
            pieces_at(b"abc", &[0, 1, 1, 3]),
            vec![&b""[..], b"a", b"", b"bc", b""]
        );
    }
}
