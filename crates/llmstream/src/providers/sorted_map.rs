//! A map of a few entries, kept sorted in a vector.
//!
//! A stream has one choice and one or two tool calls, yet a `BTreeMap`'s
//! first node has room for eleven entries: with an [`ArgumentStream`] as
//! the value, kilobytes for a single call. A gateway holds one message per
//! open stream, so those nodes would be most of what a pipeline half-way
//! through a tool call holds beyond its text. Here the first
//! entry takes its own size and the room doubles from there; a lookup is a
//! binary search over entries that sit side by side.
//!
//! [`ArgumentStream`]: super::ArgumentStream

use alloc::vec::Vec;
use core::borrow::Borrow;

/// A map kept as a vector sorted by key, each key once: the choices of a
/// [`Message`](super::Message) and the tool calls of a
/// [`Choice`](super::Choice), by the wire's index. It reads like a
/// `BTreeMap` (`get`, `iter`, `values` in key order), but has no `map[&key]`:
/// the library does not panic, so a missing key is `get`'s `None`.
///
/// ```
/// use llmstream::providers::{Pipeline, Provider};
///
/// let mut pipeline = Pipeline::with_provider(Provider::OpenAiChat);
/// pipeline.feed(br#"data: {"choices":[{"index":1,"delta":{"content":"Hi"}}]}"#)?;
/// pipeline.feed(b"\n\n")?;
/// let message = pipeline.message().expect("a message");
/// assert!(message.choices.get(&0).is_none());
/// assert_eq!(message.choices.get(&1).map(|c| c.text.as_str()), Some("Hi"));
/// assert_eq!(message.choices.keys().collect::<Vec<_>>(), [&1]);
/// # Ok::<(), llmstream::providers::PipelineError>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SortedMap<K, V> {
    entries: Vec<(K, V)>,
}

impl<K: Ord, V> SortedMap<K, V> {
    /// An empty map; it allocates at its first entry.
    pub const fn new() -> Self {
        SortedMap {
            entries: Vec::new(),
        }
    }

    fn find<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.entries.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    /// The value of `key`.
    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        let at = self.find(key).ok()?;
        self.entries.get(at).map(|(_, v)| v)
    }

    /// The value of `key`, mutably.
    pub fn get_mut<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        let at = self.find(key).ok()?;
        self.entries.get_mut(at).map(|(_, v)| v)
    }

    /// Whether `key` has a value.
    pub fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.find(key).is_ok()
    }

    /// Sets `key` to `value`; returns the value it replaces.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(&key) {
            Ok(at) => self
                .entries
                .get_mut(at)
                .map(|slot| core::mem::replace(&mut slot.1, value)),
            Err(at) => {
                if self.entries.len() == self.entries.capacity() {
                    // Room for one at first, then doubling (a `push` would
                    // make room for four at once).
                    self.entries.reserve_exact(self.entries.len().max(1));
                }
                self.entries.insert(at, (key, value));
                None
            }
        }
    }

    /// The value of `key`, made with `V::default()` first if there is
    /// none (always `Some`).
    pub(crate) fn get_or_default(&mut self, key: K) -> Option<&mut V>
    where
        V: Default,
    {
        let at = match self.find(&key) {
            Ok(at) => at,
            Err(at) => {
                self.insert(key, V::default());
                at
            }
        };
        self.entries.get_mut(at).map(|(_, v)| v)
    }

    /// Takes `key`'s value out.
    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        let at = self.find(key).ok()?;
        Some(self.entries.remove(at).1)
    }

    /// How many entries there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&K, &V)> + ExactSizeIterator {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// The entries in key order, values mutably.
    pub fn iter_mut(
        &mut self,
    ) -> impl DoubleEndedIterator<Item = (&K, &mut V)> + ExactSizeIterator {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    /// The keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + ExactSizeIterator {
        self.entries.iter().map(|(k, _)| k)
    }

    /// The values in key order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator {
        self.entries.iter().map(|(_, v)| v)
    }

    /// The values in key order, mutably.
    pub fn values_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut V> + ExactSizeIterator {
        self.entries.iter_mut().map(|(_, v)| v)
    }
}

impl<K: Ord, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        SortedMap::new()
    }
}

impl<K: core::fmt::Debug, V: core::fmt::Debug> core::fmt::Debug for SortedMap<K, V> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_map()
            .entries(self.entries.iter().map(|(k, v)| (k, v)))
            .finish()
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for SortedMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(entries: I) -> Self {
        let mut map = SortedMap::new();
        for (k, v) in entries {
            map.insert(k, v);
        }
        map
    }
}

impl<K, V> IntoIterator for SortedMap<K, V> {
    type Item = (K, V);
    type IntoIter = alloc::vec::IntoIter<(K, V)>;

    /// The entries in key order.
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<'a, K, V> IntoIterator for &'a SortedMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter =
        core::iter::Map<core::slice::Iter<'a, (K, V)>, fn(&'a (K, V)) -> (&'a K, &'a V)>;

    /// The entries in key order.
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::collections::BTreeMap;
    use alloc::format;

    #[test]
    fn agrees_with_btree_map() {
        let mut seed = 3u64;
        for _ in 0..200 {
            let mut ours = SortedMap::new();
            let mut model = BTreeMap::new();
            for step in 0..40u32 {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let key = ((seed >> 40) % 8, (seed >> 50) % 4);
                match (seed >> 33) % 5 {
                    0 => assert_eq!(ours.insert(key, step), model.insert(key, step)),
                    1 => {
                        if let Some(v) = ours.get_mut(&key) {
                            *v += 100;
                        }
                        if let Some(v) = model.get_mut(&key) {
                            *v += 100;
                        }
                    }
                    2 => assert_eq!(ours.remove(&key), model.remove(&key)),
                    3 => {
                        if let Some(v) = ours.get_or_default(key) {
                            *v += 1;
                        }
                        *model.entry(key).or_default() += 1;
                    }
                    _ => assert_eq!(ours.get(&key), model.get(&key)),
                }
                assert!(ours.iter().eq(model.iter()));
                assert!(ours.keys().eq(model.keys()));
                assert!(ours.values().rev().eq(model.values().rev()));
                assert_eq!(ours.len(), model.len());
                assert_eq!(ours.is_empty(), model.is_empty());
                assert_eq!(ours.contains_key(&key), model.contains_key(&key));
            }
            assert!(ours.into_iter().eq(model.into_iter()));
        }
    }

    #[test]
    fn the_first_entry_takes_its_own_room() {
        let mut map = SortedMap::new();
        map.insert(1u64, [0u8; 300]);
        assert_eq!(map.entries.capacity(), 1);
        map.insert(0, [1; 300]);
        map.insert(2, [2; 300]);
        assert_eq!(map.entries.capacity(), 4);
        assert_eq!(map.keys().copied().collect::<Vec<_>>(), [0, 1, 2]);
    }

    #[test]
    fn string_keys_are_looked_up_by_str() {
        let mut map: SortedMap<alloc::string::String, u8> = SortedMap::new();
        map.insert("call_2".into(), 2);
        map.insert("call_1".into(), 1);
        assert_eq!(map.get("call_1"), Some(&1));
        assert_eq!(map.get("call_2"), Some(&2));
        assert!(!map.contains_key("call_3"));
        assert_eq!(format!("{map:?}"), r#"{"call_1": 1, "call_2": 2}"#);
    }
}
