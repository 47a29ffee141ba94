//! Shells: `sh -c SCRIPT` is parsed, a shell reading its input never gets a scope.
//!
//! - `sh -c` / `bash -c` / `dash -c` / `ash -c` with a literal string are parsed recursively:
//!   the keys are those of the inner script (prefixed by an enclosing `sudo`/assignments if
//!   any), so a shell with `-c` never yields a key like `sh`. Only the options `-e -u -x -v`
//!   may accompany `-c`.
//! - `bash script.sh` is an ordinary key; the script's own arguments are checked like those
//!   of a program without a table (any option asks).
//! - Other shells (`zsh`, `ksh`, `fish`, ...) with `-c` are never scoped (their grammars are
//!   not parsed), nor with any other option.
//! - A shell given neither `-c` nor a script file (`curl x | sh`, `bash < f`) runs whatever
//!   its input holds, so a key `sh` would approve anything: never scoped, by name or by path
//!   (see [`crate::command_scope::refusals`]). A shell called by path is otherwise an
//!   ordinary program (`/bin/sh -c '...'` holds its script in the key, and its `-c` is an
//!   option of a program without a table).

use super::{Wrapped, Wrapper};
use crate::command_scope::keys::Keying;
use crate::command_scope::programs::{self, Call};
use crate::command_scope::unscoped::Unscoped;
use crate::command_scope::word::{Word, is_flag};

/// Shells whose `-c` scripts are parsed here (Debian's `sh` is dash).
const POSIX_SHELLS: &[&str] = &["sh", "bash", "dash", "ash"];

/// Shells whose grammar is not parsed here.
const OTHER_SHELLS: &[&str] = &[
    "zsh", "ksh", "mksh", "pdksh", "ksh93", "posh", "yash", "hush", "fish", "csh", "tcsh", "rc",
    "es", "elvish", "nu", "xonsh", "pwsh", "rbash",
];

/// Whether `name` is a shell, parsed here or not.
pub(in crate::command_scope) fn is_shell(name: &str) -> bool {
    POSIX_SHELLS.contains(&name) || OTHER_SHELLS.contains(&name)
}

/// The reader for a shell called `name`, if it is one.
pub(super) fn find(name: &str) -> Option<Wrapper> {
    if POSIX_SHELLS.contains(&name) {
        Some(posix)
    } else if OTHER_SHELLS.contains(&name) {
        Some(foreign)
    } else {
        None
    }
}

/// `sh`, `bash`, `dash`, `ash`.
fn posix(keying: &mut Keying, words: &[Word]) -> Result<Wrapped, Unscoped> {
    if let Some(script) = shell_script(words)? {
        keying.script_keys(&script)?;
        return Ok(Wrapped::Keyed);
    }
    script_arguments(keying, words)?;
    Ok(Wrapped::Alone)
}

/// `zsh`, `fish`, ...: only a script file without options.
fn foreign(keying: &mut Keying, words: &[Word]) -> Result<Wrapped, Unscoped> {
    let name = words[0].value();
    let mut unknown = None;
    for word in &words[1..] {
        let value = word.literal()?;
        if !is_flag(&value) || value == "--" {
            break;
        }
        let command = match value.strip_prefix("--") {
            Some(long) => long.starts_with("command"),
            None => value[1..].contains('c'),
        };
        if command {
            return Err(Unscoped::ForeignShell {
                runner: format!("{name} -c"),
            });
        }
        unknown.get_or_insert(Unscoped::UnknownOption {
            program: name.clone(),
            option: value.split('=').next().unwrap_or_default().to_owned(),
        });
    }
    if let Some(unknown) = unknown {
        return Err(unknown);
    }
    script_arguments(keying, words)?;
    Ok(Wrapped::Alone)
}

/// A shell running a script file: the script must be named (else the shell reads its input),
/// and its arguments are checked like those of a program without a table.
fn script_arguments(keying: &Keying, words: &[Word]) -> Result<(), Unscoped> {
    let Some(script) = script_operand(words) else {
        return Err(Unscoped::ReadsInput {
            program: words[0].value(),
        });
    };
    programs::check_untabled(&Call {
        program: words[script].value(),
        args: &words[script + 1..],
        appended: keying.appended,
    })
}

/// For `sh`/`bash`/`dash` words: the script of a `-c` invocation, or `None` when there is no
/// `-c` (a script file or stdin). Only the options `-c -e -u -x -v` (clustered or not) are
/// understood; others (`-o opt`, `-l`, `--norc`, ...) make the command unscoped.
fn shell_script(words: &[Word]) -> Result<Option<String>, Unscoped> {
    let mut index = 1;
    let mut command_mode = false;
    while let Some(word) = words.get(index) {
        let value = word.literal()?;
        if !is_flag(&value) {
            break;
        }
        index += 1;
        if value == "--" {
            break;
        }
        let unknown = || Unscoped::UnknownOption {
            program: words[0].value(),
            option: value.split('=').next().unwrap_or_default().to_owned(),
        };
        let letters = value.strip_prefix('-').ok_or_else(unknown)?;
        if letters.starts_with('-') || !letters.chars().all(|c| "ceuxv".contains(c)) {
            return Err(unknown());
        }
        command_mode |= letters.contains('c');
    }
    if !command_mode {
        return Ok(None);
    }
    let script = words
        .get(index)
        .ok_or_else(|| Unscoped::MissingValue {
            program: words[0].value(),
            option: "-c".to_owned(),
        })?
        .literal()?;
    Ok(Some(script))
}

/// Whether a script file is named (see [`script_operand`]).
pub(in crate::command_scope) fn has_script_operand(words: &[Word]) -> bool {
    script_operand(words).is_some()
}

/// For a shell's words without `-c`: the index of the script file (the first word after the
/// leading flags and an optional `--`); without one the shell reads its commands from stdin.
fn script_operand(words: &[Word]) -> Option<usize> {
    let mut index = 1;
    while let Some(word) = words.get(index) {
        let value = word.value();
        if value == "--" {
            return (index + 1 < words.len()).then_some(index + 1);
        }
        if !is_flag(&value) {
            return Some(index);
        }
        index += 1;
    }
    None
}
