//! What the live snapshot object holds, so that a read updates it in place
//! and costs what the document gained (plus the open string's length), not
//! its size.
//!
//! A snapshot only grows: every member of a container but the last is
//! complete and never changes. So the mirror keeps, per container on the
//! open path, its length and the mirror of its last member only; an update
//! walks the last members, converts members that are new, re-makes an open
//! scalar or string, and sets them into the live objects. It holds no
//! JavaScript handle: the package's `JsonParser` keeps the live object and
//! passes it back, so nothing here can outlive or leak it. That a string
//! only grows at its end is the snapshot contract of strict mode
//! (DESIGN.md, "Monotonic"), so there the mirror keeps only its length in
//! bytes ([`Growth::AtEnd`]); lenient mode's snapshots may re-read a text,
//! so there it keeps the text and checks ([`Growth::Checked`]). Where a
//! container's type or the key of its last member changed, or it or a
//! string shrank (none of which a growing snapshot does), that part is
//! converted again from scratch.

use llmstream::json::{Key, Map, Value};
use napi::bindgen_prelude::*;
use napi::{Env, Unknown};

use crate::value::{Converter, Integers};

/// How far the mirror trusts a string to grow only at its end.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Growth {
    /// Strict mode: a snapshot's strings only grow at their end.
    AtEnd,
    /// Lenient mode: a string is checked against its text before.
    Checked,
}

/// What the mirror knows of a string it made.
pub enum Seen {
    /// Its length in bytes ([`Growth::AtEnd`]).
    Len(usize),
    /// Its text ([`Growth::Checked`]).
    Text(String),
}

impl Seen {
    fn new(growth: Growth, text: &str) -> Seen {
        match growth {
            Growth::AtEnd => Seen::Len(text.len()),
            Growth::Checked => Seen::Text(text.to_string()),
        }
    }

    /// The string seen, extended by `added`.
    fn extend(&mut self, added: &str) {
        match self {
            Seen::Len(len) => *len += added.len(),
            Seen::Text(text) => text.push_str(added),
        }
    }

    /// What `grown` added to the string seen, or None when it is not that
    /// string extended.
    fn added<'a>(&self, grown: &'a str) -> Option<&'a str> {
        match self {
            Seen::Len(len) => grown.get(*len..),
            Seen::Text(text) => grown.strip_prefix(text.as_str()),
        }
    }
}

/// The mirror of one value of the live snapshot.
pub enum Mirror {
    /// A scalar: re-made on each update while it is the open member.
    Leaf,
    /// A string that may still grow at its end.
    Text(Seen),
    Array {
        len: usize,
        /// The mirror of the last item (the one that may still grow).
        last: Option<Box<Mirror>>,
    },
    Object {
        len: usize,
        /// The key and mirror of the last member.
        last: Option<Box<(String, Mirror)>>,
    },
}

