//! Lenient mode: the value a person reads in what a model wrote, JSON or
//! not quite: inside prose and code fences, with other quotes, Python and
//! JavaScript literals, comments, bare words, loose numbers, missing or
//! extra commas and colons, quotes left inside strings, stray brackets,
//! several values. docs/LENIENT.md gives each rule with its example.
//!
//! One grammar with recovery rules over the tokens of [`lex`]: each token
//! is read once, the open containers are a stack, and a value is added to
//! the one open at the top of it, so the work is linear in the input. The
//! tokens do not depend on where the input was cut, so neither does the
//! value; and the value only grows as tokens come (a string or number is
//! added whole, once its end is certain).

mod lex;

use alloc::string::String;
use alloc::vec::Vec;

use self::lex::{Lexer, Token};
use super::error::{Error, ErrorKind};
use super::options::Limits;
use super::path::PathBuf;
use super::value::{Map, Number, Value};

/// A lenient reader: bytes in, pieces cut anywhere; the value so far out.
#[derive(Clone, Debug)]
pub(crate) struct Lenient {
    lexer: Lexer,
    grammar: Grammar,
    /// The input while no value has been found, up to [`MAX_TEXT`]: a text
    /// with no value in it is read as one string.
    head: Option<Vec<u8>>,
    /// Bytes read so far.
    fed: u64,
    /// The most bytes read ([`Limits::max_input_bytes`]).
    max_input: u64,
    /// A limit was passed: the input is refused from then on.
    error: Option<Error>,
}

/// The most input kept for a text that may turn out to hold no value.
const MAX_TEXT: usize = 1 << 20;

impl Lenient {
    /// A reader within `limits` (the depth of containers and the input's
    /// length: a string or number is no longer than the input).
    pub(crate) fn new(limits: &Limits) -> Self {
        Lenient {
            lexer: Lexer::new(),
            grammar: Grammar {
                max_depth: limits.max_depth,
                ..Grammar::default()
            },
            head: Some(Vec::new()),
            fed: 0,
            max_input: limits.max_input_bytes,
            error: None,
        }
    }

    /// Reads a piece of the input. An error is a limit passed (containers
    /// nested too deep, too much input): it sticks.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Result<(), Error> {
        if let Some(error) = &self.error {
            return Err(error.clone());
        }
        let room = usize::try_from(self.max_input.saturating_sub(self.fed)).unwrap_or(usize::MAX);
        if bytes.len() > room {
            let limit = self.max_input;
            return Err(self.fail(ErrorKind::InputLimit { limit }, limit));
        }
        self.fed += bytes.len() as u64;
        if let Some(head) = self.head.as_mut() {
            if self.grammar.root.is_none() && head.len() + bytes.len() <= MAX_TEXT {
                head.extend_from_slice(bytes);
            } else {
                self.head = None;
            }
        }
        let grammar = &mut self.grammar;
        self.lexer
            .feed(bytes, &mut |token, at| grammar.token(token, at));
        self.check()
    }

    /// The error of a limit the grammar passed, if it did.
    fn check(&mut self) -> Result<(), Error> {
        match self.grammar.too_deep {
            Some(at) => {
                let limit = self.grammar.max_depth;
                Err(self.fail(ErrorKind::DepthLimit { limit }, at))
            }
            None => Ok(()),
        }
    }

    fn fail(&mut self, kind: ErrorKind, at: u64) -> Error {
        let error = Error::new(kind, at, self.grammar.path());
        self.error = Some(error.clone());
        error
    }

    /// The input ended: the token in progress is read as it stands (a
    /// string cut short keeps its text), a key left without a value is
    /// dropped, and every open container closes.
    pub(crate) fn finish(&mut self) -> Result<(), Error> {
        if let Some(error) = &self.error {
            return Err(error.clone());
        }
        let grammar = &mut self.grammar;
        self.lexer.finish(&mut |token, at| grammar.token(token, at));
        self.check()?;
        self.grammar.flush();
        self.grammar.stack.clear();
        // A text with no value in it (`hello world`, `ES2020`): the text;
        // but a lone sign is a number cut short before its first digit,
        // dropped as the partial reader drops it.
        if let (None, Some(head)) = (&self.grammar.root, self.head.take()) {
            let head = String::from_utf8_lossy(&head);
            let text = head.trim();
            if !text.is_empty() && text != "-" && text != "+" {
                self.grammar.root = Some(Value::String(String::from(text)));
            }
        }
        Ok(())
    }

    /// The value so far: what the tokens read show (a string or number
    /// still being read is not in it yet).
    pub(crate) fn value(&self) -> Option<&Value> {
        self.grammar.root.as_ref()
    }

    /// Whether several values were read at the top (the value is the
    /// array of them).
    pub(crate) fn several_values(&self) -> bool {
        self.grammar.several
    }

    /// Takes the value out.
    pub(crate) fn take_value(&mut self) -> Option<Value> {
        self.grammar.root.take()
    }
}

