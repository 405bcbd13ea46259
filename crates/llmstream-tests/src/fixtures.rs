//! The shared fixtures: real recordings and suites from other public
//! projects, kept in `../shared/fixtures` beside the repository and never
//! copied into it.
//!
//! Only tests marked `#[cfg_attr(not(fixtures), ignore = "…")]` call these
//! functions, so a missing folder here is a mistake in a test, and panics
//! saying so.

use std::path::{Path, PathBuf};

/// The folder the build script found (set whether or not it exists).
const DIR: &str = env!("LLMSTREAM_FIXTURES_DIR");

/// Whether the fixtures folder is present now.
pub fn present() -> bool {
    Path::new(DIR).is_dir()
}

/// The fixtures folder.
///
/// # Panics
/// When it is absent: a test that needs it must be ignored without it.
pub fn dir() -> PathBuf {
    assert!(
        present(),
        "{DIR} is absent: a test that reads the fixtures must carry \
         #[cfg_attr(not(fixtures), ignore = \"needs ../shared/fixtures\")]"
    );
    PathBuf::from(DIR)
}

/// `rel` under the fixtures folder, which must exist.
pub fn path(rel: &str) -> PathBuf {
    let path = dir().join(rel);
    assert!(path.exists(), "fixture {} is missing", path.display());
    path
}

/// The bytes of the fixture `rel`.
pub fn read(rel: &str) -> Vec<u8> {
    let path = path(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every file under the fixture folder `rel`, recursively, as paths
/// relative to it with `/` between parts, sorted.
pub fn files(rel: &str) -> Vec<String> {
    let root = path(rel);
    let mut out = Vec::new();
    collect(&root, &root, &mut out);
    out.sort();
    out
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("readable folder entry").path();
        if path.is_dir() {
            collect(root, &path, out);
        } else {
            let rel = path.strip_prefix(root).expect("below the root");
            let parts: Vec<_> = rel.iter().map(|p| p.to_string_lossy()).collect();
            out.push(parts.join("/"));
        }
    }
}

/// Whether `bytes` look like a raw SSE body: the first line (after a
/// byte-order mark) is a field or a comment. JSON-lines recordings and
/// cassettes are not bodies.
pub fn is_sse_body(bytes: &[u8]) -> bool {
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let first = text.split(|&b| b == b'\n').next().unwrap_or(&[]);
    [&b"data:"[..], b"event:", b"id:", b"retry:", b":"]
        .iter()
        .any(|field| first.starts_with(field))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_bodies_are_told_from_other_recordings() {
        assert!(is_sse_body(b"data: {}\n\n"));
        assert!(is_sse_body(b"\xEF\xBB\xBFevent: x\ndata: 1\n\n"));
        assert!(is_sse_body(b": comment\n"));
        assert!(!is_sse_body(b"{\"choices\":[]}\n"));
        assert!(!is_sse_body(b""));
    }

    #[test]
    #[cfg_attr(not(fixtures), ignore = "needs ../shared/fixtures")]
    fn the_folder_holds_the_four_kinds_of_data() {
        for rel in [
            "json/JSONTestSuite",
            "providers",
            "providers_more",
            "json_peers",
            "chunker",
        ] {
            assert!(path(rel).is_dir(), "{rel}");
        }
        assert!(files("providers").len() > 50);
    }
}