impl Mirror {
    /// The mirror of `value` and its JavaScript value, converted whole.
    pub fn new<'env>(
        env: &'env Env,
        value: &Value,
        growth: Growth,
        integers: Integers,
    ) -> Result<(Mirror, Unknown<'env>)> {
        Builder {
            converter: Converter::new(env, integers),
            growth,
            appends: None,
        }
        .make(value)
    }

    /// Brings `live`, the JavaScript value this mirror describes, to
    /// `value`, a later snapshot of the same document. Returns the value
    /// that replaces `live` in its parent, if it is not updated in place.
    ///
    /// A string inside a container that grew at its end is not made again:
    /// `appends` gets its container, its key or index and the text it
    /// gained, three items, and the package's `JsonParser` appends that
    /// text in JavaScript, where a string grows by concatenation at the
    /// cost of what it gained (N-API can only make a string whole, at the
    /// cost of its length).
    pub fn update<'env>(
        &mut self,
        env: &'env Env,
        live: Unknown<'env>,
        value: &Value,
        growth: Growth,
        integers: Integers,
        appends: &mut Array<'env>,
    ) -> Result<Option<Unknown<'env>>> {
        Builder {
            converter: Converter::new(env, integers),
            growth,
            appends: Some(appends),
        }
        .update(self, live, value)
    }

    /// What the string at the end of the open path gained, when `value`
    /// differs from what the mirror describes by that alone (every
    /// container on the path the same length, with the same last key): the
    /// common case of a piece inside a long string, which then costs no
    /// walk of the live objects. The mirror then knows the string as
    /// extended; in any other case it is left as it was.
    pub fn open_text_added<'a>(&mut self, value: &'a Value) -> Option<&'a str> {
        if let Mirror::Text(_) = self {
            return self.text_added(value);
        }
        match (self, value) {
            (
                Mirror::Array {
                    len,
                    last: Some(item),
                },
                Value::Array(values),
            ) if values.len() == *len => item.open_text_added(values.last()?),
            (
                Mirror::Object {
                    len,
                    last: Some(member),
                },
                Value::Object(map),
            ) if map.len() == *len => {
                let (key, value) = map.iter().as_slice().last()?;
                match key.as_str() == member.0 {
                    true => member.1.open_text_added(value),
                    false => None,
                }
            }
            _ => None,
        }
    }

    /// The container holding the string at the end of the open path, and
    /// its key or index, when the open path ends in a string inside one;
    /// `live` is the JavaScript value this mirror describes.
    pub fn open_end<'env>(
        &self,
        env: &'env Env,
        live: Unknown<'env>,
    ) -> Result<Option<(Unknown<'env>, Unknown<'env>)>> {
        let (child, key) = match self {
            Mirror::Array {
                len,
                last: Some(item),
            } => {
                let index = crate::value::index(len.saturating_sub(1))?;
                (item.as_ref(), index.into_unknown(env)?)
            }
            Mirror::Object {
                last: Some(member), ..
            } => (&member.1, env.create_string(&member.0)?.to_unknown()),
            _ => return Ok(None),
        };
        if let Mirror::Text(_) = child {
            return Ok(Some((live, key)));
        }
        let object = Object::from_unknown(live)?;
        child.open_end(env, object.get_property(key)?)
    }

    /// What a string this mirror describes gained at its end, if `value`
    /// is that string extended (the mirror then knows it as extended).
    fn text_added<'a>(&mut self, value: &'a Value) -> Option<&'a str> {
        match (self, value) {
            (Mirror::Text(seen), Value::String(grown)) => {
                let added = seen.added(grown)?;
                seen.extend(added);
                Some(added)
            }
            _ => None,
        }
    }
}

/// One update's conversion state.
struct Builder<'a, 'env> {
    converter: Converter<'env>,
    growth: Growth,
    /// Where strings that grew in place are listed (see [`Mirror::update`]).
    appends: Option<&'a mut Array<'env>>,
}

