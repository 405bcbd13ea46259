//! Best-effort values of what a model wrote: JSON cut short, or not
//! quite JSON.

use super::error::Error;
use super::options::Options;
use super::parser::Parser;
use super::value::Value;

/// The value a person reads in what a model wrote: JSON, cut short or
/// not quite JSON, read in lenient mode ([`Options::lenient`]; every rule
/// with its example in docs/LENIENT.md).
///
/// A text cut short closes its open strings, arrays and objects, completes
/// `tr`, `fal`, `nu`, drops a dangling key and keeps a cut number as its
/// longest valid prefix (`1.`→1, `1e`→1; a lone `-` is dropped). JSON
/// inside prose or a code fence is found, and single or curly quotes,
/// Python and JavaScript literals, comments, bare words, missing or extra
/// commas are read as a person would. Input is never an error; a limit
/// passed is ([`Limits`](super::Limits): containers nested deeper than
/// `max_depth`, 128 by default).
///
/// Returns `Ok(None)` when the text holds no value at all (empty or only
/// whitespace).
///
/// ```
/// use llmstream::json::repair;
/// let value = repair(r#"{"items": ["a", "b"], "note": "unfinish"#)?.unwrap();
/// assert_eq!(value.to_string(), r#"{"items":["a","b"],"note":"unfinish"}"#);
/// let value = repair("Here: ```json\n{'ok': True, n: 1 2}\n```")?.unwrap();
/// assert_eq!(value.to_string(), r#"{"ok":true,"n":1,"2":null}"#);
/// # Ok::<(), llmstream::json::Error>(())
/// ```
pub fn repair(text: &str) -> Result<Option<Value>, Error> {
    repair_bytes(text.as_bytes())
}

/// [`repair`] over bytes (invalid UTF-8 reads as U+FFFD).
pub fn repair_bytes(bytes: &[u8]) -> Result<Option<Value>, Error> {
    let mut parser = Parser::with_options(Options::lenient());
    parser.feed(bytes)?;
    parser.finish_partial()
}
