//! From a simple command's words to its keys.
//!
//! - **Program as written.** `./script.sh`, `/bin/rm` and `rm` are different keys; a key never
//!   shortens a path to its basename, so approving `rm` never approves `./rm`.
//! - **Up to the first non-flag argument.** `git status`, `cargo test`, `npm run` (`npm run x`
//!   and `npm run y` share a key). Flags *before* that argument stay in the key, and so does
//!   the word right after such a flag (it may be the flag's value), so the key ends at the
//!   first argument that is neither a flag nor a flag's possible value: `git -C dir status`,
//!   `rm -rf build`, `python -m pytest`, `ls -la`. A flag's value must not pose as the
//!   subcommand (`git -C status push` is not `git status`). A flag with `=`
//!   (`--color=never`) takes no separate value. Words starting with `+` count as flags
//!   (`cargo +nightly test`, `chmod +x f`). After `--` the next word ends the key.
//! - **Assignments stay in the key.** `RUST_LOG=debug cargo test` is its own key: variables
//!   such as `PATH`, `LD_PRELOAD` or `GIT_SSH_COMMAND` change what a program does. A part made
//!   only of assignments (`FOO=1; ...`) is keyed by them.
//! - **Wrappers** (`sudo`, `env`, `timeout`, `xargs`, `sh -c`, ...) are read by
//!   [`super::wrappers`]; the command they run is keyed in turn.
//! - **Arguments after the key** are not part of it, but every option among them must be
//!   harmless for the program ([`super::programs`]); otherwise the command has no scope.

use super::parser::{End, Parser};
use super::programs::{self, Call};
use super::refusals;
use super::unscoped::Unscoped;
use super::word::{Word, is_flag, render_assignment};
use super::wrappers::{self, Wrapped};

/// The state of keying one simple command through its wrappers.
pub(super) struct Keying<'k> {
    /// How deep the parser is (for `sh -c` scripts).
    pub depth: usize,
    /// Key prefix added by wrappers so far (assignments, `sudo ...`, `xargs`).
    pub prefix: Vec<String>,
    /// The keys found so far.
    pub keys: &'k mut Vec<String>,
    /// An enclosing `xargs` appends arguments read from its input to the command.
    pub appended: bool,
}

impl Keying<'_> {
    /// `key` under the current prefix.
    pub fn prefixed(&self, key: String) -> String {
        if self.prefix.is_empty() {
            key
        } else {
            format!("{} {key}", self.prefix.join(" "))
        }
    }

    /// Keys of a shell script run by `sh -c`, under the current prefix.
    pub fn script_keys(&mut self, script: &str) -> Result<(), Unscoped> {
        let mut inner = Vec::new();
        if !Parser::new(script, self.depth + 1).parse_list(End::Eof, &mut inner)? {
            return Err(Unscoped::Empty);
        }
        let keys: Vec<String> = inner.into_iter().map(|key| self.prefixed(key)).collect();
        self.keys.extend(keys);
        Ok(())
    }
}

/// The keys of one simple command's words (redirections aside).
pub(super) fn command_keys(depth: usize, words: &[Word]) -> Result<Vec<String>, Unscoped> {
    let mut keys = Vec::new();
    let mut prefix = Vec::new();
    let mut index = 0;
    while let Some(word) = words.get(index)
        && let Some(split) = word.assignment_split()
    {
        prefix.push(render_assignment(word, split)?);
        index += 1;
    }
    if index == words.len() {
        if !prefix.is_empty() {
            keys.push(prefix.join(" "));
        }
    } else {
        let mut keying = Keying {
            depth,
            prefix,
            keys: &mut keys,
            appended: false,
        };
        program_keys(&mut keying, &words[index..])?;
    }
    Ok(keys)
}

/// Keys of `words` (non-empty, `words[0]` is the program) under the keying's prefix.
pub(super) fn program_keys(keying: &mut Keying, words: &[Word]) -> Result<(), Unscoped> {
    let program = words.first().ok_or(Unscoped::Unparsed)?;
    let name = program.literal()?;
    // A quoted `"FOO=1"` is not an assignment, and no program is called that.
    if name.contains('=') {
        return Err(Unscoped::Unparsed);
    }
    refusals::refuse(&name, words)?;
    // Wrappers read their own options; the words of any other program are checked here.
    let check_options = match wrappers::find(&name) {
        Some(wrapper) => match wrapper(keying, words)? {
            Wrapped::Runs(inner) if inner < words.len() => {
                return program_keys(keying, &words[inner..]);
            }
            // What xargs appends would reach the wrapper itself: `xargs env` or `xargs sudo`
            // runs whatever command its input names.
            Wrapped::Runs(_) | Wrapped::Alone if keying.appended => {
                return Err(Unscoped::InputArguments { program: name });
            }
            Wrapped::Runs(_) | Wrapped::Alone => false,
            Wrapped::Keyed => return Ok(()),
        },
        None => true,
    };
    let key = general_key(words)?;
    if check_options {
        programs::check(&Call {
            program: name,
            args: &words[1..],
            appended: keying.appended,
        })?;
    }
    let key = keying.prefixed(key);
    keying.keys.push(key);
    Ok(())
}

/// The program and its arguments up to the first argument that is neither a flag nor right
/// after a flag that could take it as its value (see the module docs).
pub(super) fn general_key(words: &[Word]) -> Result<String, Unscoped> {
    let mut parts = Vec::new();
    let mut options_done = false;
    let mut after_flag = false;
    for (index, word) in words.iter().enumerate() {
        if word.is_dynamic() {
            return Err(word.dynamic());
        }
        parts.push(word.render());
        if index == 0 {
            continue;
        }
        let value = word.value();
        if !options_done {
            if value == "--" {
                options_done = true;
                after_flag = false;
                continue;
            }
            if is_flag(&value) {
                after_flag = !value.contains('=');
                continue;
            }
            if after_flag {
                after_flag = false;
                continue;
            }
        }
        break;
    }
    Ok(parts.join(" "))
}
