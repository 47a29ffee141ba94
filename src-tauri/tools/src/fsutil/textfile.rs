//! What the file tools treat as text: UTF-8, an optional BOM, LF or CRLF line breaks.
//!
//! The model sees and writes text with `\n` line breaks and no byte-order mark. Files on disk
//! may have CRLF breaks (Windows projects), a UTF-8 BOM (some editors add one), or a missing
//! final newline, and an edit must leave all of that as it was: a tool that "normalises" a file
//! while changing one line produces a diff of every line and breaks byte-exact tooling. So the
//! tools split a file into its *content* (BOM removed, breaks normalised to `\n` for matching)
//! and its *format* (BOM, dominant line ending, final newline), work on the content, and put the
//! format back when writing. Normalisation keeps a map back to the original offsets, so a
//! change to a mixed-ending file touches only the bytes it replaces.
//!
//! A file is *binary* when its first [`BINARY_SNIFF_BYTES`] bytes contain a NUL — the heuristic
//! git and grep use; UTF-16 files count as binary by that rule, which is what we want since the
//! tools only speak UTF-8.

/// The UTF-8 byte-order mark.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// How many leading bytes are checked for NUL to call a file binary.
pub const BINARY_SNIFF_BYTES: usize = 8 * 1024;

/// True when `head` (the start of a file) contains a NUL byte within the sniffed prefix.
pub fn looks_binary(head: &[u8]) -> bool {
    let end = head.len().min(BINARY_SNIFF_BYTES);
    memchr::memchr(0, &head[..end]).is_some()
}

/// A file's line-break style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEnding {
    /// `\n`.
    Lf,
    /// `\r\n`.
    Crlf,
}

impl LineEnding {
    /// The dominant style of `text`: CRLF when more breaks are `\r\n` than bare `\n`, else LF
    /// (so a file without breaks, or an even mix, counts as LF).
    pub fn detect(text: &str) -> Self {
        let (crlf, lf) = count_breaks(text.as_bytes());
        if crlf > lf { Self::Crlf } else { Self::Lf }
    }

    /// The break as text.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Lf => "\n",
            Self::Crlf => "\r\n",
        }
    }

    /// `text` (with `\n` breaks, as the model writes) converted to this style. Breaks that are
    /// already `\r\n` are kept; every bare `\n` becomes this style's break.
    pub fn apply(self, text: &str) -> String {
        match self {
            Self::Lf => text.to_owned(),
            Self::Crlf => {
                let mut out = String::with_capacity(text.len() + text.len() / 32);
                let mut previous = '\0';
                for c in text.chars() {
                    if c == '\n' && previous != '\r' {
                        out.push('\r');
                    }
                    out.push(c);
                    previous = c;
                }
                out
            }
        }
    }
}

/// How many line breaks are `\r\n` and how many are a bare `\n`.
fn count_breaks(bytes: &[u8]) -> (usize, usize) {
    let mut crlf = 0;
    let mut lf = 0;
    for at in memchr::memchr_iter(b'\n', bytes) {
        if at > 0 && bytes[at - 1] == b'\r' {
            crlf += 1;
        } else {
            lf += 1;
        }
    }
    (crlf, lf)
}

/// The number of lines in `text` as an editor numbers them: a final line without a newline
/// counts, a final newline does not start another line, and the empty text has no lines.
pub fn count_lines(text: &str) -> usize {
    let breaks = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    if text.is_empty() || text.ends_with('\n') {
        breaks
    } else {
        breaks + 1
    }
}

/// A text file split into content and format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextFile {
    /// The file started with a UTF-8 BOM (not part of `text`).
    pub bom: bool,
    /// The content after the BOM, line breaks as in the file.
    pub text: String,
    /// The dominant line-break style.
    pub line_ending: LineEnding,
}

/// Why bytes are not a text file the tools can change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// A NUL byte near the start.
    #[error("it is a binary file")]
    Binary,
    /// Not valid UTF-8; rewriting it would corrupt the bytes that are not.
    #[error("it is not valid UTF-8 (first invalid byte on line {line})")]
    InvalidUtf8 {
        /// 1-based line of the first invalid byte.
        line: usize,
    },
}

impl TextFile {
    /// Splits file bytes into content and format; refuses binary files and invalid UTF-8.
    pub fn decode(bytes: Vec<u8>) -> Result<Self, DecodeError> {
        if looks_binary(&bytes) {
            return Err(DecodeError::Binary);
        }
        let (bom, mut bytes) = match bytes.strip_prefix(BOM) {
            Some(_) => (true, bytes),
            None => (false, bytes),
        };
        if bom {
            bytes.drain(..BOM.len());
        }
        let text = String::from_utf8(bytes).map_err(|error| {
            let valid = &error.as_bytes()[..error.utf8_error().valid_up_to()];
            DecodeError::InvalidUtf8 {
                line: memchr::memchr_iter(b'\n', valid).count() + 1,
            }
        })?;
        let line_ending = LineEnding::detect(&text);
        Ok(Self {
            bom,
            text,
            line_ending,
        })
    }

