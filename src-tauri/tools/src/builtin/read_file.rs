//! read_file: a window of numbered lines from a text file.
//!
//! The model reads files a window at a time (`offset`, `limit`) and needs to know where the
//! window sits in the file, so the header carries the range and the total line count. Counting
//! lines means looking at every byte, but it must not mean *holding* every byte: a window near
//! the end of a multi-gigabyte log has to cost a fixed amount of memory. So the file is streamed
//! once through a fixed buffer; newlines outside the window are only counted (`memchr`, which
//! is vectorised), and only the window's lines are kept — each cut to [`MAX_LINE_CHARS`]
//! characters, so one enormous line (minified JavaScript, a JSON dump) costs at most a few KiB
//! too. Memory is O(window), time is O(file).
//!
//! Display rules: lines are split on `\n`; a `\r` before it is not shown (the model writes
//! `\n`, and edit_file matches across line endings); a UTF-8 BOM is not shown; invalid UTF-8 is
//! shown with U+FFFD and the header says so; a NUL byte in the first 8 KiB means the file is
//! binary and is refused. A successful read records the file's stamp in the session ledger,
//! which is what lets edit_file refuse an edit when the file changed afterwards.

use std::io::{self, Read};

use schemars::JsonSchema;
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use crate::fsutil::textfile::{BINARY_SNIFF_BYTES, BOM, looks_binary};
use crate::ledger::FileStamp;
use crate::text::line_cut_marker;
use crate::{
    OpenError, ProjectRoot, ResolvedPath, ToolContext, ToolError, ToolOutput, ToolResult, tool,
};

/// Lines returned when the model gives no `limit`.
pub const DEFAULT_LIMIT: usize = 200;
/// The most lines one call returns; a larger `limit` is lowered to this (the header shows the
/// range actually returned, and the observation is marked truncated).
pub const MAX_LIMIT: usize = 2000;
pub use crate::text::MAX_LINE_CHARS;
/// Bytes of one line kept while streaming: enough for [`MAX_LINE_CHARS`] characters of up to
/// four bytes each.
const MAX_LINE_BYTES: usize = MAX_LINE_CHARS * 4;
/// The streaming buffer.
const CHUNK_BYTES: usize = 128 * 1024;

fn one() -> usize {
    1
}

fn default_limit() -> usize {
    DEFAULT_LIMIT
}

/// Arguments of read_file.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadFileArgs {
    /// Path of the file, relative to the project root.
    pub path: String,
    /// First line to return, 1-based.
    #[serde(default = "one")]
    pub offset: usize,
    /// How many lines to return (at most 2000).
    #[serde(default = "default_limit")]
    pub limit: usize,
}

/// Read a text file as numbered lines (`12: text`), 200 lines from `offset` by default. The
/// header `[file: path | lines a-b/total]` says which lines you got; use offset and limit to page
/// through a long file. Always read a file before editing it, and copy old_string for edit_file
/// from this output without the line-number prefixes.
#[tool]
pub async fn read_file(ctx: &ToolContext, args: ReadFileArgs) -> ToolResult {
    if args.limit == 0 {
        return Err(ToolError::new("limit must be at least 1"));
    }
    // A path in the project, else in a skill folder the skill tool opened (read-only: only
    // read_file looks there).
    let (project, resolved, shown) = match ctx.resolve(&args.path) {
        Ok(resolved) => {
            let shown = resolved.relative().to_owned();
            (ctx.project().clone(), resolved, shown)
        }
        Err(error) => match ctx.skills().resolve(&args.path) {
            Some((root, resolved)) => {
                let shown = resolved.path().display().to_string();
                ((*root).clone(), resolved, shown)
            }
            None => return Err(ToolError::new(error.to_string())),
        },
    };
    let window = Window {
        first: args.offset.max(1),
        limit: args.limit.min(MAX_LIMIT),
    };
    let target = resolved.clone();
    let cancel = ctx.cancel_token().clone();
    let read = tokio::task::spawn_blocking(move || read_window(&project, &target, window, &cancel))
        .await
        .map_err(|_| ToolError::new(format!("reading {resolved} failed unexpectedly")))?
        .map_err(|error| ToolError::new(error.message(&shown)))?;
    ctx.files().record(resolved.path(), read.stamp);
    let clamped = args.limit > MAX_LIMIT && window.last() < read.scan.total;
    Ok(render(&shown, window, &read.scan, clamped))
}

