//! Live terminal rendering of a provider stream: text as it streams, and
//! each tool call's arguments as a pretty, coloured partial JSON tree that
//! fills in as its fragments arrive.
//!
//! On a terminal the tree of the call being streamed is redrawn in place
//! after every piece (cursor up, clear, draw); text is only ever appended,
//! so output stays linear in the stream. Plain mode (stdout not a terminal,
//! or `NO_COLOR` set) uses no colours and no cursor movement: text as it
//! arrives, each tool call's arguments once complete.

use std::io::{IsTerminal, Stdout, Write};

use crossterm::cursor::MoveToPreviousLine;
use crossterm::style::{Attribute, Color, Print, ResetColor, SetAttribute, SetForegroundColor};
use crossterm::terminal::{Clear, ClearType};
use crossterm::{Command, QueueableCommand};
use llmstream::json::Value;
use llmstream::providers::{MessageBuilder, StreamEvent, Usage};
use unicode_width::UnicodeWidthChar;

use crate::output::write_failure;
use crate::Failure;

/// Whether to draw with colours and cursor movement.
pub fn fancy_output() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum TextKind {
    Text,
    Reasoning,
    Refusal,
}

/// The tool call whose arguments are being drawn.
struct ActiveCall {
    choice: u64,
    call: u64,
    /// Terminal rows the last drawing took (to move back over them).
    rows: u16,
    dirty: bool,
    /// The tree grew taller than the screen, where moving back over it
    /// cannot reach its top: a one-line placeholder stands in for it until
    /// the call ends.
    too_tall: bool,
    /// The arguments last drawn, for a draft when the stream stops.
    last: Option<Value>,
}

/// Counts of what was shown, for the summary line.
#[derive(Default, Clone, Copy)]
pub struct Tally {
    pub events: u64,
    pub tool_calls: u64,
}

/// Renders normalized events as they arrive, to stdout (or, in tests, to
/// any writer).
pub struct LiveView<W: Write = Stdout> {
    out: W,
    /// The first write that failed: nothing more is written, and
    /// [`render`](Self::render) and [`close`](Self::close) report it, so
    /// that a closed pipe (`| head`) stops the command and a full disk
    /// fails it.
    broken: Option<std::io::Error>,
    fancy: bool,
    width: usize,
    height: usize,
    /// The kind of the text run being printed, if any.
    text: Option<TextKind>,
    /// The text of choices other than the first, kept to be shown whole at
    /// the end (streamed in turns, `n` > 1 choices would interleave token by
    /// token): per choice, its runs of one kind each.
    other_choices: std::collections::BTreeMap<u64, Vec<(TextKind, String)>>,
    /// The last token counts, shown once the stream ends (Gemini sends
    /// them with every chunk: shown as they come, they cut the text up).
    usage: Option<Usage>,
    /// Whether the cursor is at the start of a line.
    at_line_start: bool,
    active: Option<ActiveCall>,
    /// Calls whose arguments were already drawn in full.
    drawn: std::collections::HashSet<(u64, u64)>,
    /// Calls that ended while another call's tree was being drawn, to be
    /// shown below it once it is done: printed at once, they would sit
    /// where its next redraw writes.
    deferred: Vec<EndedCall>,
    pub tally: Tally,
}

/// A call's complete arguments, shown under `⚙ name(id) =`.
struct EndedCall {
    name: String,
    id: String,
    arguments: Value,
    error: Option<String>,
}

impl LiveView {
    pub fn new(fancy: bool) -> Self {
        let (width, height) = crossterm::terminal::size()
            .map(|(w, h)| (usize::from(w), usize::from(h)))
            .unwrap_or((80, 24));
        LiveView::with_output(std::io::stdout(), fancy, width, height)
    }
}

impl<W: Write> LiveView<W> {
    /// A view drawing to `out`, on a screen of `width` × `height`.
    fn with_output(out: W, fancy: bool, width: usize, height: usize) -> Self {
        LiveView {
            out,
            broken: None,
            fancy,
            width: width.max(20),
            height: height.max(4),
            text: None,
            other_choices: std::collections::BTreeMap::new(),
            usage: None,
            at_line_start: true,
            active: None,
            drawn: std::collections::HashSet::new(),
            deferred: Vec::new(),
            tally: Tally::default(),
        }
    }

    /// Queues `command` unless a write already failed; keeps the first
    /// failure.
    fn queue(&mut self, command: impl Command) {
        if self.broken.is_none() {
            if let Err(error) = self.out.queue(command) {
                self.broken = Some(error);
            }
        }
    }

