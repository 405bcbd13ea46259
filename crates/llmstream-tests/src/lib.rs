//! What the tests, benches and fuzz targets of llmstream share: a seeded
//! generator, the ways of cutting input into pieces, and the recordings of
//! `../shared/fixtures`.
//!
//! It depends on nothing, not even on llmstream, so that the library's own
//! benches can use it without a second copy of the library. The
//! integration tests of the library live in this package's `tests/`.
//!
//! A test that reads the fixtures carries
//! `#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]`
//! (the package's build script sets `cfg(fixtures)`), so that without the
//! folder it shows as ignored instead of passing without having run.

pub mod fixtures;
pub mod pieces;
pub mod rng;

pub use pieces::{pieces_at, random_pieces, Cutting};
pub use rng::Rng;
