//! The tokens of lenient mode: JSON's, and what models write instead
//! (other quotes, bare words, loose numbers, comments, fences), read from
//! bytes fed in pieces. A token is handed out only once the bytes after
//! it show where it ends, so that the tokens, and so the value, are the
//! same however the input is cut.

use alloc::string::String;
use alloc::vec::Vec;

/// One token.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Token {
    /// `{`, `}`, `[`, `]`, `:`, `,` (and `(`, `)`, `;`, `=` of code
    /// around JSON, which the grammar skips).
    Punct(u8),
    /// A quoted string's text, and whether its closing quote came.
    Str(String, bool),
    /// A number, as JSON would write it (`.5` → `0.5`, `+3` → `3`).
    Number(String),
    /// A bare word: a literal (`true`, `None`, `undefined`, …) or text.
    Word(String),
    /// `...` (a placeholder for what a model left out).
    Ellipsis,
}

/// What the lexer is in the middle of.
#[derive(Clone, Debug)]
enum State {
    /// Between tokens.
    Between,
    /// In a string opened by `open`, closed by `close`; `escaped`: opened
    /// by `\"` (stringified JSON), and closed by `\"` too.
    Str {
        close: char,
        text: String,
        escape: Escape,
        escaped: bool,
    },
    /// After a `\` between tokens: a quote next opens an escaped string.
    Backslash,
    /// After a string's closing quote, which counts as one unless a word
    /// follows it (then it was a quote inside the text), but for a
    /// literal after a space (`"a" true`: a missing colon).
    AfterQuote {
        close: char,
        /// The quote that was read (a curly one may close a straight one).
        seen: char,
        text: String,
        ws: String,
        word: String,
    },
    /// A bare value of words where a value is expected (`hello world`,
    /// `https://x.org/`): to the next `,` `}` `]` or line break.
    BareValue(String),
    /// In a bare word or number.
    Word(String),
    /// After a word and an apostrophe (`Here'`): a letter next makes it
    /// part of the word (`Here's`); anything else makes it a quote.
    Apostrophe(String, char),
    /// In a regular-expression literal (`/ab+c/`), read as a string with
    /// its slashes; `class` inside `[…]`, `escape` after a `\`.
    Regex {
        text: String,
        class: bool,
        escape: bool,
    },
    /// After the `/` that may end a regular expression: a letter or digit
    /// next makes it a path's separator (`/usr/bin`).
    RegexEnd(String),
    /// In a `//` or `#` comment (to the end of the line).
    LineComment,
    /// In a `/* */` comment; `star` after a `*`.
    BlockComment {
        star: bool,
    },
    /// After a `/` that may start a comment.
    Slash,
    /// After one or two backticks, or in a fence's info string.
    Ticks(u8),
    FenceInfo,
    /// After one or two dots.
    Dots(u8),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Escape {
    None,
    /// After `\`.
    Backslash,
    /// After `\\` in an escaped string: a quote next is a quote of the
    /// text (`\\"`, escaped twice).
    Double,
    /// In `\u`, with the digits so far.
    Unicode(u32, u8),
}

/// The brackets opened in the text of the string being read and not
/// closed yet, by kind (`(`, `[`, `{`), and whether text came after the
/// last one opened: a quote followed by the `)` of such a parenthesis is
/// inside the text (`"He is six feet (72") tall"`). Also the curly quotes
/// it opened (`"a “term” b"`: the `”` is text).
#[derive(Clone, Copy, Debug, Default)]
struct Brackets {
    parens: u32,
    squares: u32,
    curlies: u32,
    after_last: bool,
    /// Curly opening quotes (`“`) in the text not yet closed: a `”` then
    /// closes them, not the straight-quoted string.
    curly_quotes: u32,
}

impl Brackets {
    /// The count of `c`'s kind, and whether `c` opens one.
    fn count(&mut self, c: char) -> Option<(&mut u32, bool)> {
        match c {
            '(' | ')' => Some((&mut self.parens, c == '(')),
            '[' | ']' => Some((&mut self.squares, c == '[')),
            '{' | '}' => Some((&mut self.curlies, c == '{')),
            _ => None,
        }
    }

