//! The value the parser keeps (see [`Keep`]).
//!
//! Live: every value goes into the partial value as it starts, in the
//! innermost open container (the end of the open path: see `live`), so the
//! snapshot is current after every piece.
//!
//! Final: the elements of open containers wait on shared stacks, and each
//! container is made (at its exact size) and attached to its parent when it
//! closes, as a recursive parser would build it; nothing walks the path,
//! and the value exists once it is complete.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use super::machine::member_key;
use super::{Container, Parser};
use crate::json::key::Key;
use crate::json::options::Keep;
use crate::json::value::{Map, Value};

/// The bytes a live string that opens has room for (see `open_string`).
const OPEN_STRING_ROOM: usize = 32;

/// The largest buffer a closed live string leaves for the next one (see
/// `settle_closed_string`). It is what a parser may hold beyond its value:
/// enough that the strings of typical tool arguments stop reallocating,
/// small enough that many idle streams hold little more than their
/// values.
pub(super) const SPARE_ROOM_LIMIT: usize = 4 * 1024;

impl Parser {
    /// A value whole at its first byte (a literal) or at its last (a
    /// number).
    pub(super) fn add_scalar(&mut self, value: Value) {
        match self.opts.keep {
            Keep::Nothing => {}
            Keep::Live => self.insert_live(value),
            Keep::Final => self.attach_final(value),
        }
    }

    /// A value string opens: live, it is shown (empty) at once. Its buffer
    /// is the parser's `text`, unused while live (strings decode straight
    /// into the snapshot), with the capacity the last closed string left
    /// there: a stream of many strings stops reallocating once its buffer
    /// has grown to the longest of them, and a first string starts with
    /// room for 32 bytes (it did not end in its piece, so it will grow):
    /// growth and a shrink at every close are otherwise a large part of
    /// streaming a text-heavy document.
    pub(super) fn open_string(&mut self) {
        if self.opts.keep == Keep::Live {
            let mut room = core::mem::take(&mut self.text);
            room.clear();
            room.reserve(OPEN_STRING_ROOM);
            self.insert_live(Value::String(room));
        }
    }

    /// A value string closes: for the final value it is added now; live,
    /// the snapshot gets a copy of its exact size and the buffer goes back
    /// to be the next string's (see `open_string`).
    pub(super) fn close_string(&mut self) {
        match self.opts.keep {
            Keep::Nothing => {}
            Keep::Live => self.settle_closed_string(),
            Keep::Final => self.attach_final(Value::String(self.text.as_str().into())),
        }
    }

    /// An object or array opens: live, it is shown (empty) at once.
    pub(super) fn open_container(&mut self, container: Container) {
        match (self.opts.keep, container) {
            (Keep::Nothing, _) => {}
            (Keep::Live, Container::Array) => self.insert_live(Value::Array(Vec::new())),
            (Keep::Live, Container::Object) => self.insert_live(Value::Object(Map::new())),
            (Keep::Final, _) => {
                let building = &mut self.extras_mut().building;
                let start = match container {
                    Container::Array => building.items.len(),
                    Container::Object => building.members.len(),
                };
                building.starts.push(start);
            }
        }
    }

    /// `container`, at depth `self.frames.len()`, has closed: for the final
    /// value its elements leave the stack as one value (allocated once, at
    /// its exact size), which joins its parent.
    pub(super) fn close_container(&mut self, container: Container) {
        if self.opts.keep != Keep::Final {
            return;
        }
        let Some(extras) = self.extras.as_deref_mut() else {
            return;
        };
        let building = &mut extras.building;
        let Some(start) = building.starts.pop() else {
            return;
        };
        let value = match container {
            Container::Array => Value::Array(take_from(&mut building.items, start)),
            Container::Object => {
                Value::Object(Map::from_members(take_from(&mut building.members, start)))
            }
        };
        self.attach_final(value);
    }

    /// Replaces the value being parsed (a growing number) in the snapshot.
    pub(super) fn replace_current(&mut self, value: Value) {
        if self.opts.keep != Keep::Live {
            return;
        }
        self.root.replace(self.frames.len(), value);
    }

    /// The live value that holds what completed just now at `depth`: the
    /// root, or at the top level of a sequence the value just moved to the
    /// completed ones.
    pub(super) fn live_root(&self, depth: usize) -> Option<&Value> {
        match (self.root.get(), &self.extras) {
            (None, Some(extras)) if depth == 0 => extras.completed.back(),
            (root, _) => root,
        }
    }

