//! serde support (feature `serde`): [`Value`], [`Number`] and [`Map`]
//! implement `Serialize` and `Deserialize`; [`from_value`] reads any
//! `T: Deserialize` out of a [`Value`]; [`from_partial`] reads it out of a
//! live, still-growing snapshot.
//!
//! With the feature `serde_json` as well, [`Value`] converts to and from
//! `serde_json::Value` with `From`.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    Unexpected, VariantAccess, Visitor,
};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde::Deserialize;

use super::key::Key as MemberKey;
use super::path::{Path, Segment};
use super::value::{Map, Number, Value};
use super::Parser;

// ---------------------------------------------------------------------------
// Serialize

/// Numbers serialize as the best-fitting of `u64`, `i64` and `f64`, from
/// their exact text: an integer in the range of `u64` or `i64` as that
/// integer, anything else (fractions, exponents, larger integers) as the
/// nearest `f64`. Every serde format understands these three; the exact text
/// stays available from [`Number::as_str`], and the `serde_json` feature's
/// conversion keeps it exact when serde_json's `arbitrary_precision` is on.
impl Serialize for Number {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let text = self.as_str();
        if self.is_integer() {
            if let Ok(n) = text.parse::<u64>() {
                return serializer.serialize_u64(n);
            }
            if let Ok(n) = text.parse::<i64>() {
                return serializer.serialize_i64(n);
            }
            // Not `serialize_u128`: serde_json writes it as text, but
            // `serde_json::to_value` (and `json!`) refuse it.
        }
        // A valid JSON number always parses as an f64 (huge ones as ±∞,
        // which serde_json writes as `null`).
        serializer.serialize_f64(text.parse::<f64>().unwrap_or(f64::NAN))
    }
}

impl Serialize for MemberKey {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Members serialize in document order, duplicates included.
impl Serialize for Map {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.len()))?;
        for (key, value) in self {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// ```
/// use llmstream::json::{parse, Value};
///
/// let value = parse(br#"{"city":"Oslo","days":3,"rain":0.25,"tags":[]}"#)?;
/// let text = serde_json::to_string(&value).unwrap();
/// assert_eq!(text, r#"{"city":"Oslo","days":3,"rain":0.25,"tags":[]}"#);
/// let back: Value = serde_json::from_str(&text).unwrap();
/// assert_eq!(back, value);
/// # Ok::<(), llmstream::json::Error>(())
/// ```
impl Serialize for Value {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Number(n) => n.serialize(serializer),
            Value::String(s) => serializer.serialize_str(s),
            Value::Array(items) => serializer.collect_seq(items),
            Value::Object(map) => map.serialize(serializer),
        }
    }
}

// ---------------------------------------------------------------------------
// Deserialize (from any format into our model)

/// The key serde_json uses to pass a number's text through (its
/// `arbitrary_precision` feature); accepted so such numbers stay exact.
const SERDE_JSON_NUMBER: &str = "$serde_json::private::Number";

/// The newtype name [`Value`]'s `Deserialize` asks for: other formats see
/// an ordinary newtype (and hand over what they have), while reading out of
/// one of our values, it says the target is a `Value` too, which then
/// gets every number's text exactly (`1.10`, `1e400`, 30-digit integers),
/// where `deserialize_any` can only offer an `f64` or a 64-bit integer.
const VALUE_TOKEN: &str = "$llmstream::private::Value";

fn number_from_f64<E: de::Error>(f: f64) -> Result<Number, E> {
    Number::from_f64(f).ok_or_else(|| {
        E::invalid_value(
            Unexpected::Float(f),
            &"a finite number (JSON has no NaN or infinity)",
        )
    })
}

