//! A map of a few entries, kept sorted in a vector.
//!
//! A stream has one choice and one or two tool calls, yet a `BTreeMap`'s
//! first node has room for eleven entries: with an [`ArgumentStream`]
//! (312 bytes) as the value, 3.6 KB for one call, a quarter of what a
//! gateway holds per stream half-way through a tool call (BENCHMARKS.md).
//! Here the first entry takes its own size and the room doubles from there.
//!
//! [`ArgumentStream`]: super::ArgumentStream

use alloc::vec::Vec;

/// Entries sorted by key, each key once.
#[derive(Debug, Clone)]
pub(crate) struct VecMap<K, V> {
    entries: Vec<(K, V)>,
}

impl<K: Ord + Copy, V> VecMap<K, V> {
    pub(crate) const fn new() -> Self {
        VecMap {
            entries: Vec::new(),
        }
    }

    fn find(&self, key: &K) -> Result<usize, usize> {
        self.entries.binary_search_by(|(k, _)| k.cmp(key))
    }

    pub(crate) fn get(&self, key: &K) -> Option<&V> {
        let at = self.find(key).ok()?;
        self.entries.get(at).map(|(_, v)| v)
    }

    pub(crate) fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        let at = self.find(key).ok()?;
        self.entries.get_mut(at).map(|(_, v)| v)
    }

    /// Sets `key` to `value`, replacing (and dropping) an earlier value.
    pub(crate) fn insert(&mut self, key: K, value: V) {
        match self.find(&key) {
            Ok(at) => {
                if let Some(slot) = self.entries.get_mut(at) {
                    slot.1 = value;
                }
            }
            Err(at) => {
                if self.entries.len() == self.entries.capacity() {
                    // Room for one at first, then doubling (a `push` would
                    // make room for four at once).
                    self.entries.reserve_exact(self.entries.len().max(1));
                }
                self.entries.insert(at, (key, value));
            }
        }
    }

    /// The value of `key`, made with `V::default()` if there is none.
    pub(crate) fn get_or_default(&mut self, key: K) -> Option<&mut V>
    where
        V: Default,
    {
        if self.find(&key).is_err() {
            self.insert(key, V::default());
        }
        self.get_mut(&key)
    }

    /// Takes `key`'s value out.
    pub(crate) fn remove(&mut self, key: &K) -> Option<V> {
        let at = self.find(key).ok()?;
        Some(self.entries.remove(at).1)
    }

    pub(crate) fn contains_key(&self, key: &K) -> bool {
        self.find(key).is_ok()
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries in key order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

impl<K: Ord + Copy, V> Default for VecMap<K, V> {
    fn default() -> Self {
        VecMap::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::collections::BTreeMap;

    #[test]
    fn agrees_with_btree_map() {
        let mut seed = 3u64;
        for _ in 0..200 {
            let mut ours = VecMap::new();
            let mut model = BTreeMap::new();
            for step in 0..40u32 {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let key = ((seed >> 40) % 8, (seed >> 50) % 4);
                match (seed >> 33) % 5 {
                    3 => assert_eq!(ours.remove(&key), model.remove(&key)),
                    4 => {
                        if let Some(v) = ours.get_or_default(key) {
                            *v += 1;
                        }
                        *model.entry(key).or_default() += 1;
                    }
                    0 => {
                        ours.insert(key, step);
                        model.insert(key, step);
                    }
                    1 => {
                        if let Some(v) = ours.get_mut(&key) {
                            *v += 100;
                        }
                        if let Some(v) = model.get_mut(&key) {
                            *v += 100;
                        }
                    }
                    _ => assert_eq!(ours.get(&key), model.get(&key)),
                }
                assert!(ours.iter().eq(model.iter()));
                assert_eq!(ours.len(), model.len());
                assert_eq!(ours.is_empty(), model.is_empty());
                assert_eq!(ours.contains_key(&key), model.contains_key(&key));
            }
        }
    }

    #[test]
    fn the_first_entry_takes_its_own_room() {
        let mut map = VecMap::new();
        map.insert(1u64, [0u8; 300]);
        assert_eq!(map.entries.capacity(), 1);
        map.insert(0, [1; 300]);
        map.insert(2, [2; 300]);
        assert_eq!(map.entries.capacity(), 4);
        assert_eq!(map.iter().map(|(k, _)| *k).collect::<Vec<_>>(), [0, 1, 2]);
    }
}