    /// Flushes, and reports the first write that failed, if any.
    fn flush(&mut self) -> Result<(), Failure> {
        if self.broken.is_none() {
            if let Err(error) = self.out.flush() {
                self.broken = Some(error);
            }
        }
        self.broken
            .as_ref()
            .map_or(Ok(()), |error| Err(write_failure(error)))
    }

    fn color(&mut self, color: Color) {
        if self.fancy {
            self.queue(SetForegroundColor(color));
        }
    }

    fn attr(&mut self, attr: Attribute) {
        if self.fancy {
            self.queue(SetAttribute(attr));
        }
    }

    fn reset(&mut self) {
        if self.fancy {
            self.queue(ResetColor);
            self.queue(SetAttribute(Attribute::Reset));
        }
    }

    fn print(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        self.queue(Print(text));
        self.at_line_start = text.ends_with('\n');
    }

    fn newline_if_needed(&mut self) {
        if !self.at_line_start {
            self.print("\n");
        }
    }

    /// A heading line: `── title ──`.
    pub fn heading(&mut self, title: &str) {
        self.close_text();
        self.newline_if_needed();
        self.color(Color::DarkCyan);
        self.attr(Attribute::Bold);
        self.print(&format!("── {title} ──\n"));
        self.reset();
    }

    /// A dim note line.
    pub fn note(&mut self, text: &str) {
        self.close_text();
        self.newline_if_needed();
        self.attr(Attribute::Dim);
        self.print(text);
        self.print("\n");
        self.reset();
    }

    fn close_text(&mut self) {
        if self.text.take().is_some() {
            self.reset();
            self.newline_if_needed();
        }
    }

    fn stream_text(
        &mut self,
        kind: TextKind,
        choice: u64,
        text: &str,
        builder: Option<&MessageBuilder>,
    ) {
        if choice != 0 {
            let runs = self.other_choices.entry(choice).or_default();
            match runs.last_mut() {
                Some((last, run)) if *last == kind => run.push_str(text),
                _ => runs.push((kind, text.to_string())),
            }
            return;
        }
        self.finish_active(builder);
        if self.text != Some(kind) {
            self.close_text();
            self.newline_if_needed();
            match kind {
                TextKind::Reasoning => {
                    self.attr(Attribute::Dim);
                    self.print("thinking › ");
                    self.attr(Attribute::Italic);
                }
                TextKind::Refusal => {
                    self.color(Color::Red);
                    self.print("refusal › ");
                }
                TextKind::Text => {}
            }
            self.text = Some(kind);
        }
        self.print(text);
    }