fn number_from_text<E: de::Error>(text: &str) -> Result<Number, E> {
    Number::from_text(text)
        .ok_or_else(|| E::invalid_value(Unexpected::Str(text), &"the text of a JSON number"))
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_i128<E: de::Error>(self, n: i128) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_u128<E: de::Error>(self, n: u128) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_f64<E: de::Error>(self, f: f64) -> Result<Value, E> {
        number_from_f64(f).map(Value::Number)
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(String::from(s)))
    }
    fn visit_string<E: de::Error>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        // Not `Value::deserialize`: it would ask for the newtype again.
        d.deserialize_any(ValueVisitor)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut map = Map::new();
        let Some(first) = access.next_key::<String>()? else {
            return Ok(Value::Object(map));
        };
        if first == SERDE_JSON_NUMBER {
            let text: String = access.next_value()?;
            return number_from_text(&text).map(Value::Number);
        }
        map.push(first, access.next_value()?);
        while let Some((key, value)) = access.next_entry::<String, Value>()? {
            map.push(key, value);
        }
        Ok(Value::Object(map))
    }
}

/// Accepts whatever a serde format produces: integers of any width, finite
/// floats (kept as their shortest round-trip text, `1.0` stays `1.0`),
/// and serde_json's `arbitrary_precision` numbers exactly as written.
///
/// It asks the format for a newtype (see `VALUE_TOKEN`), which self-
/// describing formats pass through (serde_json, CBOR, MessagePack, TOML,
/// serde's own buffering); RON, which spells a newtype out by name, needs
/// its `unwrap_newtypes` extension to read one.
impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_newtype_struct(VALUE_TOKEN, ValueVisitor)
    }
}

/// Accepts a number from any serde format (see [`Value`]'s `Deserialize`).
impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Number, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Number(n) => Ok(n),
            other => Err(de::Error::invalid_type(unexpected(&other), &"a number")),
        }
    }
}

/// Accepts a map from any serde format; members keep their order.
impl<'de> Deserialize<'de> for Map {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Map, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Object(map) => Ok(map),
            other => Err(de::Error::invalid_type(unexpected(&other), &"an object")),
        }
    }
}

fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Unexpected::Unsigned(u),
            (_, Some(i)) => Unexpected::Signed(i),
            _ => Unexpected::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

// ---------------------------------------------------------------------------
// The error of from_value / from_partial

/// Why a [`Value`] could not be read as the requested type, and where.
///
/// Displays as serde's message followed by the path, like
/// `invalid type: string "x", expected u32 at days[1].budget`.
///
/// ```
/// use llmstream::json::{from_value, parse};
///
/// #[derive(serde::Deserialize, Debug)]
/// struct Day { budget: u32 }
///
/// let value = parse(br#"[{"budget":10},{"budget":"x"}]"#)?;
/// let error = from_value::<Vec<Day>>(&value).unwrap_err();
/// assert_eq!(error.path().to_string(), "[1].budget");
/// assert_eq!(error.to_string(), r#"invalid type: string "x", expected u32 at [1].budget"#);
/// # Ok::<(), llmstream::json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeError {
    message: String,
    path: Vec<Segment>,
}

impl DeError {
    /// serde's message, without the path.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Where in the value the error is (the root is the empty path).
    pub fn path(&self) -> Path<'_> {
        Path::new(&self.path)
    }

    fn at(mut self, segment: Segment) -> Self {
        self.path.insert(0, segment);
        self
    }
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if !self.path.is_empty() {
            write!(f, " at {}", self.path())?;
        }
        Ok(())
    }
}

impl core::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        DeError {
            message: msg.to_string(),
            path: Vec::new(),
        }
    }
}

// ---------------------------------------------------------------------------
// Entry points