/// Where an open object is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    Key,
    Colon,
    Value,
    CommaOrEnd,
}

/// After the top object closed: `}, "k": v` continues it (a brace
/// closed too early), read only once the colon shows it.
#[derive(Clone, Debug, Default, PartialEq)]
enum Reopen {
    /// Nothing to continue.
    #[default]
    No,
    /// The top object just closed.
    Closed,
    /// … and a comma came.
    Comma,
    /// … and a string: a key if a colon follows.
    Key(String),
}

/// An open container.
#[derive(Clone, Debug)]
enum Frame {
    Array,
    Object { expect: Expect, key: Option<String> },
}

#[derive(Clone, Debug, Default)]
struct Grammar {
    /// The value: the first one found, or an array of them all once a
    /// second comes.
    root: Option<Value>,
    several: bool,
    /// The open containers, outermost first.
    stack: Vec<Frame>,
    /// Something that was no value came at the top (prose): a bare value
    /// there is prose too from then on.
    prose: bool,
    /// A container was read at the top: scalars there are prose.
    container_at_top: bool,
    /// The last token was a string (a `+` may join the next to it).
    last_string: bool,
    /// The last token was a bare word read as a value: a `(` right after
    /// it makes it a call (`ObjectId("1")`), whose argument is the value.
    last_word_value: bool,
    /// A `+` came after a string: the next string joins it.
    join: bool,
    /// The open tuples `( … )`: their depth in `stack`, and whether a
    /// comma came in them.
    parens: Vec<(usize, bool)>,
    /// The key of a member taken back (see `drop_last_value`).
    last_key: Option<String>,
    /// The most containers open at once ([`Limits::max_depth`]).
    max_depth: usize,
    /// Where a container opened past `max_depth`: nothing is read after.
    too_deep: Option<u64>,
    /// The most containers open at once so far.
    deepest: usize,
    /// Whether the top object may be continued.
    reopen: Reopen,
    /// Keys followed by a comma, no colon, at the start of the object
    /// open at depth `set_depth`: the items of a Python set (`{'a', 'b'}`)
    /// if the object ends so, else keys without values. Held (out of the
    /// snapshot) until the object shows which.
    set: Vec<String>,
    set_depth: usize,
    /// The key awaiting its colon is a bare word: a string right after it
    /// is the key if a colon follows (`COMMENT "k": v`, the word noise),
    /// else the word's value (`a "v"`). That string, held until then.
    bare_key: bool,
    after_bare_key: Option<String>,
}

/// A literal word's value (`True`, `None`, `undefined`, …), or `None`.
pub(super) fn literal(word: &str) -> Option<Value> {
    Some(match word {
        "true" | "True" | "TRUE" => Value::Bool(true),
        "false" | "False" | "FALSE" => Value::Bool(false),
        "null" | "None" | "NULL" | "Null" | "nil" | "undefined" | "NaN" | "Infinity"
        | "-Infinity" | "+Infinity" => Value::Null,
        _ => return None,
    })
}

