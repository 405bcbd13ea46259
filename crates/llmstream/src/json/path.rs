//! Where a value sits in a document: `blocks[0].content`, `/blocks/0/content`.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::{self, Write};

/// One step of a path: an object member or an array element.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Segment {
    /// An object member, by key.
    Key(String),
    /// An array element, by index.
    Index(usize),
}

/// A borrowed path from the root to a value; the root is the empty path.
///
/// Parser events lend their path from the parser's own stack, so reporting a
/// path costs nothing; [`Path::to_path_buf`] keeps one.
///
/// Displays as `a.b[0]`; keys that are not plain identifiers are quoted as
/// JSON strings in brackets: `a["x.y"][2]`. [`Path::pointer`] gives the
/// RFC 6901 form `/a/b/0`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Path<'a> {
    segments: &'a [Segment],
}

impl<'a> Path<'a> {
    /// The path of the root value.
    pub const ROOT: Path<'static> = Path { segments: &[] };

    /// A path over these segments.
    pub fn new(segments: &'a [Segment]) -> Self {
        Path { segments }
    }

    /// The steps from the root.
    pub fn segments(&self) -> &'a [Segment] {
        self.segments
    }

    /// The number of steps (0 for the root).
    pub fn len(&self) -> usize {
        self.segments.len()
    }

    /// Whether this is the root.
    pub fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }

    /// The path of the enclosing container, if any.
    pub fn parent(&self) -> Option<Path<'a>> {
        let (_, rest) = self.segments.split_last()?;
        Some(Path { segments: rest })
    }

    /// The last step.
    pub fn last(&self) -> Option<&'a Segment> {
        self.segments.last()
    }

    /// Whether this path equals the display form `text` (`a.b[0]`), without
    /// allocating: handy for matching event paths.
    pub fn matches(&self, text: &str) -> bool {
        let mut w = MatchWriter {
            rest: text,
            ok: true,
        };
        let _ = write!(w, "{self}");
        w.ok && w.rest.is_empty()
    }

    /// The RFC 6901 JSON pointer: `/a/b/0`, `~` as `~0` and `/` as `~1`.
    /// A pointer does not say whether a step is a key or an index (`/0`
    /// is either), so it finds what the path finds and, in an object with
    /// a member `"0"`, sometimes more.
    pub fn pointer(&self) -> String {
        let mut out = String::new();
        for segment in self.segments {
            out.push('/');
            match segment {
                Segment::Key(key) => {
                    for c in key.chars() {
                        match c {
                            '~' => out.push_str("~0"),
                            '/' => out.push_str("~1"),
                            c => out.push(c),
                        }
                    }
                }
                Segment::Index(i) => {
                    let _ = write!(out, "{i}");
                }
            }
        }
        out
    }

    /// An owned copy.
    pub fn to_path_buf(&self) -> PathBuf {
        PathBuf {
            segments: self.segments.to_vec(),
        }
    }
}

struct MatchWriter<'t> {
    rest: &'t str,
    ok: bool,
}

impl Write for MatchWriter<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        match self.rest.strip_prefix(s) {
            Some(rest) if self.ok => self.rest = rest,
            _ => self.ok = false,
        }
        Ok(())
    }
}

/// Whether `key` can be shown bare after a dot: `[A-Za-z_$][A-Za-z0-9_$]*`.
fn is_identifier(key: &str) -> bool {
    let mut bytes = key.bytes();
    match bytes.next() {
        Some(b) if b.is_ascii_alphabetic() || b == b'_' || b == b'$' => {}
        _ => return false,
    }
    bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.segments.iter().enumerate() {
            match segment {
                Segment::Key(key) if is_identifier(key) => {
                    if i > 0 {
                        f.write_char('.')?;
                    }
                    f.write_str(key)?;
                }
                Segment::Key(key) => {
                    f.write_char('[')?;
                    super::write::write_string(f, key)?;
                    f.write_char(']')?;
                }
                Segment::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Path({self})")
    }
}

/// An owned path. See [`Path`] for its forms.
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PathBuf {
    segments: Vec<Segment>,
}

impl PathBuf {
    /// The root path.
    pub fn new() -> Self {
        PathBuf::default()
    }

    /// The borrowed form.
    pub fn as_path(&self) -> Path<'_> {
        Path {
            segments: &self.segments,
        }
    }

    /// Appends an object key step.
    pub fn push_key(&mut self, key: impl Into<String>) {
        self.segments.push(Segment::Key(key.into()));
    }

    /// Appends an array index step.
    pub fn push_index(&mut self, index: usize) {
        self.segments.push(Segment::Index(index));
    }

    /// Removes the last step.
    pub fn pop(&mut self) -> Option<Segment> {
        self.segments.pop()
    }

    /// The steps from the root.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// The RFC 6901 JSON pointer.
    pub fn pointer(&self) -> String {
        self.as_path().pointer()
    }

    /// Reads the display form back: `a.b[0]`, `["a.b"][2]`, `""` for the
    /// root. `None` if the text is not in that form (which it reads
    /// leniently in two details: whitespace after a quoted key, and
    /// leading zeros in an index).
    ///
    /// ```
    /// use llmstream::json::PathBuf;
    /// let p = PathBuf::parse(r#"blocks[0]["x.y"].z"#).unwrap();
    /// assert_eq!(p.to_string(), r#"blocks[0]["x.y"].z"#);
    /// assert_eq!(p.pointer(), "/blocks/0/x.y/z");
    /// ```
    pub fn parse(text: &str) -> Option<PathBuf> {
        let mut path = PathBuf::new();
        let mut rest = text;
        let mut first = true;
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix('[') {
                if after.starts_with('"') {
                    let (key, tail) = parse_quoted_key(after)?;
                    rest = tail.strip_prefix(']')?;
                    path.push_key(key);
                } else {
                    let end = after.find(']')?;
                    let digits = after.get(..end)?;
                    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                        return None;
                    }
                    path.push_index(digits.parse().ok()?);
                    rest = after.get(end + 1..)?;
                }
            } else {
                let body = if first { rest } else { rest.strip_prefix('.')? };
                let end = body.find(['.', '[']).unwrap_or(body.len());
                let key = body.get(..end)?;
                if !is_identifier(key) {
                    return None;
                }
                path.push_key(key);
                rest = body.get(end..)?;
            }
            first = false;
        }
        Some(path)
    }
}

