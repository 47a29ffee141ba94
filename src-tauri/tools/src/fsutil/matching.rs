//! Finding `old_string` in a file for edit_file: exact first, then one forgiving tier at a time.
//!
//! Models copy text imperfectly: they drop trailing spaces, re-indent a block they quote, or
//! turn quotes and dashes typographic. Failing those edits wastes a turn; guessing loosely
//! edits the wrong place. The middle road, as in Codex's patch matcher: try an exact match on
//! the `\n`-normalised text, and only when there is none try each fallback tier in order —
//! [`Tier::TrailingWhitespace`], [`Tier::Indentation`], [`Tier::Unicode`] — accepting a tier
//! only when it finds exactly one place. Several places are reported (never guessed between),
//! and several exact places are replaced only when the caller asked for all of them.
//!
//! Each tier is a pure function from the text and the needle to byte ranges of the text (and,
//! for the indentation tier, a shift to apply to the replacement), so it can be tested alone.
//! Fallback tiers compare line by line: the needle's first line may be the end of a file line
//! and its last line the start of one, its middle lines are whole lines. When nothing matches,
//! [`closest_lines`] finds the window of the file that looks most like the needle, so the model
//! can see what the text actually is.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::ops::Range;

/// How an `old_string` was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    /// Character for character (line endings aside).
    Exact,
    /// Equal once trailing whitespace is removed from every line.
    TrailingWhitespace,
    /// Equal once every line's indentation is shifted by the same amount (whole lines only;
    /// the replacement is shifted the same way).
    Indentation,
    /// Equal once Unicode look-alikes (non-breaking and other spaces, curly quotes, dashes) are
    /// read as their ASCII forms, trailing whitespace ignored.
    Unicode,
}

impl Tier {
    /// The fallback tiers, in the order they are tried.
    pub const FALLBACKS: [Tier; 3] = [Tier::TrailingWhitespace, Tier::Indentation, Tier::Unicode];

    /// How the match was made, for the model: "trailing whitespace ignored".
    pub fn describe(self) -> &'static str {
        match self {
            Self::Exact => "exact",
            Self::TrailingWhitespace => "trailing whitespace ignored",
            Self::Indentation => "indentation shifted",
            Self::Unicode => "Unicode look-alikes normalised",
        }
    }
}

/// One place to change: a byte range of the searched text and what replaces it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    /// Byte range in the searched text.
    pub range: Range<usize>,
    /// The new text for that range.
    pub text: String,
}

/// Why no replacement was planned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatchError {
    /// No tier found the needle.
    NotFound,
    /// A tier found it in several places (1-based start lines) and may not pick one.
    Ambiguous {
        /// The tier that found them.
        tier: Tier,
        /// The 1-based line where each place starts.
        lines: Vec<usize>,
    },
}

/// Plans replacing `old` with `new` in `text` (all three with `\n` line breaks): the exact
/// matches, or else the only match of the first fallback tier that finds any.
pub fn plan_replacements(
    text: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<(Tier, Vec<Replacement>), MatchError> {
    let exact = find_exact(text, old);
    if !exact.is_empty() {
        if exact.len() > 1 && !replace_all {
            return Err(MatchError::Ambiguous {
                tier: Tier::Exact,
                lines: exact.iter().map(|r| line_of(text, r.start)).collect(),
            });
        }
        let replacements = exact
            .into_iter()
            .map(|range| Replacement {
                range,
                text: new.to_owned(),
            })
            .collect();
        return Ok((Tier::Exact, replacements));
    }
    let lines = line_ranges(text);
    for tier in Tier::FALLBACKS {
        let found: Vec<Replacement> = match tier {
            Tier::Exact | Tier::TrailingWhitespace => find_by_lines(text, &lines, old, identity)
                .into_iter()
                .map(|range| Replacement {
                    range,
                    text: new.to_owned(),
                })
                .collect(),
            Tier::Indentation => find_indentation_shift(text, &lines, old)
                .into_iter()
                .map(|(range, shift)| Replacement {
                    range,
                    text: shift.apply(new),
                })
                .collect(),
            Tier::Unicode => find_by_lines(text, &lines, old, fold_lookalike)
                .into_iter()
                .map(|range| {
                    let replaced = &text[range.clone()];
                    Replacement {
                        text: fold_foreign_lookalikes(new, replaced),
                        range,
                    }
                })
                .collect(),
        };
        match found.len() {
            0 => continue,
            1 => return Ok((tier, found)),
            _ => {
                return Err(MatchError::Ambiguous {
                    tier,
                    lines: found.iter().map(|r| line_of(text, r.range.start)).collect(),
                });
            }
        }
    }
    Err(MatchError::NotFound)
}

/// The 1-based line of byte `offset` in `text`.
pub fn line_of(text: &str, offset: usize) -> usize {
    memchr::memchr_iter(b'\n', &text.as_bytes()[..offset]).count() + 1
}

/// Non-overlapping exact occurrences of `needle`, left to right (none for an empty needle).
pub fn find_exact(text: &str, needle: &str) -> Vec<Range<usize>> {
    if needle.is_empty() {
        return Vec::new();
    }
    text.match_indices(needle)
        .map(|(start, found)| start..start + found.len())
        .collect()
}

/// The byte range of every line's content (without its `\n`), including the empty piece after
/// a final `\n`.
fn line_ranges(text: &str) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    let mut start = 0;
    for at in memchr::memchr_iter(b'\n', text.as_bytes()) {
        ranges.push(start..at);
        start = at + 1;
    }
    ranges.push(start..text.len());
    ranges
}

