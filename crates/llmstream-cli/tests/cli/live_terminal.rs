//! The live view (`accumulate --live`, `demo`) in its fancy mode, run for
//! real: the binary is spawned in a pseudo-terminal of a chosen size
//! (stdout a terminal, `NO_COLOR` unset, `TERM=xterm-256color`), every byte
//! it writes is fed to a terminal emulator (`vt100`), and the tests read
//! what a user would see at the end: the screen and its scrollback, as
//! text, one logical line per line (rows the terminal wrapped are joined,
//! trailing blanks trimmed).
//!
//! The reference is the same command with stdout a pipe (plain mode): the
//! same text, notes and trees, without colours or cursor movement. The two
//! modes differ by design in how calls are shown, which every assertion
//! here accounts for: plain mode prints a call's header (`⚙ name  id`) when
//! it starts and its arguments once complete, under `⚙ name(id) =`; fancy
//! mode draws the tree under the header and redraws it in place (cursor
//! up, clear, draw) as fragments arrive, so the final screen has the final
//! tree right under the header and no `(id) =` line (`expected_screen`:
//! compared exactly). A call interrupted by another call or by text keeps
//! the tree drawn so far under its header and is printed again, complete,
//! under `⚙ name(id) =` when it ends (`check_by_design`).
//!
//! Tests 1b, 2b and 2d were written against three bugs of the view that
//! they found (a call that ended while another was drawn printed where the
//! next redraw wrote; a placeholder that wrapped counted as one row; a wide
//! character pushed past the right edge not counted), and failed before
//! the fixes.
//!
//! Unix only: Windows' pseudo-console re-renders what a program writes
//! and gives no end of file while the terminal is open.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use portable_pty::CommandBuilder;

use crate::pty;

const BIN: &str = env!("CARGO_BIN_EXE_llmstream");

/// How long one run may take before the test fails (instead of hanging).
const TIMEOUT: Duration = Duration::from_secs(60);

/// The cursor mark drawn after a tree that is still streaming.
const CURSOR_MARK: char = '▍';
/// The one-line stand-in for a tree taller than the screen.
const PLACEHOLDER: &str = "taller than the screen";

/// What a run in the pseudo-terminal left.
struct Screen {
    /// Every byte the program wrote.
    raw: Vec<u8>,
    /// The final screen and scrollback, one logical line each.
    lines: Vec<String>,
    /// The colour of each logical line's first cell.
    first_fg: Vec<vt100::Color>,
}

impl Screen {
    fn raw_has(&self, needle: &str) -> bool {
        self.raw
            .windows(needle.len())
            .any(|w| w == needle.as_bytes())
    }
}

/// Runs `llmstream args…` in a `rows`×`cols` pseudo-terminal until it exits;
fn run_in_pty(args: &[&str], rows: u16, cols: u16, no_color: bool) -> Screen {
    let mut cmd = CommandBuilder::new(BIN);
    cmd.args(args);
    cmd.cwd(env!("CARGO_MANIFEST_DIR"));
    cmd.env("TERM", "xterm-256color");
    for var in ["NO_COLOR", "COLUMNS", "LINES"] {
        cmd.env_remove(var);
    }
    if no_color {
        cmd.env("NO_COLOR", "1");
    }
    let what = format!("`llmstream {}` in a {cols}x{rows} pty", args.join(" "));
    let untested = "the live view's fancy mode";
    let (raw, status) = pty::run(cmd, rows, cols, &what, untested, TIMEOUT);
    let mut parser = vt100::Parser::new(rows, cols, 10_000);
    parser.process(&raw);
    let (lines, first_fg) = logical_lines(&mut parser);
    assert!(
        status.success(),
        "{what} exited with {status:?}; screen:\n{}",
        lines.join("\n")
    );
    Screen {
        raw,
        lines,
        first_fg,
    }
}

