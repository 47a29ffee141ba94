//! File helpers shared by the file tools: atomic writes, text decoding, unified diffs.
//!
//! The file tools (read_file, write_file, edit_file) must agree on what a text file is (a UTF-8
//! BOM is not content, CRLF is one line break, a NUL byte means binary), must write the same
//! careful way (temp file, fsync, rename, permissions kept) and must show changes the same way
//! (one unified diff format for the approver, the UI and the model). Those rules live here once,
//! as plain functions with no knowledge of tools, so each tool file stays about its own
//! behaviour and the rules are tested in one place.

pub mod atomic;
pub mod diff;
pub mod matching;
pub mod textfile;
