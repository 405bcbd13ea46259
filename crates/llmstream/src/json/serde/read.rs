//! Reading a [`Value`] as any `T: Deserialize`: [`from_value`] strictly,
//! [`from_partial`] out of a live, still-growing snapshot.

use alloc::string::String;

use serde::de::value::BorrowedStrDeserializer;
use serde::de::DeserializeOwned;
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    Unexpected, VariantAccess, Visitor,
};
use serde::Deserialize;

use crate::json::key::Key as MemberKey;
use crate::json::path::Segment;
use crate::json::value::{Map, Number, Value};
use crate::json::Parser;

use super::de::{unexpected, SERDE_JSON_NUMBER, VALUE_TOKEN};
use super::empty::Empty;
use super::error::DeError;

/// Reads a `T` out of a [`Value`], taking it as `serde_json::from_value`
/// does ([`from_value_ref`] borrows it instead).
///
/// Numbers are read from their exact text: `u64`, `i128`, `f32` fields get
/// the value the text denotes, not one rounded through another type first.
///
/// ```
/// use llmstream::json::{from_value, parse};
///
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Call { city: String, days: u8, units: Option<String> }
///
/// let value = parse(br#"{"city":"Oslo","days":3}"#)?;
/// let call: Call = from_value(value).unwrap();
/// assert_eq!(call, Call { city: "Oslo".into(), days: 3, units: None });
/// # Ok::<(), llmstream::json::Error>(())
/// ```
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, DeError> {
    T::deserialize(&value)
}

/// [`from_value`] borrowing the value: `&str` fields borrow from it, and the
/// value stays the caller's.
///
/// ```
/// use llmstream::json::{from_value_ref, parse};
///
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Call<'a> { city: &'a str, days: u8 }
///
/// let value = parse(br#"{"city":"Oslo","days":3}"#)?;
/// let call: Call = from_value_ref(&value).unwrap();
/// assert_eq!(call, Call { city: "Oslo", days: 3 });
/// # Ok::<(), llmstream::json::Error>(())
/// ```
pub fn from_value_ref<'de, T: Deserialize<'de>>(value: &'de Value) -> Result<T, DeError> {
    T::deserialize(value)
}

/// Reads a `T` out of a live partial value — a [`Parser::snapshot`] or a
/// tool call's [`MessageBuilder::arguments`](crate::providers::MessageBuilder::arguments)
/// — while it is still streaming, so an application can render its own
/// struct as it fills in (what pydantic's partial validation and
/// instructor's `Partial[T]` do in Python).
///
/// What is lenient, compared to [`from_value`]:
///
/// - **A missing struct field gets an empty value** instead of a
///   "missing field" error: `None` for an `Option`, `""` for a string, an
///   empty `Vec` or map, `false`, `0`, `()`, and for a nested struct, that
///   struct with all of its fields empty in the same way. So plain structs
///   work as they are; no `Partial` twin and no `#[serde(default)]` needed.
///   Use `Option<T>` where "not yet" must differ from "empty". A field whose
///   type has no empty value (an enum, a `char`) is still an error while
///   missing. (These values are supplied by the deserializer, so a field's
///   own `#[serde(default = "…")]` is not consulted for a missing field,
///   and a field with a `#[serde(alias)]` cannot be filled: give such a
///   field the type `Option<T>`.) Nor can the fields of an internally or
///   adjacently tagged or untagged enum, or of a `#[serde(flatten)]`
///   field: serde reads those through a buffer that does not say which
///   fields it wants, so a missing one is an error until it arrives (and
///   an array element of such a type is dropped until then, as below). Give
///   their fields `#[serde(default)]` or the type `Option<T>`.
/// - **A tuple shorter than its type is padded** with the same empty values.
/// - **The last element of an array on the growing edge of the document**
///   (the last element of the last element of …, from the root) is dropped
///   if it cannot be read yet, as pydantic drops an incomplete last list
///   item: an `Itinerary { days: Vec<Day> }` whose newest day still lacks a
///   required enum shows the days before it.
/// - A string still streaming is its text so far, as in the snapshot. For an
///   enum named by a string (`"status":"pend` on its way to `"pending"`),
///   give the enum a `#[serde(other)]` unit variant: a partial name reads
///   as that variant until the name is complete.
///
/// Numbers that may still grow are not in a snapshot at all (it never
/// shows `12` on its way to `1234`), so a numeric field is missing, then
/// final. Once the stream has ended, read the final value with
/// [`from_value`], which checks everything strictly: `from_partial` cannot
/// tell a finished document from a growing one, and still drops a last
/// element it cannot read.
///
/// ```
/// use llmstream::json::{from_partial, Parser};
///
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Itinerary { city: String, days: Vec<Day> }
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Day { title: String, stops: Vec<String>, budget: Option<u32> }
///
/// let mut parser = Parser::new();
/// parser.feed(br#"{"city":"Oslo","days":[{"title":"Museums","stops":["Munch","Fram"],"budget":80},{"title":"Fjo"#)?;
/// let now: Itinerary = from_partial(parser.snapshot().unwrap()).unwrap();
/// assert_eq!(now.days.len(), 2);
/// assert_eq!(now.days[1], Day { title: "Fjo".into(), stops: vec![], budget: None });
/// # Ok::<(), llmstream::json::Error>(())
/// ```
pub fn from_partial<'de, T: Deserialize<'de>>(snapshot: &'de Value) -> Result<T, DeError> {
    T::deserialize(De {
        value: snapshot,
        mode: Mode {
            partial: true,
            edge: true,
            drop_edge: true,
        },
    })
}

