//! Programs that never get a scope, whatever their arguments.
//!
//! - Reserved words: control flow (`if`, `for`, `while`, `until`, `case`, `select`,
//!   `function`, `[[`, `coproc`, ...) is not parsed.
//! - Builtins that evaluate strings as code or change shell state (`eval`, `source`/`.`,
//!   `trap`, `let`, `declare`/`typeset`/`local`/`readonly`, `unset`, `read`, `mapfile`,
//!   `alias`, `enable`, `builtin`, `fc`, `getopts`).
//! - Programs that run other commands in ways this parser does not model (`su`, `doas`,
//!   `setsid`, `watch`, `script`, `parallel`, `strace`, `unshare`, ... see [`OPAQUE_RUNNERS`]):
//!   keyed as an ordinary program, `watch ls '; rm -rf ~'` would pass as `watch ls` and
//!   `su root -c '...'` as `su root`.
//! - A shell called by path that reads its commands from standard input (`curl x | /bin/sh`):
//!   the key would approve anything its input holds.

use super::unscoped::Unscoped;
use super::word::Word;
use super::wrappers::shells;

/// Reserved words; none of them may be a program (the constructs they start are not parsed).
const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "for", "while", "until",
    "select", "function", "in", "coproc", "{", "}", "!", "[[", "]]",
];

/// Builtins that evaluate strings as code (directly, or through array subscripts) or change
/// how later commands are read.
const EVALUATING: &[&str] = &[
    "eval",
    "source",
    ".",
    "trap",
    "let",
    "declare",
    "typeset",
    "local",
    "readonly",
    "unset",
    "read",
    "mapfile",
    "readarray",
    "alias",
    "enable",
    "builtin",
    "fc",
    "getopts",
];

/// Programs that run another command (or a string through a shell) in ways this parser does
/// not model — switching user, joining their arguments into a shell string, tracing,
/// sandboxing, scheduling for later.
pub(super) const OPAQUE_RUNNERS: &[&str] = &[
    "su",
    "runuser",
    "doas",
    "pkexec",
    "sg",
    "newgrp",
    "setpriv",
    "capsh",
    "setsid",
    "watch",
    "script",
    "parallel",
    "unbuffer",
    "expect",
    "nsenter",
    "unshare",
    "systemd-run",
    "strace",
    "ltrace",
    "valgrind",
    "gdb",
    "chrt",
    "prlimit",
    "numactl",
    "setarch",
    "linux32",
    "linux64",
    "firejail",
    "bwrap",
    "fakeroot",
    "fakechroot",
    "faketime",
    "eatmydata",
    "nocache",
    "cpulimit",
    "trickle",
    "torsocks",
    "torify",
    "proxychains",
    "proxychains4",
    "catchsegv",
    "xvfb-run",
    "dbus-run-session",
    "dbus-launch",
    "at",
    "batch",
    "daemonize",
    "start-stop-daemon",
    "flatpak-spawn",
    "chpst",
    "cgexec",
    "sshpass",
    "rlwrap",
];

/// Refuses the command `words` (program `name`) if its program never gets a scope.
pub(super) fn refuse(name: &str, words: &[Word]) -> Result<(), Unscoped> {
    if RESERVED.contains(&name) {
        return Err(Unscoped::ReservedWord {
            word: name.to_owned(),
        });
    }
    if EVALUATING.contains(&name) {
        return Err(Unscoped::ShellBuiltin {
            name: name.to_owned(),
        });
    }
    if OPAQUE_RUNNERS.contains(&name) {
        return Err(Unscoped::OpaqueRunner {
            program: name.to_owned(),
        });
    }
    // A shell called by path is keyed as a program (its `-c` script then stands in the key),
    // but reading commands from stdin it would approve anything, as a bare `sh` would.
    if let Some((_, base)) = name.rsplit_once('/')
        && shells::is_shell(base)
        && !shells::has_script_operand(words)
    {
        return Err(Unscoped::ReadsInput {
            program: name.to_owned(),
        });
    }
    Ok(())
}