fn identity(c: char) -> char {
    c
}

/// The ASCII form of a Unicode look-alike, or the character itself.
pub fn fold_lookalike(c: char) -> char {
    match c {
        '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' => '"',
        '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{FE58}' | '\u{FE63}' | '\u{FF0D}' => '-',
        other => other,
    }
}

/// `new` with the look-alikes that do not occur in `replaced` folded to ASCII: when the model's
/// old_string had curly quotes the file doesn't, its new_string has them too, and they should
/// not end up in the file. Look-alikes the file itself used there are kept.
fn fold_foreign_lookalikes(new: &str, replaced: &str) -> String {
    new.chars()
        .map(|c| {
            let folded = fold_lookalike(c);
            if folded != c && !replaced.contains(c) {
                folded
            } else {
                c
            }
        })
        .collect()
}

/// A line as a fallback tier compares it: each character folded, trailing whitespace removed.
fn normalise(line: &str, fold: fn(char) -> char) -> String {
    let folded: String = line.chars().map(fold).collect();
    folded.trim_end().to_owned()
}

/// The byte offset of the `n`th character of `s` (its length when `n` is past the end).
fn byte_of_char(s: &str, n: usize) -> usize {
    s.char_indices().nth(n).map_or(s.len(), |(at, _)| at)
}

/// Fallback matching line by line with `fold`, trailing whitespace ignored: the needle's first
/// line must end a file line, its middle lines equal file lines, its last line start one (a
/// one-line needle may sit anywhere in a line). `fold` maps one character to one character, so
/// character positions carry over from the compared form to the original.
fn find_by_lines(
    text: &str,
    lines: &[Range<usize>],
    needle: &str,
    fold: fn(char) -> char,
) -> Vec<Range<usize>> {
    let raw_pieces: Vec<&str> = needle.split('\n').collect();
    let pieces: Vec<String> = raw_pieces.iter().map(|p| normalise(p, fold)).collect();
    if pieces.iter().all(String::is_empty) {
        return Vec::new();
    }
    let originals: Vec<&str> = lines.iter().map(|r| &text[r.clone()]).collect();
    let normalised: Vec<String> = originals.iter().map(|l| normalise(l, fold)).collect();
    let mut found = Vec::new();
    if let [piece] = pieces.as_slice() {
        let piece_chars = piece.chars().count();
        for (index, line) in normalised.iter().enumerate() {
            let line_chars = line.chars().count();
            for (at, _) in line.match_indices(piece.as_str()) {
                let first = line[..at].chars().count();
                let start = lines[index].start + byte_of_char(originals[index], first);
                let end = if first + piece_chars == line_chars {
                    // The match runs to the end of the line: take its trailing whitespace too.
                    lines[index].end
                } else {
                    lines[index].start + byte_of_char(originals[index], first + piece_chars)
                };
                found.push(start..end);
            }
        }
        return found;
    }
    let k = pieces.len() - 1;
    let last_raw: String = raw_pieces[k].chars().map(fold).collect();
    for i in 0..lines.len().saturating_sub(k) {
        let first_line = &normalised[i];
        if !first_line.ends_with(pieces[0].as_str()) {
            continue;
        }
        if (1..k).any(|j| normalised[i + j] != pieces[j]) {
            continue;
        }
        let last = i + k;
        let end = if !pieces[k].is_empty() && normalised[last] == pieces[k] {
            lines[last].end
        } else {
            let folded_line: String = originals[last].chars().map(fold).collect();
            if !folded_line.starts_with(last_raw.as_str()) {
                continue;
            }
            lines[last].start + byte_of_char(originals[last], last_raw.chars().count())
        };
        let first_char = first_line.chars().count() - pieces[0].chars().count();
        let start = lines[i].start + byte_of_char(originals[i], first_char);
        found.push(start..end);
    }
    found
}