/// [`from_partial`] that drops nothing: missing members still get empty
/// values, but a last array element on the growing edge that does not fit
/// is an error naming its path, as everywhere else.
///
/// `from_partial` cannot tell an element that is not complete yet from one
/// of the wrong shape, so it drops either while it is the last; when a
/// shape mismatch must be seen at once (a model writing the wrong type),
/// this says which field did not fit.
///
/// ```
/// use llmstream::json::{from_partial, from_partial_strict, parse};
///
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Plan { days: Vec<Day> }
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Day { title: String, budget: Option<u32> }
///
/// let snapshot = parse(br#"{"days":[{"title":"Museums"},{"title":"Fjords","budget":"high"}]}"#)?;
/// let lenient: Plan = from_partial(&snapshot).unwrap();
/// assert_eq!(lenient.days.len(), 1); // the last day does not fit: dropped
/// let error = from_partial_strict::<Plan>(&snapshot).unwrap_err();
/// assert_eq!(error.path().to_string(), "days[1].budget");
/// # Ok::<(), llmstream::json::Error>(())
/// ```
pub fn from_partial_strict<'de, T: Deserialize<'de>>(snapshot: &'de Value) -> Result<T, DeError> {
    T::deserialize(De {
        value: snapshot,
        mode: Mode {
            partial: true,
            edge: true,
            drop_edge: false,
        },
    })
}

impl Parser {
    /// The live snapshot read as a `T` with [`from_partial`]; `Ok(None)`
    /// while no value has started. Feature `serde`.
    ///
    /// ```
    /// use llmstream::json::Parser;
    ///
    /// #[derive(serde::Deserialize, Debug, PartialEq)]
    /// struct Answer { text: String, sources: Vec<String> }
    ///
    /// let mut parser = Parser::new();
    /// parser.feed(b"  ")?;
    /// assert_eq!(parser.snapshot_as::<Answer>().unwrap(), None);
    /// parser.feed(br#"{"text":"It rains in Ber"#)?;
    /// let answer = parser.snapshot_as::<Answer>().unwrap().unwrap();
    /// assert_eq!(answer, Answer { text: "It rains in Ber".into(), sources: vec![] });
    /// # Ok::<(), llmstream::json::Error>(())
    /// ```
    pub fn snapshot_as<'de, T: Deserialize<'de>>(&'de self) -> Result<Option<T>, DeError> {
        self.snapshot().map(from_partial).transpose()
    }
}

// ---------------------------------------------------------------------------
// The deserializer over &Value

#[derive(Clone, Copy)]
pub(super) struct Mode {
    /// Reading a snapshot: missing members get empty values.
    pub(super) partial: bool,
    /// This value is on the growing edge (the last child of the last child
    /// of … the root), where the document may still be incomplete.
    pub(super) edge: bool,
    /// In partial mode, a last array element on the growing edge that
    /// cannot be read yet is dropped ([`from_partial`]) rather than an
    /// error ([`from_partial_strict`]).
    pub(super) drop_edge: bool,
}

const STRICT: Mode = Mode {
    partial: false,
    edge: false,
    drop_edge: false,
};

