//! The README's command lines are run, and their output compared, so the
//! README stays true.
//!
//! In the README's code blocks a line `$ command` is run with `sh` from the
//! repository root (with `llmstream` being the binary under test, stderr
//! joined to stdout); the lines after it, up to the next `$` line or the end
//! of the block, are its exact output. A line `…` ends the comparison early
//! (the rest of the output is not shown).

use std::path::{Path, PathBuf};
use std::process::Command;

struct Example {
    line: usize,
    command: String,
    expected: Vec<String>,
    /// Whether the README cut the output short with `…`.
    truncated: bool,
}

fn examples(readme: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut in_block = false;
    // Whether the last example belongs to the block being read.
    let mut open = false;
    for (i, line) in readme.lines().enumerate() {
        if line.starts_with("```") {
            in_block = !in_block;
            open = false;
            continue;
        }
        if !in_block {
            continue;
        }
        if let Some(command) = line.strip_prefix("$ ") {
            open = true;
            out.push(Example {
                line: i + 1,
                command: command.to_string(),
                expected: Vec::new(),
                truncated: false,
            });
        } else if let Some(example) = out.last_mut().filter(|_| open) {
            if example.truncated {
                continue;
            }
            if line == "…" {
                example.truncated = true;
            } else {
                example.expected.push(line.to_string());
            }
        }
    }
    out
}

fn bin_dir() -> PathBuf {
    let bin = assert_cmd::cargo::cargo_bin("llmstream");
    bin.parent().map(Path::to_path_buf).unwrap_or_default()
}

#[test]
fn every_readme_command_prints_what_the_readme_shows() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let examples = examples(&readme);
    assert!(
        examples.len() >= 8,
        "expected the tour's examples, found {}",
        examples.len()
    );
    let path = format!(
        "{}:{}",
        bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut subcommands = std::collections::BTreeSet::new();
    for example in &examples {
        let output = Command::new("sh")
            .arg("-c")
            .arg(format!("{} 2>&1", example.command))
            .current_dir(&root)
            .env("PATH", &path)
            .env_remove("NO_COLOR")
            .output()
            .expect("sh runs");
        let text = String::from_utf8_lossy(&output.stdout);
        let got: Vec<&str> = text.lines().collect();
        let got = if example.truncated {
            &got[..example.expected.len().min(got.len())]
        } else {
            &got[..]
        };
        assert_eq!(
            got, example.expected,
            "README line {}: `{}`",
            example.line, example.command
        );
        if let Some(sub) = example
            .command
            .split("llmstream ")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
        {
            subcommands.insert(sub.to_string());
        }
    }
    for sub in [
        "demo",
        "json",
        "repair",
        "sse",
        "accumulate",
        "chunk",
        "actions",
    ] {
        assert!(
            subcommands.contains(sub),
            "the README tour shows no `llmstream {sub}` example"
        );
    }
}
