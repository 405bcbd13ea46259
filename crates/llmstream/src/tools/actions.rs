//! JSON action objects in model text: ```json fences, bare objects, prose.
//! The text around the JSON (prose, fences, backticks) is read in
//! `fences`; here the JSON's events are mapped to actions.

use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::vec::Vec;

use super::arguments::ArgumentEvent;
use super::budget::{Budget, Completed};
use super::error::{ActionError, JsonContext};
use crate::json::{
    Error, ErrorKind, EventKind, Expected, Limits, Map, Number, Options, Parser, PathBuf, Segment,
    Value,
};
use crate::utf8::Lossy;

mod fences;

/// Finds the JSON "action" objects a model writes in its text — objects
/// with an `action` member naming a tool, inside ```json (or bare ```)
/// fences or at the start of a line, among prose — and reports them as tool
/// calls while they stream.
///
/// - Prose outside the JSON is reported as [`ActionEvent::Text`], so a UI
///   can show it; the fences around JSON are not.
/// - The call starts when the `action` string completes. Members before it
///   are held and replayed, in order, right after the start, so arguments
///   always follow the start whatever the member order.
/// - Several actions may follow each other, or come as a top-level array of
///   action objects. An object without `action` is reported whole as
///   [`ActionEvent::Json`], not as a tool call.
/// - A fence that never closes or an object that never ends is reported at
///   [`ActionStream::finish`], with what arrived kept.
/// - No input is reported twice. JSON that turns out invalid before anything
///   about it was reported is given back as text (bare) or shown as a code
///   block (fenced), after an [`ActionEvent::Error`] in the fence case. Once
///   a call has started (or an element of an array was reported), the
///   value's text is never given back: an [`ActionEvent::Error`] naming the
///   call that was open ends it, and the text from the failing byte on is
///   read as prose (in a fence, up to its closing fence, which is not shown,
///   as its opening was not).
/// - Errors give the byte offset in the whole input (an invalid UTF-8
///   sequence given to [`ActionStream::feed_bytes`] counts as its own
///   bytes, not as its U+FFFD).
///
/// ```
/// use llmstream::tools::{ActionEvent, ActionStream};
///
/// let mut actions = ActionStream::new();
/// for piece in ["Let me look.\n``", "`json\n{\"query\": \"ru", "st\", \"action\": \"search\"}\n```\nDone."] {
///     actions.feed(piece);
/// }
/// actions.finish();
/// let events: Vec<ActionEvent> = std::iter::from_fn(|| actions.next_event()).collect();
/// assert_eq!(events[0], ActionEvent::Text("Let me look.\n".into()));
/// assert!(events.iter().any(|e| matches!(e, ActionEvent::ToolCallStart { name, .. } if name == "search")));
/// assert_eq!(events.last(), Some(&ActionEvent::Text("\nDone.".into())));
/// ```
#[derive(Clone, Debug)]
pub struct ActionStream {
    mode: Mode,
    /// Prose not yet reported.
    text: String,
    /// Backticks at the end of the input so far that may start a fence.
    ticks: usize,
    /// Whether only whitespace has followed the last line break.
    line_start: bool,
    /// The info string of a fence being opened (`json`).
    info: String,
    /// Whitespace after a fence opening, kept in case the fence is code.
    fence_ws: String,
    /// A `[` at a line start and the whitespace after it, until a `{`
    /// shows it opens an array of actions.
    bracket: String,
    /// Whether the current JSON is inside a fence.
    fenced: bool,
    parser: Option<Parser>,
    /// The raw text of the current JSON value, while nothing about it has
    /// been reported (given back as text if it turns out not to be JSON).
    raw: String,
    /// Bytes of text handed to the mode handlers before the current one's
    /// input (U+FFFD replacements counted as their three bytes).
    offset: u64,
    /// Bytes the U+FFFD replacements of invalid UTF-8 added over the bytes
    /// they replaced: `offset - widened` is an offset in the input.
    widened: u64,
    /// Where the current JSON value began, counted as `offset` is.
    json_at: u64,
    /// The run of token bytes (ASCII letters, digits, `+-.`) at the end of
    /// what the parser took of the current value: when a literal or number
    /// fails (`t` of `then`, `1.` of `1. First`), its text, which a token
    /// byte never precedes (at most [`TOKEN_MAX`] bytes are kept).
    token: String,
    current: Current,
    /// What the current value's argument events may still cost (see the
    /// [module docs](super#what-the-argument-events-cost)); held events
    /// are charged too, so what waits for `action` is bounded by the text.
    budget: Budget,
    next_call: u64,
    events: VecDeque<ActionEvent>,
    /// Bytes of a UTF-8 sequence cut by the end of a `push_bytes` piece.
    utf8: Vec<u8>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Text outside any fence.
    Prose,
    /// After an opening fence's backticks, reading its info string.
    FenceInfo,
    /// Inside a fence, before its content shows whether it is JSON.
    FenceBody,
    /// Inside a fence whose content is not JSON: text until it closes.
    CodeFence,
    /// After a `[` at a line start outside a fence: JSON only if a `{`
    /// follows (`[1] a footnote` is prose).
    Bracket,
    /// Inside a JSON value.
    Json,
    /// Inside a fence after a JSON value: more JSON, or the closing fence.
    AfterJson,
    /// Inside a JSON fence after its JSON, text that is not JSON (or the
    /// rest of a value that failed after it was reported): shown up to the
    /// closing fence, which is not shown, as the opening was not.
    FenceText,
}