#[derive(Clone, Copy)]
pub(super) struct De<'de> {
    pub(super) value: &'de Value,
    pub(super) mode: Mode,
}

/// Forwards `Deserializer` methods of `&Value` to the strict [`De`].
macro_rules! strict {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, DeError> {
            De { value: self, mode: STRICT }.$method($($arg,)* visitor)
        }
    )*};
}

/// Reads a `T: Deserialize` out of a value: see [`from_value`].
impl<'de> Deserializer<'de> for &'de Value {
    type Error = DeError;

    strict! {
        deserialize_any();
        deserialize_option();
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_newtype_struct(name: &'static str);
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_tuple(len: usize);
        deserialize_f32();
        deserialize_f64();
        deserialize_i128();
        deserialize_u128();
        deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_tuple_struct(name: &'static str, len: usize);
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 u8 u16 u32 u64 char str string bytes byte_buf seq map identifier
    }
}

impl<'de> IntoDeserializer<'de, DeError> for &'de Value {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

impl<'de> De<'de> {
    fn invalid_type(&self, expected: &dyn de::Expected) -> DeError {
        de::Error::invalid_type(unexpected(self.value), expected)
    }

    /// The text of an integer number, if this is one.
    fn integer_text(&self) -> Option<&'de str> {
        match self.value {
            Value::Number(n) if n.is_integer() => Some(n.as_str()),
            _ => None,
        }
    }
}

/// A number too large for the float type asked for: an error, as
/// serde_json's, rather than an infinity the text never said.
fn out_of_range(n: &Number, float: &str) -> DeError {
    de::Error::custom(alloc::format!(
        "number {} out of range of {float}",
        n.as_str()
    ))
}

fn visit_number<'de, V: Visitor<'de>>(n: &Number, visitor: V) -> Result<V::Value, DeError> {
    if n.is_integer() {
        if let Some(u) = n.as_u64() {
            return visitor.visit_u64(u);
        }
        if let Some(i) = n.as_i64() {
            return visitor.visit_i64(i);
        }
    }
    match n.as_f64() {
        Some(f) if f.is_finite() => visitor.visit_f64(f),
        _ => Err(out_of_range(n, "f64")),
    }
}

