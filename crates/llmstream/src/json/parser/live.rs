//! The live value, and where its open containers lie.
//!
//! Every value a streamed document adds goes into the innermost open
//! container, and every piece that continues a string appends to the last
//! child of it. Found by walking the last children down from the root, that
//! is a pointer chase per level for every number, string piece and bracket:
//! at the depth of a GeoJSON coordinate (seven levels) a quarter of what
//! streaming costs over a whole parse (docs/benchmarks-history.md). Here
//! the open containers' addresses are kept, so each is reached in one step.
//!
//! The one module of the parser with `unsafe` code. It is sound by
//! construction: the value is private to this module, no method hands out
//! a mutable reference to a container (only to a string, or by value), and
//! each method that could move a kept container drops what it may have
//! moved (see [`LiveValue::open`]).

use alloc::string::String;
use alloc::vec::Vec;
use core::ptr::NonNull;

use super::snapshot::attach;
use crate::json::value::Value;

/// The partial value, and the addresses of its open containers.
#[derive(Default)]
pub(super) struct LiveValue {
    root: Option<Value>,
    /// `open[i]` is the address of the container at depth `i + 1` on the
    /// open path (the last child of the container at depth `i`, down from
    /// the root at depth 0). It stays valid as long as no container at a
    /// depth of `i` or less gains or loses a child and the root is not
    /// replaced: an element moves only when its container's buffer grows
    /// or it is overwritten, and dropping a value frees what is below it.
    /// So [`LiveValue::attach`] at depth `d` keeps the first `d` entries,
    /// [`LiveValue::replace`] at depth `d` the first `d - 1`, and
    /// [`LiveValue::set`] and [`LiveValue::take`] none. The root itself
    /// is never kept: it moves with the parser.
    open: Vec<NonNull<Value>>,
}

// SAFETY: the pointers in `open` point into the tree `root` owns and are
// followed to write only through `&mut self` (and to read, by
// `string_at`, through `&self`, as `root` itself is read), so sending or
// sharing a `LiveValue` is sending or sharing an `Option<Value>` (which
// is `Send` and `Sync`); `parser_is_send_and_sync` checks the parser
// still is.
#[allow(unsafe_code)]
unsafe impl Send for LiveValue {}
// SAFETY: as above: `&LiveValue` only reads the tree.
#[allow(unsafe_code)]
unsafe impl Sync for LiveValue {}

impl Clone for LiveValue {
    /// The addresses are the original's: a clone finds its own again.
    fn clone(&self) -> Self {
        LiveValue {
            root: self.root.clone(),
            open: Vec::new(),
        }
    }
}

impl core::fmt::Debug for LiveValue {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.root.fmt(f)
    }
}

impl LiveValue {
    #[inline]
    pub(super) fn get(&self) -> Option<&Value> {
        self.root.as_ref()
    }

    #[inline]
    pub(super) fn set(&mut self, value: Value) {
        self.open.clear();
        self.root = Some(value);
    }

    #[inline]
    pub(super) fn take(&mut self) -> Option<Value> {
        self.open.clear();
        self.root.take()
    }

    pub(super) fn into_inner(self) -> Option<Value> {
        self.root
    }

    /// The container at `depth` on the open path (0: the root), its
    /// address kept on the way down. The root's elements are reached
    /// through the root only when nothing is kept (then no address can go
    /// stale that way), or for `depth` 0, whose callers drop every address.
    #[inline]
    fn container(&mut self, depth: usize) -> Option<NonNull<Value>> {
        let known = self.open.len().min(depth);
        let mut at = match known.checked_sub(1) {
            Some(last) => *self.open.get(last)?,
            None => NonNull::from(self.root.as_mut()?),
        };
        for _ in known..depth {
            // SAFETY: `at` is the root, just borrowed mutably, or an entry
            // of `open`, valid by `open`'s invariant, or a child found in
            // this loop; `&mut self` is held, so nothing else refers into
            // the tree, and the reference ends within this iteration.
            #[allow(unsafe_code)]
            let value = unsafe { &mut *at.as_ptr() };
            let child = match value {
                Value::Array(items) => items.last_mut()?,
                Value::Object(map) => &mut map.last_mut()?.1,
                _ => return None,
            };
            if !matches!(child, Value::Array(_) | Value::Object(_)) {
                return None;
            }
            at = NonNull::from(child);
            self.open.push(at);
        }
        Some(at)
    }

    /// Appends `value` to the container at `depth` (`key` names it in an
    /// object).
    #[inline]
    pub(super) fn attach(&mut self, depth: usize, key: &str, value: Value) {
        let Some(at) = self.container(depth) else {
            return;
        };
        // SAFETY: as in `container`; the reference ends here, and the
        // addresses its new child may have moved are dropped next.
        #[allow(unsafe_code)]
        attach(unsafe { &mut *at.as_ptr() }, key, value);
        self.open.truncate(depth);
    }