    /// The value completed just now at `depth` (a container that closed).
    pub(super) fn completed_at(&self, depth: usize) -> Option<&Value> {
        match self.opts.keep {
            Keep::Final if depth > 0 => {
                let building = &self.extras.as_ref()?.building;
                match self.frames.get(depth - 1)? {
                    Container::Array => building.items.last(),
                    Container::Object => building.members.last().map(|(_, v)| v),
                }
            }
            _ => {
                let path = self.segments.get(..depth)?;
                self.live_root(depth)?
                    .at(crate::json::path::Path::new(path))
            }
        }
    }

    /// Live, a string that has closed (the value at depth
    /// `self.frames.len()`) will not grow again: the snapshot keeps a copy
    /// of its exact size, as a whole parse would make, and its buffer is
    /// kept for the next string, up to [`SPARE_ROOM_LIMIT`] (a longer one
    /// is shrunk in place instead, so a parser never holds a large spare).
    /// Containers keep their spare capacity: a reallocation per closed
    /// `[lon, lat]`, or a walk to each closed container to find a large
    /// spare, costs a stream of numbers or small objects far more than
    /// the heap it saves.
    fn settle_closed_string(&mut self) {
        if let Some(text) = self.root.string_mut(self.frames.len()) {
            if text.capacity() == text.len() {
                return;
            }
            if text.capacity() > SPARE_ROOM_LIMIT {
                text.shrink_to_fit();
                return;
            }
            let exact = String::from(text.as_str());
            self.text = core::mem::replace(text, exact);
            self.text.clear();
        }
    }

    fn insert_live(&mut self, value: Value) {
        let depth = self.frames.len();
        match depth.checked_sub(1) {
            None => self.root.set(value),
            Some(container) => {
                let key = member_key(&self.segments, depth);
                self.root.attach(container, key, value);
            }
        }
    }

    fn attach_final(&mut self, value: Value) {
        let Some(&container) = self.frames.last() else {
            self.root.set(value);
            return;
        };
        let building = &mut self.extras.get_or_insert_with(Box::default).building;
        match container {
            Container::Array => building.items.push(value),
            Container::Object => {
                let key = member_key(&self.segments, self.frames.len());
                building.members.push((key.into(), value));
            }
        }
    }
}

/// The elements of the open containers while a final value is built: each
/// container's elements are the top of its kind's stack, from its start.
/// One shared stack per kind means no container grows (and reallocates)
/// on its own.
#[derive(Debug, Clone, Default)]
pub(super) struct Building {
    items: Vec<Value>,
    members: Vec<(Key, Value)>,
    /// Where each open container's elements start, outermost first.
    starts: Vec<usize>,
}

impl Building {
    #[cfg(test)]
    pub(super) fn is_empty(&self) -> bool {
        self.items.is_empty() && self.members.is_empty() && self.starts.is_empty()
    }

    pub(super) fn clear(&mut self) {
        self.items.clear();
        self.members.clear();
        self.starts.clear();
    }
}

/// The elements of `stack` from `start` on, moved out into a vector of
/// their exact size (`split_off` copies them in one go, but from 0 it would
/// hand over the stack's own buffer, spare capacity and all).
fn take_from<T>(stack: &mut Vec<T>, start: usize) -> Vec<T> {
    if start == 0 {
        let mut all = Vec::with_capacity(stack.len());
        all.append(stack);
        all
    } else {
        stack.split_off(start)
    }
}

/// Walks `levels` steps down the last children from the root: the open
/// value at that depth. Cost is the depth, never the document size.
pub(super) fn descend(root: &mut Option<Value>, levels: usize) -> Option<&mut Value> {
    let mut value = root.as_mut()?;
    for _ in 0..levels {
        value = match value {
            Value::Array(items) => items.last_mut()?,
            Value::Object(map) => &mut map.last_mut()?.1,
            _ => return None,
        };
    }
    Some(value)
}

/// [`descend`] without changing anything.
pub(super) fn descend_ref(root: Option<&Value>, levels: usize) -> Option<&Value> {
    let mut value = root?;
    for _ in 0..levels {
        value = match value {
            Value::Array(items) => items.last()?,
            Value::Object(map) => &map.iter().last()?.1,
            _ => return None,
        };
    }
    Some(value)
}

/// Appends `value` to an open container (`key` names it in an object).
#[inline]
pub(super) fn attach(container: &mut Value, key: &str, value: Value) {
    match container {
        Value::Array(items) => {
            if items.capacity() == 0 {
                // Room for two, not the four a first `push` makes: the
                // arrays that stay small are mostly pairs (`[lon, lat]`,
                // ranges), and a longer one doubles from there.
                items.reserve_exact(2);
            }
            items.push(value)
        }
        Value::Object(map) => map.push(key, value),
        _ => {}
    }
}