    /// Takes one event; `builder` gives the live tool-call arguments.
    pub fn event(&mut self, event: &StreamEvent, builder: Option<&MessageBuilder>) {
        self.tally.events += 1;
        match event {
            StreamEvent::MessageStart { id, model, .. } => {
                let id = id.as_deref().unwrap_or("?");
                let model = model.as_deref().unwrap_or("?");
                self.note(&format!("message {id} from {model}"));
            }
            StreamEvent::TextDelta { choice, text } => {
                self.stream_text(TextKind::Text, *choice, text, builder)
            }
            StreamEvent::ReasoningDelta { choice, text } => {
                self.stream_text(TextKind::Reasoning, *choice, text, builder)
            }
            StreamEvent::RefusalDelta { choice, text } => {
                self.stream_text(TextKind::Refusal, *choice, text, builder)
            }
            StreamEvent::ProviderToolStart { id, name, .. } if !id.is_empty() => {
                // A tool the provider runs: shown, never one to answer.
                self.finish_active(builder);
                self.close_text();
                self.newline_if_needed();
                self.tally.tool_calls += 1;
                self.color(Color::Magenta);
                self.attr(Attribute::Bold);
                self.print(&format!("⚙ {name}"));
                self.reset();
                self.attr(Attribute::Dim);
                self.print(&format!("  {id}  (run by the provider)\n"));
                self.reset();
            }
            StreamEvent::ToolCallStart {
                choice,
                call,
                id,
                name,
                ..
            } => {
                self.finish_active(builder);
                self.close_text();
                self.newline_if_needed();
                self.tally.tool_calls += 1;
                self.color(Color::Magenta);
                self.attr(Attribute::Bold);
                self.print(&format!("⚙ {name}"));
                self.reset();
                self.attr(Attribute::Dim);
                self.print(&format!("  {id}\n"));
                self.reset();
                if self.fancy {
                    self.active = Some(ActiveCall {
                        choice: *choice,
                        call: *call,
                        rows: 0,
                        dirty: true,
                        too_tall: false,
                        last: None,
                    });
                }
            }
            StreamEvent::ToolCallDelta { choice, call, .. } => {
                if let Some(active) = self.active.as_mut() {
                    if active.choice == *choice && active.call == *call {
                        active.dirty = true;
                    }
                }
            }
            StreamEvent::Argument { .. } => {}
            StreamEvent::ToolCallEnd {
                choice,
                call,
                id,
                name,
                arguments,
                arguments_error,
            } => {
                let ours = self
                    .active
                    .as_ref()
                    .is_some_and(|a| a.choice == *choice && a.call == *call);
                let error = arguments_error.as_ref().map(ToString::to_string);
                if ours {
                    self.finish_active_with(Some(arguments), true);
                    if let Some(error) = error {
                        self.invalid_arguments(name, &error);
                    }
                    self.show_deferred();
                } else if self.drawn.insert((*choice, *call)) {
                    // Plain mode (or a call drawn out of turn) shows the
                    // arguments once, complete, under the call's name.
                    if self.active.is_some() {
                        self.deferred.push(EndedCall {
                            name: name.clone(),
                            id: id.clone(),
                            arguments: arguments.clone(),
                            error,
                        });
                    } else {
                        self.show_ended(name, id, arguments, error.as_deref());
                    }
                } else if let Some(error) = error {
                    self.invalid_arguments(name, &error);
                }
            }
            StreamEvent::Usage(usage) => self.usage = Some(usage.clone()),
            StreamEvent::Finish { reason, .. } => {
                self.finish_active(builder);
                self.note(&format!("finish: {reason}"));
            }
            StreamEvent::Error(error) => {
                // Below the tree being drawn, a line would be lost to its
                // next redraw: the tree stops here (shown again at its end).
                self.finish_active(builder);
                self.close_text();
                self.newline_if_needed();
                self.color(Color::Red);
                self.print(&format!("error: {}\n", error.message));
                self.reset();
            }
            // What the view does not draw: part boundaries, signatures,
            // citations, kept blocks, final copies, completion.
            _ => {}
        }
    }

    /// Shows a call that ended under `⚙ name(id) =`.
    fn show_ended(&mut self, name: &str, id: &str, arguments: &Value, error: Option<&str>) {
        self.close_text();
        self.newline_if_needed();
        self.color(Color::Magenta);
        self.print(&format!("⚙ {name}({id}) ="));
        self.reset();
        self.print("\n");
        self.draw_tree(arguments);
        if let Some(error) = error {
            self.invalid_arguments(name, error);
        }
    }

    fn invalid_arguments(&mut self, name: &str, error: &str) {
        self.note(&format!("{name}: arguments are not valid JSON: {error}"));
    }

    /// Draws what changed since the last piece; fails once output cannot
    /// be written.
    pub fn render(&mut self, builder: Option<&MessageBuilder>) -> Result<(), Failure> {
        if self.fancy {
            if let (Some(active), Some(builder)) = (self.active.as_mut(), builder) {
                if active.dirty && active.too_tall {
                    // Shown when complete: nothing to draw, nor to copy
                    // (a copy of the whole value per piece was quadratic).
                    active.dirty = false;
                } else if active.dirty {
                    let (choice, call) = (active.choice, active.call);
                    // It fitted on the screen at the last piece: a copy
                    // as small as the screen and this piece.
                    let value = builder.arguments(choice, call).cloned();
                    self.redraw(value.as_ref(), Drawing::Streaming);
                    if let Some(active) = self.active.as_mut() {
                        active.last = value;
                    }
                }
            }
        }
        self.flush()
    }