    /// The file's bytes for `text` (content after the BOM, breaks as they should be on disk).
    pub fn encode(&self, text: &str) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(text.len() + BOM.len());
        if self.bom {
            bytes.extend_from_slice(BOM);
        }
        bytes.extend_from_slice(text.as_bytes());
        bytes
    }
}

/// Text with every `\r\n` turned into `\n`, and the way back to offsets in the original.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Normalized {
    /// The normalised text.
    pub text: String,
    /// Offsets in `text` of the `\n`s that were `\r\n` in the original, ascending.
    removed_cr: Vec<usize>,
}

impl Normalized {
    /// Normalises `original`'s `\r\n` breaks to `\n` (a lone `\r` is kept as it is).
    pub fn new(original: &str) -> Self {
        let bytes = original.as_bytes();
        let mut text = String::with_capacity(original.len());
        let mut removed_cr = Vec::new();
        let mut start = 0;
        for at in memchr::memchr_iter(b'\n', bytes) {
            if at > 0 && bytes[at - 1] == b'\r' {
                text.push_str(&original[start..at - 1]);
                removed_cr.push(text.len());
                start = at;
            }
        }
        text.push_str(&original[start..]);
        Self { text, removed_cr }
    }

    /// The offset in the original text of offset `at` in the normalised text. A `\n` that was
    /// `\r\n` maps to its `\r`, so a range that includes the break includes both bytes and a
    /// range that ends before it ends before both.
    pub fn original_offset(&self, at: usize) -> usize {
        at + self.removed_cr.partition_point(|&removed| removed < at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_means_a_nul_in_the_first_8_kib() {
        assert!(!looks_binary(b"plain text\n"));
        assert!(looks_binary(b"ab\0cd"));
        let mut late = vec![b'a'; BINARY_SNIFF_BYTES];
        late.push(0);
        assert!(!looks_binary(&late));
        assert!(looks_binary(b"\xFF\xFEh\0i\0"), "UTF-16 counts as binary");
    }

    #[test]
    fn line_counts_follow_editors() {
        assert_eq!(count_lines(""), 0);
        assert_eq!(count_lines("\n"), 1);
        assert_eq!(count_lines("a"), 1);
        assert_eq!(count_lines("a\n"), 1);
        assert_eq!(count_lines("a\nb"), 2);
        assert_eq!(count_lines("a\r\nb\r\n"), 2);
        assert_eq!(count_lines("a\n\n"), 2);
    }

    #[test]
    fn the_dominant_line_ending_wins_and_ties_are_lf() {
        assert_eq!(LineEnding::detect("a\r\nb\r\nc\n"), LineEnding::Crlf);
        assert_eq!(LineEnding::detect("a\r\nb\nc\n"), LineEnding::Lf);
        assert_eq!(LineEnding::detect("a\r\nb\n"), LineEnding::Lf);
        assert_eq!(LineEnding::detect("no breaks"), LineEnding::Lf);
        assert_eq!(LineEnding::detect("lone\rcr\r"), LineEnding::Lf);
    }

    #[test]
    fn applying_crlf_converts_bare_breaks_only() {
        assert_eq!(LineEnding::Crlf.apply("a\nb\r\nc\n"), "a\r\nb\r\nc\r\n");
        assert_eq!(LineEnding::Crlf.apply("\n\n"), "\r\n\r\n");
        assert_eq!(LineEnding::Lf.apply("a\r\nb\n"), "a\r\nb\n");
    }

    #[test]
    fn decode_splits_bom_and_refuses_binary_and_invalid_utf8() {
        let file = TextFile::decode(b"\xEF\xBB\xBFhi\r\nthere\r\n".to_vec()).unwrap();
        assert!(file.bom);
        assert_eq!(file.text, "hi\r\nthere\r\n");
        assert_eq!(file.line_ending, LineEnding::Crlf);
        assert_eq!(file.encode("x"), b"\xEF\xBB\xBFx");

        let plain = TextFile::decode(b"x\n".to_vec()).unwrap();
        assert!(!plain.bom);
        assert_eq!(plain.encode("y\n"), b"y\n");

        assert_eq!(TextFile::decode(b"a\0b".to_vec()), Err(DecodeError::Binary));
        assert_eq!(
            TextFile::decode(b"one\ntwo\nbad \xFF byte\n".to_vec()),
            Err(DecodeError::InvalidUtf8 { line: 3 })
        );
    }

    #[test]
    fn normalised_offsets_map_back_around_removed_carriage_returns() {
        let original = "ab\r\ncd\nef\r\n";
        let n = Normalized::new(original);
        assert_eq!(n.text, "ab\ncd\nef\n");
        // "ab" ends before the break in both.
        assert_eq!(n.original_offset(2), 2);
        // "ab\n" includes the whole "\r\n".
        assert_eq!(n.original_offset(3), 4);
        assert_eq!(&original[n.original_offset(3)..n.original_offset(5)], "cd");
        assert_eq!(n.original_offset(6), 7);
        assert_eq!(n.original_offset(9), 11);
        assert_eq!(Normalized::new("lone\rcr").text, "lone\rcr");
    }
}
