//! Wrappers that change how a command runs, not what runs: the key is the wrapped command's.

use super::Wrapped;
use crate::command_scope::getopt::{Options, wrapper_options};
use crate::command_scope::keys::Keying;
use crate::command_scope::unscoped::Unscoped;
use crate::command_scope::word::Word;

/// `time -p`.
const TIME: Options = Options {
    flags: "-p",
    ..Options::NONE
};

/// coreutils `nice`.
const NICE: Options = Options {
    values: "-n --adjustment",
    ..Options::NONE
};

/// coreutils `timeout`.
const TIMEOUT: Options = Options {
    flags: "-v --preserve-status --foreground --verbose",
    values: "-s -k --signal --kill-after",
    ..Options::NONE
};

/// coreutils `stdbuf`.
const STDBUF: Options = Options {
    values: "-i -o -e --input --output --error",
    ..Options::NONE
};

/// util-linux `ionice`.
const IONICE: Options = Options {
    flags: "-t --ignore",
    values: "-c -n -p -P -u --class --classdata --pid --pgid --uid",
    ..Options::NONE
};

/// util-linux `taskset` (`-c` changes how the mask reads; it takes no value).
const TASKSET: Options = Options {
    flags: "-a -c -p --all-tasks --cpu-list --pid",
    ..Options::NONE
};

/// `nohup` and `exec`: no options at all.
pub(super) fn bare(_: &mut Keying, words: &[Word]) -> Result<Wrapped, Unscoped> {
    let name = words[0].value();
    let (inner, _) = wrapper_options(&name, words, 1, &Options::NONE)?;
    Ok(Wrapped::Runs(inner))
}

pub(super) fn time(_: &mut Keying, words: &[Word]) -> Result<Wrapped, Unscoped> {
    let (inner, _) = wrapper_options("time", words, 1, &TIME)?;
    Ok(Wrapped::Runs(inner))
}

pub(super) fn nice(_: &mut Keying, words: &[Word]) -> Result<Wrapped, Unscoped> {
    let mut start = 1;
    // The obsolete `nice -10 cmd` form.
    if let Some(word) = words.get(1)
        && let Some(number) = word.literal()?.strip_prefix('-')
        && !number.is_empty()
        && number
            .trim_start_matches('-')
            .chars()
            .all(|c| c.is_ascii_digit())
    {
        start = 2;
    }
    let (inner, _) = wrapper_options("nice", words, start, &NICE)?;
    Ok(Wrapped::Runs(inner))
}

/// `timeout [OPTIONS] DURATION COMMAND`.
pub(super) fn timeout(_: &mut Keying, words: &[Word]) -> Result<Wrapped, Unscoped> {
    let (duration, _) = wrapper_options("timeout", words, 1, &TIMEOUT)?;
    match words.get(duration) {
        Some(word) => {
            word.literal()?;
            Ok(Wrapped::Runs(duration + 1))
        }
        None => Ok(Wrapped::Runs(duration)),
    }
}

/// `command CMD` runs CMD; `command -v NAME` only looks it up.
pub(super) fn command(_: &mut Keying, words: &[Word]) -> Result<Wrapped, Unscoped> {
    match words.get(1).map(Word::literal).transpose()?.as_deref() {
        Some("-v" | "-V") => Ok(Wrapped::Alone),
        _ => {
            let (inner, _) = wrapper_options("command", words, 1, &Options::NONE)?;
            Ok(Wrapped::Runs(inner))
        }
    }
}

pub(super) fn stdbuf(_: &mut Keying, words: &[Word]) -> Result<Wrapped, Unscoped> {
    let (inner, _) = wrapper_options("stdbuf", words, 1, &STDBUF)?;
    Ok(Wrapped::Runs(inner))
}

/// `ionice [OPTIONS] COMMAND`; with `-p`, `-P` or `-u` it changes other processes instead.
pub(super) fn ionice(_: &mut Keying, words: &[Word]) -> Result<Wrapped, Unscoped> {
    let (inner, given) = wrapper_options("ionice", words, 1, &IONICE)?;
    let others = given.iter().any(|option| {
        matches!(
            option.name.as_str(),
            "-p" | "-P" | "-u" | "--pid" | "--pgid" | "--uid"
        )
    });
    // The words after such an option are more ids.
    Ok(if others {
        Wrapped::Alone
    } else {
        Wrapped::Runs(inner)
    })
}

/// `taskset [OPTIONS] MASK COMMAND`; `taskset -p [MASK] PID` changes another process.
pub(super) fn taskset(_: &mut Keying, words: &[Word]) -> Result<Wrapped, Unscoped> {
    let (mask, given) = wrapper_options("taskset", words, 1, &TASKSET)?;
    if given
        .iter()
        .any(|option| matches!(option.name.as_str(), "-p" | "--pid"))
    {
        return Ok(Wrapped::Alone);
    }
    // The mask (or CPU list with `-c`) comes before the command.
    words
        .get(mask)
        .ok_or_else(|| Unscoped::MissingValue {
            program: "taskset".to_owned(),
            option: "MASK".to_owned(),
        })?
        .literal()?;
    Ok(Wrapped::Runs(mask + 1))
}