impl<'env> Builder<'_, 'env> {
    fn make(&mut self, value: &Value) -> Result<(Mirror, Unknown<'env>)> {
        let env = self.converter.env();
        Ok(match value {
            Value::Array(values) => {
                let mut array = env.create_array(0)?;
                let last = self.append_items(&mut array, 0, values)?;
                let mirror = Mirror::Array {
                    len: values.len(),
                    last,
                };
                (mirror, array.into_unknown(env)?)
            }
            Value::Object(map) => {
                let mut object = Object::new(env)?;
                let last = self.insert_members(&mut object, map.iter().as_slice())?;
                let mirror = Mirror::Object {
                    len: map.len(),
                    last,
                };
                (mirror, object.into_unknown(env)?)
            }
            Value::String(text) => (
                Mirror::Text(Seen::new(self.growth, text)),
                self.converter.convert(value)?,
            ),
            scalar => (Mirror::Leaf, self.converter.convert(scalar)?),
        })
    }

    fn update(
        &mut self,
        mirror: &mut Mirror,
        live: Unknown<'env>,
        value: &Value,
    ) -> Result<Option<Unknown<'env>>> {
        match (&mut *mirror, value) {
            (Mirror::Array { len, last }, Value::Array(values)) if values.len() >= *len => {
                let mut array = Object::from_unknown(live)?;
                if let (Some(item), Some(at)) = (last.as_deref_mut(), len.checked_sub(1)) {
                    if let Some(value) = values.get(at) {
                        let index = crate::value::index(at)?;
                        if let Some(added) = item.text_added(value) {
                            let key = index.into_unknown(self.converter.env())?;
                            self.append(live, key, added)?;
                        } else {
                            let old: Unknown = array.get_element(index)?;
                            if let Some(new) = self.update(item, old, value)? {
                                array.set_element(index, new)?;
                            }
                        }
                    }
                }
                let new = values.get(*len..).unwrap_or(&[]);
                if !new.is_empty() {
                    *last = self.append_items(&mut array, *len, new)?;
                    *len = values.len();
                }
                Ok(None)
            }
            (Mirror::Object { len, last }, Value::Object(map))
                if map.len() >= *len && last_key_kept(map, *len, last.as_deref()) =>
            {
                let mut object = Object::from_unknown(live)?;
                let members = map.iter().as_slice();
                if let (Some(member), Some(at)) = (last.as_deref_mut(), len.checked_sub(1)) {
                    if let Some((_, value)) = members.get(at) {
                        let key = self.converter.key(&member.0)?;
                        if let Some(added) = member.1.text_added(value) {
                            self.append(live, key.to_unknown(), added)?;
                        } else {
                            let old: Unknown = object.get_property(key)?;
                            if let Some(new) = self.update(&mut member.1, old, value)? {
                                self.converter.set_member(&mut object, &member.0, new)?;
                            }
                        }
                    }
                }
                let new = members.get(*len..).unwrap_or(&[]);
                if !new.is_empty() {
                    *last = self.insert_members(&mut object, new)?;
                    *len = members.len();
                }
                Ok(None)
            }
            (Mirror::Text(seen), Value::String(grown)) if seen.added(grown).is_some() => {
                // A string at the top: made again whole.
                let added = seen.added(grown).unwrap_or("");
                if added.is_empty() {
                    return Ok(None);
                }
                seen.extend(added);
                Ok(Some(self.converter.convert(value)?))
            }
            _ => {
                let (made, js) = self.make(value)?;
                *mirror = made;
                Ok(Some(js))
            }
        }
    }

    /// Lists a string of `holder` under `key` as grown by `added` (or, with
    /// no list to give it to, sets it again whole).
    fn append(&mut self, holder: Unknown<'env>, key: Unknown<'env>, added: &str) -> Result<()> {
        let text = self.converter.env().create_string(added)?.to_unknown();
        match self.appends.as_deref_mut() {
            Some(appends) => {
                appends.insert(holder)?;
                appends.insert(key)?;
                appends.insert(text)
            }
            None => Err(Error::from_reason("a string grew outside an update")),
        }
    }

    /// Sets `values` from index `start` of `array`, all but the last
    /// converted once for good; returns the mirror of the last.
    fn append_items(
        &mut self,
        array: &mut impl JsObjectValue<'env>,
        start: usize,
        values: &[Value],
    ) -> Result<Option<Box<Mirror>>> {
        let Some((last, done)) = values.split_last() else {
            return Ok(None);
        };
        for (at, value) in done.iter().enumerate() {
            let item = self.converter.convert(value)?;
            array.set_element(crate::value::index(start + at)?, item)?;
        }
        let (mirror, item) = self.make(last)?;
        array.set_element(crate::value::index(start + done.len())?, item)?;
        Ok(Some(Box::new(mirror)))
    }

    /// Inserts `members` into `object`, all but the last converted once
    /// for good; returns the key and mirror of the last.
    fn insert_members(
        &mut self,
        object: &mut impl JsObjectValue<'env>,
        members: &[(Key, Value)],
    ) -> Result<Option<Box<(String, Mirror)>>> {
        let Some(((key, last), done)) = members.split_last() else {
            return Ok(None);
        };
        for (key, value) in done {
            let item = self.converter.convert(value)?;
            self.converter.set_member(object, key.as_str(), item)?;
        }
        let (mirror, item) = self.make(last)?;
        self.converter.set_member(object, key.as_str(), item)?;
        Ok(Some(Box::new((key.as_str().to_string(), mirror))))
    }
}

/// Whether the member at `len - 1` of `map` still has the key the mirror
/// saw there.
fn last_key_kept(map: &Map, len: usize, last: Option<&(String, Mirror)>) -> bool {
    match (len.checked_sub(1), last) {
        (None, _) => true,
        (Some(at), Some((key, _))) => map
            .iter()
            .as_slice()
            .get(at)
            .is_some_and(|(k, _)| k.as_str() == key),
        (Some(_), None) => false,
    }
}
