//! Wrappers: programs that run another command given in their arguments.
//!
//! Each family reads its own options (any option it does not list makes the command
//! unscoped) and says where the wrapped command starts; that command is then keyed as if it
//! stood alone, under a key prefix when the wrapper changes what it means:
//!
//! - [`passthrough`]: `nohup`, `time`, `nice`, `timeout DURATION`, `stdbuf`, `ionice`,
//!   `taskset MASK`, `command` and `exec` do not change what runs, so the key is the wrapped
//!   command's (`timeout 5 rm -rf /` is `rm -rf /`).
//! - [`env`](mod@env): `env` with only assignments is the same as leading assignments; its `-i` and
//!   `-u NAME` stay in the key (`env -i make`).
//! - [`privilege`]: `sudo` adds a key of its own and prefixes the wrapped command's key
//!   (`sudo rm x` gives `sudo` and `sudo rm x`), so an approval given to a command as root
//!   never combines with one given to it as the user; `chroot ROOT` does the same (the
//!   program is looked up inside `ROOT`).
//! - [`flock`]: `flock FILE cmd` adds the key `flock FILE` (it creates the file) and keys
//!   `cmd` as itself; `flock FILE -c STRING` is never scoped.
//! - [`busybox`]: `busybox APPLET` prefixes the applet's key with `busybox`.
//! - [`xargs`]: the key is `xargs` plus the program's key; the arguments it appends from its
//!   input may be options, so the program must have no harmful ones.
//! - [`shells`]: `sh -c` / `bash -c` / `dash -c` / `ash -c` with a literal string are parsed
//!   recursively; other shells with `-c`, and any shell reading its input, are never scoped.
//! - [`test`](mod@test): `test` and `[` with `$` or a backtick in an operand are never scoped.
//!
//! Wrappers are recognised only by their bare names; `/usr/bin/env rm` is keyed as a program
//! of its own.

mod busybox;
mod env;
mod flock;
mod passthrough;
mod privilege;
pub(super) mod shells;
mod test;
mod xargs;

use super::keys::Keying;
use super::unscoped::Unscoped;
use super::word::Word;

/// What a wrapper does with the words after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Wrapped {
    /// The command from this index is keyed as a command of its own, under the keying's
    /// (possibly extended) prefix; at the end of the words the wrapper runs nothing else and
    /// is keyed as it stands.
    Runs(usize),
    /// It runs nothing else: its words are keyed as they stand (it read its own options).
    Alone,
    /// Its keys are complete (`sh -c` keyed its script).
    Keyed,
}

/// Reads a wrapper's words (`words[0]` is the wrapper).
pub(super) type Wrapper = fn(&mut Keying, &[Word]) -> Result<Wrapped, Unscoped>;

/// The wrappers by name.
const WRAPPERS: &[(&str, Wrapper)] = &[
    ("nohup", passthrough::bare),
    ("exec", passthrough::bare),
    ("time", passthrough::time),
    ("nice", passthrough::nice),
    ("timeout", passthrough::timeout),
    ("command", passthrough::command),
    ("stdbuf", passthrough::stdbuf),
    ("ionice", passthrough::ionice),
    ("taskset", passthrough::taskset),
    ("env", env::env),
    ("sudo", privilege::sudo),
    ("chroot", privilege::chroot),
    ("xargs", xargs::xargs),
    ("flock", flock::flock),
    ("busybox", busybox::busybox),
    ("test", test::test),
    ("[", test::test),
];

/// The wrapper called `name`, if it is one.
pub(super) fn find(name: &str) -> Option<Wrapper> {
    if let Some(&(_, wrapper)) = WRAPPERS.iter().find(|(listed, _)| *listed == name) {
        return Some(wrapper);
    }
    shells::find(name)
}
