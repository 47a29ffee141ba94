//! Small text helpers shared by tools: bounded output for the model's context.

/// How many characters of one line the tools show (read_file, grep_search): minified files and
/// data blobs have lines of megabytes, which would swamp the model's context.
pub const MAX_LINE_CHARS: usize = 2_000;

/// The marker appended to a line cut after `shown` of its `total` characters, the same in every
/// tool so the model learns one shape.
pub fn line_cut_marker(shown: usize, total: usize) -> String {
    format!(" [... line cut: {shown} of {total} characters shown]")
}

/// Cuts `text` to at most `max_chars` characters by keeping its head and its tail with a marker
/// `... [{n} characters cut] ...` between them (the end of a command's output is often where the
/// error is). Returns the text and whether anything was cut.
pub fn truncate_middle(text: &str, max_chars: usize) -> (String, bool) {
    let total = text.chars().count();
    if total <= max_chars {
        return (text.to_owned(), false);
    }
    let head_chars = max_chars / 2;
    let tail_chars = max_chars - head_chars;
    let head_end = text
        .char_indices()
        .nth(head_chars)
        .map_or(text.len(), |(i, _)| i);
    let tail_start = text
        .char_indices()
        .nth(total - tail_chars)
        .map_or(text.len(), |(i, _)| i);
    let cut = total - head_chars - tail_chars;
    let out = format!(
        "{}\n... [{cut} characters cut] ...\n{}",
        &text[..head_end],
        &text[tail_start..]
    );
    (out, true)
}

/// The first `max_chars` characters of `text`, with `…` when cut: for excerpts in logs and lists.
pub fn excerpt(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_untouched() {
        assert_eq!(truncate_middle("abc", 3), ("abc".to_owned(), false));
    }

    #[test]
    fn long_text_keeps_head_and_tail() {
        let text: String = ('a'..='z').collect();
        let (out, cut) = truncate_middle(&text, 10);
        assert!(cut);
        assert_eq!(out, "abcde\n... [16 characters cut] ...\nvwxyz");
    }

    #[test]
    fn cuts_on_character_boundaries() {
        let text = "é".repeat(30);
        let (out, cut) = truncate_middle(&text, 9);
        assert!(cut);
        assert_eq!(out, "éééé\n... [21 characters cut] ...\nééééé");
        assert_eq!(excerpt("héllo", 2), "hé…");
        assert_eq!(excerpt("hé", 2), "hé");
    }
}