/// The action object being read.
#[derive(Clone, Debug, Default)]
struct Current {
    /// Whether the top-level value is an array of actions.
    array: bool,
    /// The call key and tool name, once `action` completed.
    call: Option<(u64, String)>,
    /// Argument events that arrived before `action` (bounded, as all the
    /// value's events are, by its budget).
    held: Vec<ActionEvent>,
    /// Whether an event about this value was reported (a call start, or an
    /// array element as [`ActionEvent::Json`]): its text is then never
    /// given back.
    reported: bool,
}

/// What an [`ActionStream`] reports.
#[derive(Clone, Debug, PartialEq)]
pub enum ActionEvent {
    /// Text outside the JSON.
    Text(String),
    /// An action's `action` member completed: a tool call begins.
    ToolCallStart {
        /// Counts actions from 0.
        call: u64,
        /// The tool name (the `action` value).
        name: String,
    },
    /// More text of a string argument, or an argument value completed; the
    /// event's path is relative to the action object.
    Argument {
        /// The action's call number.
        call: u64,
        /// What the action's arguments revealed.
        event: ArgumentEvent,
    },
    /// The action object closed.
    ToolCallEnd {
        /// The action's call number.
        call: u64,
        /// The tool name.
        name: String,
        /// The object without its `action` member.
        arguments: Value,
    },
    /// A JSON value that is not an action (no `action` string member).
    Json(Value),
    /// Invalid JSON in a fence or in a value already reported on, or a
    /// fence or object that never closed.
    Error {
        /// The call this error ends: the action that had started and not
        /// ended (it gets no [`ActionEvent::ToolCallEnd`]).
        call: Option<u64>,
        /// What went wrong, and where (offsets in the whole input).
        error: ActionError,
        /// What had arrived of an unfinished value.
        partial: Option<Value>,
    },
}

impl Default for ActionStream {
    fn default() -> Self {
        ActionStream::new()
    }
}

/// The longest number the parser accepts, so the longest token kept.
const TOKEN_MAX: usize = Limits::new().max_number_bytes;

/// Whether a byte may be part of a literal or number.
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')
}

impl ActionStream {
    /// A stream at the start of the model's text.
    pub fn new() -> Self {
        ActionStream {
            mode: Mode::Prose,
            text: String::new(),
            ticks: 0,
            line_start: true,
            info: String::new(),
            fence_ws: String::new(),
            bracket: String::new(),
            fenced: false,
            parser: None,
            raw: String::new(),
            offset: 0,
            widened: 0,
            json_at: 0,
            token: String::new(),
            current: Current::default(),
            budget: Budget::default(),
            next_call: 0,
            events: VecDeque::new(),
            utf8: Vec::new(),
        }
    }

    /// The next event.
    pub fn next_event(&mut self) -> Option<ActionEvent> {
        self.events.pop_front()
    }

    /// Feeds the next piece of model text.
    pub fn feed(&mut self, input: &str) {
        self.read(input);
        self.flush_text();
    }