/// The value a token gives where a value is expected (`None` for
/// punctuation).
fn scalar(token: &Token) -> Option<Value> {
    match token {
        Token::Str(text, _) => Some(Value::String(text.clone())),
        Token::Number(text) => Some(match Number::from_text(text) {
            Some(n) => Value::Number(n),
            None => Value::String(text.clone()),
        }),
        // A sign alone is no number (and no invented 0).
        Token::Word(word) if matches!(word.as_str(), "-" | "+") => None,
        Token::Word(word) => Some(literal(word).unwrap_or_else(|| Value::String(word.clone()))),
        Token::Punct(_) | Token::Ellipsis => None,
    }
}

impl Grammar {
    /// Reads a token; whether a value is expected next (where bare words
    /// run on: see the lexer).
    fn token(&mut self, token: Token, at: u64) -> bool {
        if self.too_deep.is_some() {
            return false;
        }
        let value_next = self.read(token);
        // Several values at the top are an array of them: one level more.
        self.deepest = self.deepest.max(self.stack.len());
        if self.deepest + usize::from(self.several) > self.max_depth {
            self.too_deep = Some(at);
        }
        value_next
    }

    fn read(&mut self, token: Token) -> bool {
        // `"a" + "b"`: strings joined with `+` (JavaScript) are one.
        let join = core::mem::take(&mut self.join);
        match &token {
            Token::Word(plus) if plus == "+" && self.last_string => {
                self.join = true;
                return self.value_next();
            }
            Token::Str(text, _) if join => {
                if let Some(Value::String(last)) = self.last_value() {
                    last.push_str(text);
                    return self.value_next();
                }
            }
            _ => {}
        }
        self.last_string = matches!(token, Token::Str(..));
        let after_word = core::mem::take(&mut self.last_word_value);
        if after_word && matches!(token, Token::Punct(b'(')) && self.drop_last_value() {
            // `ObjectId("1")`, `NumberLong(2)`: the call's name goes, and
            // its argument (a group of one) is the value.
            if let Some(Frame::Object { .. }) = self.stack.last() {
                let key = self.last_key.take();
                self.expect(Expect::Value, key);
            }
        }
        let word_value = self.value_next()
            && matches!(&token, Token::Word(w) if literal(w).is_none() && w != "-" && w != "+");
        match self.stack.last().cloned() {
            None => self.top(token),
            Some(Frame::Array) => self.in_array(token),
            Some(Frame::Object { expect, key }) => self.in_object(token, expect, key),
        }
        self.last_word_value = word_value && !self.stack.is_empty();
        self.value_next()
    }

    /// Takes back the value added last to the open container (a call's
    /// name), keeping an object's key in `last_key`; whether it did.
    fn drop_last_value(&mut self) -> bool {
        let mut key = None;
        let dropped = match self.current() {
            Some(Value::Array(items)) => items.pop().is_some(),
            Some(Value::Object(map)) => match map.pop() {
                Some((k, _)) => {
                    key = Some(String::from(k.as_str()));
                    true
                }
                None => false,
            },
            _ => false,
        };
        self.last_key = key;
        dropped
    }

    /// Whether a value is expected next.
    fn value_next(&self) -> bool {
        match self.stack.last() {
            None => false,
            Some(Frame::Array) => true,
            Some(Frame::Object { expect, .. }) => *expect == Expect::Value,
        }
    }

    /// The value added last: the open array's last element, the open
    /// object's last member's, or the top one.
    fn last_value(&mut self) -> Option<&mut Value> {
        if self.stack.is_empty() {
            return match (self.root.as_mut()?, self.several) {
                (Value::Array(items), true) => items.last_mut(),
                (value, _) => Some(value),
            };
        }
        match self.current()? {
            Value::Array(items) => items.last_mut(),
            Value::Object(map) => map.values_mut().next_back(),
            _ => None,
        }
    }