    /// `c` was added to the string's text.
    fn see(&mut self, c: char) {
        match c {
            '\u{201C}' => self.curly_quotes = self.curly_quotes.saturating_add(1),
            '\u{201D}' => self.curly_quotes = self.curly_quotes.saturating_sub(1),
            _ => {}
        }
        match self.count(c) {
            Some((open, true)) => {
                *open = open.saturating_add(1);
                self.after_last = false;
            }
            Some((open, false)) => *open = open.saturating_sub(1),
            None => self.after_last = true,
        }
    }

    /// Whether `c` closes a parenthesis the text opened (with text after
    /// it). Only `)`: a `]` or `}` after a quote closes the JSON around
    /// the string far more often (`{"x": "hello {world"}`).
    fn closes(mut self, c: char) -> bool {
        let after_last = self.after_last;
        c == ')' && matches!(self.count(c), Some((open, false)) if *open > 0 && after_last)
    }
}

/// The lexer: bytes in, tokens out (through `out`).
#[derive(Clone, Debug)]
pub(super) struct Lexer {
    state: State,
    /// The grammar expects a value next: a bare word there runs over
    /// spaces, `:` and `/` (see [`State::BareValue`]).
    value_next: bool,
    /// The word just read was `+`.
    joined: bool,
    /// A UTF-8 sequence cut by the end of a piece.
    pending: Vec<u8>,
    /// A high surrogate waiting for its low half.
    high: Option<u32>,
    /// The byte offset in the input of the character being read: where
    /// the tokens it completes are said to be.
    offset: u64,
    /// A token was handed out: the start of the text is behind.
    started: bool,
    /// The brackets of the string being read.
    brackets: Brackets,
}

/// Whether `c` opens a string, and the quote that closes it.
fn closing_quote(c: char) -> Option<char> {
    match c {
        '"' => Some('"'),
        '\'' => Some('\''),
        '\u{201C}' | '\u{201D}' => Some('\u{201D}'),
        '\u{2018}' | '\u{2019}' => Some('\u{2019}'),
        '`' => None,
        _ => None,
    }
}

/// Whether `c` may be part of a bare word or number.
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '$' | '-' | '+' | '.' | '@')
}

impl Lexer {
    pub(super) fn new() -> Self {
        Lexer {
            state: State::Between,
            value_next: false,
            joined: false,
            pending: Vec::new(),
            high: None,
            offset: 0,
            started: false,
            brackets: Brackets::default(),
        }
    }

    /// Reads `bytes`, handing out each token completed with the offset of
    /// the character that completed it. Invalid UTF-8 reads as U+FFFD; a
    /// sequence cut by the end of the piece waits for the next.
    pub(super) fn feed(&mut self, bytes: &[u8], out: &mut dyn FnMut(Token, u64) -> bool) {
        if self.pending.is_empty() {
            self.bytes(bytes, out);
        } else {
            let mut joined = core::mem::take(&mut self.pending);
            joined.extend_from_slice(bytes);
            self.bytes(&joined, out);
        }
    }