/// Reads a `T` out of a [`Value`], as `serde_json::from_value` does (but
/// borrowing: `&str` fields borrow from the value).
///
/// Numbers are read from their exact text: `u64`, `i128`, `f32` fields get
/// the value the text denotes, not one rounded through another type first.
///
/// ```
/// use llmstream::json::{from_value, parse};
///
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Call<'a> { city: &'a str, days: u8, units: Option<String> }
///
/// let value = parse(br#"{"city":"Oslo","days":3}"#)?;
/// let call: Call = from_value(&value).unwrap();
/// assert_eq!(call, Call { city: "Oslo", days: 3, units: None });
/// # Ok::<(), llmstream::json::Error>(())
/// ```
pub fn from_value<'de, T: Deserialize<'de>>(value: &'de Value) -> Result<T, DeError> {
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
/// parser.push(br#"{"city":"Oslo","days":[{"title":"Museums","stops":["Munch","Fram"],"budget":80},{"title":"Fjo"#)?;
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
    /// parser.push(b"  ")?;
    /// assert_eq!(parser.snapshot_as::<Answer>().unwrap(), None);
    /// parser.push(br#"{"text":"It rains in Ber"#)?;
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
struct Mode {
    /// Reading a snapshot: missing members get empty values.
    partial: bool,
    /// This value is on the growing edge (the last child of the last child
    /// of … the root), where the document may still be incomplete.
    edge: bool,
}

const STRICT: Mode = Mode {
    partial: false,
    edge: false,
};

#[derive(Clone, Copy)]
struct De<'de> {
    value: &'de Value,
    mode: Mode,
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

fn visit_array<'de, V: Visitor<'de>>(
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
fn visit_array_at<'de, V: Visitor<'de>>(
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
                mode: Mode {
                    partial: self.mode.partial,
                    edge,
                },
            };
            self.index += 1;
            return match seed.deserialize(child) {
                Ok(v) => Ok(Some(v)),
                Err(_) if self.mode.partial && edge => {
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

fn visit_object<'de, V: Visitor<'de>>(
    map: &'de Map,
    fields: Option<&'static [&'static str]>,
    mode: Mode,
    visitor: V,
) -> Result<V::Value, DeError> {
    visit_members(map.as_slice(), fields, mode, visitor)
}

fn visit_members<'de, V: Visitor<'de>>(
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

enum Pending<'de> {
    None,
    Member(&'de str, &'de Value, bool),
    Missing(&'static str),
}

struct Members<'de> {
    map: &'de [(MemberKey, Value)],
    index: usize,
    /// In partial mode, the struct's fields: those the object lacks are
    /// given empty values after its own members.
    fields: &'static [&'static str],
    field_index: usize,
    pending: Pending<'de>,
    mode: Mode,
    /// How many empty structs deep (guards a type that contains itself).
    depth: usize,
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
                        partial: self.mode.partial,
                        edge: self.mode.edge && last,
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

/// The value of a member a partial object does not have yet.
struct Empty {
    /// The field's name, for the error of a type without an empty value.
    field: &'static str,
    depth: usize,
}

/// How many empty structs and tuples may nest (a type can only contain
/// itself directly through a `Box`, which no finite JSON can fill anyway).
const MAX_EMPTY_DEPTH: usize = 64;

impl Empty {
    fn missing(&self) -> DeError {
        if self.field.is_empty() {
            de::Error::custom("missing tuple element")
        } else {
            de::Error::missing_field(self.field)
        }
    }
}

impl<'de> Deserializer<'de> for Empty {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_none()
    }
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_bool(false)
    }
    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_i64(0)
    }
    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_i64(0)
    }
    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_i64(0)
    }
    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_i64(0)
    }
    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_i128(0)
    }
    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_u64(0)
    }
    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_u64(0)
    }
    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_u64(0)
    }
    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_u64(0)
    }
    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_u128(0)
    }
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_f32(0.0)
    }
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_f64(0.0)
    }
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_borrowed_str("")
    }
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_borrowed_str("")
    }
    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_borrowed_bytes(&[])
    }
    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_borrowed_bytes(&[])
    }
    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }
    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visit_array(&[], None, PARTIAL_INNER, visitor)
    }
    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        if self.depth >= MAX_EMPTY_DEPTH {
            return Err(self.missing());
        }
        visit_array_at(&[], Some(len), PARTIAL_INNER, self.depth + 1, visitor)
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_tuple(len, visitor)
    }
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visit_members(&[], None, PARTIAL_INNER, visitor)
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        if self.depth >= MAX_EMPTY_DEPTH {
            return Err(self.missing());
        }
        let mut access = Members {
            map: &[],
            index: 0,
            fields,
            field_index: 0,
            pending: Pending::None,
            mode: PARTIAL_INNER,
            depth: self.depth + 1,
        };
        visitor.visit_map(&mut access)
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, DeError> {
        Err(self.missing())
    }
    fn deserialize_char<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, DeError> {
        Err(self.missing())
    }
    fn deserialize_identifier<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, DeError> {
        Err(self.missing())
    }
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }
}