    /// A token outside every container: a container starts a value; a
    /// scalar is the value only as the first thing of the text; anything
    /// else is prose around the JSON, and skipped.
    fn top(&mut self, token: Token) {
        match (core::mem::take(&mut self.reopen), &token) {
            (Reopen::Closed, Token::Punct(b',')) => {
                self.reopen = Reopen::Comma;
                return;
            }
            (Reopen::Comma, Token::Str(key, _)) => {
                self.reopen = Reopen::Key(key.clone());
                return;
            }
            (Reopen::Key(key), Token::Punct(b':')) => {
                // `{"a": 1}, "b": 2}`: the top object goes on.
                self.stack.push(Frame::Object {
                    expect: Expect::Value,
                    key: Some(key),
                });
                return;
            }
            _ => {}
        }
        match token {
            Token::Punct(b'{') => self.open(Value::Object(Map::new()), true),
            Token::Punct(b'[') => self.open(Value::Array(Vec::new()), false),
            Token::Str(..) | Token::Number(_) if !self.prose && !self.container_at_top => {
                if let Some(value) = scalar(&token) {
                    self.add(value);
                }
            }
            Token::Word(ref word) if !self.prose && !self.container_at_top => match literal(word) {
                Some(value) => self.add(value),
                None => self.prose = true,
            },
            // A call around the value (JSONP, `NumberLong(2)`): what is
            // inside is the value; without one, a tuple.
            Token::Punct(b'(') if self.root.is_none() && self.prose => self.prose = false,
            Token::Punct(b'(') if !self.prose => self.open_paren(),
            Token::Punct(_) | Token::Ellipsis => {}
            _ => self.prose = true,
        }
    }

    fn in_array(&mut self, token: Token) {
        match token {
            Token::Punct(b'{') => self.open(Value::Object(Map::new()), true),
            Token::Punct(b'[') => self.open(Value::Array(Vec::new()), false),
            Token::Punct(b'(') => self.open_paren(),
            Token::Punct(b']') => self.close(false),
            Token::Punct(b')') => self.close_paren(),
            Token::Punct(b'}') => self.close(true),
            Token::Punct(b',') => {
                let depth = self.stack.len();
                if let Some((at, comma)) = self.parens.last_mut() {
                    *comma |= *at == depth;
                }
            }
            // Commas (missing, doubled, leading, trailing) and what else
            // is punctuation say nothing in an array.
            Token::Punct(_) | Token::Ellipsis => {}
            token => {
                if let Some(value) = scalar(&token) {
                    self.add(value);
                }
            }
        }
    }

