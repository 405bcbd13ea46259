//! An object's members with each key once: at its first position, with
//! its last value (what [`Map::get`] reads, as JSON parsers read a
//! repeated key). What the snapshot chunker compares and writes.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::vec::Vec;

use super::value::{Map, Value};

/// Members with distinct keys, in order of first appearance, each with the
/// value [`Map::get`] gives (the last duplicate), as JSON parsers read it.
/// In O(k log k) for k members: a lookup per key by [`Map::get`], a scan,
/// would make a snapshot of a wide object cost k².
pub(crate) fn unique(map: &Map) -> Vec<(&str, &Value)> {
    unique_by(map, &by_key(map))
}

/// [`unique`], with the map's [`by_key`] already made.
pub(crate) fn unique_by<'a>(
    map: &'a Map,
    last: &BTreeMap<&'a str, &'a Value>,
) -> Vec<(&'a str, &'a Value)> {
    if last.len() == map.len() {
        // No duplicates: every member, as it is.
        return map
            .iter()
            .map(|(key, value)| (key.as_str(), value))
            .collect();
    }
    let mut seen = BTreeSet::new();
    let mut out = Vec::with_capacity(last.len());
    for (key, _) in map.iter() {
        let key = key.as_str();
        if seen.insert(key) {
            if let Some(&value) = last.get(key) {
                out.push((key, value));
            }
        }
    }
    out
}

/// Each key's value (the last duplicate's), for lookups in O(log k).
pub(crate) fn by_key(map: &Map) -> BTreeMap<&str, &Value> {
    map.iter()
        .map(|(key, value)| (key.as_str(), value))
        .collect()
}
