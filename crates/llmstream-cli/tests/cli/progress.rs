//! The progress bar over a long input file, run for real: the binary is
//! spawned by `sh` in a pseudo-terminal, so that stderr is a terminal while
//! stdout goes where the test says (a file, or the terminal too), and every
//! byte the terminal receives is kept and replayed through a terminal
//! emulator (`vt100`).
//!
//! What a user should get: a bar (bytes read of the file's size) while a
//! file of 8 MiB or more is read with stdout redirected; no trace of it on
//! the screen once the command ends; the same output as without a bar; and
//! no bar at all where it would be in the way (stdout on the same
//! terminal) or could not be seen (stderr not a terminal).
//!
//! Unix only, as the live view's test (`live_terminal.rs`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use portable_pty::CommandBuilder;

use crate::pty;

const BIN: &str = env!("CARGO_BIN_EXE_llmstream");
const TIMEOUT: Duration = Duration::from_secs(120);

/// 9 MiB, past the 8 MiB from which a file gets a bar; indicatif shows it
/// as "9.00 MiB".
const SIZE: usize = 9 << 20;
const TOTAL: &str = "/9.00 MiB";

/// Files of this test, removed when dropped (a failing test included).
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "llmstream-cli-progress-{}-{name}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        Scratch(dir)
    }

    fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A JSON array of strings of exactly `SIZE` bytes.
fn long_document(path: &Path) {
    let item = format!("\"{}\"", "lorem ipsum ".repeat(80));
    let mut doc = String::with_capacity(SIZE);
    doc.push('[');
    while doc.len() + item.len() + 2 < SIZE {
        if doc.len() > 1 {
            doc.push(',');
        }
        doc.push_str(&item);
    }
    while doc.len() < SIZE - 1 {
        doc.push(' ');
    }
    doc.push(']');
    assert_eq!(doc.len(), SIZE);
    std::fs::write(path, doc).expect("write the long document");
}

/// Runs `script` with `sh -c` in an 80×24 pseudo-terminal (`$0` is the
/// binary, `$1`… are `args`) until it exits; every byte the terminal got,
/// (a machine without pseudo-terminals fails the test).
fn run_in_pty(script: &str, args: &[&Path]) -> Vec<u8> {
    let mut cmd = CommandBuilder::new("sh");
    cmd.arg("-c");
    cmd.arg(script);
    cmd.arg(BIN);
    for arg in args {
        cmd.arg(arg.as_os_str());
    }
    cmd.env("TERM", "xterm-256color");
    let what = format!("`{script}` in a pty");
    let (raw, status) = pty::run(cmd, 24, 80, &what, "the progress bar", TIMEOUT);
    assert!(
        status.success(),
        "{what} exited with {status:?}: {}",
        String::from_utf8_lossy(&raw)
    );
    raw
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

/// The screen's text once everything the terminal got was drawn.
fn final_screen(raw: &[u8]) -> String {
    let mut parser = vt100::Parser::new(24, 80, 0);
    parser.process(raw);
    parser.screen().contents()
}

#[test]
fn a_long_file_shows_a_bar_on_the_terminal_and_clears_it() {
    let scratch = Scratch::new("bar");
    let (input, output) = (scratch.file("long.json"), scratch.file("out.json"));
    long_document(&input);
    let raw = run_in_pty(r#"exec "$0" json "$1" > "$2""#, &[&input, &output]);
    assert!(
        contains(&raw, TOTAL),
        "no bar counting up to the file's size on stderr: {:?}",
        String::from_utf8_lossy(&raw)
    );
    assert!(
        !final_screen(&raw).contains("MiB"),
        "the bar is still on the screen at the end: {:?}",
        final_screen(&raw)
    );
    // The output is what the same command writes with no terminal at all.
    let plain = Command::new(BIN)
        .arg("json")
        .arg(&input)
        .output()
        .expect("run plainly");
    assert!(plain.status.success());
    assert!(plain.stderr.is_empty(), "a bar without a terminal");
    let with_bar = std::fs::read(&output).expect("the output file");
    assert!(with_bar.len() > SIZE / 2, "the value was written");
    assert!(with_bar == plain.stdout, "the bar changed the output");
}

#[test]
fn no_bar_when_the_output_goes_to_the_same_terminal() {
    let scratch = Scratch::new("same-terminal");
    let input = scratch.file("long.json");
    long_document(&input);
    let raw = run_in_pty(r#"exec "$0" json "$1""#, &[&input]);
    assert!(contains(&raw, "lorem ipsum"), "the value was printed");
    assert!(!contains(&raw, TOTAL), "a bar over the output");
}

#[test]
fn no_bar_for_a_file_under_eight_mebibytes() {
    let scratch = Scratch::new("short");
    let (input, output) = (scratch.file("short.json"), scratch.file("out.json"));
    std::fs::write(&input, format!("[\"{}\"]", "a".repeat(1 << 20))).expect("write");
    let raw = run_in_pty(r#"exec "$0" json "$1" > "$2""#, &[&input, &output]);
    assert!(
        !contains(&raw, "MiB"),
        "a bar for a short file: {:?}",
        String::from_utf8_lossy(&raw)
    );
    let written = std::fs::read(&output).expect("the output file");
    assert_eq!(written.len(), (1 << 20) + 5, "the value was written");
}