/// The lines asked for: `first..first + limit`, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// First line, 1-based.
    pub first: usize,
    /// How many lines at most (at least 1).
    pub limit: usize,
}

impl Window {
    /// The last line of the window (it may lie past the end of the file).
    pub fn last(self) -> usize {
        self.first.saturating_add(self.limit - 1)
    }
}

/// Why a file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// It could not be opened (missing, a directory, not a regular file, outside the project).
    #[error(transparent)]
    Open(#[from] OpenError),
    /// A NUL byte near the start.
    #[error("is binary")]
    Binary,
    /// The window starts after the last line.
    #[error("offset {offset} is past the end ({total} lines)")]
    PastEnd {
        /// The requested first line.
        offset: usize,
        /// The file's line count.
        total: usize,
    },
    /// The turn was cancelled while streaming.
    #[error("cancelled")]
    Cancelled,
    /// Any other I/O failure.
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl ReadError {
    /// The message the model reads (the dispatcher adds `[error] `).
    pub fn message(&self, path: &str) -> String {
        match self {
            Self::Open(OpenError::NotFound) => format!("{path} does not exist"),
            Self::Open(OpenError::Directory) => format!("{path} is a directory, not a file"),
            Self::Open(OpenError::NotRegular) => format!("{path} is not a regular file"),
            Self::Open(OpenError::Outside) => format!("path '{path}' is outside the project"),
            Self::Open(OpenError::Io(error)) => format!("cannot read {path}: {error}"),
            Self::Binary => format!(
                "{path} is a binary file (it has NUL bytes in its first {} KiB); read_file shows text files only",
                BINARY_SNIFF_BYTES / 1024
            ),
            Self::PastEnd { offset, total } => format!(
                "offset {offset} is past the end of {path}, which has {total} {}",
                if *total == 1 { "line" } else { "lines" }
            ),
            Self::Cancelled => format!("reading {path} was cancelled"),
            Self::Io(error) => format!("cannot read {path}: {error}"),
        }
    }
}

/// A window read from a file, and the file's stamp as it was opened.
#[derive(Debug)]
pub struct ReadWindow {
    /// The lines and the total.
    pub scan: Scan,
    /// The file's stamp before reading.
    pub stamp: FileStamp,
}

/// Opens the regular file `resolved` names in `project` (below the root's descriptor, see
/// [`ProjectRoot::open_regular`]) and reads `window` from it.
pub fn read_window(
    project: &ProjectRoot,
    resolved: &ResolvedPath,
    window: Window,
    cancel: &CancellationToken,
) -> Result<ReadWindow, ReadError> {
    let (mut file, metadata) = project.open_regular(resolved)?;
    let stamp = FileStamp::from_metadata(&metadata);
    let mut head = Vec::with_capacity(BINARY_SNIFF_BYTES);
    (&mut file)
        .take(BINARY_SNIFF_BYTES as u64)
        .read_to_end(&mut head)?;
    if looks_binary(&head) {
        return Err(ReadError::Binary);
    }
    let scan = scan(io::Cursor::new(head).chain(file), window, cancel)?;
    let empty_ok = scan.total == 0 && window.first == 1;
    if window.first > scan.total && !empty_ok {
        return Err(ReadError::PastEnd {
            offset: window.first,
            total: scan.total,
        });
    }
    Ok(ReadWindow { scan, stamp })
}

/// What streaming a file found: the window's lines and the file's line count.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Scan {
    /// The window's lines, in order, starting at the window's first line.
    pub lines: Vec<CapturedLine>,
    /// Lines in the file (a final line without `\n` counts).
    pub total: usize,
}

/// One line of the window as captured: its first bytes and its full size.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct CapturedLine {
    /// The line's first bytes (at most `MAX_LINE_BYTES`), without the `\n`.
    pub bytes: Vec<u8>,
    /// The line's length in bytes, without the `\n`.
    pub len: usize,
    /// The line's length in characters (UTF-8 lead bytes; each invalid byte counts as one).
    pub chars: usize,
    /// The line's last byte, if it has one.
    pub last: Option<u8>,
}

impl CapturedLine {
    fn push(&mut self, piece: &[u8]) {
        let Some(&last) = piece.last() else { return };
        self.len += piece.len();
        self.chars += piece.iter().filter(|&&b| b & 0xC0 != 0x80).count();
        self.last = Some(last);
        let room = MAX_LINE_BYTES.saturating_sub(self.bytes.len());
        self.bytes
            .extend_from_slice(&piece[..piece.len().min(room)]);
    }
}