    fn redraw(&mut self, value: Option<&Value>, drawing: Drawing) {
        let streaming = drawing == Drawing::Streaming;
        let Some((rows, too_tall)) = self.active.as_ref().map(|a| (a.rows, a.too_tall)) else {
            return;
        };
        if too_tall && streaming {
            if let Some(active) = self.active.as_mut() {
                active.dirty = false;
            }
            return;
        }
        if rows > 0 {
            self.queue(MoveToPreviousLine(rows));
            self.queue(Clear(ClearType::FromCursorDown));
        }
        let lines = match value {
            Some(v) => tree_lines(v, drawing),
            None => vec![vec![(Some(Color::DarkGrey), "  …".to_string())]],
        };
        let tall = self.rows_of(&lines) >= self.height.saturating_sub(1);
        let drawn = if streaming && tall {
            // Too tall to move back over: a placeholder until the end
            // (drawn as a line, so that its rows are counted when it wraps).
            let text = "  … (taller than the screen: shown when complete)";
            self.draw_lines(vec![vec![(Some(Color::DarkGrey), text.to_string())]])
        } else {
            self.draw_lines(lines)
        };
        if let Some(active) = self.active.as_mut() {
            active.rows = drawn;
            active.dirty = false;
            active.too_tall |= streaming && tall;
        }
    }

    /// Draws the active call's final arguments. `ended`: the call is over;
    /// else another call or text took the screen first (calls interleaved):
    /// its arguments so far stay drawn, marked as a draft, and it is shown
    /// again, complete, when it ends.
    fn finish_active_with(&mut self, arguments: Option<&Value>, ended: bool) {
        let Some((choice, call)) = self.active.as_ref().map(|a| (a.choice, a.call)) else {
            return;
        };
        let drawing = if ended {
            Drawing::Final
        } else {
            Drawing::Draft
        };
        self.redraw(arguments, drawing);
        if ended {
            self.drawn.insert((choice, call));
        }
        self.active = None;
    }

    /// Shows the calls that ended while the active one was drawn.
    fn show_deferred(&mut self) {
        for call in std::mem::take(&mut self.deferred) {
            self.show_ended(&call.name, &call.id, &call.arguments, call.error.as_deref());
        }
    }

    /// Stops drawing the active call (text or another call comes): its
    /// arguments so far (from `builder`, else as last drawn) stay as a
    /// draft.
    fn finish_active(&mut self, builder: Option<&MessageBuilder>) {
        let Some(active) = self.active.as_mut() else {
            return;
        };
        let value = builder
            .and_then(|b| b.arguments(active.choice, active.call))
            .cloned()
            .or_else(|| active.last.take());
        self.finish_active_with(value.as_ref(), false);
        self.show_deferred();
    }

    /// Prints `value` as an indented, coloured tree; returns the rows used.
    fn draw_tree(&mut self, value: &Value) -> u16 {
        self.draw_lines(tree_lines(value, Drawing::Final))
    }

    /// Terminal rows `lines` take, wrapped as a terminal wraps them: each
    /// character takes its display width (a CJK character two columns),
    /// and one too wide for what is left of a row starts the next, leaving
    /// the last column blank.
    fn rows_of(&self, lines: &[Line]) -> usize {
        let mut rows = 0;
        for line in lines {
            rows += 1;
            let mut column = 0;
            for c in line.iter().flat_map(|(_, text)| text.chars()) {
                let width = c.width().unwrap_or(0);
                if column + width > self.width {
                    rows += 1;
                    column = 0;
                }
                column += width;
            }
        }
        rows
    }

    fn draw_lines(&mut self, lines: Vec<Line>) -> u16 {
        let rows = self.rows_of(&lines);
        for line in lines {
            for (color, text) in line {
                match color {
                    Some(c) => self.color(c),
                    None => self.reset(),
                }
                self.print(&text);
            }
            self.reset();
            self.print("\n");
        }
        u16::try_from(rows).unwrap_or(u16::MAX)
    }

    /// Ends the output of one stream (the call being drawn finished, with
    /// its arguments from `builder` if given, the last token counts, a
    /// final newline, colours reset). The view may then show another.
    /// Fails if output could not be written, now or before.
    pub fn close(&mut self, builder: Option<&MessageBuilder>) -> Result<(), Failure> {
        self.finish_active(builder);
        self.close_text();
        self.newline_if_needed();
        for (choice, runs) in std::mem::take(&mut self.other_choices) {
            self.heading(&format!("choice {choice}"));
            for (kind, text) in runs {
                self.stream_text(kind, 0, &text, None);
            }
            self.close_text();
        }
        if let Some(usage) = self.usage.take() {
            let n = |v: Option<u64>| v.map_or("?".to_string(), |v| v.to_string());
            self.note(&format!(
                "usage: {} in, {} out, {} total",
                n(usage.input_tokens),
                n(usage.output_tokens),
                n(usage.total_tokens)
            ));
        }
        // Calls are told apart by choice and index, which the next stream
        // counts from 0 again.
        self.drawn.clear();
        self.flush()
    }
}