/// Partial mode away from the growing edge (inside values that are empty).
const PARTIAL_INNER: Mode = Mode {
    partial: true,
    edge: false,
};

// ---------------------------------------------------------------------------
// serde_json conversions

#[cfg(feature = "serde_json")]
mod json_conversions {
    use alloc::string::ToString;

    use super::super::value::{Map, Number, Value};

    /// Numbers keep their text (serde_json's `Display`, which is exact).
    ///
    /// ```
    /// use llmstream::json::Value;
    ///
    /// let ours = Value::from(serde_json::json!({"a": [1, 2.5, "x", null]}));
    /// assert_eq!(ours.to_json(), r#"{"a":[1,2.5,"x",null]}"#);
    /// ```
    impl From<serde_json::Value> for Value {
        fn from(value: serde_json::Value) -> Value {
            match value {
                serde_json::Value::Null => Value::Null,
                serde_json::Value::Bool(b) => Value::Bool(b),
                serde_json::Value::Number(n) => from_number(&n),
                serde_json::Value::String(s) => Value::String(s),
                serde_json::Value::Array(items) => {
                    Value::Array(items.into_iter().map(Value::from).collect())
                }
                serde_json::Value::Object(map) => Value::Object(
                    map.into_iter()
                        .map(|(k, v)| (k, Value::from(v)))
                        .collect::<Map>(),
                ),
            }
        }
    }

    impl From<&serde_json::Value> for Value {
        fn from(value: &serde_json::Value) -> Value {
            match value {
                serde_json::Value::Null => Value::Null,
                serde_json::Value::Bool(b) => Value::Bool(*b),
                serde_json::Value::Number(n) => from_number(n),
                serde_json::Value::String(s) => Value::String(s.clone()),
                serde_json::Value::Array(items) => {
                    Value::Array(items.iter().map(Value::from).collect())
                }
                serde_json::Value::Object(map) => Value::Object(
                    map.iter()
                        .map(|(k, v)| (k.clone(), Value::from(v)))
                        .collect::<Map>(),
                ),
            }
        }
    }

    fn from_number(n: &serde_json::Number) -> Value {
        // serde_json writes every Number it holds as valid JSON text.
        Number::from_text(&n.to_string()).map_or(Value::Null, Value::Number)
    }

    /// Numbers go through `serde_json::Number`'s parser: exact with
    /// serde_json's `arbitrary_precision` feature, otherwise the
    /// best-fitting `u64`/`i64`/`f64`. A number beyond `f64`'s range
    /// (`1e400`), which serde_json cannot hold, becomes `null`. Objects keep
    /// the last of duplicate keys, as [`Map::get`] does.
    ///
    /// ```
    /// let ours = llmstream::json::parse(br#"{"a":[1,2.5,"x",null]}"#)?;
    /// let theirs = serde_json::Value::from(&ours);
    /// assert_eq!(theirs, serde_json::json!({"a": [1, 2.5, "x", null]}));
    /// # Ok::<(), llmstream::json::Error>(())
    /// ```
    impl From<&Value> for serde_json::Value {
        fn from(value: &Value) -> serde_json::Value {
            match value {
                Value::Null => serde_json::Value::Null,
                Value::Bool(b) => serde_json::Value::Bool(*b),
                Value::Number(n) => n
                    .as_str()
                    .parse::<serde_json::Number>()
                    .map_or(serde_json::Value::Null, serde_json::Value::Number),
                Value::String(s) => serde_json::Value::String(s.clone()),
                Value::Array(items) => {
                    serde_json::Value::Array(items.iter().map(serde_json::Value::from).collect())
                }
                Value::Object(map) => {
                    let mut out = serde_json::Map::new();
                    for (k, v) in map {
                        out.insert(k.as_str().into(), serde_json::Value::from(v));
                    }
                    serde_json::Value::Object(out)
                }
            }
        }
    }

    /// As `From<&Value>`.
    impl From<Value> for serde_json::Value {
        fn from(value: Value) -> serde_json::Value {
            serde_json::Value::from(&value)
        }
    }
}
