//! serde support (feature `serde`): [`Value`], [`Number`] and [`Map`]
//! implement `Serialize` and `Deserialize`; [`from_value`] reads any
//! `T: Deserialize` out of a [`Value`]; [`from_partial`] reads it out of a
//! live, still-growing snapshot.
//!
//! With the feature `serde_json` as well, [`Value`] converts to and from
//! `serde_json::Value` with `From`.

mod de;
mod empty;
mod error;
mod read;
mod ser;

#[cfg(feature = "serde_json")]
mod convert;

pub use error::DeError;
pub use read::{from_partial, from_partial_strict, from_value, from_value_ref};