/// Streams `reader` once, keeping the lines of `window` and counting all lines. Memory is the
/// buffer plus the window; checks `cancel` between chunks.
pub fn scan(
    mut reader: impl Read,
    window: Window,
    cancel: &CancellationToken,
) -> Result<Scan, ReadError> {
    let last_wanted = window.last();
    let mut buffer = vec![0u8; CHUNK_BYTES];
    let mut lines = Vec::new();
    let mut current = CapturedLine::default();
    // The line the next byte belongs to.
    let mut line_no = 1usize;
    let mut last_byte = None;
    loop {
        if cancel.is_cancelled() {
            return Err(ReadError::Cancelled);
        }
        let n = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error.into()),
        };
        let chunk = &buffer[..n];
        last_byte = chunk.last().copied();
        let mut pos = 0;
        while pos < chunk.len() {
            let rest = &chunk[pos..];
            if line_no > last_wanted {
                line_no += memchr::memchr_iter(b'\n', rest).count();
                break;
            }
            let newline = memchr::memchr(b'\n', rest);
            let piece = &rest[..newline.unwrap_or(rest.len())];
            if line_no >= window.first {
                current.push(piece);
            }
            pos += piece.len();
            if newline.is_some() {
                pos += 1;
                if line_no >= window.first {
                    lines.push(std::mem::take(&mut current));
                }
                line_no += 1;
            }
        }
    }
    let total = match last_byte {
        None => 0,
        Some(b'\n') => line_no - 1,
        Some(_) => {
            // A last line without `\n`.
            if (window.first..=last_wanted).contains(&line_no) {
                lines.push(current);
            }
            line_no
        }
    };
    Ok(Scan { lines, total })
}

/// One captured line as the model sees it, and whether invalid UTF-8 was replaced in it.
pub fn display_line(line: &CapturedLine, first_of_file: bool) -> (String, bool) {
    let mut bytes = line.bytes.as_slice();
    let mut chars = line.chars;
    if first_of_file && let Some(rest) = bytes.strip_prefix(BOM) {
        bytes = rest;
        chars -= 1;
    }
    if line.last == Some(b'\r') {
        chars -= 1;
        if line.bytes.len() == line.len {
            bytes = &bytes[..bytes.len() - 1];
        }
    }
    let mut text = String::with_capacity(bytes.len().min(MAX_LINE_BYTES));
    let mut shown = 0;
    let mut lossy = false;
    'chunks: for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if shown == MAX_LINE_CHARS {
                break 'chunks;
            }
            text.push(c);
            shown += 1;
        }
        // An invalid sequence counts as one shown character, as in `from_utf8_lossy`; one
        // cut off by the capture limit can't be reached here, since a full line of shown
        // characters comes first.
        if !chunk.invalid().is_empty() {
            if shown == MAX_LINE_CHARS {
                break;
            }
            text.push(char::REPLACEMENT_CHARACTER);
            shown += 1;
            lossy = true;
        }
    }
    if chars > MAX_LINE_CHARS {
        text.push_str(&line_cut_marker(MAX_LINE_CHARS, chars));
    }
    (text, lossy)
}

/// The observation: header, then `{n}: {text}` per line.
fn render(path: &str, window: Window, scan: &Scan, clamped: bool) -> ToolOutput {
    let (text, cut) = render_text(path, window, scan);
    ToolOutput::text(text).with_truncated(cut || clamped)
}