    fn in_object(&mut self, token: Token, expect: Expect, key: Option<String>) {
        let depth = self.stack.len();
        let holding = !self.set.is_empty() && self.set_depth == depth;
        match (expect, &token) {
            (Expect::Colon, Token::Punct(b','))
                if holding || matches!(self.current(), Some(Value::Object(m)) if m.is_empty()) =>
            {
                // `{'a', …`: maybe a set; held.
                self.set.extend(key);
                self.set_depth = depth;
                self.expect(Expect::Key, None);
                return;
            }
            (Expect::Key | Expect::Colon, Token::Punct(b'}')) if holding => {
                // `{'a', 'b'}`: a Python set, an array of its items.
                let mut items: Vec<Value> = core::mem::take(&mut self.set)
                    .into_iter()
                    .map(Value::String)
                    .collect();
                items.extend(key.map(Value::String));
                if let Some(object) = self.current() {
                    *object = Value::Array(items);
                }
                self.close(true);
                return;
            }
            (Expect::Key, Token::Str(..) | Token::Word(_) | Token::Number(_)) if holding => {}
            _ if holding => {
                // Not a set: the keys held have no values.
                self.flush_set();
                self.expect(expect, key.clone());
            }
            _ => {}
        }
        if expect == Expect::Colon && self.bare_key {
            match (self.after_bare_key.take(), token) {
                // `{"a": 1, note}`: a bare word with nothing after it is
                // no key.
                (None, Token::Punct(b'}')) => self.close(true),
                (None, Token::Str(text, _)) => self.after_bare_key = Some(text),
                // `COMMENT "k": v`: the string is the key.
                (Some(text), Token::Punct(b':' | b'=')) => {
                    self.bare_key = false;
                    self.expect(Expect::Value, Some(text));
                }
                // `a "v"`: the string was the word's value.
                (Some(text), token) => {
                    self.bare_key = false;
                    self.member(key, Value::String(text));
                    self.in_object(token, Expect::CommaOrEnd, None);
                }
                (None, token) => {
                    self.bare_key = false;
                    self.in_object(token, expect, key);
                }
            }
            return;
        }
        match (expect, token) {
            (_, Token::Punct(b'}')) => {
                if matches!(expect, Expect::Colon | Expect::Value) {
                    // A key with no value: `null`.
                    self.member(key, Value::Null);
                }
                self.close(true);
            }
            (_, Token::Punct(b']')) => {
                if matches!(expect, Expect::Colon | Expect::Value) {
                    self.member(key, Value::Null);
                }
                self.close(false);
            }
            (Expect::Key | Expect::CommaOrEnd, Token::Punct(b',')) => {
                self.expect(Expect::Key, None);
            }
            // `[{"i":1{"i":2}]`, `[{"i":1,{"i":2}]`: a `{` where a key goes,
            // in an object that is an array's element, ends that object
            // and starts the next element.
            (Expect::Key | Expect::CommaOrEnd, Token::Punct(b'{'))
                if matches!(self.stack.iter().rev().nth(1), Some(Frame::Array)) =>
            {
                self.close(true);
                self.in_array(Token::Punct(b'{'));
            }
            (Expect::Colon | Expect::Value, Token::Punct(b',')) => {
                self.member(key, Value::Null);
                self.expect(Expect::Key, None);
            }
            (Expect::Colon, Token::Punct(b':' | b'=')) => self.expect(Expect::Value, key),
            (Expect::Colon | Expect::Value, Token::Punct(open @ (b'{' | b'[' | b'('))) => {
                let value = match open {
                    b'{' => Value::Object(Map::new()),
                    _ => Value::Array(Vec::new()),
                };
                self.member_open(key, value, open == b'{');
                if open == b'(' {
                    self.parens.push((self.stack.len(), false));
                }
            }
            (_, Token::Punct(_) | Token::Ellipsis) => {}
            (Expect::Key | Expect::CommaOrEnd, token) => {
                // A key (after a missing comma, too).
                self.bare_key = matches!(token, Token::Word(_));
                let text = match token {
                    Token::Str(text, _) | Token::Number(text) | Token::Word(text) => text,
                    _ => return,
                };
                self.expect(Expect::Colon, Some(text));
            }
            (Expect::Colon | Expect::Value, token) => {
                if let Some(value) = scalar(&token) {
                    self.member(key, value);
                }
            }
        }
    }

    /// The input ended: a string held after a bare key is its value, and
    /// keys held as a set's items have no values.
    fn flush(&mut self) {
        if let Some(text) = self.after_bare_key.take() {
            if let Some(Frame::Object { key, .. }) = self.stack.last().cloned() {
                self.member(key, Value::String(text));
            }
        }
        self.flush_set();
    }

    /// The keys held as a set's items are keys without values after all.
    fn flush_set(&mut self) {
        if self.set.is_empty() {
            return;
        }
        let keys = core::mem::take(&mut self.set);
        if self.set_depth == self.stack.len() {
            for key in keys {
                self.member(Some(key), Value::Null);
            }
        }
    }

    /// Sets what the open object expects next.
    fn expect(&mut self, next: Expect, key: Option<String>) {
        if let Some(Frame::Object { expect, key: held }) = self.stack.last_mut() {
            *expect = next;
            *held = key;
        }
    }

    /// Adds member `key: value` to the open object.
    fn member(&mut self, key: Option<String>, value: Value) {
        if let Some(Value::Object(map)) = self.current() {
            map.push(key.unwrap_or_default(), value);
        }
        self.expect(Expect::CommaOrEnd, None);
    }