/// One terminal row, as `logical_lines` needs it.
struct Row {
    text: String,
    /// The terminal wrapped text from this row onto the next.
    wrapped: bool,
    /// The last column is blank after a filled one: where a wide character
    /// did not fit in the one column left (`vt100`, like tmux, does not mark
    /// such a row as wrapped).
    gap_at_end: bool,
    starts_wide: bool,
    first_fg: vt100::Color,
}

/// The scrollback and the screen, top to bottom, as logical lines (rows the
/// terminal wrapped joined, trailing blanks trimmed, trailing empty lines
/// dropped), with each one's first colour.
fn logical_lines(parser: &mut vt100::Parser) -> (Vec<String>, Vec<vt100::Color>) {
    let (rows, cols) = parser.screen().size();
    // The screen shows `rows` rows from `offset` rows up in the scrollback:
    // read it page by page from the top.
    parser.screen_mut().set_scrollback(usize::MAX);
    let mut offset = parser.screen().scrollback();
    let mut all: Vec<Row> = Vec::new();
    loop {
        parser.screen_mut().set_scrollback(offset);
        let screen = parser.screen();
        let take = if offset == 0 {
            rows
        } else {
            rows.min(u16::try_from(offset).unwrap_or(u16::MAX))
        };
        for (i, text) in (0..take).zip(screen.rows(0, cols)) {
            let filled = |col: u16| {
                screen
                    .cell(i, col)
                    .is_some_and(|c| c.has_contents() || c.is_wide_continuation())
            };
            all.push(Row {
                text,
                wrapped: screen.row_wrapped(i),
                gap_at_end: cols >= 2 && !filled(cols - 1) && filled(cols - 2),
                starts_wide: screen.cell(i, 0).is_some_and(vt100::Cell::is_wide),
                first_fg: screen
                    .cell(i, 0)
                    .map_or(vt100::Color::Default, vt100::Cell::fgcolor),
            });
        }
        if offset == 0 {
            break;
        }
        offset -= usize::from(take);
    }
    let mut lines: Vec<String> = Vec::new();
    let mut first_fg = Vec::new();
    let mut join = false;
    for (i, row) in all.iter().enumerate() {
        match lines.last_mut() {
            Some(last) if join => last.push_str(&row.text),
            _ => {
                lines.push(row.text.clone());
                first_fg.push(row.first_fg);
            }
        }
        let next_starts_wide = all.get(i + 1).is_some_and(|r| r.starts_wide);
        join = row.wrapped || (row.gap_at_end && next_starts_wide);
    }
    for line in &mut lines {
        line.truncate(line.trim_end().len());
    }
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
        first_fg.pop();
    }
    (lines, first_fg)
}

/// The same command with stdout a pipe: plain mode. Its lines, trailing
/// blanks trimmed.
fn run_plain(args: &[&str]) -> Vec<String> {
    let out = std::process::Command::new(BIN)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("NO_COLOR")
        .env("TERM", "xterm-256color")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "`llmstream {}` (plain) failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8 output");
    assert!(
        !text.contains('\u{1b}'),
        "plain mode wrote an escape sequence:\n{text}"
    );
    text.lines().map(|l| l.trim_end().to_string()).collect()
}

/// The path of a provider recording in the shared fixtures.
fn fixture(rel: &str) -> String {
    llmstream_tests::fixtures::path(&format!("providers/{rel}"))
        .to_string_lossy()
        .into_owned()
}

/// The demo's embedded recordings, also readable by `accumulate`.
fn demo_recording(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("demo")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// What a line of either mode says about a tool call.
enum CallLine<'a> {
    /// `⚙ name  id`: the call started.
    Header(&'a str, &'a str),
    /// `⚙ name(id) =`: the call's complete arguments follow.
    Complete(&'a str, &'a str),
}

fn call_line(line: &str) -> Option<CallLine<'_>> {
    let rest = line.strip_prefix("⚙ ")?;
    if let Some(inner) = rest.strip_suffix(") =") {
        let (name, id) = inner.split_once('(')?;
        return Some(CallLine::Complete(name, id));
    }
    let (name, id) = rest.split_once("  ")?;
    // A call the provider runs itself says so after its id.
    let id = id.strip_suffix(BY_PROVIDER).unwrap_or(id);
    Some(CallLine::Header(name, id))
}