/// What read_file shows for `window` of the file at `path` (`[file: path | lines a-b/total]`,
/// then `{n}: {text}` per line), and whether a line was cut. The chat's @-mentions attach a
/// file as this same text, so the model reads a mentioned file as it would read it itself.
pub fn render_text(path: &str, window: Window, scan: &Scan) -> (String, bool) {
    let mut body = String::new();
    let mut lossy = false;
    let mut cut = false;
    for (index, line) in scan.lines.iter().enumerate() {
        let number = window.first + index;
        let (text, replaced) = display_line(line, number == 1);
        lossy |= replaced;
        cut |= line.chars > MAX_LINE_CHARS;
        body.push('\n');
        body.push_str(&format!("{number}: {text}"));
    }
    let (a, b) = match scan.lines.len() {
        0 => (0, 0),
        n => (window.first, window.first + n - 1),
    };
    let mut header = format!("[file: {path} | lines {a}-{b}/{}", scan.total);
    if lossy {
        header.push_str(" | invalid UTF-8 shown lossily");
    }
    header.push(']');
    (header + &body, cut)
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::sync::Arc;

    use super::*;
    use crate::{Freshness, ObservationKind, ToolManager};

    fn manager() -> (tempfile::TempDir, ToolManager) {
        let dir = tempfile::tempdir().unwrap();
        let manager = ToolManager::new(dir.path()).unwrap();
        crate::builtin::register_builtins(&manager).unwrap();
        (dir, manager)
    }

    async fn read(manager: &ToolManager, args: serde_json::Value) -> (ObservationKind, String) {
        let obs = manager
            .dispatch("read_file", args, &crate::call::test_call())
            .await;
        (obs.kind, obs.text)
    }

    fn ok(text: &str) -> (ObservationKind, String) {
        (ObservationKind::Ok, text.to_owned())
    }

    fn err(text: &str) -> (ObservationKind, String) {
        (ObservationKind::Error, text.to_owned())
    }

    #[tokio::test]
    async fn a_small_file_comes_back_whole_with_a_header() {
        let (dir, m) = manager();
        fs::create_dir(dir.path().join("src")).unwrap();
        fs::write(dir.path().join("src/a.rs"), "fn main() {\n    go();\n}\n").unwrap();
        assert_eq!(
            read(&m, serde_json::json!({"path": "src/a.rs"})).await,
            ok("[file: src/a.rs | lines 1-3/3]\n1: fn main() {\n2:     go();\n3: }")
        );
    }

    #[tokio::test]
    async fn offset_and_limit_select_a_window() {
        let (dir, m) = manager();
        let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
        fs::write(dir.path().join("ten.txt"), text).unwrap();
        let args = serde_json::json!({"path": "ten.txt", "offset": 4, "limit": 3});
        assert_eq!(
            read(&m, args).await,
            ok("[file: ten.txt | lines 4-6/10]\n4: line 4\n5: line 5\n6: line 6")
        );
        let args = serde_json::json!({"path": "ten.txt", "offset": 9, "limit": 50});
        assert_eq!(
            read(&m, args).await,
            ok("[file: ten.txt | lines 9-10/10]\n9: line 9\n10: line 10")
        );
        // Lenient: offset 0 reads from the top, numbers as strings are coerced.
        let args = serde_json::json!({"path": "ten.txt", "offset": 0, "limit": "1"});
        assert_eq!(
            read(&m, args).await,
            ok("[file: ten.txt | lines 1-1/10]\n1: line 1")
        );
    }

    #[tokio::test]
    async fn an_empty_file_has_lines_0_to_0() {
        let (dir, m) = manager();
        fs::write(dir.path().join("empty"), "").unwrap();
        assert_eq!(
            read(&m, serde_json::json!({"path": "empty"})).await,
            ok("[file: empty | lines 0-0/0]")
        );
        assert_eq!(
            read(&m, serde_json::json!({"path": "empty", "offset": 2})).await,
            err("[error] offset 2 is past the end of empty, which has 0 lines")
        );
    }

    #[tokio::test]
    async fn an_offset_past_the_end_names_the_line_count() {
        let (dir, m) = manager();
        fs::write(dir.path().join("f.txt"), "a\nb\nc\n").unwrap();
        fs::write(dir.path().join("one.txt"), "only").unwrap();
        assert_eq!(
            read(&m, serde_json::json!({"path": "f.txt", "offset": 4})).await,
            err("[error] offset 4 is past the end of f.txt, which has 3 lines")
        );
        assert_eq!(
            read(&m, serde_json::json!({"path": "one.txt", "offset": 2})).await,
            err("[error] offset 2 is past the end of one.txt, which has 1 line")
        );
    }

    #[tokio::test]
    async fn limit_zero_is_an_error_and_a_huge_limit_is_capped() {
        let (dir, m) = manager();
        let text: String = (1..=2500).map(|i| format!("{i}\n")).collect();
        fs::write(dir.path().join("big.txt"), text).unwrap();
        assert_eq!(
            read(&m, serde_json::json!({"path": "big.txt", "limit": 0})).await,
            err("[error] limit must be at least 1")
        );
        let obs = m
            .dispatch(
                "read_file",
                serde_json::json!({"path": "big.txt", "limit": 100000}),
                &crate::call::test_call(),
            )
            .await;
        assert!(obs.is_ok() && obs.truncated);
        assert!(
            obs.text
                .starts_with("[file: big.txt | lines 1-2000/2500]\n1: 1\n")
        );
        assert!(obs.text.ends_with("\n2000: 2000"));
        // Asking for exactly what is left is not a truncation.
        let obs = m
            .dispatch(
                "read_file",
                serde_json::json!({"path": "big.txt", "offset": 2001, "limit": 5000}),
                &crate::call::test_call(),
            )
            .await;
        assert!(
            obs.text
                .starts_with("[file: big.txt | lines 2001-2500/2500]")
        );
        assert!(!obs.truncated);
    }

    #[tokio::test]
    async fn missing_directories_and_outside_paths_are_clear_errors() {
        let (dir, m) = manager();
        fs::create_dir(dir.path().join("sub")).unwrap();
        fs::write(dir.path().join("file"), "x").unwrap();
        let cases = [
            ("nope.txt", "[error] nope.txt does not exist"),
            ("file/child", "[error] file/child does not exist"),
            ("sub", "[error] sub is a directory, not a file"),
            ("sub/", "[error] sub is a directory, not a file"),
            (".", "[error] . is a directory, not a file"),
            ("../x", "[error] path '../x' is outside the project"),
            (
                "/etc/passwd",
                "[error] path '/etc/passwd' is outside the project",
            ),
            (
                "~/.ssh/id_rsa",
                "[error] path '~/.ssh/id_rsa' is outside the project",
            ),
            ("", "[error] path is empty (use '.' for the project root)"),
        ];
        for (path, expected) in cases {
            assert_eq!(
                read(&m, serde_json::json!({ "path": path })).await,
                err(expected),
                "{path}"
            );
        }
    }

    #[tokio::test]
    async fn a_symlink_out_of_the_project_is_refused() {
        let (dir, m) = manager();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), dir.path().join("link")).unwrap();
        assert_eq!(
            read(&m, serde_json::json!({"path": "link"})).await,
            err("[error] path 'link' is outside the project")
        );
    }

    #[tokio::test]
    async fn binary_files_and_fifos_are_refused() {
        let (dir, m) = manager();
        fs::write(dir.path().join("img.png"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
        assert_eq!(
            read(&m, serde_json::json!({"path": "img.png"})).await,
            err(
                "[error] img.png is a binary file (it has NUL bytes in its first 8 KiB); read_file shows text files only"
            )
        );
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success());
        if made {
            assert_eq!(
                read(&m, serde_json::json!({"path": "pipe"})).await,
                err("[error] pipe is not a regular file")
            );
        }
    }

    #[tokio::test]
    async fn invalid_utf8_is_shown_lossily_and_the_header_says_so() {
        let (dir, m) = manager();
        fs::write(dir.path().join("latin1.txt"), b"caf\xE9\nok\n").unwrap();
        assert_eq!(
            read(&m, serde_json::json!({"path": "latin1.txt"})).await,
            ok(
                "[file: latin1.txt | lines 1-2/2 | invalid UTF-8 shown lossily]\n1: caf\u{FFFD}\n2: ok"
            )
        );
        // Only the shown window counts.
        assert_eq!(
            read(&m, serde_json::json!({"path": "latin1.txt", "offset": 2})).await,
            ok("[file: latin1.txt | lines 2-2/2]\n2: ok")
        );
    }

    #[tokio::test]
    async fn crlf_bom_and_a_missing_final_newline_are_shown_as_plain_lines() {
        let (dir, m) = manager();
        fs::write(
            dir.path().join("win.txt"),
            b"\xEF\xBB\xBFone\r\ntwo\r\nthree",
        )
        .unwrap();
        assert_eq!(
            read(&m, serde_json::json!({"path": "win.txt"})).await,
            ok("[file: win.txt | lines 1-3/3]\n1: one\n2: two\n3: three")
        );
        fs::write(dir.path().join("blank.txt"), "\n\n").unwrap();
        assert_eq!(
            read(&m, serde_json::json!({"path": "blank.txt"})).await,
            ok("[file: blank.txt | lines 1-2/2]\n1: \n2: ")
        );
    }

    #[tokio::test]
    async fn long_lines_are_cut_with_a_marker() {
        let (dir, m) = manager();
        let long = "é".repeat(MAX_LINE_CHARS + 500);
        fs::write(dir.path().join("min.js"), format!("short\n{long}\r\nend\n")).unwrap();
        let obs = m
            .dispatch(
                "read_file",
                serde_json::json!({"path": "min.js"}),
                &crate::call::test_call(),
            )
            .await;
        assert!(obs.truncated);
        let expected = format!(
            "[file: min.js | lines 1-3/3]\n1: short\n2: {} [... line cut: 2000 of 2500 characters shown]\n3: end",
            "é".repeat(MAX_LINE_CHARS)
        );
        assert_eq!(obs.text, expected);
        // Exactly the limit is not cut.
        let exact = "x".repeat(MAX_LINE_CHARS);
        fs::write(dir.path().join("exact.txt"), &exact).unwrap();
        assert_eq!(
            read(&m, serde_json::json!({"path": "exact.txt"})).await,
            ok(&format!("[file: exact.txt | lines 1-1/1]\n1: {exact}"))
        );
    }

    #[test]
    fn invalid_bytes_past_the_cut_do_not_make_the_line_lossy() {
        let mut bytes = "a".repeat(MAX_LINE_CHARS + 10).into_bytes();
        bytes.extend_from_slice(b"\xFF\xFE");
        let scan = scan(
            io::Cursor::new(bytes),
            Window { first: 1, limit: 1 },
            &CancellationToken::new(),
        )
        .unwrap();
        let (text, lossy) = display_line(&scan.lines[0], true);
        assert!(!lossy);
        assert!(text.ends_with("[... line cut: 2000 of 2012 characters shown]"));
    }

    #[tokio::test]
    async fn a_read_records_the_file_in_the_ledger() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("f.txt"), "x\n").unwrap();
        let ctx = ToolContext::new(Arc::new(crate::ProjectRoot::new(dir.path()).unwrap()));
        let real = fs::canonicalize(dir.path().join("f.txt")).unwrap();
        assert_eq!(ctx.files().freshness(&real), Freshness::Unseen);
        let args = ReadFileArgs {
            path: "f.txt".into(),
            offset: 1,
            limit: 10,
        };
        read_file(&ctx, args).await.unwrap();
        assert_eq!(ctx.files().freshness(&real), Freshness::Fresh);
        // A failed read records nothing.
        fs::write(dir.path().join("bin"), b"\0").unwrap();
        let args = ReadFileArgs {
            path: "bin".into(),
            offset: 1,
            limit: 10,
        };
        assert!(read_file(&ctx, args).await.is_err());
        let bin = fs::canonicalize(dir.path().join("bin")).unwrap();
        assert_eq!(ctx.files().freshness(&bin), Freshness::Unseen);
    }

    #[test]
    fn a_cancelled_scan_stops() {
        let token = CancellationToken::new();
        token.cancel();
        let result = scan(
            io::Cursor::new(b"a\nb\n".to_vec()),
            Window { first: 1, limit: 5 },
            &token,
        );
        assert!(matches!(result, Err(ReadError::Cancelled)));
    }

    /// Hands out the data a few bytes at a time, to cross every chunk boundary.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    /// The obvious whole-file implementation, to check the streaming one against.
    fn naive(data: &[u8], window: Window) -> (Vec<Vec<u8>>, usize) {
        if data.is_empty() {
            return (Vec::new(), 0);
        }
        let mut lines: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
        if data.ends_with(b"\n") {
            lines.pop();
        }
        let total = lines.len();
        let picked = lines
            .iter()
            .skip(window.first - 1)
            .take(window.limit)
            .map(|l| l.to_vec())
            .collect();
        (picked, total)
    }

    #[test]
    fn streaming_agrees_with_the_naive_reading_across_chunk_boundaries() {
        let samples: [&[u8]; 7] = [
            b"",
            b"\n",
            b"one",
            b"one\n",
            b"a\nbb\n\nccc\ndddd",
            b"a\r\nb\r\n\r\n",
            b"\n\n\nx\n\n",
        ];
        for data in samples {
            for step in [1, 2, 3, 7, 1 << 20] {
                for first in 1..=6 {
                    for limit in 1..=4 {
                        let window = Window { first, limit };
                        let scanned =
                            scan(Trickle { data, step }, window, &CancellationToken::new())
                                .unwrap();
                        let got: Vec<Vec<u8>> =
                            scanned.lines.iter().map(|l| l.bytes.clone()).collect();
                        assert_eq!(
                            (got, scanned.total),
                            naive(data, window),
                            "{data:?} step {step} window {window:?}"
                        );
                    }
                }
            }
        }
    }
}