    /// Adds member `key` with a container that opens.
    fn member_open(&mut self, key: Option<String>, value: Value, object: bool) {
        self.member(key, value);
        self.stack.push(frame(object));
    }

    /// Adds `value` to the open array, or at the top.
    fn add(&mut self, value: Value) {
        if self.stack.is_empty() {
            match (&mut self.root, self.several) {
                (None, _) => self.root = Some(value),
                (Some(Value::Array(items)), true) => items.push(value),
                (Some(first), _) => {
                    let first = core::mem::replace(first, Value::Null);
                    self.root = Some(Value::Array(alloc::vec![first, value]));
                    self.several = true;
                }
            }
            return;
        }
        if let Some(Value::Array(items)) = self.current() {
            items.push(value);
        }
    }

    /// Opens a container where a value goes.
    fn open(&mut self, value: Value, object: bool) {
        if self.stack.is_empty() {
            self.container_at_top = true;
        }
        self.add(value);
        self.stack.push(frame(object));
    }

    /// `(`: a tuple, an array (or, with one element and no comma, a
    /// group: that element).
    fn open_paren(&mut self) {
        self.open(Value::Array(Vec::new()), false);
        self.parens.push((self.stack.len(), false));
    }

    /// `)`: closes the tuple it ends, a group of one becoming its element.
    fn close_paren(&mut self) {
        let depth = self.stack.len();
        if let Some(&(at, comma)) = self.parens.last() {
            if at == depth {
                self.parens.pop();
                if !comma {
                    if let Some(group) = self.current() {
                        if let Value::Array(items) = group {
                            if items.len() == 1 {
                                let only = items.pop().unwrap_or(Value::Null);
                                *group = only;
                            }
                        }
                    }
                }
            }
        }
        self.close(false);
    }

    /// A closing bracket: it closes the innermost open container of its
    /// kind and those inside it; one that closes nothing is stray.
    fn close(&mut self, object: bool) {
        let Some(at) = self
            .stack
            .iter()
            .rposition(|f| matches!(f, Frame::Object { .. }) == object)
        else {
            return;
        };
        self.stack.truncate(at);
        if at == 0 && object && !self.several {
            self.reopen = Reopen::Closed;
        }
        let depth = self.stack.len();
        self.parens.retain(|&(open, _)| open <= depth);
        self.expect(Expect::CommaOrEnd, None);
    }

    /// Where the innermost open container is.
    fn path(&self) -> PathBuf {
        let mut path = PathBuf::new();
        let Some(mut value) = self.root.as_ref() else {
            return path;
        };
        if self.several {
            if let Value::Array(items) = value {
                path.push_index(items.len().saturating_sub(1));
                value = items.last().unwrap_or(&Value::Null);
            }
        }
        for _ in 1..self.stack.len() {
            value = match value {
                Value::Array(items) => {
                    path.push_index(items.len().saturating_sub(1));
                    items.last().unwrap_or(&Value::Null)
                }
                Value::Object(map) => match map.iter().next_back() {
                    Some((key, member)) => {
                        path.push_key(key.as_str());
                        member
                    }
                    None => break,
                },
                _ => break,
            };
        }
        path
    }

    /// The innermost open container in the value: the last element or
    /// member of each open one, from the top.
    fn current(&mut self) -> Option<&mut Value> {
        let mut value = self.root.as_mut()?;
        if self.several {
            value = match value {
                Value::Array(items) => items.last_mut()?,
                _ => return None,
            };
        }
        for _ in 1..self.stack.len() {
            value = match value {
                Value::Array(items) => items.last_mut()?,
                Value::Object(map) => map.values_mut().next_back()?,
                _ => return None,
            };
        }
        Some(value)
    }
}

fn frame(object: bool) -> Frame {
    match object {
        true => Frame::Object {
            expect: Expect::Key,
            key: None,
        },
        false => Frame::Array,
    }
}

#[cfg(test)]
mod tests;