/// How the indentation of a matched block differs from the needle's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndentShift {
    /// The file's lines have this more indentation than the needle's.
    Add(String),
    /// The file's lines have this less indentation than the needle's.
    Remove(String),
}

impl IndentShift {
    /// The shift between one file line and one needle line (both non-blank), when their text
    /// after the indentation is the same and one indentation extends the other.
    fn between(file_line: &str, needle_line: &str) -> Option<Self> {
        let file_indent = indentation(file_line);
        let needle_indent = indentation(needle_line);
        if file_line[file_indent.len()..] != needle_line[needle_indent.len()..] {
            return None;
        }
        if let Some(extra) = file_indent.strip_suffix(needle_indent) {
            Some(Self::Add(extra.to_owned()))
        } else {
            needle_indent
                .strip_suffix(file_indent)
                .map(|extra| Self::Remove(extra.to_owned()))
        }
    }

    /// `text` (the replacement) shifted the same way, blank lines left as they are.
    pub fn apply(&self, text: &str) -> String {
        text.split('\n')
            .map(|line| {
                if line.trim().is_empty() {
                    return line.to_owned();
                }
                match self {
                    Self::Add(extra) => format!("{extra}{line}"),
                    Self::Remove(extra) => line
                        .strip_prefix(extra.as_str())
                        .unwrap_or_else(|| line.trim_start())
                        .to_owned(),
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// The leading spaces and tabs of a line.
fn indentation(line: &str) -> &str {
    let rest = line.trim_start_matches([' ', '\t']);
    &line[..line.len() - rest.len()]
}

/// Whole-line matching where every non-blank line's indentation differs from the needle's by
/// the same shift (trailing whitespace ignored, blank lines match blank lines). The range
/// covers whole lines, and the final `\n` when the needle ends with one.
fn find_indentation_shift(
    text: &str,
    lines: &[Range<usize>],
    needle: &str,
) -> Vec<(Range<usize>, IndentShift)> {
    let (body, with_newline) = match needle.strip_suffix('\n') {
        Some(body) => (body, true),
        None => (needle, false),
    };
    let needle_lines: Vec<&str> = body.split('\n').map(str::trim_end).collect();
    if needle_lines.iter().all(|l| l.trim().is_empty()) {
        return Vec::new();
    }
    let file_lines: Vec<&str> = lines.iter().map(|r| text[r.clone()].trim_end()).collect();
    let m = needle_lines.len();
    let mut found = Vec::new();
    'windows: for i in 0..file_lines.len().saturating_sub(m - 1) {
        let mut shift: Option<IndentShift> = None;
        for (file_line, needle_line) in file_lines[i..i + m].iter().zip(&needle_lines) {
            if needle_line.trim().is_empty() {
                if file_line.trim().is_empty() {
                    continue;
                }
                continue 'windows;
            }
            match (IndentShift::between(file_line, needle_line), &shift) {
                (None, _) => continue 'windows,
                (Some(this), None) => shift = Some(this),
                (Some(this), Some(agreed)) if this == *agreed => {}
                (Some(_), Some(_)) => continue 'windows,
            }
        }
        let Some(shift) = shift else { continue };
        let last = i + m - 1;
        let end = if with_newline {
            // The last line must be followed by a `\n`.
            if last + 1 >= lines.len() {
                continue;
            }
            lines[last].end + 1
        } else {
            lines[last].end
        };
        found.push((lines[i].start..end, shift));
    }
    found
}

/// The 1-based line range of `text` that looks most like `needle` (same number of lines),
/// by character-trigram overlap, or `None` when no window shares anything with it.
pub fn closest_lines(text: &str, needle: &str) -> Option<Range<usize>> {
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return None;
    }
    let needle_lines: Vec<&str> = needle.trim_matches('\n').lines().collect();
    let m = needle_lines.len().clamp(1, lines.len());
    let mut wanted: HashMap<u64, u32> = HashMap::new();
    let mut wanted_total = 0u32;
    for line in &needle_lines {
        for gram in trigrams(line) {
            *wanted.entry(gram).or_default() += 1;
            wanted_total += 1;
        }
    }
    if wanted_total == 0 {
        return None;
    }
    let grams: Vec<Vec<u64>> = lines.iter().map(|l| trigrams(l)).collect();
    let mut have: HashMap<u64, u32> = HashMap::new();
    let mut common = 0u32;
    let mut window_total = 0u32;
    let mut best: Option<(f64, usize)> = None;
    for end in 0..lines.len() {
        for &gram in &grams[end] {
            let count = have.entry(gram).or_default();
            if *count < wanted.get(&gram).copied().unwrap_or(0) {
                common += 1;
            }
            *count += 1;
            window_total += 1;
        }
        if end >= m {
            for &gram in &grams[end - m] {
                if let Some(count) = have.get_mut(&gram) {
                    *count -= 1;
                    if *count < wanted.get(&gram).copied().unwrap_or(0) {
                        common -= 1;
                    }
                }
                window_total -= 1;
            }
        }
        if end + 1 >= m {
            let score = 2.0 * f64::from(common) / f64::from(window_total + wanted_total);
            if common > 0 && best.is_none_or(|(b, _)| score > b) {
                best = Some((score, end + 1 - m));
            }
        }
    }
    best.map(|(_, start)| start + 1..start + m + 1)
}

/// Hashed character trigrams of a line with its whitespace runs collapsed and a space at each
/// end (so short lines have some too).
fn trigrams(line: &str) -> Vec<u64> {
    let collapsed: Vec<char> = std::iter::once(' ')
        .chain(line.split_whitespace().flat_map(|w| w.chars().chain([' '])))
        .collect();
    collapsed
        .windows(3)
        .map(|w| {
            let mut hasher = DefaultHasher::new();
            w.hash(&mut hasher);
            hasher.finish()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(text: &str, replacements: &[Replacement]) -> String {
        let mut out = text.to_owned();
        for r in replacements.iter().rev() {
            out.replace_range(r.range.clone(), &r.text);
        }
        out
    }

    fn edit(text: &str, old: &str, new: &str) -> Result<(Tier, String), MatchError> {
        plan_replacements(text, old, new, false).map(|(tier, r)| (tier, apply(text, &r)))
    }

    #[test]
    fn exact_matches_win_and_several_need_replace_all() {
        let text = "a = 1\nb = 1\n";
        assert_eq!(
            edit(text, "b = 1", "b = 2"),
            Ok((Tier::Exact, "a = 1\nb = 2\n".into()))
        );
        assert_eq!(
            edit(text, "= 1", "= 3"),
            Err(MatchError::Ambiguous {
                tier: Tier::Exact,
                lines: vec![1, 2]
            })
        );
        let (tier, all) = plan_replacements(text, "= 1", "= 3", true).unwrap();
        assert_eq!(
            (tier, apply(text, &all)),
            (Tier::Exact, "a = 3\nb = 3\n".into())
        );
        assert_eq!(edit(text, "zzz", "y"), Err(MatchError::NotFound));
    }

    #[test]
    fn trailing_whitespace_is_ignored_on_both_sides() {
        // The file has trailing spaces the model dropped.
        let text = "fn a() {   \n    body();\t\n}\n";
        assert_eq!(
            edit(text, "fn a() {\n    body();\n}", "fn b() {\n    body();\n}"),
            Ok((
                Tier::TrailingWhitespace,
                "fn b() {\n    body();\n}\n".into()
            ))
        );
        // The model added trailing spaces the file lacks.
        assert_eq!(
            edit("x = 1\ny = 2\n", "x = 1  \ny = 2", "x = 9\ny = 2"),
            Ok((Tier::TrailingWhitespace, "x = 9\ny = 2\n".into()))
        );
        // A one-line needle with trailing space, found mid-file.
        assert_eq!(
            edit("a\nvalue = 3   \nb\n", "value = 3     ", "value = 4"),
            Ok((Tier::TrailingWhitespace, "a\nvalue = 4\nb\n".into()))
        );
    }

    #[test]
    fn a_fragment_needle_keeps_the_rest_of_its_lines() {
        let text = "let x = call(a,   \n    b);\n";
        assert_eq!(
            edit(text, "call(a,\n    b", "other(a,\n    c"),
            Ok((
                Tier::TrailingWhitespace,
                "let x = other(a,\n    c);\n".into()
            ))
        );
    }

    #[test]
    fn the_next_lines_indentation_at_the_end_of_a_needle_is_not_doubled() {
        let text = "a  \n    b\n";
        assert_eq!(
            edit(text, "a\n    ", "z\n    "),
            Ok((Tier::TrailingWhitespace, "z\n    b\n".into()))
        );
    }

    #[test]
    fn indentation_shifts_apply_to_the_replacement_too() {
        let text = "impl A {\n    fn f() {\n        go();\n    }\n}\n";
        // The model quoted the method without its indentation.
        let old = "fn f() {\n    go();\n}";
        let new = "fn f() {\n    stop();\n\n    go();\n}";
        assert_eq!(
            edit(text, old, new),
            Ok((
                Tier::Indentation,
                "impl A {\n    fn f() {\n        stop();\n\n        go();\n    }\n}\n".into()
            ))
        );
        // ... or with too much.
        let old = "        fn f() {\n            go();\n        }\n";
        let new = "        fn g() {\n            go();\n        }\n";
        assert_eq!(
            edit(text, old, new),
            Ok((
                Tier::Indentation,
                "impl A {\n    fn g() {\n        go();\n    }\n}\n".into()
            ))
        );
    }

    #[test]
    fn an_uneven_shift_is_no_match() {
        let text = "if x:\n    a()\n        b()\n";
        assert_eq!(edit(text, "a()\nb()", "c()"), Err(MatchError::NotFound));
        assert_eq!(
            IndentShift::between("\tx", "    x"),
            None,
            "tabs and spaces do not shift into each other"
        );
    }

    #[test]
    fn unicode_lookalikes_match_their_ascii_forms() {
        let text = "say(\"it's — fine\")\u{00A0}\nnext\n";
        // Curly quotes and a plain hyphen from the model; NBSP at the end counts as whitespace.
        let old = "say(\u{201C}it\u{2019}s - fine\u{201D})";
        let new = "say(\u{201C}it\u{2019}s \u{2014} great\u{201D})";
        assert_eq!(
            edit(text, old, new),
            // The file's straight quotes stay straight; the em dash the file used is kept.
            Ok((Tier::Unicode, "say(\"it's \u{2014} great\")\nnext\n".into()))
        );
    }

    #[test]
    fn a_fallback_that_finds_several_places_is_refused() {
        let text = "x = 1  \ny = 2\nx = 1 \n";
        assert_eq!(
            edit(text, "x = 1\n", "x = 5\n"),
            Err(MatchError::Ambiguous {
                tier: Tier::TrailingWhitespace,
                lines: vec![1, 3]
            })
        );
        // replace_all does not extend to fallback tiers.
        assert!(plan_replacements(text, "x = 1\n", "x = 5\n", true).is_err());
    }

    #[test]
    fn blank_needles_never_match_loosely() {
        assert_eq!(edit("a\n\nb\n", "  \n ", "x"), Err(MatchError::NotFound));
        assert_eq!(find_exact("abc", ""), Vec::<Range<usize>>::new());
    }

    #[test]
    fn line_numbers_of_offsets() {
        assert_eq!(line_of("a\nb\nc", 0), 1);
        assert_eq!(line_of("a\nb\nc", 2), 2);
        assert_eq!(line_of("a\nb\nc", 4), 3);
    }

    #[test]
    fn the_closest_window_is_found() {
        let text =
            "use std::io;\n\nfn main() {\n    let x = compute(1, 2);\n    println!(\"{x}\");\n}\n";
        assert_eq!(
            closest_lines(text, "let x = compute(1, 3);\nprintln!(\"{y}\");"),
            Some(4..6)
        );
        assert_eq!(closest_lines(text, "fn mian() {"), Some(3..4));
        assert_eq!(closest_lines("", "x"), None);
        assert_eq!(closest_lines("abc\n", "xyz"), None);
        // A needle longer than the file uses the whole file.
        assert_eq!(closest_lines("a\nb\n", "a\nb\nc\nd"), Some(1..3));
    }

    #[test]
    fn lookalike_folding_covers_the_usual_suspects() {
        let folded: String =
            "\u{00A0}\u{2009}\u{2018}\u{2019}\u{201C}\u{201D}\u{2013}\u{2014}\u{2212}"
                .chars()
                .map(fold_lookalike)
                .collect();
        assert_eq!(folded, "  ''\"\"---");
    }
}
