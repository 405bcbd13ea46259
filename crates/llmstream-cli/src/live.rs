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
use crossterm::QueueableCommand;
use llmstream::json::Value;
use llmstream::providers::{MessageBuilder, StreamEvent};

/// Whether to draw with colours and cursor movement.
pub fn fancy_output() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").map_or(true, |v| v.is_empty())
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
}

/// Counts of what was shown, for the summary line.
#[derive(Default, Clone, Copy)]
pub struct Tally {
    pub events: u64,
    pub tool_calls: u64,
}

/// Renders normalized events as they arrive.
pub struct LiveView {
    out: Stdout,
    fancy: bool,
    width: usize,
    /// The kind of the text run being printed, if any.
    text: Option<TextKind>,
    /// Whether the cursor is at the start of a line.
    at_line_start: bool,
    active: Option<ActiveCall>,
    /// Calls whose arguments were already drawn in full.
    drawn: std::collections::HashSet<(u64, u64)>,
    pub tally: Tally,
}

impl LiveView {
    pub fn new(fancy: bool) -> Self {
        let width = crossterm::terminal::size()
            .map(|(w, _)| usize::from(w))
            .unwrap_or(80)
            .max(20);
        LiveView {
            out: std::io::stdout(),
            fancy,
            width,
            text: None,
            at_line_start: true,
            active: None,
            drawn: std::collections::HashSet::new(),
            tally: Tally::default(),
        }
    }

    fn color(&mut self, color: Color) {
        if self.fancy {
            let _ = self.out.queue(SetForegroundColor(color));
        }
    }

    fn attr(&mut self, attr: Attribute) {
        if self.fancy {
            let _ = self.out.queue(SetAttribute(attr));
        }
    }

    fn reset(&mut self) {
        if self.fancy {
            let _ = self.out.queue(ResetColor);
            let _ = self.out.queue(SetAttribute(Attribute::Reset));
        }
    }

    fn print(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        let _ = self.out.queue(Print(text));
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

    fn stream_text(&mut self, kind: TextKind, text: &str) {
        self.finish_active(None);
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
            StreamEvent::MessageStart { id, model } => {
                let id = id.as_deref().unwrap_or("?");
                let model = model.as_deref().unwrap_or("?");
                self.note(&format!("message {id} from {model}"));
            }
            StreamEvent::TextDelta { text, .. } => self.stream_text(TextKind::Text, text),
            StreamEvent::ReasoningDelta { text, .. } => self.stream_text(TextKind::Reasoning, text),
            StreamEvent::RefusalDelta { text, .. } => self.stream_text(TextKind::Refusal, text),
            StreamEvent::ToolCallStart {
                choice,
                call,
                id,
                name,
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
            StreamEvent::ArgumentDelta { .. } | StreamEvent::Argument { .. } => {}
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
                if ours {
                    self.finish_active_with(arguments);
                } else if !self.drawn.contains(&(*choice, *call)) {
                    // Plain mode (or a call drawn out of turn) shows the
                    // arguments once, complete, under the call's name.
                    self.close_text();
                    self.newline_if_needed();
                    self.color(Color::Magenta);
                    self.print(&format!("⚙ {name}({id}) ="));
                    self.reset();
                    self.print("\n");
                    self.draw_tree(arguments, false);
                    self.drawn.insert((*choice, *call));
                }
                if let Some(error) = arguments_error {
                    self.note(&format!("{name}: arguments are not valid JSON: {error}"));
                }
            }
            StreamEvent::Usage(usage) => {
                let n = |v: Option<u64>| v.map_or("?".to_string(), |v| v.to_string());
                self.note(&format!(
                    "usage: {} in, {} out, {} total",
                    n(usage.input_tokens),
                    n(usage.output_tokens),
                    n(usage.total_tokens)
                ));
            }
            StreamEvent::Finish { reason, .. } => {
                self.finish_active(builder);
                self.note(&format!("finish: {reason}"));
            }
            StreamEvent::Error { message } => {
                self.close_text();
                self.newline_if_needed();
                self.color(Color::Red);
                self.print(&format!("error: {message}\n"));
                self.reset();
            }
        }
    }

    /// Draws what changed since the last piece.
    pub fn render(&mut self, builder: Option<&MessageBuilder>) {
        if self.fancy {
            if let (Some(active), Some(builder)) = (self.active.as_ref(), builder) {
                if active.dirty {
                    let (choice, call) = (active.choice, active.call);
                    let value = builder.arguments(choice, call).cloned();
                    self.redraw(value.as_ref(), true);
                }
            }
        }
        let _ = self.out.flush();
    }

    fn redraw(&mut self, value: Option<&Value>, streaming: bool) {
        let rows = self.active.as_ref().map_or(0, |a| a.rows);
        if rows > 0 {
            let _ = self.out.queue(MoveToPreviousLine(rows));
            let _ = self.out.queue(Clear(ClearType::FromCursorDown));
        }
        let drawn = match value {
            Some(v) => self.draw_tree(v, streaming),
            None => {
                self.attr(Attribute::Dim);
                self.print("  …\n");
                self.reset();
                1
            }
        };
        if let Some(active) = self.active.as_mut() {
            active.rows = drawn;
            active.dirty = false;
        }
    }

    fn finish_active_with(&mut self, arguments: &Value) {
        let Some((choice, call)) = self.active.as_ref().map(|a| (a.choice, a.call)) else {
            return;
        };
        self.redraw(Some(arguments), false);
        self.drawn.insert((choice, call));
        self.active = None;
    }

    fn finish_active(&mut self, builder: Option<&MessageBuilder>) {
        let Some(active) = self.active.as_ref() else {
            return;
        };
        let value = builder
            .and_then(|b| b.arguments(active.choice, active.call))
            .cloned()
            .unwrap_or(Value::Null);
        self.finish_active_with(&value);
    }

    /// Prints `value` as an indented, coloured tree; returns the rows used.
    fn draw_tree(&mut self, value: &Value, streaming: bool) -> u16 {
        let mut lines: Vec<Vec<(Option<Color>, String)>> = Vec::new();
        let mut line = vec![(None, "  ".to_string())];
        tree(value, 1, &mut line, &mut lines);
        if streaming {
            line.push((Some(Color::DarkGrey), " ▍".to_string()));
        }
        lines.push(line);
        let mut rows: u16 = 0;
        for line in lines {
            let mut chars = 0usize;
            for (color, text) in line {
                chars += text.chars().count();
                match color {
                    Some(c) => self.color(c),
                    None => self.reset(),
                }
                self.print(&text);
            }
            self.reset();
            self.print("\n");
            let used = chars.div_ceil(self.width).max(1);
            rows = rows.saturating_add(u16::try_from(used).unwrap_or(u16::MAX));
        }
        rows
    }

    /// Ends the output (a final newline, colours reset).
    pub fn close(&mut self) {
        self.finish_active(None);
        self.close_text();
        self.newline_if_needed();
        let _ = self.out.flush();
    }
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
