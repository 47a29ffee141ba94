//! What "allow for this session" approves when the user approves a shell command.
//!
//! run_command asks before it runs a command, and the user may approve it for the rest of the
//! session. Approving the literal string would be useless (the next `cargo test -p foo` asks
//! again) and approving its first word would be dangerous (`git status` would let `git push`
//! through, and `git status; rm -rf ~` would sail past as "git"). So a command is split into the
//! simple commands the shell will actually run — across pipelines, lists, subshells, groups and
//! command substitutions — and each one is reduced to a *key*: the program and its arguments up
//! to the first one that is not a flag (`git status`, `cargo test`, `rm -rf build`). A later
//! command runs without asking only when every one of its keys was approved before.
//!
//! A key does not show what follows it, so a command is *coverable* only when every option it
//! carries, before and after the subcommand, is known to be harmless for its program: with
//! `git log` approved, `git log --oneline -n 5` runs, `git log --output=../x` asks. Whatever
//! Gantry does not fully understand makes [`command_scope`] return an [`Unscoped`] reason,
//! which means "always ask": a missed `;` or option here would be an approval bypass, a
//! spurious prompt costs one click.
//!
//! # The pieces
//!
//! - [`parser`] and [`lexer`]: the shell grammar (lists, pipelines, subshells, redirections)
//!   and words (quotes, expansions, substitutions).
//! - [`keys`]: from a simple command's words to its keys (program as written, leading flags,
//!   subcommand, assignments, redirections as keys of their own).
//! - [`refusals`]: programs never scoped (control flow, `eval` and friends, `su`, `watch`,
//!   ...).
//! - [`wrappers`]: `sudo`, `env`, `timeout`, `xargs`, `flock`, `busybox`, `sh -c`, ... — one
//!   module per family, each reading its own options and saying where the wrapped command
//!   starts.
//! - [`programs`]: per-program tables of harmless options (git, cargo, npm, make, python,
//!   go, find, sed, coreutils, ...) — one module per family.
//! - [`getopt`]: the one option reader wrappers and tables share.
//! - [`unscoped`]: why a command has no scope, in words the user reads.
//!
//! # Limits of the scheme
//!
//! A key scopes a program, its subcommand and its options, not its operands: approving `git
//! add src` approves `git add .`, approving `npm run build` any script, `make test` further
//! targets (`make test install`), `ssh host` any remote command. Keys are approved one by one,
//! so approved pieces combine (`cd ..` and `rm -rf build` approved separately let `cd .. && rm
//! -rf build` through). Both follow from "program + subcommand" being the unit the user
//! approves; the prompt shows the keys so the user sees that unit.

mod getopt;
mod keys;
mod lexer;
mod parser;
mod programs;
mod refusals;
mod unscoped;
mod word;
mod wrappers;

#[cfg(test)]
mod tests;

pub use unscoped::{OptionEffect, ShellConstruct, Unscoped};

use parser::{End, Parser};

/// Splits `command` into the keys that approving it "for this session" approves (see the
/// module docs), or says why the command cannot be approved that way — the caller must then
/// ask every time.
pub fn command_scope(command: &str) -> Result<Vec<String>, Unscoped> {
    // A shell receives its script as a C string: whatever follows a NUL is never seen.
    if command.contains('\0') {
        return Err(Unscoped::NulByte);
    }
    let mut keys = Vec::new();
    Parser::new(command, 0).parse_list(End::Eof, &mut keys)?;
    let mut unique: Vec<String> = Vec::with_capacity(keys.len());
    for key in keys {
        if !unique.contains(&key) {
            unique.push(key);
        }
    }
    if unique.is_empty() {
        return Err(Unscoped::Empty);
    }
    Ok(unique)
}