    fn bytes(&mut self, bytes: &[u8], out: &mut dyn FnMut(Token, u64) -> bool) {
        let mut rest = bytes;
        loop {
            match core::str::from_utf8(rest) {
                Ok(text) => return self.chars(text, out),
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    self.chars(core::str::from_utf8(valid).unwrap_or(""), out);
                    let Some(n) = e.error_len() else {
                        self.pending.extend_from_slice(after);
                        return;
                    };
                    self.char('\u{FFFD}', out);
                    self.offset += n as u64;
                    rest = after.get(n..).unwrap_or(&[]);
                }
            }
        }
    }

    /// The input ended: the token in progress is handed out as it stands
    /// (a string cut short keeps its text).
    pub(super) fn finish(&mut self, out: &mut dyn FnMut(Token, u64) -> bool) {
        if !self.pending.is_empty() {
            self.pending.clear();
        }
        match core::mem::replace(&mut self.state, State::Between) {
            State::Str { text, .. } => self.emit(out, Token::Str(text, false)),
            State::AfterQuote {
                seen,
                mut text,
                ws,
                word,
                ..
            } => {
                if word.is_empty() || literal_word(&word) {
                    self.emit(out, Token::Str(text, true));
                    if !word.is_empty() {
                        self.emit(out, word_token(word));
                    }
                } else {
                    text.push(seen);
                    text.push_str(&ws);
                    text.push_str(&word);
                    self.emit(out, Token::Str(text, false));
                }
            }
            State::BareValue(text) => self.emit(out, cut_literal(bare_token(text))),
            State::Word(word) => self.emit(out, cut_literal(word_token(word))),
            State::Apostrophe(word, _) => {
                // The quote opened a string the text ends in.
                self.emit(out, word_token(word));
                self.emit(out, Token::Str(String::new(), false));
            }
            State::Regex { text, .. } => self.emit(out, Token::Str(text, false)),
            State::RegexEnd(text) => self.emit(out, Token::Str(text, true)),
            State::Dots(_) => self.emit(out, Token::Ellipsis),
            _ => {}
        }
    }

    /// The last word was a `+` (joining strings): a quote after it opens
    /// the next string.
    fn value_next_is_join(&self) -> bool {
        self.joined
    }

    /// Hands `token` out, and notes whether a value comes next.
    fn emit(&mut self, out: &mut dyn FnMut(Token, u64) -> bool, token: Token) {
        self.started = true;
        self.value_next = out(token, self.offset);
    }

    fn chars(&mut self, text: &str, out: &mut dyn FnMut(Token, u64) -> bool) {
        for c in text.chars() {
            self.char(c, out);
            self.offset += c.len_utf8() as u64;
        }
    }

    fn char(&mut self, c: char, out: &mut dyn FnMut(Token, u64) -> bool) {
        match &mut self.state {
            State::Between => self.start(c, out),
            State::Str {
                close,
                text,
                escape,
                escaped,
            } => {
                match *escape {
                    Escape::Backslash if *escaped && c == '"' => {
                        // `\"` closes a string that `\"` opened.
                        let text = core::mem::take(text);
                        self.state = State::Between;
                        self.emit(out, Token::Str(text, true));
                        return;
                    }
                    Escape::Backslash if *escaped && c == '\\' => {
                        *escape = Escape::Double;
                        return;
                    }
                    Escape::Double => {
                        *escape = Escape::None;
                        if c == '"' {
                            text.push('"');
                            return;
                        }
                        text.push('\\');
                    }
                    Escape::Backslash => {
                        *escape = Escape::None;
                        match c {
                            'n' => text.push('\n'),
                            't' => text.push('\t'),
                            'r' => text.push('\r'),
                            'b' => text.push('\u{8}'),
                            'f' => text.push('\u{c}'),
                            'u' => *escape = Escape::Unicode(0, 0),
                            other => text.push(other),
                        }
                        return;
                    }
                    Escape::Unicode(value, digits) => {
                        if let Some(d) = c.to_digit(16) {
                            let value = value * 16 + d;
                            if digits == 3 {
                                *escape = Escape::None;
                                push_unit(text, &mut self.high, value);
                            } else {
                                *escape = Escape::Unicode(value, digits + 1);
                            }
                            return;
                        }
                        // Not a `\u` escape after all: kept as written.
                        *escape = Escape::None;
                        text.push('u');
                    }
                    Escape::None => {}
                }
                if c == '\\' {
                    *escape = Escape::Backslash;
                } else if c == *close
                    || (*close == '"' && c == '\u{201D}' && self.brackets.curly_quotes == 0)
                    || (*close == '`' && matches!(c, '\u{B4}' | '\''))
                {
                    let (close, text) = (*close, core::mem::take(text));
                    self.state = State::AfterQuote {
                        close,
                        seen: c,
                        text,
                        ws: String::new(),
                        word: String::new(),
                    };
                } else {
                    text.push(c);
                    self.brackets.see(c);
                }
            }
            State::AfterQuote {
                close,
                seen,
                text,
                ws,
                word,
            } => {
                if c.is_alphabetic() && (!ws.is_empty() || !word.is_empty()) && word.len() < 16 {
                    // A word after a space: a literal ends the string.
                    word.push(c);
                    return;
                }
                if word.is_empty() && !c.is_alphabetic() {
                    if c.is_whitespace() && c != '\n' {
                        ws.push(c);
                        return;
                    }
                    if ws.is_empty() && self.brackets.closes(c) {
                        // `(72") tall`: the quote is inside a bracket the
                        // text opened, and the text goes on.
                        let (close, mut text) = (*close, core::mem::take(text));
                        text.push(*seen);
                        self.state = State::Str {
                            close,
                            text,
                            escape: Escape::None,
                            escaped: false,
                        };
                        self.char(c, out);
                        return;
                    }
                    // Anything but a word: the string ended.
                    let text = core::mem::take(text);
                    self.state = State::Between;
                    self.emit(out, Token::Str(text, true));
                    self.start(c, out);
                    return;
                }
                let (close, seen, mut text, ws, word) = (
                    *close,
                    *seen,
                    core::mem::take(text),
                    core::mem::take(ws),
                    core::mem::take(word),
                );
                if !word.is_empty() && literal_word(&word) && !is_word(c) {
                    // `"a" true`: the string ended, and a literal follows.
                    self.state = State::Between;
                    self.emit(out, Token::Str(text, true));
                    for w in ws.chars().chain(word.chars()) {
                        self.char(w, out);
                    }
                    self.char(c, out);
                    return;
                }
                // `"b,"c": 1`: the string ended before its comma, and this
                // quote opens the next one.
                if ws.is_empty() && text.trim_end().ends_with(',') {
                    let end = text.trim_end().len() - 1;
                    text.truncate(end);
                    self.state = State::Between;
                    self.emit(out, Token::Str(text, true));
                    self.emit(out, Token::Punct(b','));
                    self.state = State::Str {
                        close,
                        text: String::new(),
                        escape: Escape::None,
                        escaped: false,
                    };
                    for w in word.chars() {
                        self.char(w, out);
                    }
                    self.char(c, out);
                    return;
                }
                // A quote inside the text: the string goes on.
                text.push(seen);
                text.push_str(&ws);
                text.push_str(&word);
                self.state = State::Str {
                    close,
                    text,
                    escape: Escape::None,
                    escaped: false,
                };
                self.char(c, out);
            }
            State::BareValue(text) => {
                if matches!(c, ',' | '}' | ']' | '\n' | '\r' | '"') {
                    let stuck = c == '"' && !text.ends_with(char::is_whitespace);
                    let text = core::mem::take(text);
                    self.state = State::Between;
                    self.emit(out, bare_token(text));
                    // A quote stuck to the words closes nothing (`foo",`);
                    // after a space it opens a string.
                    if !stuck {
                        self.start(c, out);
                    }
                } else if c == '(' && !text.contains(|c: char| !is_word(c)) {
                    // `ObjectId("1")`: a call, whose argument is the value.
                    let text = core::mem::take(text);
                    self.state = State::Between;
                    self.emit(out, Token::Word(text));
                    self.start(c, out);
                } else {
                    text.push(c);
                }
            }
            State::Word(word) => {
                // A comment right after a word (`2/*note*/`).
                if matches!(c, '*' | '/') && word.ends_with('/') && !word.ends_with(":/") {
                    word.pop();
                    let word = core::mem::take(word);
                    self.state = if c == '*' {
                        State::BlockComment { star: false }
                    } else {
                        State::LineComment
                    };
                    if !word.is_empty() {
                        self.emit(out, word_token(word));
                    }
                    return;
                }
                // Where a value is expected, `12:30`, `1/3` and dates are
                // one word.
                if is_word(c) || (self.value_next && matches!(c, ':' | '/')) {
                    word.push(c);
                    return;
                }
                if matches!(c, '\'' | '\u{2019}') && word.ends_with(char::is_alphabetic) {
                    // `Here's`, `don't`: maybe an apostrophe.
                    self.state = State::Apostrophe(core::mem::take(word), c);
                    return;
                }
                let word = core::mem::take(word);
                self.state = State::Between;
                self.joined = word == "+";
                self.emit(out, word_token(word));
                // A quote stuck to a bare word closes nothing (`a",`); not
                // after a `+` joining strings.
                if c != '"' || self.value_next_is_join() {
                    self.start(c, out);
                }
            }
            State::Apostrophe(word, quote) => {
                let (mut word, quote) = (core::mem::take(word), *quote);
                if c.is_alphabetic() {
                    word.push(quote);
                    word.push(c);
                    self.state = State::Word(word);
                    return;
                }
                // A quote after the word after all.
                self.state = State::Between;
                self.joined = false;
                self.emit(out, word_token(word));
                self.start(quote, out);
                self.char(c, out);
            }
            State::Regex {
                text,
                class,
                escape,
            } => {
                if *escape {
                    *escape = false;
                } else if c == '\\' {
                    *escape = true;
                } else if c == '[' {
                    *class = true;
                } else if c == ']' && *class {
                    *class = false;
                } else if c == '/' && !*class {
                    text.push(c);
                    self.state = State::RegexEnd(core::mem::take(text));
                    return;
                } else if matches!(c, ',' | '}' | ']' | '\n') {
                    // No closing slash before the value ended: a bare
                    // value that starts with a slash.
                    let text = core::mem::take(text);
                    self.state = State::Between;
                    self.emit(out, Token::Str(text, true));
                    self.start(c, out);
                    return;
                }
                text.push(c);
            }
            State::RegexEnd(text) => {
                if c.is_alphanumeric() {
                    // `/usr/bin`: a path's separator; the text goes on.
                    let mut text = core::mem::take(text);
                    text.push(c);
                    self.state = State::Regex {
                        text,
                        class: false,
                        escape: false,
                    };
                    return;
                }
                let text = core::mem::take(text);
                self.state = State::Between;
                self.emit(out, Token::Str(text, true));
                self.start(c, out);
            }
            State::Backslash => {
                self.brackets = Brackets::default();
                if c == '"' {
                    // `\"`: stringified JSON, its quotes escaped.
                    self.state = State::Str {
                        close: '"',
                        text: String::new(),
                        escape: Escape::None,
                        escaped: true,
                    };
                } else {
                    self.state = State::Between;
                    self.start(c, out);
                }
            }
            State::LineComment => {
                if c == '\n' {
                    self.state = State::Between;
                }
            }
            State::BlockComment { star } => {
                if *star && c == '/' {
                    self.state = State::Between;
                } else {
                    *star = c == '*';
                }
            }
            State::Slash => match c {
                '/' => self.state = State::LineComment,
                '*' => self.state = State::BlockComment { star: false },
                // Where a value goes, or as the text's first token: a
                // regular expression (`/ab+c/`).
                _ if (self.value_next || !self.started) && !c.is_whitespace() => {
                    self.state = State::Regex {
                        text: String::from("/"),
                        class: false,
                        escape: false,
                    };
                    self.char(c, out);
                }
                _ => {
                    self.state = State::Between;
                    self.start(c, out);
                }
            },
            State::Ticks(n) => {
                if c == '`' {
                    *n += 1;
                    if *n >= 3 {
                        self.state = State::FenceInfo;
                    }
                    return;
                }
                // One or two backticks: a quote of JS template strings.
                let n = *n;
                if n == 1 {
                    self.brackets = Brackets::default();
                    self.state = State::Str {
                        close: '`',
                        text: String::new(),
                        escape: Escape::None,
                        escaped: false,
                    };
                    self.char(c, out);
                } else {
                    self.state = State::Between;
                    self.emit(out, Token::Str(String::new(), true));
                    self.start(c, out);
                }
            }
            State::FenceInfo => {
                if c == '\n' || c == '{' || c == '[' {
                    self.state = State::Between;
                    if c != '\n' {
                        self.start(c, out);
                    }
                } else if c == '`' {
                    // A closing fence's ticks.
                } else if c.is_whitespace() {
                    self.state = State::Between;
                }
            }
            State::Dots(n) => {
                if c == '.' {
                    // Only "one" and "two or more" matter: a long run of
                    // dots stays at the top.
                    *n = n.saturating_add(1);
                    return;
                }
                let n = *n;
                self.state = State::Between;
                if n >= 2 {
                    self.emit(out, Token::Ellipsis);
                    self.start(c, out);
                } else if c.is_ascii_digit() {
                    // `.5`
                    self.state = State::Word(String::from("."));
                    self.char(c, out);
                } else {
                    self.start(c, out);
                }
            }
        }
    }

    /// `c` between tokens.
    fn start(&mut self, c: char, out: &mut dyn FnMut(Token, u64) -> bool) {
        match c {
            '{' | '}' | '[' | ']' | ':' | ',' | '(' | ')' | ';' | '=' => {
                self.emit(out, Token::Punct(c as u8))
            }
            '#' => self.state = State::LineComment,
            '/' => self.state = State::Slash,
            '\\' => self.state = State::Backslash,
            '`' => self.state = State::Ticks(1),
            '.' => self.state = State::Dots(1),
            _ if c.is_whitespace() => {}
            _ => {
                if let Some(close) = closing_quote(c) {
                    self.brackets = Brackets::default();
                    self.state = State::Str {
                        close,
                        text: String::new(),
                        escape: Escape::None,
                        escaped: false,
                    };
                } else if c.is_alphabetic() && self.value_next {
                    let mut text = String::new();
                    text.push(c);
                    self.state = State::BareValue(text);
                } else if is_word(c) {
                    let mut word = String::new();
                    word.push(c);
                    self.state = State::Word(word);
                }
                // Anything else between tokens is prose: skipped.
            }
        }
    }
}