/// What a call header adds for a tool the provider runs itself.
const BY_PROVIDER: &str = "  (run by the provider)";

/// The tree under line `at`: the indented lines that follow it.
fn tree_after(lines: &[String], at: usize) -> &[String] {
    let rest = lines.get(at + 1..).unwrap_or(&[]);
    let n = rest.iter().take_while(|l| l.starts_with("  ")).count();
    &rest[..n]
}

/// The tool calls of an output, in the order they started.
#[derive(Default)]
struct Calls {
    /// Call id → its name.
    names: BTreeMap<String, String>,
    /// Call id → the trees under its header lines (one per header line).
    under_header: BTreeMap<String, Vec<Vec<String>>>,
    /// Call id → the trees under its `⚙ name(id) =` lines.
    under_complete: BTreeMap<String, Vec<Vec<String>>>,
    /// Every line that is neither a call line nor in a tree.
    other: Vec<String>,
}

fn calls(lines: &[String]) -> Calls {
    let mut calls = Calls::default();
    let mut i = 0;
    while i < lines.len() {
        let (name, id, complete) = match call_line(&lines[i]) {
            Some(CallLine::Header(name, id)) => (name, id, false),
            Some(CallLine::Complete(name, id)) => (name, id, true),
            None => {
                calls.other.push(normalize(&lines[i]));
                i += 1;
                continue;
            }
        };
        let tree = tree_after(lines, i).to_vec();
        calls.names.insert(id.to_string(), name.to_string());
        let trees = if complete {
            &mut calls.under_complete
        } else {
            &mut calls.under_header
        };
        i += 1 + tree.len();
        trees.entry(id.to_string()).or_default().push(tree);
    }
    calls
}

/// The demo's closing line says how long it took: only its counts are
/// compared.
fn normalize(line: &str) -> String {
    if line.contains(" s on screen · ") {
        line.split(" · ").take(3).collect::<Vec<_>>().join(" · ")
    } else {
        line.to_string()
    }
}

/// The exact final screen fancy mode should leave, from the plain output,
/// where no call was interrupted (each call's `(id) =` line comes right
/// after its header in plain mode: nothing — text, another call, a finish
/// note — came between its start and its end). Then the tree drawn in
/// place under the header ends as exactly the tree plain mode prints, and
/// nothing else differs: the plain output minus its `(id) =` lines.
///
/// `None` where a call was interrupted: fancy mode then leaves the
/// arguments drawn so far under the header (by design, see
/// `finish_active_with`), which the plain output does not say.
fn expected_screen(plain: &[String]) -> Option<Vec<String>> {
    let mut expected = Vec::new();
    for (i, line) in plain.iter().enumerate() {
        if let Some(CallLine::Complete(name, id)) = call_line(line) {
            let header = format!("⚙ {name}  {id}");
            let before = plain.get(i.wrapping_sub(1)).map(String::as_str);
            let after_header =
                before.is_some_and(|b| b == header || b.strip_suffix(BY_PROVIDER) == Some(&header));
            if !after_header {
                return None;
            }
            continue;
        }
        expected.push(line.clone());
    }
    Some(expected)
}