/// Reads a JSON string literal at the start of `text`: its decoded value
/// and what follows it.
fn parse_quoted_key(text: &str) -> Option<(String, &str)> {
    let mut parser = super::Parser::with_options(super::Options::new().stop_after_value(true));
    let mut feed = parser.feed_borrowed(text.as_bytes());
    let mut key = None;
    while let Some(event) = feed.next_event() {
        if let super::EventKind::String(s) = event.ok()?.kind {
            key = Some(String::from(s));
        }
    }
    let used = feed.consumed();
    drop(feed);
    Some((key?, text.get(used..)?))
}

impl core::str::FromStr for PathBuf {
    type Err = InvalidPath;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        PathBuf::parse(text).ok_or(InvalidPath)
    }
}

/// A text that is not a path in display form (see [`PathBuf::parse`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvalidPath;

impl fmt::Display for InvalidPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a path like a.b[0] or [\"x.y\"]")
    }
}

impl core::error::Error for InvalidPath {}

impl From<Vec<Segment>> for PathBuf {
    fn from(segments: Vec<Segment>) -> Self {
        PathBuf { segments }
    }
}

impl fmt::Display for PathBuf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.as_path(), f)
    }
}

impl fmt::Debug for PathBuf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PathBuf({self})")
    }
}

impl PartialEq<Path<'_>> for PathBuf {
    fn eq(&self, other: &Path<'_>) -> bool {
        self.segments == other.segments
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    fn path(parts: &[&str]) -> PathBuf {
        let mut p = PathBuf::new();
        for part in parts {
            match part.parse::<usize>() {
                Ok(i) => p.push_index(i),
                Err(_) => p.push_key(*part),
            }
        }
        p
    }

    #[test]
    fn display_plain_keys_and_indices() {
        assert_eq!(
            path(&["blocks", "0", "content"]).to_string(),
            "blocks[0].content"
        );
        assert_eq!(path(&["0", "a"]).to_string(), "[0].a");
        assert_eq!(PathBuf::new().to_string(), "");
    }

    #[test]
    fn display_quotes_odd_keys() {
        assert_eq!(path(&["a.b"]).to_string(), r#"["a.b"]"#);
        assert_eq!(path(&["x", "a b", "y"]).to_string(), r#"x["a b"].y"#);
        assert_eq!(path(&["q\"k"]).to_string(), r#"["q\"k"]"#);
        assert_eq!(path(&[""]).to_string(), r#"[""]"#);
        assert_eq!(path(&["9lives"]).to_string(), r#"["9lives"]"#);
    }

    #[test]
    fn pointer_escapes() {
        assert_eq!(
            path(&["blocks", "0", "content"]).pointer(),
            "/blocks/0/content"
        );
        assert_eq!(path(&["a/b", "m~n"]).pointer(), "/a~1b/m~0n");
        assert_eq!(PathBuf::new().pointer(), "");
    }

    #[test]
    fn parse_reads_the_display_form_back() {
        for parts in [
            &["blocks", "0", "content"][..],
            &["a.b"],
            &["x", "a b", "y"],
            &["q\"k"],
            &[""],
            &["0", "1"],
            &[],
        ] {
            let p = path(parts);
            assert_eq!(PathBuf::parse(&p.to_string()), Some(p.clone()), "{p}");
        }
        for bad in ["a..b", ".a", "a[", "a[x]", "[\"a\"", "a b", "a]"] {
            assert_eq!(PathBuf::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn matches_display_form() {
        let p = path(&["blocks", "0", "content"]);
        assert!(p.as_path().matches("blocks[0].content"));
        assert!(!p.as_path().matches("blocks[0].conten"));
        assert!(!p.as_path().matches("blocks[0].contents"));
        assert!(PathBuf::new().as_path().matches(""));
    }
}
