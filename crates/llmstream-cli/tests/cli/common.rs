//! What every subcommand does alike, per the CLI contract (docs/CLI.md).

use assert_cmd::Command;
use predicates::prelude::*;

/// A FILE argument that cannot be read is bad usage, exit 2, whichever
/// subcommand is given it (two of them once said 1, the others 2).
#[test]
fn every_subcommand_exits_2_on_a_file_it_cannot_read() {
    let missing = std::env::temp_dir().join(format!(
        "llmstream-cli-common-{}-missing",
        std::process::id()
    ));
    let subcommands: [&[&str]; 7] = [
        &["json"],
        &["repair"],
        &["sse"],
        &["accumulate"],
        &["chunk"],
        &["actions"],
        &["translate", "--to", "gemini"],
    ];
    for subcommand in subcommands {
        Command::cargo_bin("llmstream")
            .expect("the binary is built")
            .args(subcommand)
            .arg(&missing)
            .assert()
            .code(2)
            .stderr(predicate::str::starts_with("error: cannot read"));
    }
}