    /// Reads `input`, keeping the text at its end open: the text of one
    /// piece is one [`ActionEvent::Text`] however many parts it is read in
    /// (the valid runs and U+FFFDs of [`feed_bytes`](Self::feed_bytes)).
    fn read(&mut self, input: &str) {
        let base = self.offset;
        let mut i = 0;
        while i < input.len() {
            // Every handler returns a length ending on a character boundary;
            // should one not, stopping beats looping.
            let Some(rest) = input.get(i..) else {
                break;
            };
            self.offset = base + i as u64;
            i += match self.mode {
                Mode::Prose | Mode::CodeFence | Mode::FenceText => self.prose(rest),
                Mode::FenceInfo => self.fence_info(rest),
                Mode::FenceBody | Mode::AfterJson => self.fence_body(rest),
                Mode::Bracket => self.bracket(rest),
                Mode::Json => self.json(rest),
            };
        }
        self.offset = base + input.len() as u64;
    }

    /// Reads a U+FFFD standing for `replaced` bytes of invalid UTF-8.
    fn push_replacement(&mut self, replaced: usize) {
        self.read("\u{FFFD}");
        // Offsets count the input's bytes: an error at the U+FFFD itself
        // was reported above, with the bytes before it counted right.
        self.widened += 3u64.saturating_sub(replaced as u64);
    }

    /// Feeds bytes: a UTF-8 sequence cut by the end of a piece waits for the
    /// next one; invalid bytes become U+FFFD.
    pub fn feed_bytes(&mut self, bytes: &[u8]) {
        let mut held = core::mem::take(&mut self.utf8);
        crate::utf8::read_lossy(&mut held, bytes, |part| match part {
            Lossy::Text(text) => self.read(text),
            Lossy::Invalid(n) => self.push_replacement(n),
        });
        self.utf8 = held;
        self.flush_text();
    }

    /// The text ended: reports an unclosed fence or unfinished object, as
    /// an [`ActionEvent::Error`] and as the error returned (the events
    /// before it are whole either way).
    pub fn finish(&mut self) -> Result<(), ActionError> {
        if !self.utf8.is_empty() {
            let cut = self.utf8.len();
            self.utf8.clear();
            self.push_replacement(cut);
        }
        if self.ticks >= 3 {
            let ticks = core::mem::take(&mut self.ticks);
            self.fence_marker(ticks);
        } else if self.ticks > 0 {
            let ticks = core::mem::take(&mut self.ticks);
            self.push_ticks(ticks);
        }
        match self.mode {
            Mode::Bracket => {
                let bracket = core::mem::take(&mut self.bracket);
                self.text.push_str(&bracket);
                self.mode = Mode::Prose;
            }
            Mode::FenceInfo => {
                // An opening fence cut before its line break: show it.
                self.text.push_str("```");
                let info = core::mem::take(&mut self.info);
                self.text.push_str(&info);
            }
            Mode::FenceBody => self.show_fence_opening(),
            _ => {}
        }
        let end = self.input_offset(self.offset);
        let failure = if self.mode == Mode::Json {
            let mut partial = None;
            let mut failed = None;
            if let Some(path) = self.parser.as_ref().map(|p| p.path().to_path_buf()) {
                self.flush_cut_string(path.segments());
            }
            if let Some(parser) = self.parser.as_mut() {
                match parser.finish_partial() {
                    Ok(value) => partial = value,
                    Err(e) => {
                        let at = self.json_at + e.offset();
                        failed = Some(e.with_offset(self.input_offset(at)));
                    }
                }
            }
            let call = self.current.call.take();
            let number = call.as_ref().map(|(call, _)| *call);
            let error = match failed {
                Some(error) => ActionError::Json {
                    error,
                    context: match call {
                        Some((call, name)) => JsonContext::OpenAtEnd { call, name },
                        None => JsonContext::Value,
                    },
                },
                None => ActionError::UnclosedValue { end, action: call },
            };
            self.parser = None;
            Some((number, error, partial))
        } else if self.mode != Mode::Prose {
            Some((None, ActionError::UnclosedFence { end }, None))
        } else {
            None
        };
        self.mode = Mode::Prose;
        // The text before the error comes before it.
        self.flush_text();
        match failure {
            None => Ok(()),
            Some((call, error, partial)) => {
                self.events.push_back(ActionEvent::Error {
                    call,
                    error: error.clone(),
                    partial,
                });
                Err(error)
            }
        }
    }

