//! The name of an object member.

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::string::String;
use core::borrow::Borrow;
use core::fmt;
use core::hash::{Hash, Hasher};
use core::ops::Deref;

use super::inline::InlineText;

/// The name of a member of a [`Map`](super::Map): a string that reads as
/// `&str` (it derefs to one and compares with one).
///
/// Names of up to 22 bytes — nearly all of them — are stored inline, in
/// the 24 bytes a `String` would take, so an object costs one allocation
/// for its members instead of one more per member. For a stream of small
/// payloads (an SSE event each) or a document of many small objects, that
/// is most of the allocations a parse makes.
///
/// ```
/// use llmstream::json::{self, Key};
/// let value = json::parse(br#"{"name": "search"}"#)?;
/// let (key, _) = value.as_object().unwrap().iter().next().unwrap();
/// assert_eq!(key, "name");
/// assert!(key.starts_with("na"));
/// assert_eq!(String::from(key.clone()), "name");
/// assert_eq!(Key::from("name"), *key);
/// # Ok::<(), llmstream::json::Error>(())
/// ```
#[derive(Clone)]
pub struct Key(InlineText);

impl Key {
    /// The name as text.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The name's UTF-8 bytes (no validation on the way: the cheapest
    /// comparison).
    pub(crate) fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

impl Default for Key {
    fn default() -> Self {
        Key(InlineText::EMPTY)
    }
}

impl Deref for Key {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Key {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

/// Hashes and orders as its text does, so a `Key` can be looked up by `&str`.
impl Borrow<str> for Key {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for Key {
    fn from(text: &str) -> Key {
        Key(InlineText::new(text))
    }
}

impl From<&String> for Key {
    fn from(text: &String) -> Key {
        Key::from(text.as_str())
    }
}

impl From<String> for Key {
    fn from(text: String) -> Key {
        Key(InlineText::from_string(text))
    }
}

impl From<Box<str>> for Key {
    fn from(text: Box<str>) -> Key {
        Key::from(String::from(text))
    }
}

impl From<Cow<'_, str>> for Key {
    fn from(text: Cow<'_, str>) -> Key {
        match text {
            Cow::Borrowed(text) => Key::from(text),
            Cow::Owned(text) => Key::from(text),
        }
    }
}

impl From<Key> for String {
    fn from(key: Key) -> String {
        key.0.into_string()
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Key {}

impl PartialEq<str> for Key {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<&str> for Key {
    fn eq(&self, other: &&str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<String> for Key {
    fn eq(&self, other: &String) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<Key> for str {
    fn eq(&self, other: &Key) -> bool {
        other == self
    }
}

impl PartialEq<Key> for &str {
    fn eq(&self, other: &Key) -> bool {
        other == self
    }
}

impl PartialEq<Key> for String {
    fn eq(&self, other: &Key) -> bool {
        other == self
    }
}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Key) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// By bytes, which for UTF-8 is by code point, as `str` orders.
impl Ord for Key {
    fn cmp(&self, other: &Key) -> core::cmp::Ordering {
        self.as_bytes().cmp(other.as_bytes())
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::collections::BTreeMap;
    use alloc::format;

    #[test]
    fn a_key_compares_hashes_and_orders_as_its_text() {
        let names = [
            "",
            "a",
            "b",
            "ab",
            "é",
            "日本",
            &"k".repeat(22),
            &"k".repeat(23),
        ];
        for a in names {
            let key = Key::from(a);
            assert_eq!(key, a);
            assert_eq!(a, key);
            assert_eq!(key, String::from(a));
            assert_eq!(&*key, a);
            assert_eq!(format!("{key}"), a);
            assert_eq!(format!("{key:?}"), format!("{a:?}"));
            assert_eq!(String::from(key.clone()), a);
            assert_eq!(Key::from(String::from(a)), key);
            assert_eq!(Key::from(Cow::Borrowed(a)), key);
            for b in names {
                assert_eq!(Key::from(a).cmp(&Key::from(b)), a.cmp(b), "{a:?} {b:?}");
                let (ka, kb) = (Key::from(a), Key::from(b));
                assert_eq!(ka == kb, a == b);
            }
        }
        // Borrow<str>: looked up by text in a map keyed by `Key`.
        let map: BTreeMap<Key, u8> = names
            .iter()
            .map(|n| (Key::from(*n), n.len() as u8))
            .collect();
        assert_eq!(map.get("ab"), Some(&2));
        assert_eq!(Key::default(), "");
    }
}
