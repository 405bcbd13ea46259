//! The text around the JSON: prose, ``` fences and their info strings,
//! runs of backticks, and a `[` that may open an array of actions. These
//! modes decide where JSON may start and what is shown as text; the JSON
//! itself is mapped to actions in the parent module.

use super::{ActionStream, Mode};

/// Whether a fence's info string announces JSON (or nothing).
fn is_json_info(info: &str) -> bool {
    let info = info.trim();
    info.is_empty()
        || ["json", "jsonc", "json5"]
            .iter()
            .any(|j| info.eq_ignore_ascii_case(j))
}

/// The longest fence info string considered; longer means it was not one.
const MAX_INFO: usize = 64;

/// What a run of backticks turned out to be.
enum Ticks {
    /// The piece ended inside the run: judged with the next piece.
    Pending(usize),
    /// Three or more: a fence marker (bytes used, run length).
    Fence(usize, usize),
    /// Fewer than three: plain text (bytes used, run length).
    Plain(usize, usize),
}

impl ActionStream {
    /// Counts backticks at the start of `rest`, after any held from the
    /// previous piece. A run is only judged once something else follows it:
    /// ```` ```` ```` split after three backticks is still one fence marker.
    fn backticks(&mut self, rest: &str) -> Ticks {
        let n = rest.bytes().take_while(|&b| b == b'`').count();
        let total = self.ticks + n;
        if n == rest.len() {
            self.ticks = total;
            return Ticks::Pending(n);
        }
        self.ticks = 0;
        if total >= 3 {
            Ticks::Fence(n, total)
        } else {
            Ticks::Plain(n, total)
        }
    }

    /// A run of backticks in any mode but JSON: held, a fence marker, or
    /// plain backticks (which, where JSON was awaited, make the fence code).
    fn tick_run(&mut self, rest: &str) -> usize {
        match self.backticks(rest) {
            Ticks::Pending(used) => used,
            Ticks::Fence(used, count) => {
                self.fence_marker(count);
                used
            }
            Ticks::Plain(used, count) => {
                if matches!(self.mode, Mode::FenceBody | Mode::AfterJson) {
                    self.become_code_fence();
                }
                self.push_ticks(count);
                used
            }
        }
    }

    pub(super) fn push_ticks(&mut self, count: usize) {
        for _ in 0..count {
            self.text.push('`');
        }
        self.line_start = false;
    }

    /// A run of three or more backticks: opens a fence in prose, closes one
    /// inside a fence.
    pub(super) fn fence_marker(&mut self, count: usize) {
        match self.mode {
            Mode::Prose => {
                self.mode = Mode::FenceInfo;
                self.info.clear();
            }
            Mode::CodeFence => {
                self.push_ticks(count);
                self.mode = Mode::Prose;
            }
            _ => {
                // The fence around JSON closes: it is not shown.
                self.fence_ws.clear();
                self.mode = Mode::Prose;
                self.line_start = false;
            }
        }
    }

    /// Shows the opening of a JSON fence whose content turned out not to be
    /// JSON, so that the text keeps balanced fences.
    pub(super) fn show_fence_opening(&mut self) {
        self.text.push_str("```");
        let info = core::mem::take(&mut self.info);
        self.text.push_str(&info);
        self.text.push('\n');
        let ws = core::mem::take(&mut self.fence_ws);
        self.text.push_str(&ws);
    }

    /// After a `[` at a line start: a `{` makes it JSON, anything else prose.
    pub(super) fn bracket(&mut self, rest: &str) -> usize {
        let Some(&first) = rest.as_bytes().first() else {
            return 0;
        };
        match first {
            b' ' | b'\t' | b'\r' | b'\n' => {
                self.bracket.push(char::from(first));
                1
            }
            b'{' => {
                let bracket = core::mem::take(&mut self.bracket);
                self.start_json(false);
                // The value began at the `[`.
                self.json_at = self.offset.saturating_sub(bracket.len() as u64);
                // The parser takes the whole `[` and whitespace (it cannot
                // complete on them); then the `{` is read in JSON mode.
                let _ = self.json(&bracket);
                0
            }
            _ => {
                let bracket = core::mem::take(&mut self.bracket);
                self.text.push_str(&bracket);
                self.line_start = false;
                self.mode = Mode::Prose;
                0
            }
        }
    }

