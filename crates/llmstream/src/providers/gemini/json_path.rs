//! The JSONPath subset Gemini names streamed arguments with.

use alloc::string::String;
use alloc::vec::Vec;

/// One step of a `jsonPath`.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Seg {
    Key(String),
    Index(u64),
}

/// Parses the JSONPath subset Gemini sends (RFC 9535 normalized paths):
/// `$`, then `.name`, `[0]`, `['name']` or `["name"]` steps. `None` for
/// anything else (the entry is then dropped), and for `$` alone.
pub(super) fn parse_json_path(path: &str) -> Option<Vec<Seg>> {
    let mut rest = path.strip_prefix('$')?;
    let mut segs = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            let (name, tail) = after.split_at(end);
            if name.is_empty() {
                return None;
            }
            segs.push(Seg::Key(String::from(name)));
            rest = tail;
        } else if let Some(after) = rest.strip_prefix('[') {
            if let Some(quoted) = after
                .strip_prefix('\'')
                .map(|q| (q, '\''))
                .or_else(|| after.strip_prefix('"').map(|q| (q, '"')))
            {
                let (body, quote) = quoted;
                let mut key = String::new();
                let mut chars = body.char_indices();
                let mut end = None;
                while let Some((i, c)) = chars.next() {
                    if c == '\\' {
                        match chars.next() {
                            Some((_, 'n')) => key.push('\n'),
                            Some((_, 't')) => key.push('\t'),
                            Some((_, e)) => key.push(e),
                            None => return None,
                        }
                    } else if c == quote {
                        end = Some(i + c.len_utf8());
                        break;
                    } else {
                        key.push(c);
                    }
                }
                let tail = body.get(end?..)?.strip_prefix(']')?;
                segs.push(Seg::Key(key));
                rest = tail;
            } else {
                let close = after.find(']')?;
                let (digits, tail) = after.split_at(close);
                let index = digits.parse::<u64>().ok()?;
                segs.push(Seg::Index(index));
                rest = tail.strip_prefix(']')?;
            }
        } else {
            return None;
        }
    }
    (!segs.is_empty()).then_some(segs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(k: &str) -> Seg {
        Seg::Key(String::from(k))
    }

    #[test]
    fn json_paths() {
        assert_eq!(
            parse_json_path("$.location"),
            Some(alloc::vec![key("location")])
        );
        assert_eq!(
            parse_json_path("$.operations[0].price"),
            Some(alloc::vec![key("operations"), Seg::Index(0), key("price")])
        );
        assert_eq!(
            parse_json_path("$['a.b'][\"c\\\"d\"]"),
            Some(alloc::vec![key("a.b"), key("c\"d")])
        );
        assert_eq!(parse_json_path("$"), None);
        assert_eq!(parse_json_path("location"), None);
        assert_eq!(parse_json_path("$[x]"), None);
        assert_eq!(parse_json_path("$['open"), None);
        assert_eq!(parse_json_path("$.."), None);
    }
}