impl<'de> Deserializer<'de> for De<'de> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => visit_number(n, visitor),
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(items) => visit_array(items, None, self.mode, visitor),
            Value::Object(map) => visit_object(map, None, self.mode, visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.value {
            Value::Null => visitor.visit_unit(),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        match (name, self.value) {
            // A `Value` read out of a value: the number's text, exactly
            // (see `VALUE_TOKEN`); containers go on through `deserialize_any`,
            // whose elements ask for `Value` again.
            (VALUE_TOKEN, Value::Number(n)) => visitor.visit_map(de::value::MapDeserializer::new(
                core::iter::once((SERDE_JSON_NUMBER, n.as_str())),
            )),
            (VALUE_TOKEN, _) => self.deserialize_any(visitor),
            _ => visitor.visit_newtype_struct(self),
        }
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.value {
            // Straight from the text: no double rounding through f64.
            Value::Number(n) => match n.as_str().parse::<f32>() {
                Ok(f) if f.is_finite() => visitor.visit_f32(f),
                _ => Err(out_of_range(n, "f32")),
            },
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.value {
            Value::Number(n) => match n.as_f64() {
                Some(f) if f.is_finite() => visitor.visit_f64(f),
                _ => Err(out_of_range(n, "f64")),
            },
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.integer_text().map(str::parse::<i128>) {
            Some(Ok(i)) => visitor.visit_i128(i),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.integer_text().map(str::parse::<u128>) {
            Some(Ok(u)) => visitor.visit_u128(u),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        match self.value {
            Value::Array(items) => visit_array(items, Some(len), self.mode, visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_tuple(len, visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        match self.value {
            Value::Object(map) => visit_object(map, Some(fields), self.mode, visitor),
            Value::Array(items) => visit_array(items, None, self.mode, visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        match self.value {
            Value::String(s) => visitor.visit_enum(BorrowedStrDeserializer::<DeError>::new(s)),
            Value::Object(map) if map.len() == 1 => {
                let Some((variant, value)) = map.as_slice().first() else {
                    return Err(de::Error::custom("an enum object needs one member"));
                };
                let child = De {
                    value,
                    mode: self.mode,
                };
                visitor
                    .visit_enum(Enum { variant, child })
                    .map_err(|e| e.at(Segment::Key(variant.as_str().into())))
            }
            Value::Object(_) => Err(de::Error::invalid_value(
                Unexpected::Map,
                &"an object with exactly one member (the variant)",
            )),
            _ => Err(self.invalid_type(&"a string or an object with one member")),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 u8 u16 u32 u64 char str string bytes byte_buf seq map identifier
    }
}

pub(super) fn visit_array<'de, V: Visitor<'de>>(
    items: &'de [Value],
    tuple_len: Option<usize>,
    mode: Mode,
    visitor: V,
) -> Result<V::Value, DeError> {
    visit_array_at(items, tuple_len, mode, 0, visitor)
}

/// [`visit_array`] for an array `empty_depth` empty values deep (its
/// padding elements one deeper): a tuple that holds itself through a `Box`
/// would otherwise pad forever.
pub(super) fn visit_array_at<'de, V: Visitor<'de>>(
    items: &'de [Value],
    tuple_len: Option<usize>,
    mode: Mode,
    empty_depth: usize,
    visitor: V,
) -> Result<V::Value, DeError> {
    let mut seq = Seq {
        items,
        index: 0,
        empty_depth,
        pad_to: if mode.partial {
            tuple_len.unwrap_or(0)
        } else {
            0
        },
        mode,
        stopped: false,
    };
    let value = visitor.visit_seq(&mut seq)?;
    if seq.index < items.len() && !seq.stopped {
        return Err(de::Error::invalid_length(
            items.len(),
            &"fewer elements in the array",
        ));
    }
    Ok(value)
}

struct Seq<'de> {
    items: &'de [Value],
    index: usize,
    /// In partial mode, the length a tuple is padded to with empty values.
    pad_to: usize,
    /// How many empty values this array lies in (see `MAX_EMPTY_DEPTH`).
    empty_depth: usize,
    mode: Mode,
    /// A trailing element on the growing edge could not be read yet and
    /// was dropped.
    stopped: bool,
}

impl<'de> SeqAccess<'de> for &mut Seq<'de> {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        if self.stopped {
            return Ok(None);
        }
        let index = self.index;
        if let Some(value) = self.items.get(index) {
            let last = index + 1 == self.items.len();
            let edge = self.mode.edge && last;
            let child = De {
                value,
                mode: Mode { edge, ..self.mode },
            };
            self.index += 1;
            return match seed.deserialize(child) {
                Ok(v) => Ok(Some(v)),
                Err(_) if self.mode.partial && self.mode.drop_edge && edge => {
                    self.stopped = true;
                    Ok(None)
                }
                Err(e) => Err(e.at(Segment::Index(index))),
            };
        }
        if index < self.pad_to {
            self.index += 1;
            return seed
                .deserialize(Empty {
                    field: "",
                    depth: self.empty_depth,
                })
                .map(Some)
                .map_err(|e| e.at(Segment::Index(index)));
        }
        Ok(None)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len().saturating_sub(self.index))
    }
}

pub(super) fn visit_object<'de, V: Visitor<'de>>(
    map: &'de Map,
    fields: Option<&'static [&'static str]>,
    mode: Mode,
    visitor: V,
) -> Result<V::Value, DeError> {
    visit_members(map.as_slice(), fields, mode, visitor)
}

pub(super) fn visit_members<'de, V: Visitor<'de>>(
    map: &'de [(MemberKey, Value)],
    fields: Option<&'static [&'static str]>,
    mode: Mode,
    visitor: V,
) -> Result<V::Value, DeError> {
    let mut access = Members {
        map,
        index: 0,
        fields: if mode.partial {
            fields.unwrap_or(&[])
        } else {
            &[]
        },
        field_index: 0,
        pending: Pending::None,
        mode,
        depth: 0,
    };
    visitor.visit_map(&mut access)
}

pub(super) enum Pending<'de> {
    None,
    Member(&'de str, &'de Value, bool),
    Missing(&'static str),
}

pub(super) struct Members<'de> {
    pub(super) map: &'de [(MemberKey, Value)],
    pub(super) index: usize,
    /// In partial mode, the struct's fields: those the object lacks are
    /// given empty values after its own members.
    pub(super) fields: &'static [&'static str],
    pub(super) field_index: usize,
    pub(super) pending: Pending<'de>,
    pub(super) mode: Mode,
    /// How many empty structs deep (guards a type that contains itself).
    pub(super) depth: usize,
}

impl<'de> MapAccess<'de> for &mut Members<'de> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        let members = self.map;
        if let Some((key, value)) = members.get(self.index) {
            self.index += 1;
            let last = self.index == members.len();
            self.pending = Pending::Member(key, value, last);
            return seed.deserialize(Key(key)).map(Some);
        }
        while let Some(field) = self.fields.get(self.field_index).copied() {
            self.field_index += 1;
            if !self.map.iter().any(|(key, _)| key == field) {
                self.pending = Pending::Missing(field);
                return seed.deserialize(Key(field)).map(Some);
            }
        }
        Ok(None)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, DeError> {
        match core::mem::replace(&mut self.pending, Pending::None) {
            Pending::Member(key, value, last) => {
                let child = De {
                    value,
                    mode: Mode {
                        edge: self.mode.edge && last,
                        ..self.mode
                    },
                };
                seed.deserialize(child)
                    .map_err(|e| e.at(Segment::Key(String::from(key))))
            }
            Pending::Missing(field) => seed
                .deserialize(Empty {
                    field,
                    depth: self.depth,
                })
                .map_err(|e| e.at(Segment::Key(String::from(field)))),
            Pending::None => Err(de::Error::custom(
                "a map value was asked for before its key",
            )),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.map.len().saturating_sub(self.index))
    }
}