/// How a call's arguments are drawn.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Drawing {
    /// Still arriving: redrawn in place, the cursor mark after them.
    Streaming,
    /// Left unfinished on screen (another call or text came first), shown
    /// whole later: an ellipsis after them.
    Draft,
    /// Complete.
    Final,
}

/// `value` as coloured lines of pretty JSON, marked as `drawing` says.
fn tree_lines(value: &Value, drawing: Drawing) -> Vec<Line> {
    let mut lines: Vec<Line> = Vec::new();
    let mut line = vec![(None, "  ".to_string())];
    tree(value, 1, &mut line, &mut lines);
    let mark = match drawing {
        Drawing::Streaming => " ▍",
        Drawing::Draft => " …",
        Drawing::Final => "",
    };
    if !mark.is_empty() {
        line.push((Some(Color::DarkGrey), mark.to_string()));
    }
    lines.push(line);
    lines
}

type Line = Vec<(Option<Color>, String)>;

/// Lays out a value as coloured lines (pretty JSON with two-space indents).
fn tree(value: &Value, depth: usize, line: &mut Line, lines: &mut Vec<Line>) {
    let indent = "  ".repeat(depth);
    match value {
        Value::Object(map) if !map.is_empty() => {
            line.push((None, "{".into()));
            let n = map.len();
            for (i, (key, v)) in map.iter().enumerate() {
                lines.push(std::mem::take(line));
                line.push((None, format!("{indent}  ")));
                line.push((Some(Color::Blue), json_str(key)));
                line.push((None, ": ".into()));
                tree(v, depth + 1, line, lines);
                if i + 1 < n {
                    line.push((None, ",".into()));
                }
            }
            lines.push(std::mem::take(line));
            line.push((None, format!("{indent}}}")));
        }
        Value::Array(items) if !items.is_empty() => {
            line.push((None, "[".into()));
            let n = items.len();
            for (i, v) in items.iter().enumerate() {
                lines.push(std::mem::take(line));
                line.push((None, format!("{indent}  ")));
                tree(v, depth + 1, line, lines);
                if i + 1 < n {
                    line.push((None, ",".into()));
                }
            }
            lines.push(std::mem::take(line));
            line.push((None, format!("{indent}]")));
        }
        Value::Object(_) => line.push((None, "{}".into())),
        Value::Array(_) => line.push((None, "[]".into())),
        Value::String(s) => {
            // Multi-line strings print their escapes: one row per line of
            // the tree keeps the redraw arithmetic exact.
            line.push((Some(Color::Green), json_str(s)));
        }
        Value::Number(n) => line.push((Some(Color::Cyan), n.to_string())),
        Value::Bool(b) => line.push((Some(Color::Yellow), b.to_string())),
        Value::Null => line.push((Some(Color::DarkGrey), "null".into())),
    }
}

fn json_str(s: &str) -> String {
    Value::from(s).to_json()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call_events(id: &str, arguments: &str) -> [StreamEvent; 2] {
        [
            StreamEvent::ToolCallStart {
                choice: 0,
                call: 0,
                id: id.to_string(),
                name: "get_weather".to_string(),
                kind: None,
            },
            StreamEvent::ToolCallEnd {
                choice: 0,
                call: 0,
                id: id.to_string(),
                name: "get_weather".to_string(),
                arguments: llmstream::json::parse(arguments.as_bytes()).expect("JSON"),
                arguments_error: None,
            },
        ]
    }

    /// Calls are told apart by (choice, index), which every stream counts
    /// from 0: the second stream's call 0 is shown too, not taken for the
    /// first stream's.
    #[test]
    fn each_stream_shows_its_own_calls() {
        let mut view = LiveView::with_output(Vec::new(), false, 80, 24);
        for (id, city) in [("call_1", "Lisbon"), ("call_2", "Porto")] {
            for event in call_events(id, &format!(r#"{{"city": "{city}"}}"#)) {
                view.event(&event, None);
            }
            view.close(None).expect("written");
        }
        let text = String::from_utf8(view.out.clone()).expect("UTF-8");
        assert!(text.contains("⚙ get_weather(call_1) =\n"), "{text}");
        assert!(text.contains("\"Lisbon\""), "{text}");
        assert!(text.contains("⚙ get_weather(call_2) =\n"), "{text}");
        assert!(text.contains("\"Porto\""), "{text}");
    }
}
