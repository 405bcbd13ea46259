//! Sets `cfg(fixtures)` when the shared fixtures folder lies beside the
//! repository (`../shared/fixtures`, or the folder `LLMSTREAM_FIXTURES`
//! names), and passes its absolute path on as `LLMSTREAM_FIXTURES_DIR`.
//!
//! Tests that read recordings carry
//! `#[cfg_attr(not(fixtures), ignore = "…")]`: without the folder, as on a
//! user's clone, they show as ignored in the summary instead of passing
//! without having run. The CLI's package uses this same script.
//!
//! While the folder is there, cargo reruns the script when it changes or
//! disappears. While it is not, cargo reruns the script whenever a file of
//! the package changes (its default): watching a path that does not exist
//! would rebuild the tests on every run, so a folder put in place later is
//! seen at the next edit, or after `cargo clean -p llmstream-tests -p
//! llmstream-cli`.

use std::path::PathBuf;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(fixtures)");
    let dir = match std::env::var_os("LLMSTREAM_FIXTURES") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"))
            .join("../../../shared/fixtures"),
    };
    let dir = dir.canonicalize().unwrap_or(dir);
    println!("cargo::rustc-env=LLMSTREAM_FIXTURES_DIR={}", dir.display());
    if dir.is_dir() {
        println!("cargo::rustc-cfg=fixtures");
        println!("cargo::rerun-if-changed={}", dir.display());
        println!("cargo::rerun-if-env-changed=LLMSTREAM_FIXTURES");
    }
}