    /// The value at `depth` (0: the root), if it is a string.
    #[inline(always)]
    pub(super) fn string_mut(&mut self, depth: usize) -> Option<&mut String> {
        let slot = match depth.checked_sub(1) {
            None => self.root.as_mut()?,
            Some(0) => {
                // Reached through the root's own elements, which a kept
                // address must not outlive (none is kept while the root's
                // last child is a string: `attach` at depth 0 dropped
                // them, so this costs nothing).
                self.open.clear();
                last_child(self.root.as_mut()?)?
            }
            Some(parent) => {
                // Kept already, but for the first piece of a string in a
                // container just opened.
                let at = match self.open.get(parent - 1) {
                    Some(&at) => at,
                    None => self.container(parent)?,
                };
                // SAFETY: as in `container`; the string borrows `self`
                // mutably, and a `&mut String` cannot change the tree's
                // shape.
                #[allow(unsafe_code)]
                last_child(unsafe { &mut *at.as_ptr() })?
            }
        };
        match slot {
            Value::String(text) => Some(text),
            _ => None,
        }
    }

    /// The value at `depth` if it is a string, read in one step through
    /// the kept address of its container; `None` when that is not kept
    /// (depth 0 or 1, or a container just opened), for the caller to walk
    /// down from the root. Reading the open string's text this way costs
    /// the same at any depth (walking down costs a step per level, for
    /// every piece of a string fed with events).
    #[inline]
    pub(super) fn string_at(&self, depth: usize) -> Option<&String> {
        let parent = depth.checked_sub(1)?;
        let at = *self.open.get(parent.checked_sub(1)?)?;
        // SAFETY: `at` is valid by `open`'s invariant, and `&self` is held:
        // nothing can change the tree while the shared reference lives.
        #[allow(unsafe_code)]
        let container = unsafe { &*at.as_ptr() };
        let child = match container {
            Value::Array(items) => items.last(),
            Value::Object(map) => map.iter().next_back().map(|(_, v)| v),
            _ => None,
        };
        match child? {
            Value::String(text) => Some(text),
            _ => None,
        }
    }

    /// Replaces the value at `depth` (0: the root) with `value`.
    #[inline]
    pub(super) fn replace(&mut self, depth: usize, value: Value) {
        let Some(parent) = depth.checked_sub(1) else {
            self.set(value);
            return;
        };
        let Some(at) = self.container(parent) else {
            return;
        };
        // SAFETY: as in `container`; the reference ends here, and the
        // addresses at and below the replaced value are dropped next.
        #[allow(unsafe_code)]
        if let Some(slot) = last_child(unsafe { &mut *at.as_ptr() }) {
            *slot = value;
        }
        self.open.truncate(parent);
    }
}

/// The last child of a container.
#[inline(always)]
fn last_child(container: &mut Value) -> Option<&mut Value> {
    match container {
        Value::Array(items) => items.last_mut(),
        Value::Object(map) => map.last_mut().map(|(_, v)| v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::value::Map;

    /// The open path walked from the root every time, as before the
    /// addresses were kept: the model `LiveValue` must agree with.
    fn model_container(root: &mut Option<Value>, depth: usize) -> Option<&mut Value> {
        let mut value = root.as_mut()?;
        for _ in 0..depth {
            value = last_child(value)?;
            if !matches!(value, Value::Array(_) | Value::Object(_)) {
                return None;
            }
        }
        Some(value)
    }

    /// Every method, in random order at random depths (most of them
    /// meaningless to a parser, which only ever works along its open
    /// path): after each step the value equals the model's. A kept address
    /// that went stale would show as a difference here (or a crash).
    #[test]
    fn kept_addresses_agree_with_walking_from_the_root() {
        let mut seed = 11u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) % n
        };
        for _ in 0..300 {
            let mut live = LiveValue::default();
            let mut model: Option<Value> = None;
            for _ in 0..200 {
                let depth = next(6) as usize;
                let value = match next(5) {
                    0 => Value::Array(Vec::new()),
                    1 => Value::Object(Map::new()),
                    2 => Value::String(String::from("s")),
                    3 => Value::Bool(true),
                    _ => Value::Null,
                };
                match next(12) {
                    0..=4 => {
                        live.attach(depth, "k", value.clone());
                        if let Some(c) = model_container(&mut model, depth) {
                            attach(c, "k", value);
                        }
                    }
                    5..=7 => {
                        if let Some(text) = live.string_mut(depth) {
                            text.push_str("+x");
                        }
                        let slot = match depth.checked_sub(1) {
                            None => model.as_mut(),
                            Some(parent) => {
                                model_container(&mut model, parent).and_then(last_child)
                            }
                        };
                        if let Some(Value::String(text)) = slot {
                            text.push_str("+x");
                        }
                    }
                    8 => {
                        live.replace(depth, value.clone());
                        match depth.checked_sub(1) {
                            None => model = Some(value),
                            Some(parent) => {
                                if let Some(slot) =
                                    model_container(&mut model, parent).and_then(last_child)
                                {
                                    *slot = value;
                                }
                            }
                        }
                    }
                    9 => {
                        if next(8) == 0 {
                            assert_eq!(live.take(), model.take());
                        } else if model.is_none() {
                            live.set(value.clone());
                            model = Some(value);
                        }
                    }
                    10 => live = live.clone(),
                    _ => {
                        // A deep chain at once, so deep addresses get kept.
                        for d in 0..4 {
                            live.attach(d, "k", Value::Array(Vec::new()));
                            if let Some(c) = model_container(&mut model, d) {
                                attach(c, "k", Value::Array(Vec::new()));
                            }
                        }
                    }
                }
                assert_eq!(live.get(), model.as_ref());
            }
        }
    }

    #[test]
    fn parser_is_send_and_sync() {
        fn both<T: Send + Sync>() {}
        both::<super::super::Parser>();
        both::<LiveValue>();
    }
}
