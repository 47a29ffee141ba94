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
    let head_chars = max_chars / 2;
    let tail_chars = max_chars - head_chars;
    let marker = format!(
        "... [{} characters cut] ...",
        total.saturating_sub(max_chars)
    );
    match head_tail(text, head_chars, tail_chars, &marker) {
        Some(out) => (out, true),
        None => (text.to_owned(), false),
    }
}

/// The first `head` and last `tail` characters of `text` with `marker` on a line of its own
/// between them, or `None` when the text is not longer than `head + tail` characters.
pub fn head_tail(text: &str, head: usize, tail: usize, marker: &str) -> Option<String> {
    let total = text.chars().count();
    if total <= head + tail {
        return None;
    }
    let head_end = text.char_indices().nth(head).map_or(text.len(), |(i, _)| i);
    let tail_start = text
        .char_indices()
        .nth(total - tail)
        .map_or(text.len(), |(i, _)| i);
    Some(format!(
        "{}\n{marker}\n{}",
        &text[..head_end],
        &text[tail_start..]
    ))
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

    #[test]
    fn head_tail_keeps_both_ends() {
        assert_eq!(head_tail("abcdef", 3, 3, "[cut]"), None);
        assert_eq!(
            head_tail("abcdefgh", 2, 3, "[cut]").as_deref(),
            Some("ab\n[cut]\nfgh")
        );
        assert_eq!(head_tail("ééééé", 1, 1, "…").as_deref(), Some("é\n…\né"));
    }
}
