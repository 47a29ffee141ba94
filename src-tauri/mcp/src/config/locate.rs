//! Finding the line a key is written on, for errors that point at it.
//!
//! serde_json's `Value` forgets positions, so the line of a key is found by scanning the text:
//! a small tokenizer that tracks object depth and string literals, so that a key is matched by
//! its path (`mcpServers` → `github` → `args`), not by the first `"args"` in the file.

/// The 1-based line where the key at `path` is written (each element a key inside the previous
/// one's object), found by scanning the text; `None` when it is not there.
pub(crate) fn locate_key(text: &str, path: &[&str]) -> Option<usize> {
    if path.is_empty() {
        return Some(1);
    }
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut line = 1usize;
    let mut matched = 0usize;
    // The depth of the object the next path element must be found in.
    let mut index = 0usize;
    while index < bytes.len() {
        match bytes[index] {
            b'\n' => line += 1,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                if depth == matched && matched > 0 {
                    // Left the object where the next key had to be.
                    return None;
                }
                depth = depth.saturating_sub(1);
            }
            b'"' => {
                let start = index + 1;
                let mut end = start;
                let mut newlines = 0;
                while end < bytes.len() && bytes[end] != b'"' {
                    if bytes[end] == b'\\' {
                        end += 1;
                    } else if bytes[end] == b'\n' {
                        newlines += 1;
                    }
                    end += 1;
                }
                let key_line = line;
                line += newlines;
                let mut after = end + 1;
                while after < bytes.len() && bytes[after].is_ascii_whitespace() {
                    if bytes[after] == b'\n' {
                        line += 1;
                    }
                    after += 1;
                }
                let is_key = after < bytes.len() && bytes[after] == b':';
                if is_key && depth == matched + 1 {
                    let raw = &text[start..end.min(text.len())];
                    let key: String = serde_json::from_str(&format!("\"{raw}\""))
                        .unwrap_or_else(|_| raw.to_owned());
                    if key == path[matched] {
                        matched += 1;
                        if matched == path.len() {
                            return Some(key_line);
                        }
                    }
                }
                index = after;
                continue;
            }
            _ => {}
        }
        index += 1;
    }
    None
}