fn show(lines: &[String]) -> String {
    lines
        .iter()
        .map(|l| format!("  |{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The final screen is exactly the plain output with each call's tree in
/// place under its header (see `expected_screen`): the text in full and
/// once, each call's final arguments in full and once, no partial tree,
/// cursor mark or placeholder left behind, no line lost.
fn assert_exact(what: &str, screen: &Screen, plain: &[String]) {
    let expected = expected_screen(plain).unwrap_or_else(|| {
        panic!("{what}: a call is interrupted, no exact screen to expect (see check_by_design)")
    });
    if screen.lines != expected {
        let first = screen
            .lines
            .iter()
            .zip(&expected)
            .position(|(a, b)| a != b)
            .unwrap_or(screen.lines.len().min(expected.len()));
        panic!(
            "{what}: the screen differs from the plain output (first at line {}):\n\
             screen:\n{}\nexpected (plain output, trees in place):\n{}",
            first + 1,
            show(&screen.lines),
            show(&expected)
        );
    }
}

/// What the design promises for any stream, interrupted calls included:
/// - no cursor mark or placeholder is left on the final screen;
/// - the lines that are not about calls (text, notes, usage) are exactly
///   the plain output's, in order;
/// - each call has one header; where it also has a `⚙ name(id) =` line
///   (it was interrupted), there is one and its final tree, exactly, is
///   under it (the tree under the header is the draft kept on screen,
///   marked ` …` at its end); otherwise its final tree, exactly, is under
///   the header.
fn check_by_design(screen: &Screen, plain: &[String]) -> Vec<String> {
    let mut problems = Vec::new();
    for line in &screen.lines {
        if line.contains(CURSOR_MARK) || line.contains(PLACEHOLDER) {
            problems.push(format!("left on screen: {line:?}"));
        }
    }
    let want = calls(plain);
    let got = calls(&screen.lines);
    if got.other != want.other {
        problems.push(format!(
            "the lines that are not about calls differ:\n{}\nplain:\n{}",
            show(&got.other),
            show(&want.other)
        ));
    }
    for (id, name) in &want.names {
        let Some(final_tree) = want.under_complete.get(id).and_then(|t| t.first()) else {
            problems.push(format!("plain output has no arguments for {name}({id})"));
            continue;
        };
        let headers = got.under_header.get(id).map_or(0, Vec::len);
        if headers != 1 {
            problems.push(format!("{name}({id}): {headers} header lines, not 1"));
        }
        let complete = got.under_complete.get(id).map_or(&[][..], Vec::as_slice);
        let (shown, under) = match complete {
            [] => (
                got.under_header.get(id).and_then(|t| t.first()),
                "its header",
            ),
            [tree] => {
                // The draft left under the header says it is one.
                let draft = got.under_header.get(id).and_then(|t| t.first());
                let last = draft.and_then(|t| t.last());
                if last.is_some_and(|l| !l.ends_with(" …")) {
                    problems.push(format!(
                        "{name}({id}): the draft under its header is not marked ` …`:\n{}",
                        show(draft.map_or(&[][..], Vec::as_slice))
                    ));
                }
                (Some(tree), "its `(id) =` line")
            }
            more => {
                problems.push(format!(
                    "{name}({id}): {} `(id) =` lines, not 0 or 1",
                    more.len()
                ));
                continue;
            }
        };
        if shown != Some(final_tree) {
            problems.push(format!(
                "{name}({id}): under {under}:\n{}\nnot its final arguments:\n{}",
                show(shown.map_or(&[][..], Vec::as_slice)),
                show(final_tree)
            ));
        }
    }
    problems
}

/// Runs `args` in a pty and plainly, checks the screen with `check`.
fn compare(args: &[&str], rows: u16, cols: u16, check: fn(&str, &Screen, &[String])) -> Screen {
    let screen = run_in_pty(args, rows, cols, false);
    let plain = run_plain(args);
    let what = format!("`llmstream {}` on a {cols}x{rows} terminal", args.join(" "));
    check(&what, &screen, &plain);
    screen
}

/// Feeding a whole file renders once; cut into pieces, the tree is redrawn
/// after each piece (the path that moves the cursor up).
const CHUNKINGS: [&[&str]; 3] = [&[], &["--chunk-size", "7"], &["--random-chunks", "3"]];

/// Recordings whose calls are never interrupted (one call each, or calls
/// one after the other, each ending before the next starts).
const RECORDINGS: [&str; 8] = [
    // OpenAI Chat: one tool call, fragments of a few bytes.
    "openai_chat/c6aa7e397b7123c3501f25df3a05d4daf7e8ad6d61ffa406ab5361fe36a8d5b1.bin",
    // OpenAI Chat (newer wire shape): a tool call, then a usage chunk.
    "openai_chat/_extracted/test_run_stream_sync_streams_real_model.yaml.interaction0.sse",
    // OpenAI Chat, n=3: choices interleaved chunk by chunk.
    "openai_chat/a491adda08c3d4fde95f5b2ee3f60f7f745f1a56d82e62f58031cc2add502380.bin",
    // Anthropic: text, then a tool_use block.
    "anthropic/tool_use_response.txt",
    // Anthropic: a tool_use cut off by max_tokens (invalid JSON note).
    "anthropic/incomplete_partial_json_response.txt",
    // Anthropic: thinking, server tool call, markdown table with emoji.
    "anthropic/_extracted/test_anthropic_code_execution_tool_stream.yaml.interaction0.sse",
    // Gemini: a function call whole in one chunk.
    "gemini/_extracted/test_google_model_iter_stream.yaml.interaction0.sse",
    // Gemini: text in many chunks, usage on each.
    "gemini/_extracted/test_google_stream_usage_is_live_mid_stream.yaml.interaction0.sse",
];

/// 1. Real recordings on a roomy terminal: the final screen is the plain
///    output with each tree in place, exactly.
#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn accumulate_live_leaves_the_plain_output_with_trees_in_place() {
    for recording in RECORDINGS {
        let path = fixture(recording);
        for chunking in CHUNKINGS {
            let mut args = vec!["accumulate", "--live", path.as_str()];
            args.extend_from_slice(chunking);
            compare(&args, 30, 100, assert_exact);
        }
    }
}

/// 1b. OpenAI parallel tool calls (a real recording and the demo's): the
///     second call starts before the first ends. The screen keeps the
///     first call's arguments as drawn when the second started, shows the
///     second's final tree under its header and the first's complete
///     arguments under `⚙ name(id) =` (see `check_by_design`).
///
/// The bug this found (`--chunk-size 7`, 100x30): the first call's
/// `(id) =` block was printed when it ended, below the second call's tree
/// still being drawn, whose next redraw, moving up only its own rows, then
/// wrote over it. Such a block now waits until the drawn call is done.
#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn interleaved_calls_keep_each_final_tree_once() {
    let mut runs: Vec<Vec<String>> = Vec::new();
    {
        let path = fixture(
            "openai_chat/f82268f2fefd5cfbc7eeb59c297688be2f6ca0849a6e4f17851b517310841d9b.bin",
        );
        for chunking in CHUNKINGS {
            let mut args = vec!["accumulate".to_string(), "--live".to_string(), path.clone()];
            args.extend(chunking.iter().map(|s| s.to_string()));
            runs.push(args);
        }
    }
    runs.push(vec![
        "accumulate".into(),
        "--live".into(),
        "--chunk-size".into(),
        "64".into(),
        demo_recording("openai-parallel-tools.sse"),
    ]);
    runs.push(vec!["demo".into(), "--no-pace".into()]);
    // Every run is checked before failing, so the message shows them all.
    let mut failures = Vec::new();
    for args in &runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let screen = run_in_pty(&args, 30, 100, false);
        let plain = run_plain(&args);
        let problems = check_by_design(&screen, &plain);
        if !problems.is_empty() {
            failures.push(format!(
                "`llmstream {}` on a 100x30 terminal:\n{}\n\nscreen:\n{}",
                args.join(" "),
                problems.join("\n"),
                show(&screen.lines)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// 2. A short terminal (8 rows): trees taller than the screen stand as a
///    one-line placeholder while they stream, then are drawn whole; long
///    lines wrap. 60 columns: wide enough for the placeholder line (49
///    columns) to take one row (2b: narrower).
#[test]
#[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
fn short_terminal_draws_tall_trees_whole_once_complete() {
    // Each with whether its tree is taller than 8 rows.
    let mut runs = vec![(demo_recording("anthropic-thinking-tool.sse"), true)];
    for (rel, tall) in [
        ("anthropic/incomplete_partial_json_response.txt", true),
        (
            "anthropic/_extracted/test_anthropic_code_execution_tool_stream.yaml.interaction0.sse",
            false,
        ),
    ] {
        runs.push((fixture(rel), tall));
    }
    for (path, tall) in &runs {
        for chunk in ["7", "64"] {
            let args = ["accumulate", "--live", "--chunk-size", chunk, path.as_str()];
            let screen = compare(&args, 8, 60, assert_exact);
            // The demo's write_file tree (15 rows) and the cut-off
            // make_file tree (10 rows) took the placeholder path.
            if *tall {
                assert!(
                    screen.raw_has(PLACEHOLDER),
                    "no placeholder for the tall tree of {path} (--chunk-size {chunk})"
                );
            }
            // Lines longer than the terminal were wrapped (and joined back
            // by `logical_lines`): the width handling is exercised.
            assert!(
                screen.lines.iter().any(|l| l.chars().count() > 60),
                "no line wider than the terminal in {path}"
            );
        }
    }
}

/// 2b. The same on 40 columns: the placeholder line is 49 columns wide and
///     wraps to two rows. (The bug: it was counted as one row, so the final
///     redraw left its first row above the tree.)
#[test]
fn narrow_terminal_placeholder_is_cleared() {
    let path = demo_recording("anthropic-thinking-tool.sse");
    let args = ["accumulate", "--live", "--chunk-size", "7", path.as_str()];
    compare(&args, 8, 40, assert_exact);
}

/// A temporary file, removed when dropped (a failing test included).
struct TempFile(PathBuf);

impl TempFile {
    fn path(&self) -> String {
        self.0.to_string_lossy().into_owned()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// An OpenAI Chat stream with one call to `f` whose arguments are
/// `arguments`, sent three characters per chunk; written to a temporary
/// file.
fn synthetic_call(name: &str, arguments: &str) -> TempFile {
    let chunk = |delta: serde_json::Value, finish: Option<&str>| {
        let event = serde_json::json!({
            "id": "chatcmpl-synthetic",
            "object": "chat.completion.chunk",
            "model": "synthetic",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        });
        format!("data: {event}\n\n")
    };
    let mut body = chunk(
        serde_json::json!({"role": "assistant", "content": null, "tool_calls": [{
            "index": 0, "id": "call_wide", "type": "function",
            "function": {"name": "f", "arguments": ""},
        }]}),
        None,
    );
    let chars: Vec<char> = arguments.chars().collect();
    for piece in chars.chunks(3) {
        let fragment: String = piece.iter().collect();
        body.push_str(&chunk(
            serde_json::json!({"tool_calls": [{"index": 0, "function": {"arguments": fragment}}]}),
            None,
        ));
    }
    body.push_str(&chunk(serde_json::json!({}), Some("tool_calls")));
    body.push_str("data: [DONE]\n\n");
    let path = std::env::temp_dir().join(format!(
        "llmstream-cli-live-{}-{name}.sse",
        std::process::id()
    ));
    std::fs::write(&path, body).expect("write the synthetic recording");
    TempFile(path)
}

/// 2c. Wide (CJK) characters in a tree line that wraps, on 40 columns. No
///     recording has wide characters in tool arguments (the demo's one
///     emoji is in a call that is interrupted, see 1b), so the stream is
///     made here. `    "a": "` is 10 columns: every two-column character
///     lands on an even column and the rows break where `rows_of` expects.
#[test]
fn wide_characters_that_wrap_evenly_are_redrawn_in_place() {
    let file = synthetic_call("even", &format!("{{\"a\": \"{}\"}}", "漢".repeat(35)));
    let path = file.path();
    let args = ["accumulate", "--live", "--chunk-size", "40", path.as_str()];
    let screen = compare(&args, 12, 40, assert_exact);
    assert!(screen.raw_has("\u{1b}[J"), "the tree was never redrawn");
}

/// 2d. The same with `    "ab": "` (11 columns): the 15th character would
///     straddle the right edge, so the terminal moves it to the next row and
///     leaves the last column blank: 80 columns take 3 rows, not 2. (The
///     bug: the rows were display width over terminal width, one too few,
///     and each redraw left a stale `  {` above the tree.)
#[test]
fn wide_character_at_the_right_edge_is_counted() {
    let file = synthetic_call("odd", &format!("{{\"ab\": \"{}\"}}", "漢".repeat(34)));
    let path = file.path();
    let args = ["accumulate", "--live", "--chunk-size", "40", path.as_str()];
    compare(&args, 12, 40, assert_exact);
}

/// 3. `llmstream demo --no-pace` (its fastest: no pause between events)
///    shows both streams' text and every call's final arguments: every
///    line that is not about a call exactly as in plain mode and each
///    call's final tree in full (its place, with the demo's parallel
///    calls, is checked in 1b).
#[test]
fn demo_shows_every_final_text_and_tree() {
    // A hang fails at `TIMEOUT`; how long it takes is not asserted.
    let screen = run_in_pty(&["demo", "--no-pace"], 40, 100, false);
    let plain = run_plain(&["demo", "--no-pace"]);
    let want = calls(&plain);
    let got = calls(&screen.lines);
    assert_eq!(
        got.other,
        want.other,
        "the lines that are not about calls differ; screen:\n{}",
        show(&screen.lines)
    );
    assert!(
        want.names.len() == 3 && got.names.len() == 3,
        "the demo has 3 calls: plain shows {:?}, the screen {:?}",
        want.names,
        got.names
    );
    for (id, name) in &want.names {
        let tree = &want.under_complete[id][0];
        let shown = screen
            .lines
            .windows(tree.len())
            .any(|w| w == tree.as_slice());
        assert!(
            shown,
            "{name}({id})'s final arguments are not on the screen:\n{}\nscreen:\n{}",
            show(tree),
            show(&screen.lines)
        );
    }
    for line in &screen.lines {
        assert!(
            !line.contains(CURSOR_MARK) && !line.contains(PLACEHOLDER),
            "left on screen: {line:?}"
        );
    }
    for text in [
        "I'll check the weather in both cities and look up flights at the same time.",
        "thinking › The user wants a short README for the parser. I should write it to docs/README.md with a title, a one-line summary and a usage example.",
        "── Anthropic Messages · thinking, text, tool_use ──",
    ] {
        assert!(
            screen.lines.iter().any(|l| l == text),
            "{text:?} is not a line of the screen"
        );
    }
}

/// 4. The pty really gets fancy mode: colours (SGR), cursor-up and clear
///    sequences in the bytes, and a coloured call header on the emulated
///    screen; with `NO_COLOR` set, the same pty gets none of it.
#[test]
fn the_pty_gets_fancy_mode_and_no_color_turns_it_off() {
    let path = demo_recording("anthropic-thinking-tool.sse");
    let args = ["accumulate", "--live", "--chunk-size", "16", path.as_str()];
    let fancy = run_in_pty(&args, 30, 100, false);
    for (sequence, meaning) in [
        ("\u{1b}[38;5;", "a foreground colour"),
        ("\u{1b}[1F", "cursor to the previous line"),
        ("\u{1b}[J", "clear to the end of the screen"),
    ] {
        assert!(
            fancy.raw_has(sequence),
            "no {meaning} ({sequence:?}) in the output: fancy mode was not used"
        );
    }
    let header = fancy
        .lines
        .iter()
        .position(|l| l.starts_with("⚙ write_file"))
        .expect("the call header is on the screen");
    assert_ne!(
        fancy.first_fg[header],
        vt100::Color::Default,
        "the call header is not coloured on the screen"
    );
    let text = fancy
        .lines
        .iter()
        .position(|l| l == "I'll write the README now.")
        .expect("the text is on the screen");
    assert_eq!(
        fancy.first_fg[text],
        vt100::Color::Default,
        "text is not coloured"
    );

    let plain = run_in_pty(&args, 30, 100, true);
    assert!(
        !plain.raw_has("\u{1b}"),
        "NO_COLOR=1 in a terminal still wrote escape sequences"
    );
    assert_eq!(
        plain.lines,
        run_plain(&args),
        "NO_COLOR=1 in a terminal is not plain mode"
    );
}
