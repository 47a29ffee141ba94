//! `flock FILE COMMAND`: runs a command holding a lock.
//!
//! flock creates the lock file if it is missing, so `flock FILE` is a key of its own; the
//! command is keyed as itself (`flock l rm -rf /` gives `flock l` and `rm -rf /`).
//! `flock FILE -c STRING` runs the string with the user's `$SHELL`, whose grammar may not be
//! sh's (fish reads `a; and rm -rf ~` as two commands, the second `rm`): never scoped.
//! `flock FD` (a descriptor number) runs nothing else.

use super::Wrapped;
use crate::command_scope::getopt::{Options, wrapper_options};
use crate::command_scope::keys::Keying;
use crate::command_scope::unscoped::Unscoped;
use crate::command_scope::word::{Word, quote_for_key};

/// util-linux flock's options before the lock file (`-c` comes after it).
const FLOCK: Options = Options {
    flags: "-s -e -x -n -o -F -u --shared --exclusive --unlock --nonblock --nb --close \
            --no-fork --verbose",
    values: "-w -E --timeout --wait --conflict-exit-code",
    ..Options::NONE
};

pub(super) fn flock(keying: &mut Keying, words: &[Word]) -> Result<Wrapped, Unscoped> {
    let (file, _) = wrapper_options("flock", words, 1, &FLOCK)?;
    let lock = words.get(file).ok_or_else(|| Unscoped::MissingValue {
        program: "flock".to_owned(),
        option: "FILE".to_owned(),
    })?;
    let command = file + 1;
    if command >= words.len() {
        // `flock FD` (or a lone file, which flock rejects): runs nothing else.
        return Ok(Wrapped::Alone);
    }
    let key = keying.prefixed(format!("flock {}", quote_for_key(&lock.literal()?)));
    keying.keys.push(key);
    match words[command].literal()?.as_str() {
        "-c" | "--command" => Err(Unscoped::ForeignShell {
            runner: "flock -c".to_owned(),
        }),
        _ => Ok(Wrapped::Runs(command)),
    }
}
