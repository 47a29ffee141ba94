//! Diffs of checkpointed files: the unified diff the Changes panel shows, and the hunks it can
//! revert one by one.
//!
//! Both come from one line diff (`similar`, three lines of context, the same settings as the
//! tools' diffs), so hunk `n` of the diff the user saw is hunk `n` here. Lines keep their own
//! endings, so reverting a hunk of a CRLF file or one with a BOM leaves every other byte as it
//! was. Binary content (a NUL in the first 8 KiB, or not UTF-8) and texts over
//! [`MAX_DIFF_BYTES`] are not diffed.

use std::time::Duration;

use similar::TextDiff;

/// The largest text diffed, per side.
pub const MAX_DIFF_BYTES: usize = 2 * 1024 * 1024;
/// Lines of context around a change.
const CONTEXT: usize = 3;
/// How long one diff may take before it settles for a coarser result.
const TIMEOUT: Duration = Duration::from_millis(500);
/// How many leading bytes are checked for NUL.
const SNIFF_BYTES: usize = 8 * 1024;

/// Why content is not shown as a text diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotText {
    /// It has NUL bytes or is not UTF-8.
    Binary,
    /// It is over [`MAX_DIFF_BYTES`].
    TooLarge,
}

/// `bytes` as text to diff, or why not.
pub fn as_text(bytes: &[u8]) -> Result<&str, NotText> {
    if bytes.len() > MAX_DIFF_BYTES {
        return Err(NotText::TooLarge);
    }
    if memchr_nul(&bytes[..bytes.len().min(SNIFF_BYTES)]) {
        return Err(NotText::Binary);
    }
    std::str::from_utf8(bytes).map_err(|_| NotText::Binary)
}

fn memchr_nul(bytes: &[u8]) -> bool {
    bytes.contains(&0)
}

fn diff<'a>(old: &'a str, new: &'a str) -> TextDiff<'a, 'a, str> {
    TextDiff::configure().timeout(TIMEOUT).diff_lines(old, new)
}

/// The unified diff from `old` to `new`, with `a/`/`b/` headers for `path`, and how many
/// lines it adds and removes.
pub fn unified(path: &str, old: &str, new: &str) -> (String, u32, u32) {
    let diff = diff(old, new);
    let mut out = format!("--- a/{path}\n+++ b/{path}\n");
    let (mut added, mut removed) = (0u32, 0u32);
    for change in diff.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Insert => added += 1,
            similar::ChangeTag::Delete => removed += 1,
            similar::ChangeTag::Equal => {}
        }
    }
    for hunk in diff.unified_diff().context_radius(CONTEXT).iter_hunks() {
        out.push_str(&hunk.to_string());
    }
    (out, added, removed)
}

/// How many hunks the diff from `old` to `new` has.
pub fn hunk_count(old: &str, new: &str) -> usize {
    diff(old, new).grouped_ops(CONTEXT).len()
}

/// `new` with hunk `index` of the diff from `old` to `new` taken back (its lines as they are in
/// `old`); `None` when there is no such hunk.
pub fn revert_hunk(old: &str, new: &str, index: usize) -> Option<String> {
    let diff = diff(old, new);
    let groups = diff.grouped_ops(CONTEXT);
    let group = groups.get(index)?;
    let (first, last) = (group.first()?, group.last()?);
    let old_range = first.old_range().start..last.old_range().end;
    let new_range = first.new_range().start..last.new_range().end;
    let new_len = new_range.end.max(new_range.start);
    let mut out = String::with_capacity(new.len());
    let mut index = 0;
    while let Some(line) = diff.new_slice(index) {
        if index == new_range.start {
            for old_index in old_range.clone() {
                out.push_str(diff.old_slice(old_index)?);
            }
        }
        if !(new_range.start..new_len).contains(&index) {
            out.push_str(line);
        }
        index += 1;
    }
    if index <= new_range.start {
        for old_index in old_range {
            out.push_str(diff.old_slice(old_index)?);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_hunk_goes_back_and_the_others_stay_byte_for_byte() {
        let old: String = (1..=30).map(|n| format!("line {n}\r\n")).collect();
        let new = old
            .replace("line 3\r\n", "line three\r\n")
            .replace("line 25\r\n", "line twenty-five\r\n");
        assert_eq!(hunk_count(&old, &new), 2);
        let (text, added, removed) = unified("a.txt", &old, &new);
        assert!(
            text.starts_with("--- a/a.txt\n+++ b/a.txt\n@@ -1,6 +1,6 @@"),
            "{text}"
        );
        assert_eq!((added, removed), (2, 2));
        let back = revert_hunk(&old, &new, 1).unwrap();
        assert_eq!(back, old.replace("line 3\r\n", "line three\r\n"));
        let back = revert_hunk(&old, &new, 0).unwrap();
        assert_eq!(back, old.replace("line 25\r\n", "line twenty-five\r\n"));
        assert_eq!(revert_hunk(&old, &new, 2), None);
    }

    #[test]
    fn a_bom_and_a_missing_final_newline_are_kept() {
        let old = "\u{feff}a\nb\nc";
        let new = "\u{feff}a\nB\nc";
        assert_eq!(revert_hunk(old, new, 0).unwrap(), old);
    }

    #[test]
    fn binary_and_large_contents_are_not_text() {
        assert_eq!(as_text(b"ab\0c"), Err(NotText::Binary));
        assert_eq!(as_text(b"\xff\xfe"), Err(NotText::Binary));
        assert_eq!(
            as_text(&vec![b'a'; MAX_DIFF_BYTES + 1]),
            Err(NotText::TooLarge)
        );
        assert_eq!(as_text(b"fine\n"), Ok("fine\n"));
    }
}