/// An enum written as `{"Variant": content}`.
struct Enum<'de> {
    variant: &'de str,
    child: De<'de>,
}

impl<'de> EnumAccess<'de> for Enum<'de> {
    type Error = DeError;
    type Variant = De<'de>;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, De<'de>), DeError> {
        let variant = seed.deserialize(Key(self.variant))?;
        Ok((variant, self.child))
    }
}

impl<'de> VariantAccess<'de> for De<'de> {
    type Error = DeError;

    fn unit_variant(self) -> Result<(), DeError> {
        Deserialize::deserialize(self)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, DeError> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_tuple(len, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_struct("", fields, visitor)
    }
}

/// An object key: a string, or, as serde_json reads map keys, a number or
/// a bool written as a string. A numeric key is the whole JSON number
/// grammar (`"+1"`, `"01"` and `" 1"` are not numbers). One difference:
/// `"-0"` is the integer 0, as the number `-0` is (serde_json reads it as a
/// float, which no integer type takes).
struct Key<'de>(&'de str);

impl Key<'_> {
    fn not_a_number(&self) -> DeError {
        de::Error::custom(format_args!(
            "expected the key {:?} to be a number in quotes",
            self.0
        ))
    }
}

/// The key read as a `$t` that `$fits` (integers: in range, by parsing;
/// floats: finite as well).
macro_rules! key_number {
    ($($method:ident $visit:ident $t:ty, $fits:expr);* $(;)?) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
            if Number::from_text(self.0).is_none() {
                return Err(self.not_a_number());
            }
            match self.0.parse::<$t>() {
                Ok(n) if $fits(n) => visitor.$visit(n),
                _ => Err(de::Error::invalid_value(Unexpected::Str(self.0), &visitor)),
            }
        }
    )*};
}

impl<'de> Deserializer<'de> for Key<'de> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_borrowed_str(self.0)
    }

    key_number! {
        deserialize_i8 visit_i8 i8, |_| true;
        deserialize_i16 visit_i16 i16, |_| true;
        deserialize_i32 visit_i32 i32, |_| true;
        deserialize_i64 visit_i64 i64, |_| true;
        deserialize_i128 visit_i128 i128, |_| true;
        deserialize_u8 visit_u8 u8, |_| true;
        deserialize_u16 visit_u16 u16, |_| true;
        deserialize_u32 visit_u32 u32, |_| true;
        deserialize_u64 visit_u64 u64, |_| true;
        deserialize_u128 visit_u128 u128, |_| true;
        deserialize_f32 visit_f32 f32, f32::is_finite;
        deserialize_f64 visit_f64 f64, f64::is_finite;
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.0 {
            "true" => visitor.visit_bool(true),
            "false" => visitor.visit_bool(false),
            _ => Err(de::Error::invalid_type(Unexpected::Str(self.0), &visitor)),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_enum(BorrowedStrDeserializer::<DeError>::new(self.0))
    }

    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}