    /// Prose (or the content of a code fence): up to the next byte that may
    /// change the mode.
    pub(super) fn prose(&mut self, rest: &str) -> usize {
        let code = matches!(self.mode, Mode::CodeFence | Mode::FenceText);
        let bytes = rest.as_bytes();
        let Some(&first) = bytes.first() else {
            return 0;
        };
        if first == b'`' || self.ticks > 0 {
            return self.tick_run(rest);
        }
        if !code && self.line_start && first == b'{' {
            self.start_json(false);
            return 0;
        }
        if !code && self.line_start && first == b'[' {
            self.flush_text();
            self.bracket.clear();
            self.bracket.push('[');
            self.mode = Mode::Bracket;
            return 1;
        }
        let run = bytes
            .iter()
            .position(|&b| b == b'`' || b == b'\n' || (!code && (b == b'{' || b == b'[')))
            .unwrap_or(bytes.len());
        if run == 0 {
            // A line break, or a brace that is not at a line start.
            self.text.push(char::from(first));
            self.line_start = first == b'\n';
            return 1;
        }
        let chunk = rest.get(..run).unwrap_or("");
        if chunk.bytes().any(|b| !matches!(b, b' ' | b'\t' | b'\r')) {
            self.line_start = false;
        }
        self.text.push_str(chunk);
        run
    }

    /// The info string after an opening fence, up to its line break.
    pub(super) fn fence_info(&mut self, rest: &str) -> usize {
        // The line break is looked for only as far as an info string can
        // reach (the char that passes MAX_INFO included): searching the
        // whole rest made a run of long openings quadratic in the piece.
        // With no break within that window, the window passes the limit,
        // so the outcome is the same.
        let mut window = rest.len().min(MAX_INFO + 4);
        while !rest.is_char_boundary(window) {
            window += 1;
        }
        let end = rest
            .as_bytes()
            .get(..window)
            .and_then(|w| w.iter().position(|&b| b == b'\n'));
        let part = rest.get(..end.unwrap_or(window)).unwrap_or("");
        // Characters are taken one by one until the info string passes its
        // limit, so that where it does (and so what is read after it as
        // prose) does not depend on where the pieces were cut.
        let mut take = 0;
        for c in part.chars() {
            if self.info.len() + take > MAX_INFO {
                break;
            }
            take += c.len_utf8();
        }
        self.info.push_str(part.get(..take).unwrap_or(""));
        if self.info.len() > MAX_INFO {
            // Not a fence opening after all: give the text back; what
            // follows is read as prose.
            self.text.push_str("```");
            let info = core::mem::take(&mut self.info);
            self.text.push_str(&info);
            self.mode = Mode::Prose;
            self.line_start = false;
            return take;
        }
        let Some(end) = end else {
            return part.len();
        };
        if is_json_info(&self.info) {
            self.mode = Mode::FenceBody;
            self.fence_ws.clear();
        } else {
            self.text.push_str("```");
            let info = core::mem::take(&mut self.info);
            self.text.push_str(&info);
            self.text.push('\n');
            self.mode = Mode::CodeFence;
        }
        end + 1
    }

    /// Inside a fence, where JSON may start (or, after a value, the fence
    /// may close).
    pub(super) fn fence_body(&mut self, rest: &str) -> usize {
        let bytes = rest.as_bytes();
        let Some(&first) = bytes.first() else {
            return 0;
        };
        if first == b'`' || self.ticks > 0 {
            return self.tick_run(rest);
        }
        match first {
            b' ' | b'\t' | b'\r' | b'\n' => {
                self.fence_ws.push(char::from(first));
                1
            }
            b'{' | b'[' => {
                self.start_json(true);
                0
            }
            _ => {
                self.become_code_fence();
                0
            }
        }
    }

    /// The fence turned out to hold something other than JSON: before any
    /// JSON, it is code and shown whole; after JSON, the rest is text and
    /// the closing fence is hidden like the opening.
    fn become_code_fence(&mut self) {
        if self.mode == Mode::FenceBody {
            self.show_fence_opening();
            self.mode = Mode::CodeFence;
        } else {
            let ws = core::mem::take(&mut self.fence_ws);
            self.text.push_str(&ws);
            self.mode = Mode::FenceText;
        }
    }
}