/// A UTF-16 unit of a `\u` escape, paired with a high surrogate before it.
fn push_unit(text: &mut String, high: &mut Option<u32>, unit: u32) {
    match (high.take(), unit) {
        (Some(h), 0xDC00..=0xDFFF) => {
            let c = 0x10000 + ((h - 0xD800) << 10) + (unit - 0xDC00);
            text.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
        }
        (h, 0xD800..=0xDBFF) => {
            if h.is_some() {
                text.push('\u{FFFD}');
            }
            *high = Some(unit);
        }
        (h, _) => {
            if h.is_some() {
                text.push('\u{FFFD}');
            }
            text.push(char::from_u32(unit).unwrap_or('\u{FFFD}'));
        }
    }
}

/// A word the input ended inside that begins `true`, `false` or `null`
/// (`tr`, `fals`, `n`): that literal, cut short, as a text cut short is
/// read everywhere else.
fn cut_literal(token: Token) -> Token {
    match token {
        Token::Word(word) => {
            let full = ["true", "false", "null"]
                .into_iter()
                .find(|full| full.len() > word.len() && full.starts_with(word.as_str()));
            Token::Word(full.map_or(word, String::from))
        }
        other => other,
    }
}

/// Whether `word` is a literal (`true`, `None`, `undefined`, …).
fn literal_word(word: &str) -> bool {
    super::literal(word).is_some()
}