    /// `at`, counted as [`ActionStream::offset`] is, as an offset in the
    /// input. The U+FFFDs counted in `widened` lie before `at`: an error is
    /// found as its byte is pushed, before any later replacement.
    fn input_offset(&self, at: u64) -> u64 {
        at.saturating_sub(self.widened)
    }

    fn flush_text(&mut self) {
        if !self.text.is_empty() {
            let text = core::mem::take(&mut self.text);
            self.events.push_back(ActionEvent::Text(text));
        }
    }

    fn start_json(&mut self, fenced: bool) {
        // The prose before the JSON comes before its events.
        self.flush_text();
        let options = Options::new().trailing_commas(true).stop_after_value(true);
        self.parser = Some(Parser::with_options(options));
        self.raw.clear();
        self.current = Current::default();
        self.budget = Budget::default();
        self.fenced = fenced;
        self.json_at = self.offset;
        self.token.clear();
        self.mode = Mode::Json;
    }

    /// Feeds JSON text; returns the bytes the value took.
    fn json(&mut self, rest: &str) -> usize {
        let Some(mut parser) = self.parser.take() else {
            self.mode = Mode::Prose;
            return 0;
        };
        let mut error: Option<Error> = None;
        let base = parser.bytes_fed();
        let mut feed = parser.feed_borrowed(rest.as_bytes());
        loop {
            // Where the event's text began: the budget's offset.
            let at = base + feed.consumed() as u64;
            let Some(event) = feed.next_event() else {
                break;
            };
            match event {
                Ok(event) => {
                    if self.handle(at, event.path.segments(), event.kind) {
                        // A container closed whose value is wanted: taken
                        // at its end event, where its path names it even
                        // among duplicate keys (a later one in this piece
                        // would stand in for it in the snapshot at the
                        // piece's end).
                        let path = event.path.to_path_buf();
                        let value = feed.snapshot().and_then(|r| r.at(path.as_path())).cloned();
                        self.closed(path, value);
                    }
                }
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        // The parser may stop inside a character (an invalid escape such as
        // `\é` is found at the escape's first byte); what it did not take
        // whole is read again as text.
        let mut used = feed.consumed().min(rest.len());
        while !rest.is_char_boundary(used) {
            used -= 1;
        }
        drop(feed);
        let took = rest.as_bytes().get(..used).unwrap_or(&[]);
        // Token bytes are ASCII: the run starts on a character boundary.
        let run = match took.iter().rposition(|&b| !is_token_byte(b)) {
            Some(p) => {
                self.token.clear();
                p + 1
            }
            None => 0,
        };
        self.token.push_str(rest.get(run..used).unwrap_or(""));
        if self.token.len() > TOKEN_MAX {
            // Longer than any number the parser accepts: not one.
            self.token.clear();
        }
        if self.current.reported {
            // Reported on: its text is never given back, so not kept.
            self.raw.clear();
        } else {
            self.raw.push_str(rest.get(..used).unwrap_or(""));
        }
        if let Some(e) = error {
            self.flush_cut_string(e.path().segments());
            let at = self.input_offset(self.json_at + e.offset());
            if self.current.reported {
                self.fail(&e, at, parser.snapshot().cloned());
            } else if self.fenced {
                // Nothing reported yet: the fence is shown as code.
                self.events.push_back(ActionEvent::Error {
                    call: None,
                    error: ActionError::Json {
                        error: e.with_offset(at),
                        context: JsonContext::Fence,
                    },
                    partial: None,
                });
                self.show_fence_opening();
                self.mode = Mode::CodeFence;
            } else {
                // Outside a fence, what looked like JSON was prose after all.
                self.mode = Mode::Prose;
                self.line_start = false;
            }
            let raw = core::mem::take(&mut self.raw);
            self.text.push_str(&raw);
            self.current = Current::default();
            // The offending byte is read again as text: the mode changed,
            // so it cannot start JSON again.
            return used;
        }
        if parser.is_complete() {
            // The value ends at its closing bracket; whitespace the parser
            // read after it belongs to the text that follows.
            let value_end = rest.get(..used).map_or(used, |r| r.trim_end().len());
            let extra = used - value_end;
            self.raw.truncate(self.raw.len().saturating_sub(extra));
            let used = value_end;
            self.mode = if self.fenced {
                Mode::AfterJson
            } else {
                Mode::Prose
            };
            self.line_start = false;
            self.fence_ws.clear();
            return used;
        }
        self.parser = Some(parser);
        used
    }

    /// A value already reported on turned out invalid at input offset `at`:
    /// an error ends the open call, if any, and the text from the failing
    /// byte on is read as prose (in a fence, up to its closing fence).
    fn fail(&mut self, e: &Error, at: u64, mut partial: Option<Value>) {
        // A literal or number cut by the failure (`then` read as `true`,
        // `1.` of `1. First`) was prose: it leaves the partial value (where
        // only a literal shows) and is given back as text.
        let cut = match e.kind() {
            ErrorKind::Unexpected {
                expected: Expected::Literal(_),
                ..
            } => {
                if let Some(partial) = partial.as_mut() {
                    drop_last(partial, e.path().segments());
                }
                true
            }
            ErrorKind::Unexpected {
                expected: Expected::Digit,
                ..
            }
            | ErrorKind::LeadingZero => true,
            _ => false,
        };
        let call = self.current.call.take();
        let number = call.as_ref().map(|(call, _)| *call);
        let context = match call {
            Some((call, name)) => JsonContext::Action { call, name },
            None => JsonContext::Value,
        };
        self.events.push_back(ActionEvent::Error {
            call: number,
            error: ActionError::Json {
                error: e.with_offset(at),
                context,
            },
            partial,
        });
        if self.fenced {
            self.fence_ws.clear();
            self.mode = Mode::FenceText;
        } else {
            self.mode = Mode::Prose;
        }
        self.line_start = false;
        if cut {
            let token = core::mem::take(&mut self.token);
            self.text.push_str(&token);
        }
    }

    /// Acts on one JSON event read from text offset `at` of the value;
    /// `true` for a container end whose value is wanted (handed to
    /// [`ActionStream::closed`]).
    fn handle(&mut self, at: u64, segments: &[Segment], kind: EventKind<'_>) -> bool {
        let depth = segments.len();
        let prefix = usize::from(self.current.array);
        match kind {
            EventKind::StartObject | EventKind::StartArray => {
                self.budget.open(at);
                if depth == 0 {
                    self.current.array = kind == EventKind::StartArray;
                } else if depth == prefix {
                    // A new element of the array of actions.
                    self.current.call = None;
                    self.current.held.clear();
                }
                return false;
            }
            EventKind::EndObject | EventKind::EndArray => {
                if depth == 0 && self.current.array {
                    // The array of actions: its elements were reported.
                    self.budget.close_quiet();
                    return false;
                }
                if depth <= prefix {
                    // An action object (or a value that is not one): these
                    // do not nest, so their copies add up to the text.
                    self.budget.close_forced(at, segments);
                    return true;
                }
                if is_action_member(segments.get(prefix..).unwrap_or(&[])) {
                    self.budget.close_quiet();
                    return false;
                }
            }
            _ => {}
        }
        if depth == 0 {
            // A top-level scalar (not reached: JSON starts at a bracket).
            if let (Some(value), false) = (scalar(kind), self.current.array) {
                self.budget.count();
                self.end_object(Some(value));
            }
            return false;
        }
        if depth == prefix {
            match scalar(kind) {
                Some(value) => {
                    self.budget.count();
                    self.end_object(Some(value));
                }
                None => {
                    // A new element of the array of actions.
                    self.current.call = None;
                    self.current.held.clear();
                }
            }
            return false;
        }
        let rel = segments.get(prefix..).unwrap_or(&[]);
        if is_action_member(rel) {
            // `action` names the tool; it is never an argument (a repeated
            // one, or one that is not a string, is dropped).
            let is_name = rel.len() == 1 && self.current.call.is_none();
            match kind {
                EventKind::String(name) if is_name => {
                    self.budget.count();
                    let call = self.next_call;
                    self.next_call += 1;
                    self.events.push_back(ActionEvent::ToolCallStart {
                        call,
                        name: String::from(name),
                    });
                    self.current.call = Some((call, String::from(name)));
                    self.current.reported = true;
                    let held = core::mem::take(&mut self.current.held);
                    for mut event in held {
                        set_call(&mut event, call);
                        self.events.push_back(event);
                    }
                }
                EventKind::StringDelta(_) => {}
                _ => self.budget.count(),
            }
            return false;
        }
        let call = self.current.call.as_ref().map_or(0, |(c, _)| *c);
        let report = self.budget.charge(at, rel, kind);
        if let Some(text) = report.delta {
            let path = PathBuf::from(rel.to_vec());
            self.argument(call, ArgumentEvent::Delta { path, text });
        }
        match report.value {
            Some(Completed::Scalar(value)) => {
                let path = PathBuf::from(rel.to_vec());
                self.argument(call, ArgumentEvent::Value { path, value });
                false
            }
            Some(Completed::Container) => true,
            None => false,
        }
    }

    /// A container closed whose value [`ActionStream::handle`] asked for.
    fn closed(&mut self, path: PathBuf, value: Option<Value>) {
        let prefix = usize::from(self.current.array);
        if path.segments().len() <= prefix {
            self.end_object(value);
            return;
        }
        let Some(value) = value else {
            return;
        };
        let call = self.current.call.as_ref().map_or(0, |(c, _)| *c);
        let rel = path.segments().get(prefix..).unwrap_or(&[]);
        let path = if prefix == 0 {
            path
        } else {
            PathBuf::from(rel.to_vec())
        };
        self.argument(call, ArgumentEvent::Value { path, value });
    }

    /// An argument event: reported, or held until `action` arrives (its
    /// cost was charged to the value's budget, which bounds what is held).
    fn argument(&mut self, call: u64, event: ArgumentEvent) {
        let event = ActionEvent::Argument { call, event };
        if self.current.call.is_some() {
            self.events.push_back(event);
        } else {
            self.current.held.push(event);
        }
    }

    /// The text held back of an argument string already reported on, at
    /// `segments`, goes out before what cuts the string (an error, or the
    /// end of the input), so that its deltas add up to its text.
    fn flush_cut_string(&mut self, segments: &[Segment]) {
        let prefix = usize::from(self.current.array);
        let rel = segments.get(prefix..).unwrap_or(&[]);
        if let Some(text) = self.budget.string_end(rel) {
            let call = self.current.call.as_ref().map_or(0, |(c, _)| *c);
            let path = PathBuf::from(rel.to_vec());
            self.argument(call, ArgumentEvent::Delta { path, text });
        }
    }

    /// An action object (or a value that is not one) closed: its value.
    fn end_object(&mut self, value: Option<Value>) {
        self.current.held.clear();
        match (self.current.call.take(), value) {
            (Some((call, name)), Some(Value::Object(map))) => {
                // Every `action` member goes, in one pass: removing them
                // one by one shifted the members after each.
                let arguments: Map = map
                    .into_iter()
                    .filter(|(key, _)| key.as_str() != "action")
                    .collect();
                self.events.push_back(ActionEvent::ToolCallEnd {
                    call,
                    name,
                    arguments: Value::Object(arguments),
                });
            }
            (_, Some(value)) => self.events.push_back(ActionEvent::Json(value)),
            (_, None) => return,
        }
        self.current.reported = true;
    }
}

/// Removes the value at `path` from `root`, where it is the last member of
/// its container (the value being parsed when the parser failed).
fn drop_last(root: &mut Value, path: &[Segment]) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let parent = parents
        .iter()
        .try_fold(root, |value, segment| match segment {
            Segment::Index(i) => value.get_index_mut(*i),
            Segment::Key(key) => value.get_mut(key),
        });
    let Some(parent) = parent else {
        return;
    };
    match (parent, last) {
        (Value::Array(items), Segment::Index(_)) => {
            items.pop();
        }
        (Value::Object(map), Segment::Key(key)) => {
            map.remove(key);
        }
        _ => {}
    }
}

/// Gives a held argument event its call number.
fn set_call(event: &mut ActionEvent, number: u64) {
    if let ActionEvent::Argument { call, .. } = event {
        *call = number;
    }
}

/// Whether `rel` lies in an action object's `action` member.
fn is_action_member(rel: &[Segment]) -> bool {
    matches!(rel.first(), Some(Segment::Key(k)) if k == "action")
}

/// The value of a scalar event.
fn scalar(kind: EventKind<'_>) -> Option<Value> {
    Some(match kind {
        EventKind::String(t) => Value::from(t),
        EventKind::Number(raw) => Number::from_text(raw).map_or(Value::Null, Value::Number),
        EventKind::Bool(b) => Value::Bool(b),
        EventKind::Null => Value::Null,
        _ => return None,
    })
}
