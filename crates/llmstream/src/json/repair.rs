//! Best-effort values of truncated JSON text.

use super::error::Error;
use super::options::Options;
use super::parser::Parser;
use super::value::Value;

/// The best-effort value of a JSON text that may have been cut short.
///
/// Closes open strings, arrays and objects; completes `tr`, `fal`, `nu`;
/// drops a dangling key or colon; keeps a cut number as its longest valid
/// prefix (`12`→12, `1.`→1, `1e`→1; a lone `-` is dropped); drops half an
/// escape or half a UTF-8 sequence at the end; accepts trailing commas.
/// Everything else is strict: input that no continuation could make valid
/// (`[1 2`, `{"a" 1`) is an error naming the byte where it goes wrong, never
/// a silently truncated value.
///
/// Returns `Ok(None)` when the text holds no value at all (empty or only
/// whitespace).
///
/// ```
/// use llmstream::json::repair;
/// let value = repair(r#"{"items": ["a", "b"], "note": "unfinish"#)?.unwrap();
/// assert_eq!(value.to_string(), r#"{"items":["a","b"],"note":"unfinish"}"#);
/// assert!(repair("[1 2").is_err());
/// # Ok::<(), llmstream::json::Error>(())
/// ```
pub fn repair(text: &str) -> Result<Option<Value>, Error> {
    repair_bytes(text.as_bytes())
}

/// [`repair`] over bytes (invalid UTF-8 inside a string is an error; a
/// sequence cut at the very end is dropped).
pub fn repair_bytes(bytes: &[u8]) -> Result<Option<Value>, Error> {
    let mut parser = Parser::with_options(Options::new().trailing_commas(true).events(false));
    parser.feed(bytes)?;
    parser.finish_partial()
}
