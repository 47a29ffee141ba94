//! Unified diffs of file changes, for the approver, the UI and the model.
//!
//! One format everywhere: `--- a/{path}` / `+++ b/{path}` headers (also for a new file, which
//! is diffed against the empty text), hunks with three lines of context, `\ No newline at end
//! of file` where it applies. Texts are compared with `\n` breaks (see
//! [`super::textfile`]), so a CRLF file's diff shows its content changes, not its line endings.
//! Diffing has a time budget: past it the `similar` crate returns a coarser but still correct
//! diff, so a pathological input cannot stall a tool call.

use std::time::Duration;

use similar::TextDiff;

/// How long computing one diff may take before it settles for a coarser result.
pub const DIFF_TIMEOUT: Duration = Duration::from_millis(500);

/// The unified diff that turns `old` into `new`, with headers for `path` (project-relative).
/// Identical texts give the headers alone.
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    let diff = TextDiff::configure()
        .timeout(DIFF_TIMEOUT)
        .diff_lines(old, new);
    let mut out = format!("--- a/{path}\n+++ b/{path}\n");
    for hunk in diff.unified_diff().context_radius(3).iter_hunks() {
        out.push_str(&hunk.to_string());
    }
    out
}

/// What stands in for a diff when the old content can't be shown as text (binary, or too large
/// to diff): git's wording.
pub fn undiffable(path: &str, why: &str) -> String {
    format!("--- a/{path}\n+++ b/{path}\nBinary files a/{path} and b/{path} differ ({why})\n")
}

/// `diff` cut to its first `max_lines` lines, with a last line saying how many were left out.
/// Returns the text and whether anything was cut.
pub fn cap_lines(diff: &str, max_lines: usize) -> (String, bool) {
    let total = diff.lines().count();
    if total <= max_lines {
        return (diff.to_owned(), false);
    }
    let mut out: String = diff
        .split_inclusive('\n')
        .take(max_lines)
        .collect::<String>();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!(
        "... [diff cut: {} more lines]\n",
        total - max_lines
    ));
    (out, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_has_headers_and_a_hunk() {
        let diff = unified_diff("src/a.rs", "one\ntwo\nthree\n", "one\n2\nthree\n");
        assert_eq!(
            diff,
            "--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"
        );
    }

    #[test]
    fn a_new_file_is_diffed_against_nothing() {
        assert_eq!(
            unified_diff("n.txt", "", "a\nb"),
            "--- a/n.txt\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file\n"
        );
    }

    #[test]
    fn identical_texts_give_headers_only() {
        assert_eq!(unified_diff("x", "same\n", "same\n"), "--- a/x\n+++ b/x\n");
    }

    #[test]
    fn long_diffs_are_capped_with_a_count() {
        let diff = "1\n2\n3\n4\n5\n";
        assert_eq!(cap_lines(diff, 5), (diff.to_owned(), false));
        assert_eq!(
            cap_lines(diff, 2),
            ("1\n2\n... [diff cut: 3 more lines]\n".to_owned(), true)
        );
    }
}