/// The token of a bare value: its text without the spaces around it, read
/// as a word when it is one.
fn bare_token(text: String) -> Token {
    let trimmed = text.trim();
    if !trimmed.contains(char::is_whitespace) {
        return word_token(String::from(trimmed));
    }
    Token::Word(String::from(trimmed))
}

/// The token of a finished bare word: a number when it reads as one.
fn word_token(word: String) -> Token {
    match loose_number(&word) {
        Some(number) => Token::Number(number),
        None => Token::Word(word),
    }
}

/// `word` as a JSON number, if it is one written loosely: a sign `+`,
/// no digit before or after the point (`.5`, `1.`), leading zeros.
fn loose_number(word: &str) -> Option<String> {
    // A number JSON accepts stays as written.
    if crate::json::Number::from_text(word).is_some() && is_json_number(word) {
        return Some(String::from(word));
    }
    // `1_000`: digit separators, between digits only.
    let plain;
    let word = if word.contains('_') {
        let bytes = word.as_bytes();
        let between = bytes.iter().enumerate().all(|(i, &b)| {
            b != b'_'
                || (i > 0
                    && bytes.get(i - 1).is_some_and(u8::is_ascii_digit)
                    && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
        });
        if !between {
            return None;
        }
        plain = word.replace('_', "");
        plain.as_str()
    } else {
        word
    };
    // `2e`, `2e-`: an exponent that never came.
    let word = match word.trim_end_matches(['+', '-']).strip_suffix(['e', 'E']) {
        Some(base)
            if base
                .bytes()
                .last()
                .is_some_and(|b| b.is_ascii_digit() || b == b'.') =>
        {
            base
        }
        _ => word,
    };
    let bytes = word.as_bytes();
    let (sign, rest) = match bytes.first()? {
        b'-' => ("-", word.get(1..)?),
        b'+' => ("", word.get(1..)?),
        _ => ("", word),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(at) => (rest.get(..at)?, Some(rest.get(at + 1..)?)),
        None => (rest, None),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((int, frac)) => (int, Some(frac)),
        None => (mantissa, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !(digits(int) || frac.is_some_and(digits)) {
        return None;
    }
    if !int.is_empty() && !digits(int) || frac.is_some_and(|f| !f.is_empty() && !digits(f)) {
        return None;
    }
    // `0789`, `00.`: leading zeros make an identifier, a version, a
    // phone number: text, not a number.
    if int.len() > 1 && int.starts_with('0') {
        return None;
    }
    let mut out = String::from(sign);
    out.push_str(if int.is_empty() { "0" } else { int });
    if let Some(frac) = frac.filter(|f| !f.is_empty()) {
        out.push('.');
        out.push_str(frac);
    }
    if let Some(exponent) = exponent {
        let (esign, edigits) = match exponent.as_bytes().first() {
            Some(b'-') => ("-", exponent.get(1..)?),
            Some(b'+') => ("", exponent.get(1..)?),
            _ => ("", exponent),
        };
        if !digits(edigits) {
            return None;
        }
        out.push('e');
        out.push_str(esign);
        out.push_str(edigits);
    }
    Some(out)
}

/// Whether `word` is a number as RFC 8259 writes one.
fn is_json_number(word: &str) -> bool {
    let mut bytes = word.as_bytes();
    if let Some(rest) = bytes.strip_prefix(b"-") {
        bytes = rest;
    }
    let digits = |b: &[u8]| b.iter().take_while(|b| b.is_ascii_digit()).count();
    let int = digits(bytes);
    if int == 0 || (int > 1 && bytes.first() == Some(&b'0')) {
        return false;
    }
    bytes = bytes.get(int..).unwrap_or(&[]);
    if let Some(rest) = bytes.strip_prefix(b".") {
        let frac = digits(rest);
        if frac == 0 {
            return false;
        }
        bytes = rest.get(frac..).unwrap_or(&[]);
    }
    if let Some(rest) = bytes
        .strip_prefix(b"e")
        .or_else(|| bytes.strip_prefix(b"E"))
    {
        let rest = rest
            .strip_prefix(b"+")
            .or_else(|| rest.strip_prefix(b"-"))
            .unwrap_or(rest);
        let exp = digits(rest);
        if exp == 0 {
            return false;
        }
        bytes = rest.get(exp..).unwrap_or(&[]);
    }
    bytes.is_empty()
}
