//! Small text helpers: character-safe clipping and excerpts.

/// `text` cut to at most `max` characters, with `…` when cut.
pub(crate) fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some((end, _)) => format!("{}…", &text[..end]),
    }
}

/// The first `head` and last `tail` characters of `text`, with `marker` between them. Returns
/// `None` when the text is not longer than `head + tail` characters.
pub(crate) fn head_tail(text: &str, head: usize, tail: usize, marker: &str) -> Option<String> {
    let chars = text.chars().count();
    if chars <= head + tail {
        return None;
    }
    let head_end = text.char_indices().nth(head).map_or(text.len(), |(i, _)| i);
    let tail_start = text
        .char_indices()
        .nth(chars - tail)
        .map_or(text.len(), |(i, _)| i);
    Some(format!(
        "{}\n{marker}\n{}",
        &text[..head_end],
        &text[tail_start..]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_counts_characters_not_bytes() {
        assert_eq!(clip("héllo", 10), "héllo");
        assert_eq!(clip("héllo", 2), "hé…");
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
