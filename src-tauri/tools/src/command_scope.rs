//! What "allow for this session" approves when the user approves a shell command.
//!
//! run_command asks before it runs a command, and the user may approve it for the rest of the
//! session. Approving the literal string would be useless (the next `cargo test -p foo` asks
//! again) and approving its first word would be dangerous (`git status` would let `git push`
//! through, and `git status; rm -rf ~` would sail past as "git"). So a command is split into the
//! simple commands the shell will actually run — across pipelines, lists, subshells, groups and
//! command substitutions — and each one is reduced to a *key*: the program and its arguments up
//! to the first one that is not a flag. A later command runs without asking only when every one
//! of its keys was approved before. Anything the parser does not fully understand makes
//! [`command_scope`] return `None`, which means "always ask": a missed `;` here would be an
//! approval bypass, a spurious prompt costs one click.
//!
//! # Keys
//!
//! - **Program as written.** `./script.sh`, `/bin/rm` and `rm` are different keys; a key never
//!   shortens a path to its basename, so approving `rm` never approves `./rm`.
//! - **Up to the first non-flag argument.** `git status`, `cargo test`, `npm run` (`npm run x`
//!   and `npm run y` share a key). Arguments after the key are not part of the scope:
//!   approving `git status` approves `git status --short`. Flags *before* that argument stay
//!   in the key, and so does the word right after such a flag (it may be the flag's value), so
//!   the key ends at the first argument that is neither a flag nor a flag's possible value:
//!   `git -C dir status`, `rm -rf build`, `python -m pytest`, `ls -la`. This is stricter than
//!   "program + first non-flag argument" on purpose — leading flags can change what runs (`git
//!   --exec-path=/tmp status`, `git -ccore.fsmonitor=evil status`, `cargo --config=... test`),
//!   and a flag's value must not pose as the subcommand (`git -C status push` is not `git
//!   status`). A flag with `=` (`--manifest-path=x`) takes no separate value. Words starting
//!   with `+` count as flags (`cargo +nightly test`, `chmod +x f`). After `--` the next word
//!   ends the key.
//! - **Words are shown unquoted** (`git "status"` is `git status`, `echo "a;b"` is `echo a;b`)
//!   unless that would be ambiguous: a word that is empty or contains a quoted blank or a
//!   quoted `* ? [ ] { } ~ < > =` is shown single-quoted, so `rm '*'` and `rm *` differ.
//! - **Assignments stay in the key.** `RUST_LOG=debug cargo test` is its own key: variables
//!   such as `PATH`, `LD_PRELOAD` or `GIT_SSH_COMMAND` change what a program does. A part made
//!   only of assignments (`FOO=1; ...`) is keyed by them.
//! - **Wrappers.** `nohup`, `time`, `nice`, `timeout DURATION`, `stdbuf`, `ionice`,
//!   `taskset MASK`, `command` and `exec` do not change what runs, so the key is the wrapped
//!   command's (`timeout 5 rm -rf /` is `rm -rf /`). `env` with only assignments is the same
//!   as leading assignments; its `-i` and `-u NAME` stay in the key (`env -i make`). `sudo`
//!   adds a key of its own and prefixes the wrapped command's key (`sudo rm x` gives `sudo`
//!   and `sudo rm x`), so an approval given to a command as root never combines with one
//!   given to it as the user; `chroot ROOT` does the same (the program is looked up inside
//!   `ROOT`). `flock FILE cmd` adds the key `flock FILE` (it creates the file) and keys `cmd`
//!   as itself; `flock FILE -c STRING` is never scoped (the string runs under the user's
//!   `$SHELL`, whose grammar may not be sh's). `busybox APPLET`
//!   prefixes the applet's key with `busybox`. `xargs` runs the program named in its
//!   arguments with more arguments from stdin: the key is `xargs` plus that program's key
//!   (`xargs rm -f`); with a replace string (`-I R`, `-i`, `--replace`) the key starts
//!   `xargs -I R`, and a command whose program, wrapper options, `sh -c` script or `test`
//!   operands contain `R` is never scoped (xargs fills them from stdin). Programs that run
//!   other commands in ways this parser does not model (`su`, `doas`, `setsid`, `watch`,
//!   `script`, `parallel`, `strace`, `unshare`, ... see `OPAQUE_RUNNERS`) are never scoped.
//!   Wrappers are recognised only by their bare names; `/usr/bin/env rm` is keyed as a
//!   program of its own.
//! - **`sh -c` / `bash -c` / `dash -c` / `ash -c` with a literal string** are parsed
//!   recursively: the keys are those of the inner script (prefixed by an enclosing
//!   `sudo`/assignments if any), so a shell with `-c` never yields a key like `sh`. Only the
//!   options `-e -u -x -v` may accompany `-c`. `bash script.sh` is an ordinary key. Other
//!   shells (`zsh`, `ksh`, `fish`, ...) with `-c` are never scoped; a shell called by path
//!   (`/bin/sh -c '...'`) is an ordinary program whose key holds the whole script. A shell
//!   reading its commands from stdin is never scoped, by name or by path.
//! - **Redirections** are not arguments. One that names a file adds a key of its own,
//!   normalised to the operator and the target: `> out.txt` (also for `2>`, `&>`, `>|`),
//!   `>> log`, `< input`, `<> f`. Writing a file is a risk of its own and reading one can leak
//!   it, whatever the command. Descriptor duplication (`2>&1`, `>&-`), `/dev/null`,
//!   `/dev/stdout`, `/dev/stderr` and here-strings (`<<<`) add nothing.
//! - Keys are deduplicated and listed in order of first appearance.
//!
//! # What returns `None`
//!
//! Unbalanced quotes, parentheses or braces; a syntax error (`; ls`, `ls |`, `a && && b`);
//! here-documents (`<<`); control flow and other reserved words (`if`, `for`, `while`,
//! `until`, `case`, `select`, `function`, `[[`, `((`, `coproc`) and function definitions;
//! builtins that evaluate strings as code or shell state (`eval`, `source`/`.`, `trap`, `let`,
//! `declare`/`typeset`/`local`/`readonly`, `unset`, `read`, `mapfile`, `alias`, `enable`,
//! `builtin`, `fc`, `getopts`), and `test`/`[` with a `$` or backtick in an operand (bash
//! evaluates array subscripts of `-v` operands); process substitution; arithmetic `$((...))`;
//! `${...}` beyond a plain `${NAME}`; `$'...'` and `$"..."`; any expansion or substitution in
//! the program word, in a word that is part of a key, in an assignment, in a wrapper's own
//! arguments or in a redirection target; a glob, brace or leading `~` in the program word, or
//! a program word containing `=` (a quoted `"FOO=1"` is not an assignment); a shell given
//! neither `-c` nor a script file (`curl x | sh`, `bash < f`: it runs whatever stdin holds,
//! so a key `sh` would approve anything); options of
//! wrappers that are not listed (`sudo -s`, `env -S`, `exec -a`, `command -p`); a NUL byte; a
//! command with no parts at all (empty, or only comments).
//!
//! # Limits of the scheme
//!
//! A key scopes a program and its subcommand, not what its later arguments do: approving
//! `find .` also approves `find . -delete` and `find . -exec ...`, approving `ssh host` any
//! remote command, approving `npm run` any script. Keys are approved one by one, so approved
//! pieces combine (`cd ..` and `rm -rf build` approved separately let `cd .. && rm -rf build`
//! through). Both follow from "program + subcommand" being the unit the user approves; the
//! prompt should show the keys so the user sees that unit.
//!
//! # Which shell
//!
//! The grammar is POSIX `sh` plus the bash extensions that change how a line splits (`&>`,
//! `&>>`, `|&`, `>&file`). Where bash and dash (Debian's `sh`) read a line differently, the
//! keys cover both readings: dash reads `a &> f b` as `a &` then `> f b`, so `b` is keyed as a
//! command of its own too. Comments (`#` at the start of a word) and backslash-newline
//! continuations are handled as the shell does.

/// How deeply subshells, groups and substitutions may nest before the parser gives up.
const MAX_DEPTH: usize = 32;

/// Reserved words; none of them may be a program (the constructs they start are not parsed).
const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "for", "while", "until",
    "select", "function", "in", "coproc", "{", "}", "!", "[[", "]]",
];

/// Builtins that evaluate strings as code (directly, or through array subscripts) or change
/// how later commands are read; a command using them is never keyed.
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

/// Redirection targets that neither persist nor reveal anything.
const HARMLESS_TARGETS: &[&str] = &["/dev/null", "/dev/stdout", "/dev/stderr"];

/// Splits `command` into the keys that approving it "for this session" approves (see the
/// module docs), or `None` when the command is not understood well enough to scope it — the
/// caller must then ask every time.
pub fn command_scope(command: &str) -> Option<Vec<String>> {
    // A shell receives its script as a C string: whatever follows a NUL is never seen.
    if command.contains('\0') {
        return None;
    }
    let mut parser = Parser::new(command, 0);
    let mut keys = Vec::new();
    parser.parse_list(End::Eof, &mut keys).ok()?;
    let mut unique: Vec<String> = Vec::with_capacity(keys.len());
    for key in keys {
        if !unique.contains(&key) {
            unique.push(key);
        }
    }
    (!unique.is_empty()).then_some(unique)
}

/// The parser met something outside the understood subset.
#[derive(Debug)]
struct Unsupported;

type Parsed<T> = Result<T, Unsupported>;

/// Where a command list ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// The end of the input.
    Eof,
    /// A `)` closing a subshell or `$(`.
    Paren,
    /// A `}` in command position closing a `{` group.
    Brace,
}

/// Where the list parser stands between commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// At the start of the list or after `;`, `&` or a newline: a command may follow.
    Start,
    /// After `|`, `&&` or `||`: a command must follow.
    NeedCommand,
    /// Right after a command: an operator, a newline or the end must follow.
    AfterCommand,
}

/// One character of a word after quote removal.
#[derive(Debug, Clone, Copy)]
struct WordChar {
    c: char,
    quoted: bool,
}

/// A shell word after quote removal.
#[derive(Debug, Default, Clone)]
struct Word {
    chars: Vec<WordChar>,
    /// Contains a parameter expansion (`$X`, `${X}`).
    expands: bool,
    /// Contains a command substitution (its commands were keyed already).
    substitutes: bool,
    /// Contains the replace string of an enclosing `xargs -I`: xargs puts text read from
    /// standard input there, so the word may be anything when the command runs.
    replaced: bool,
}

impl Word {
    fn push(&mut self, c: char, quoted: bool) {
        self.chars.push(WordChar { c, quoted });
    }

    fn value(&self) -> String {
        self.chars.iter().map(|wc| wc.c).collect()
    }

    /// Its value depends on the environment or on other commands.
    fn is_dynamic(&self) -> bool {
        self.expands || self.substitutes
    }

    /// Has unquoted characters the shell would expand: a glob (`*`, `?`, `[...]`), a brace
    /// expansion (`{a,b}`, `{1..3}`) or a leading tilde.
    fn has_active(&self) -> bool {
        let unquoted = |index: usize, c: char| {
            self.chars
                .get(index)
                .is_some_and(|wc| !wc.quoted && wc.c == c)
        };
        if unquoted(0, '~') {
            return true;
        }
        self.chars.iter().enumerate().any(|(index, wc)| {
            if wc.quoted {
                return false;
            }
            match wc.c {
                '*' | '?' => true,
                '[' => (index + 1..self.chars.len()).any(|later| unquoted(later, ']')),
                '{' => {
                    let Some(close) = (index + 1..self.chars.len()).find(|&i| unquoted(i, '}'))
                    else {
                        return false;
                    };
                    (index + 1..close)
                        .any(|i| unquoted(i, ',') || (unquoted(i, '.') && unquoted(i + 1, '.')))
                }
                _ => false,
            }
        })
    }

    /// A word whose value is fixed text, as wrappers' own arguments must be.
    fn literal(&self) -> Parsed<String> {
        if self.is_dynamic() || self.has_active() || self.replaced {
            return Err(Unsupported);
        }
        Ok(self.value())
    }

    /// The word as it appears in a key (see the module docs).
    fn render(&self) -> String {
        render_chars(&self.chars)
    }

    /// `NAME=value` or `NAME+=value` with an unquoted valid name: the split point (the index
    /// of the first character of the value) and the operator's length.
    fn assignment_split(&self) -> Option<usize> {
        let mut chars = self.chars.iter().enumerate();
        let (_, first) = chars.next()?;
        if first.quoted || !(first.c.is_ascii_alphabetic() || first.c == '_') {
            return None;
        }
        for (index, wc) in chars {
            if wc.quoted {
                return None;
            }
            match wc.c {
                '=' => return Some(index + 1),
                '+' => {
                    let next = self.chars.get(index + 1)?;
                    return (!next.quoted && next.c == '=').then_some(index + 2);
                }
                c if c.is_ascii_alphanumeric() || c == '_' => {}
                _ => return None,
            }
        }
        None
    }
}

/// Renders characters for a key: plain when unambiguous, single-quoted otherwise.
fn render_chars(chars: &[WordChar]) -> String {
    if chars.is_empty() {
        return "''".to_owned();
    }
    let needs_quotes = chars.iter().any(|wc| {
        wc.quoted
            && (wc.c.is_whitespace()
                || wc.c.is_control()
                || matches!(
                    wc.c,
                    '*' | '?' | '[' | ']' | '{' | '}' | '~' | '<' | '>' | '='
                ))
    });
    if !needs_quotes {
        return chars.iter().map(|wc| wc.c).collect();
    }
    let mut out = String::new();
    let mut open = false;
    for wc in chars {
        if wc.quoted != open {
            out.push('\'');
            open = wc.quoted;
        }
        if wc.c == '\'' && open {
            out.push_str("'\\''");
        } else {
            out.push(wc.c);
        }
    }
    if open {
        out.push('\'');
    }
    out
}

/// Renders an assignment word (`NAME=value`) for a key prefix; its value must be fixed text.
fn render_assignment(word: &Word, split: usize) -> Parsed<String> {
    if word.is_dynamic() {
        return Err(Unsupported);
    }
    let (name, value) = word.chars.split_at(split);
    let mut out: String = name.iter().map(|wc| wc.c).collect();
    if !value.is_empty() {
        out.push_str(&render_chars(value));
    }
    Ok(out)
}

/// A flag: `-x`, `--long`, `+x` (but not a lone `-` or `+`).
fn is_flag(value: &str) -> bool {
    (value.starts_with('-') || value.starts_with('+')) && value.len() > 1
}

/// Joins a key prefix (assignments, `sudo ...`, `xargs`) and a key.
fn prefixed(prefix: &[String], key: String) -> String {
    if prefix.is_empty() {
        key
    } else {
        format!("{} {key}", prefix.join(" "))
    }
}

/// Which options a wrapper accepts (anything else makes the command unsupported).
#[derive(Default)]
struct OptionSpec {
    /// Short options without a value.
    short_flags: &'static str,
    /// Short options taking a value (attached or the next word).
    short_values: &'static str,
    /// Short options with an optional attached value.
    short_optional: &'static str,
    /// Long options without a value.
    long_flags: &'static [&'static str],
    /// Long options taking a value (`--x=v` or `--x v`).
    long_values: &'static [&'static str],
    /// Long options with an optional `=value`.
    long_optional: &'static [&'static str],
}

/// An [`OptionSpec`] listing nothing, for building the constant specs below.
const NO_OPTIONS: OptionSpec = OptionSpec {
    short_flags: "",
    short_values: "",
    short_optional: "",
    long_flags: &[],
    long_values: &[],
    long_optional: &[],
};

/// GNU xargs' options (`-i`, `-e`, `-l` take an optional attached value).
const XARGS_OPTIONS: OptionSpec = OptionSpec {
    short_flags: "0rtpxo",
    short_values: "nLPsdEIa",
    short_optional: "iel",
    long_flags: &[
        "null",
        "no-run-if-empty",
        "verbose",
        "interactive",
        "exit",
        "open-tty",
    ],
    long_values: &[
        "max-args",
        "max-lines",
        "max-procs",
        "max-chars",
        "delimiter",
        "eof",
        "arg-file",
        "process-slot-var",
    ],
    long_optional: &["replace"],
};

/// util-linux flock's options before the lock file (`-c` comes after it).
const FLOCK_OPTIONS: OptionSpec = OptionSpec {
    short_flags: "sexnoFu",
    short_values: "wE",
    long_flags: &[
        "shared",
        "exclusive",
        "unlock",
        "nonblock",
        "nb",
        "close",
        "no-fork",
        "verbose",
    ],
    long_values: &["timeout", "wait", "conflict-exit-code"],
    ..NO_OPTIONS
};

/// util-linux taskset's options (`-c` changes how the mask reads; it takes no value).
const TASKSET_OPTIONS: OptionSpec = OptionSpec {
    short_flags: "acp",
    long_flags: &["all-tasks", "cpu-list", "pid"],
    ..NO_OPTIONS
};

/// GNU stdbuf's options.
const STDBUF_OPTIONS: OptionSpec = OptionSpec {
    short_values: "ioe",
    long_values: &["input", "output", "error"],
    ..NO_OPTIONS
};

/// util-linux ionice's options.
const IONICE_OPTIONS: OptionSpec = OptionSpec {
    short_flags: "t",
    short_values: "cnpPu",
    long_flags: &["ignore"],
    long_values: &["class", "classdata", "pid", "pgid", "uid"],
    ..NO_OPTIONS
};

/// GNU chroot's options.
const CHROOT_OPTIONS: OptionSpec = OptionSpec {
    long_flags: &["skip-chdir"],
    long_values: &["userspec", "groups"],
    ..NO_OPTIONS
};

/// Programs that run another command (or a string through a shell) in ways this parser does
/// not model — switching user, joining their arguments into a shell string, tracing,
/// sandboxing, scheduling for later. A command using one is never given a session scope:
/// keyed as an ordinary program, `watch ls '; rm -rf ~'` would pass as `watch ls` and
/// `su root -c '...'` as `su root`.
const OPAQUE_RUNNERS: &[&str] = &[
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

/// Shells whose grammar is not parsed here; with `-c` they never get a scope.
const OTHER_SHELLS: &[&str] = &[
    "zsh", "ksh", "mksh", "pdksh", "ksh93", "posh", "yash", "hush", "fish", "csh", "tcsh", "rc",
    "es", "elvish", "nu", "xonsh", "pwsh", "rbash",
];

/// The replace string an `xargs` invocation fills with input (`-I R`, `-i[R]`,
/// `--replace[=R]`; `{}` when none is attached), if it uses one; the last option wins.
fn xargs_replace_string(given: &[GivenOption]) -> Option<String> {
    given
        .iter()
        .filter(|option| matches!(option.name.as_str(), "I" | "i" | "replace"))
        .map(|option| option.value.clone().unwrap_or_else(|| "{}".to_owned()))
        .next_back()
}

/// A wrapper's literal argument as shown in a key: plain when it is made of letters, digits
/// and `{ } % @ _ - . / : + ,`, single-quoted otherwise.
fn quote_for_key(value: &str) -> String {
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_alphanumeric() || "{}%@_-./:+,".contains(c));
    if plain {
        value.to_owned()
    } else {
        format!("'{}'", value.replace('\'', "'\\''"))
    }
}

/// One option a wrapper was given: its name (a letter for short options, the long name
/// without `--`) and its value, if it took one.
struct GivenOption {
    name: String,
    value: Option<String>,
}

/// Skips a wrapper's options starting at `words[start]`; returns the index of the first word
/// after them (after a `--` if there is one).
fn skip_options(words: &[Word], start: usize, spec: &OptionSpec) -> Parsed<usize> {
    parse_options(words, start, spec).map(|(index, _)| index)
}

/// Reads a wrapper's options starting at `words[start]` (getopt style: clustered short
/// options, attached or separate values, `--long=value`, `--` ends them); returns the index of
/// the first word after them and the options in order. An option `spec` does not list makes
/// the command unsupported.
fn parse_options(
    words: &[Word],
    start: usize,
    spec: &OptionSpec,
) -> Parsed<(usize, Vec<GivenOption>)> {
    let mut given = Vec::new();
    let mut index = start;
    while let Some(word) = words.get(index) {
        let value = word.literal()?;
        if value == "--" {
            return Ok((index + 1, given));
        }
        if !value.starts_with('-') || value == "-" {
            return Ok((index, given));
        }
        index += 1;
        if let Some(long) = value.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((name, attached)) => (name, Some(attached.to_owned())),
                None => (long, None),
            };
            let known = spec.long_flags.contains(&name) && attached.is_none()
                || spec.long_optional.contains(&name)
                || spec.long_values.contains(&name) && attached.is_some();
            if known {
                given.push(GivenOption {
                    name: name.to_owned(),
                    value: attached,
                });
                continue;
            }
            if spec.long_values.contains(&name) {
                let separate = words.get(index).ok_or(Unsupported)?.literal()?;
                index += 1;
                given.push(GivenOption {
                    name: name.to_owned(),
                    value: Some(separate),
                });
                continue;
            }
            return Err(Unsupported);
        }
        let letters: Vec<char> = value.chars().skip(1).collect();
        for (at, letter) in letters.iter().enumerate() {
            let rest: String = letters[at + 1..].iter().collect();
            let name = letter.to_string();
            if spec.short_flags.contains(*letter) {
                given.push(GivenOption { name, value: None });
                continue;
            }
            if spec.short_optional.contains(*letter) {
                let value = (!rest.is_empty()).then_some(rest);
                given.push(GivenOption { name, value });
                break;
            }
            if spec.short_values.contains(*letter) {
                let value = if rest.is_empty() {
                    let separate = words.get(index).ok_or(Unsupported)?.literal()?;
                    index += 1;
                    separate
                } else {
                    rest
                };
                given.push(GivenOption {
                    name,
                    value: Some(value),
                });
                break;
            }
            return Err(Unsupported);
        }
    }
    Ok((index, given))
}

/// A recursive-descent reader of the understood shell subset; every simple command it finishes
/// adds its keys to the list it was given.
struct Parser {
    chars: Vec<char>,
    pos: usize,
    depth: usize,
}

impl Parser {
    fn new(text: &str, depth: usize) -> Self {
        Self {
            chars: text.chars().collect(),
            pos: 0,
            depth,
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    /// Skips blanks and backslash-newline continuations.
    fn skip_blanks(&mut self) {
        loop {
            match self.peek() {
                Some(' ' | '\t') => self.pos += 1,
                Some('\\') if self.peek_at(1) == Some('\n') => self.pos += 2,
                _ => return,
            }
        }
    }

    /// Skips blanks and, if one starts here, a comment up to (not including) the newline.
    fn skip_blanks_and_comment(&mut self) {
        self.skip_blanks();
        if self.peek() == Some('#') {
            while self.peek().is_some_and(|c| c != '\n') {
                self.pos += 1;
            }
        }
    }

    /// The unquoted reserved word `word` starts here and ends at a delimiter.
    fn at_reserved(&self, word: &str) -> bool {
        let len = word.chars().count();
        word.chars()
            .enumerate()
            .all(|(i, c)| self.peek_at(i) == Some(c))
            && self.peek_at(len).is_none_or(is_delimiter)
    }

    /// Parses commands up to `end`; returns whether there was at least one.
    fn parse_list(&mut self, end: End, out: &mut Vec<String>) -> Parsed<bool> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Unsupported);
        }
        let mut state = State::Start;
        let mut any = false;
        loop {
            self.skip_blanks_and_comment();
            let Some(c) = self.peek() else {
                if end != End::Eof || state == State::NeedCommand {
                    return Err(Unsupported);
                }
                break;
            };
            if state == State::AfterCommand {
                let next = self.peek_at(1);
                match c {
                    '\n' => {
                        self.pos += 1;
                        state = State::Start;
                    }
                    ';' => {
                        // `;;` and `;&` belong to `case`.
                        if matches!(next, Some(';' | '&')) {
                            return Err(Unsupported);
                        }
                        self.pos += 1;
                        state = State::Start;
                    }
                    '&' if next == Some('&') => {
                        self.pos += 2;
                        state = State::NeedCommand;
                    }
                    '&' => {
                        self.pos += 1;
                        state = State::Start;
                    }
                    '|' => {
                        self.pos += if matches!(next, Some('|' | '&')) {
                            2
                        } else {
                            1
                        };
                        state = State::NeedCommand;
                    }
                    ')' if end == End::Paren => {
                        self.pos += 1;
                        break;
                    }
                    _ => return Err(Unsupported),
                }
                continue;
            }
            match c {
                '\n' => {
                    self.pos += 1;
                    continue;
                }
                ')' if end == End::Paren && state == State::Start => {
                    self.pos += 1;
                    break;
                }
                ';' | '&' | '|' | ')' => return Err(Unsupported),
                _ => {}
            }
            if end == End::Brace && state == State::Start && self.at_reserved("}") {
                self.pos += 1;
                break;
            }
            self.parse_command(out)?;
            any = true;
            state = State::AfterCommand;
        }
        self.depth -= 1;
        Ok(any)
    }

    /// One command of a pipeline: a subshell, a group, a negation or a simple command.
    fn parse_command(&mut self, out: &mut Vec<String>) -> Parsed<()> {
        self.skip_blanks();
        if self.peek() == Some('(') {
            // `((` is arithmetic.
            if self.peek_at(1) == Some('(') {
                return Err(Unsupported);
            }
            self.pos += 1;
            if !self.parse_list(End::Paren, out)? {
                return Err(Unsupported);
            }
            return self.trailing_redirections(out);
        }
        if self.at_reserved("{") {
            self.pos += 1;
            if !self.parse_list(End::Brace, out)? {
                return Err(Unsupported);
            }
            return self.trailing_redirections(out);
        }
        if self.at_reserved("!") {
            self.pos += 1;
            self.skip_blanks();
            if self
                .peek()
                .is_none_or(|c| matches!(c, '\n' | ';' | '&' | '|' | ')' | '#'))
            {
                return Err(Unsupported);
            }
            return self.parse_command(out);
        }
        self.simple_command(out)
    }

    /// Redirections after a subshell or group; they key like any other.
    fn trailing_redirections(&mut self, out: &mut Vec<String>) -> Parsed<()> {
        loop {
            self.skip_blanks();
            match self.peek() {
                Some('<' | '>') => self.redirection(None, out)?,
                Some('&') if self.peek_at(1) == Some('>') => self.redirection(None, out)?,
                Some(c) if c.is_ascii_digit() => match self.fd_prefix() {
                    Some(fd) => self.redirection(Some(fd), out)?,
                    None => return Err(Unsupported),
                },
                _ => return Ok(()),
            }
        }
    }

    /// If digits followed by `<` or `>` start here, consumes the digits and returns them.
    fn fd_prefix(&mut self) -> Option<String> {
        let digits: String = self.chars[self.pos..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        let after = self.peek_at(digits.len());
        if !digits.is_empty() && matches!(after, Some('<' | '>')) {
            self.pos += digits.len();
            Some(digits)
        } else {
            None
        }
    }

    /// Reads a simple command (words and redirections) and adds its keys to `out`.
    fn simple_command(&mut self, out: &mut Vec<String>) -> Parsed<()> {
        let mut words: Vec<Word> = Vec::new();
        // Keys of this command's substitutions and redirections, in order of appearance.
        let mut local: Vec<String> = Vec::new();
        // Where in `local` the command's own keys go: before whatever its program word is
        // followed by.
        let mut slot: Option<usize> = None;
        // Word indices at which a bash `&>` sits; dash ends the command there (`&` + `>`).
        let mut splits: Vec<usize> = Vec::new();
        loop {
            self.skip_blanks();
            let Some(c) = self.peek() else { break };
            match c {
                '\n' | ';' | '|' | ')' | '#' => break,
                '&' if self.peek_at(1) == Some('>') => {
                    splits.push(words.len());
                    self.redirection(None, &mut local)?;
                }
                '&' => break,
                '(' => return Err(Unsupported),
                '<' | '>' => self.redirection(None, &mut local)?,
                _ => {
                    if c.is_ascii_digit()
                        && let Some(fd) = self.fd_prefix()
                    {
                        self.redirection(Some(fd), &mut local)?;
                        continue;
                    }
                    let before = local.len();
                    let word = self.read_word(&mut local)?;
                    if slot.is_none() && word.assignment_split().is_none() {
                        slot = Some(before);
                    }
                    words.push(word);
                }
            }
        }
        if words.is_empty() && local.is_empty() && splits.is_empty() {
            return Err(Unsupported);
        }
        let mut keys = self.command_keys(&words)?;
        let mut bounds = splits.clone();
        bounds.push(words.len());
        let mut start = 0;
        if !splits.is_empty() {
            for &end in &bounds {
                keys.extend(self.command_keys(&words[start..end])?);
                start = end;
            }
        }
        let at = slot.unwrap_or(local.len()).min(local.len());
        local.splice(at..at, keys);
        out.extend(local);
        Ok(())
    }

    /// Reads a redirection operator (after an optional fd number) and its target.
    fn redirection(&mut self, fd: Option<String>, out: &mut Vec<String>) -> Parsed<()> {
        enum Kind {
            /// Opens a file with this normalised operator.
            File(&'static str),
            /// `>&` / `<&`: duplicates or closes a descriptor (`>&file` writes a file in bash).
            Dup { can_be_file: bool },
            /// `<<<`: the target is data, not a file.
            HereString,
        }
        let first = self.peek().ok_or(Unsupported)?;
        let (len, kind) = match (first, self.peek_at(1), self.peek_at(2)) {
            ('&', Some('>'), Some('>')) => (3, Kind::File(">>")),
            ('&', Some('>'), _) => (2, Kind::File(">")),
            ('<', Some('<'), Some('<')) => (3, Kind::HereString),
            ('<', Some('<' | '('), _) | ('>', Some('('), _) => return Err(Unsupported),
            ('<', Some('>'), _) => (2, Kind::File("<>")),
            ('<', Some('&'), _) => (2, Kind::Dup { can_be_file: false }),
            ('<', _, _) => (1, Kind::File("<")),
            ('>', Some('>'), _) => (2, Kind::File(">>")),
            ('>', Some('&'), _) => (
                2,
                Kind::Dup {
                    can_be_file: fd.is_none(),
                },
            ),
            ('>', Some('|'), _) => (2, Kind::File(">")),
            ('>', _, _) => (1, Kind::File(">")),
            _ => return Err(Unsupported),
        };
        self.pos += len;
        self.skip_blanks();
        if self
            .peek()
            .is_none_or(|c| c == '\n' || c == '#' || is_operator_char(c))
        {
            return Err(Unsupported);
        }
        let target = self.read_word(out)?;
        let op = match kind {
            Kind::HereString => return Ok(()),
            Kind::File(op) => op,
            Kind::Dup { can_be_file } => {
                let value = target.literal()?;
                let number = value.strip_suffix('-').unwrap_or(&value);
                if value == "-"
                    || (!number.is_empty() && number.chars().all(|c| c.is_ascii_digit()))
                {
                    return Ok(());
                }
                if !can_be_file {
                    return Err(Unsupported);
                }
                ">"
            }
        };
        if target.is_dynamic() {
            return Err(Unsupported);
        }
        if !target.has_active() && HARMLESS_TARGETS.contains(&target.value().as_str()) {
            return Ok(());
        }
        out.push(format!("{op} {}", target.render()));
        Ok(())
    }

    /// Reads one word (quotes, escapes, expansions, substitutions); substitutions' commands
    /// are keyed into `out` as they are met.
    fn read_word(&mut self, out: &mut Vec<String>) -> Parsed<Word> {
        let mut word = Word::default();
        while let Some(c) = self.peek() {
            match c {
                c if c == ' ' || c == '\t' || c == '\n' || is_operator_char(c) => break,
                '\\' => match self.peek_at(1) {
                    Some('\n') => self.pos += 2,
                    Some(escaped) => {
                        word.push(escaped, true);
                        self.pos += 2;
                    }
                    None => return Err(Unsupported),
                },
                '\'' => {
                    self.pos += 1;
                    loop {
                        match self.peek() {
                            Some('\'') => break,
                            Some(c) => word.push(c, true),
                            None => return Err(Unsupported),
                        }
                        self.pos += 1;
                    }
                    self.pos += 1;
                }
                '"' => self.double_quoted(&mut word, out)?,
                '$' => self.dollar(&mut word, out, false)?,
                '`' => self.backtick(&mut word, out, false)?,
                c => {
                    word.push(c, false);
                    self.pos += 1;
                }
            }
        }
        Ok(word)
    }

    fn double_quoted(&mut self, word: &mut Word, out: &mut Vec<String>) -> Parsed<()> {
        self.pos += 1;
        loop {
            match self.peek() {
                None => return Err(Unsupported),
                Some('"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some('\\') => match self.peek_at(1) {
                    Some(escaped @ ('$' | '`' | '"' | '\\')) => {
                        word.push(escaped, true);
                        self.pos += 2;
                    }
                    Some('\n') => self.pos += 2,
                    Some(_) => {
                        word.push('\\', true);
                        self.pos += 1;
                    }
                    None => return Err(Unsupported),
                },
                Some('$') => self.dollar(word, out, true)?,
                Some('`') => self.backtick(word, out, true)?,
                Some(c) => {
                    word.push(c, true);
                    self.pos += 1;
                }
            }
        }
    }

    /// A `$` at the cursor: an expansion, a command substitution, or a literal `$`.
    fn dollar(&mut self, word: &mut Word, out: &mut Vec<String>, quoted: bool) -> Parsed<()> {
        match self.peek_at(1) {
            Some('(') => {
                if self.peek_at(2) == Some('(') {
                    return Err(Unsupported);
                }
                self.pos += 2;
                self.parse_list(End::Paren, out)?;
                word.substitutes = true;
            }
            Some('{') => {
                self.pos += 2;
                let name_len = self.name_len();
                let special = self.peek().is_some_and(is_special_parameter);
                let len = if name_len > 0 {
                    name_len
                } else if special {
                    1
                } else {
                    return Err(Unsupported);
                };
                if self.peek_at(len) != Some('}') {
                    return Err(Unsupported);
                }
                self.pos += len + 1;
                word.expands = true;
            }
            Some('\'' | '"') if !quoted => return Err(Unsupported),
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                self.pos += 1;
                self.pos += self.name_len();
                word.expands = true;
            }
            Some(c) if is_special_parameter(c) => {
                self.pos += 2;
                word.expands = true;
            }
            _ => {
                word.push('$', quoted);
                self.pos += 1;
            }
        }
        Ok(())
    }

    /// Length of the variable name (`[A-Za-z_][A-Za-z0-9_]*`) at the cursor, 0 if none.
    fn name_len(&self) -> usize {
        let rest = &self.chars[self.pos..];
        match rest.first() {
            Some(c) if c.is_ascii_alphabetic() || *c == '_' => rest
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == '_')
                .count(),
            _ => 0,
        }
    }

    /// A backtick substitution: its text is unescaped and parsed as a script of its own.
    fn backtick(&mut self, word: &mut Word, out: &mut Vec<String>, quoted: bool) -> Parsed<()> {
        self.pos += 1;
        let mut inner = String::new();
        loop {
            match self.peek() {
                None => return Err(Unsupported),
                Some('`') => {
                    self.pos += 1;
                    break;
                }
                Some('\\') => match self.peek_at(1) {
                    Some(escaped @ ('`' | '\\' | '$')) => {
                        inner.push(escaped);
                        self.pos += 2;
                    }
                    // Shells disagree about `\"` inside "`...`".
                    Some('"') if quoted => return Err(Unsupported),
                    Some(_) => {
                        inner.push('\\');
                        self.pos += 1;
                    }
                    None => return Err(Unsupported),
                },
                Some(c) => {
                    inner.push(c);
                    self.pos += 1;
                }
            }
        }
        Parser::new(&inner, self.depth + 1).parse_list(End::Eof, out)?;
        word.substitutes = true;
        Ok(())
    }

    /// The keys of one simple command's words (redirections aside).
    fn command_keys(&self, words: &[Word]) -> Parsed<Vec<String>> {
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
            self.program_keys(&words[index..], prefix, &mut keys)?;
        }
        Ok(keys)
    }

    /// Keys of `words` (non-empty, `words[0]` is the program) under a key prefix.
    fn program_keys(
        &self,
        words: &[Word],
        mut prefix: Vec<String>,
        keys: &mut Vec<String>,
    ) -> Parsed<()> {
        let program = words.first().ok_or(Unsupported)?;
        if program.is_dynamic() || program.has_active() || program.replaced {
            return Err(Unsupported);
        }
        let name = program.value();
        if name.contains('=')
            || RESERVED.contains(&name.as_str())
            || EVALUATING.contains(&name.as_str())
            || OPAQUE_RUNNERS.contains(&name.as_str())
        {
            return Err(Unsupported);
        }
        // A shell called by path is keyed as a program (its `-c` script then stands in the key),
        // but reading commands from stdin it would approve anything, as a bare `sh` would.
        if let Some((_, base)) = name.rsplit_once('/')
            && (matches!(base, "sh" | "bash" | "dash" | "ash") || OTHER_SHELLS.contains(&base))
            && !has_script_operand(words)
        {
            return Err(Unsupported);
        }
        // Where the wrapped command starts, for wrappers that have one.
        let inner = match name.as_str() {
            "nohup" | "exec" => skip_options(words, 1, &OptionSpec::default())?,
            "time" => skip_options(
                words,
                1,
                &OptionSpec {
                    short_flags: "p",
                    ..OptionSpec::default()
                },
            )?,
            "nice" => {
                let mut index = 1;
                // The obsolete `nice -10 cmd` form.
                if let Some(word) = words.get(1)
                    && let Some(number) = word.literal()?.strip_prefix('-')
                    && !number.is_empty()
                    && number
                        .trim_start_matches('-')
                        .chars()
                        .all(|c| c.is_ascii_digit())
                {
                    index = 2;
                }
                skip_options(
                    words,
                    index,
                    &OptionSpec {
                        short_values: "n",
                        long_values: &["adjustment"],
                        ..OptionSpec::default()
                    },
                )?
            }
            "timeout" => {
                let duration = skip_options(
                    words,
                    1,
                    &OptionSpec {
                        short_flags: "v",
                        short_values: "sk",
                        long_flags: &["preserve-status", "foreground", "verbose"],
                        long_values: &["signal", "kill-after"],
                        ..OptionSpec::default()
                    },
                )?;
                if duration < words.len() {
                    words[duration].literal()?;
                    duration + 1
                } else {
                    duration
                }
            }
            "command" => match words.get(1).map(Word::literal).transpose()?.as_deref() {
                Some("-v" | "-V") => words.len(),
                _ => skip_options(words, 1, &OptionSpec::default())?,
            },
            "env" => {
                let after = skip_options(
                    words,
                    1,
                    &OptionSpec {
                        short_flags: "i",
                        short_values: "u",
                        long_flags: &["ignore-environment"],
                        long_values: &["unset"],
                        ..OptionSpec::default()
                    },
                )?;
                // A lone `-` means `-i`.
                let mut index = after;
                if words.get(index).map(Word::literal).transpose()?.as_deref() == Some("-") {
                    index += 1;
                }
                if index > 1 {
                    let mut env = vec![program.render()];
                    env.extend(words[1..index].iter().map(Word::render));
                    prefix.push(env.join(" "));
                }
                while let Some(word) = words.get(index) {
                    let value = word.literal()?;
                    let Some(eq) = value.find('=') else { break };
                    if eq == 0 {
                        return Err(Unsupported);
                    }
                    let split = value[..=eq].chars().count();
                    prefix.push(render_assignment(word, split)?);
                    index += 1;
                }
                index
            }
            "sudo" => {
                let after = skip_options(
                    words,
                    1,
                    &OptionSpec {
                        short_flags: "AbEHknPS",
                        short_values: "ugCDprtTU",
                        long_flags: &[
                            "askpass",
                            "background",
                            "set-home",
                            "reset-timestamp",
                            "non-interactive",
                            "preserve-groups",
                            "stdin",
                        ],
                        long_values: &[
                            "user",
                            "group",
                            "close-from",
                            "chdir",
                            "prompt",
                            "role",
                            "type",
                            "command-timeout",
                            "other-user",
                        ],
                        long_optional: &["preserve-env"],
                        ..OptionSpec::default()
                    },
                )?;
                let mut index = after;
                let mut sudo = vec![program.render()];
                sudo.extend(words[1..after].iter().map(Word::render));
                while let Some(word) = words.get(index)
                    && let Some(split) = word.assignment_split()
                {
                    sudo.push(render_assignment(word, split)?);
                    index += 1;
                }
                if index < words.len() {
                    keys.push(program.render());
                    prefix.push(sudo.join(" "));
                }
                index
            }
            "xargs" => {
                let (after, given) = parse_options(words, 1, &XARGS_OPTIONS)?;
                if after >= words.len() {
                    after
                } else {
                    let replace = xargs_replace_string(&given);
                    let mut head = program.render();
                    if let Some(replace) = &replace {
                        head = format!("{head} -I {}", quote_for_key(replace));
                    }
                    prefix.push(head);
                    let Some(replace) = replace else {
                        return self.program_keys(&words[after..], prefix, keys);
                    };
                    // Every word holding the replace string is filled from standard input.
                    let inner: Vec<Word> = words[after..]
                        .iter()
                        .map(|word| {
                            let mut word = word.clone();
                            word.replaced |= replace.is_empty() || word.value().contains(&replace);
                            word
                        })
                        .collect();
                    return self.program_keys(&inner, prefix, keys);
                }
            }
            "flock" => {
                let file = skip_options(words, 1, &FLOCK_OPTIONS)?;
                let Some(lock) = words.get(file) else {
                    return Err(Unsupported);
                };
                let command = file + 1;
                if command >= words.len() {
                    // `flock FD` (or a lone file, which flock rejects): runs nothing else.
                    words.len()
                } else {
                    // flock creates the lock file if it is missing: that is a key of its own.
                    keys.push(prefixed(
                        &prefix,
                        format!("flock {}", quote_for_key(&lock.literal()?)),
                    ));
                    match words[command].literal()?.as_str() {
                        // `flock FILE -c STRING` runs the string with the user's `$SHELL`,
                        // whose grammar may not be sh's (fish reads `a; and rm -rf ~` as two
                        // commands, the second `rm`): never scoped.
                        "-c" | "--command" => return Err(Unsupported),
                        _ => command,
                    }
                }
            }
            "taskset" => {
                let (after, given) = parse_options(words, 1, &TASKSET_OPTIONS)?;
                if given
                    .iter()
                    .any(|option| matches!(option.name.as_str(), "p" | "pid"))
                {
                    // `taskset -p [MASK] PID` changes another process and runs nothing.
                    words.len()
                } else {
                    // The mask (or CPU list with `-c`) comes before the command.
                    words.get(after).ok_or(Unsupported)?.literal()?;
                    after + 1
                }
            }
            "stdbuf" => skip_options(words, 1, &STDBUF_OPTIONS)?,
            "ionice" => {
                let (after, given) = parse_options(words, 1, &IONICE_OPTIONS)?;
                if given.iter().any(|option| {
                    matches!(
                        option.name.as_str(),
                        "p" | "P" | "u" | "pid" | "pgid" | "uid"
                    )
                }) {
                    // Changes other processes; the words after the option are more ids.
                    words.len()
                } else {
                    after
                }
            }
            "chroot" => {
                let root = skip_options(words, 1, &CHROOT_OPTIONS)?;
                let Some(new_root) = words.get(root) else {
                    return Err(Unsupported);
                };
                new_root.literal()?;
                if root + 1 < words.len() {
                    // The wrapped program is looked up inside the new root: it is keyed with
                    // the root (and chroot's options), and chroot itself asks like sudo.
                    keys.push(program.render());
                    let mut chroot = vec![program.render()];
                    chroot.extend(words[1..=root].iter().map(Word::render));
                    prefix.push(chroot.join(" "));
                    root + 1
                } else {
                    words.len()
                }
            }
            "busybox" => {
                // `busybox APPLET ...` runs its own applet: keyed like the applet, marked.
                if words.len() > 1 && !is_flag(&words[1].literal()?) {
                    prefix.push(program.render());
                    1
                } else {
                    words.len()
                }
            }
            "sh" | "bash" | "dash" | "ash" => {
                if let Some(script) = shell_script(words)? {
                    return self.script_keys(&script, &prefix, keys);
                }
                if !has_script_operand(words) {
                    // Commands from stdin (`curl x | sh`): the key `sh` would approve any.
                    return Err(Unsupported);
                }
                words.len()
            }
            shell if OTHER_SHELLS.contains(&shell) => {
                // Their grammars are not parsed: a command string never gets a scope.
                for word in &words[1..] {
                    let value = word.literal()?;
                    if !is_flag(&value) || value == "--" {
                        break;
                    }
                    if value.starts_with("--") || value[1..].contains('c') {
                        return Err(Unsupported);
                    }
                }
                if !has_script_operand(words) {
                    return Err(Unsupported);
                }
                words.len()
            }
            "test" | "[" => {
                if words.iter().any(|word| {
                    word.is_dynamic()
                        || word.replaced
                        || word.chars.iter().any(|wc| matches!(wc.c, '$' | '`'))
                }) {
                    return Err(Unsupported);
                }
                words.len()
            }
            _ => words.len(),
        };
        if inner < words.len() {
            return self.program_keys(&words[inner..], prefix, keys);
        }
        keys.push(prefixed(&prefix, general_key(words)?));
        Ok(())
    }

    /// Keys of a shell script run by `sh -c` (or a wrapper that hands a string to a shell),
    /// under a key prefix.
    fn script_keys(&self, script: &str, prefix: &[String], keys: &mut Vec<String>) -> Parsed<()> {
        let mut inner = Vec::new();
        if !Parser::new(script, self.depth + 1).parse_list(End::Eof, &mut inner)? {
            return Err(Unsupported);
        }
        keys.extend(inner.into_iter().map(|key| prefixed(prefix, key)));
        Ok(())
    }
}

/// The program and its arguments up to the first argument that is neither a flag nor right
/// after a flag that could take it as its value (see the module docs).
fn general_key(words: &[Word]) -> Parsed<String> {
    let mut parts = Vec::new();
    let mut options_done = false;
    let mut after_flag = false;
    for (index, word) in words.iter().enumerate() {
        if word.is_dynamic() {
            return Err(Unsupported);
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

/// For `sh`/`bash`/`dash` words: the script of a `-c` invocation, or `None` when there is no
/// `-c` (a script file or stdin). Only the options `-c -e -u -x -v` (clustered or not) are
/// understood; others (`-o opt`, `-l`, `--norc`, ...) make the command unsupported.
fn shell_script(words: &[Word]) -> Parsed<Option<String>> {
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
        let letters = value.strip_prefix('-').ok_or(Unsupported)?;
        if letters.starts_with('-') || !letters.chars().all(|c| "ceuxv".contains(c)) {
            return Err(Unsupported);
        }
        command_mode |= letters.contains('c');
    }
    if !command_mode {
        return Ok(None);
    }
    let script = words.get(index).ok_or(Unsupported)?.literal()?;
    Ok(Some(script))
}

/// For a shell's words without `-c`: whether a script file is named (the first word after the
/// leading flags and an optional `--`); without one the shell reads its commands from stdin.
fn has_script_operand(words: &[Word]) -> bool {
    let mut rest = words.iter().skip(1).map(Word::value);
    for value in rest.by_ref() {
        if value == "--" {
            return rest.next().is_some();
        }
        if !is_flag(&value) {
            return true;
        }
    }
    false
}

/// Characters that end a word outside quotes.
fn is_operator_char(c: char) -> bool {
    matches!(c, ';' | '&' | '|' | '(' | ')' | '<' | '>')
}

/// Characters after which a reserved word ends.
fn is_delimiter(c: char) -> bool {
    c == ' ' || c == '\t' || c == '\n' || is_operator_char(c)
}

/// `$@ $* $# $? $$ $! $- $0`..`$9`.
fn is_special_parameter(c: char) -> bool {
    c.is_ascii_digit() || matches!(c, '@' | '*' | '#' | '?' | '$' | '!' | '-')
}

#[cfg(test)]
mod tests {
    use super::command_scope;

    /// `None` = never auto-approved; `Some(keys)` = exactly these keys, in this order.
    type Row = (&'static str, &'static str, Option<&'static [&'static str]>);

    #[rustfmt::skip]
    const ROWS: &[Row] = &[
        // --- keys of a single command ---
        ("subcommand", "git status", Some(&["git status"])),
        ("args after key", "git status --short", Some(&["git status"])),
        ("program only", "ls", Some(&["ls"])),
        ("only flags", "ls -la", Some(&["ls -la"])),
        ("rm only flags", "rm -rf", Some(&["rm -rf"])),
        ("flag then operand", "rm -rf build", Some(&["rm -rf build"])),
        ("flags after key", "cargo test -p foo --release", Some(&["cargo test"])),
        ("npm run", "npm run build", Some(&["npm run"])),
        ("relative program", "./script.sh --verbose", Some(&["./script.sh --verbose"])),
        ("absolute program", "/bin/rm -rf x", Some(&["/bin/rm -rf x"])),
        ("double-quoted word", "git \"status\"", Some(&["git status"])),
        ("single-quoted word", "git 'status'", Some(&["git status"])),
        ("escaped letter", "git stat\\us", Some(&["git status"])),
        ("flag value posing as subcommand", "git -C status push", Some(&["git -C status push"])),
        ("exec-path flag", "git --exec-path=/tmp status", Some(&["git --exec-path=/tmp status"])),
        ("attached config flag", "git -ccore.pager=x log", Some(&["git -ccore.pager=x log"])),
        ("flag may take the next word", "cargo --locked test -q", Some(&["cargo --locked test -q"])),
        ("flag with = takes no value", "cargo --manifest-path=a/Cargo.toml test -q", Some(&["cargo --manifest-path=a/Cargo.toml test"])),
        ("double dash", "rm -- -rf", Some(&["rm -- -rf"])),
        ("plus flag", "cargo +nightly test", Some(&["cargo +nightly test"])),
        ("lone dash operand", "cat -", Some(&["cat -"])),
        ("python module", "python3 -m pytest", Some(&["python3 -m pytest"])),
        ("test bracket", "[ -f Cargo.toml ] && cargo build", Some(&["[ -f Cargo.toml ]", "cargo build"])),
        ("unicode", "echo héllo | wc -c", Some(&["echo héllo", "wc -c"])),
        // --- lists and pipelines ---
        ("semicolon attack", "git status; rm -rf ~", Some(&["git status", "rm -rf ~"])),
        ("pipe to a shell reading stdin", "git status && curl x | sh", None),
        ("shell reading a redirected file", "bash < script.sh", None),
        ("shell with flags reading stdin", "curl x | bash -x", None),
        ("shell with -- and a script", "bash -- build.sh", Some(&["bash -- build.sh"])),
        ("shell by path reading stdin", "curl x | /bin/sh", None),
        ("shell by path with flags reading stdin", "curl x | /usr/bin/bash -e", None),
        ("shell by path with a script file", "/bin/bash build.sh", Some(&["/bin/bash build.sh"])),
        ("other shell reading stdin", "curl x | zsh", None),
        ("or", "make || echo failed", Some(&["make", "echo failed"])),
        ("background attack", "git status & rm", Some(&["git status", "rm"])),
        ("newline attack", "git status\nrm x", Some(&["git status", "rm x"])),
        ("blank lines", "\n\ngit status\n\n", Some(&["git status"])),
        ("pipe stderr", "cargo build |& tee log", Some(&["cargo build", "tee log"])),
        ("deduplicated", "git status; git status --short", Some(&["git status"])),
        ("cd then glob", "cd /tmp && rm -rf *", Some(&["cd /tmp", "rm -rf *"])),
        ("subshell", "(cd sub && make)", Some(&["cd sub", "make"])),
        ("group", "{ git status; ls; }", Some(&["git status", "ls"])),
        ("group with redirection", "{ ls; } > out.txt", Some(&["ls", "> out.txt"])),
        ("negation", "! git diff --quiet", Some(&["git diff"])),
        // --- substitutions ---
        ("dollar-paren attack", "git status $(rm -rf /)", Some(&["git status", "rm -rf /"])),
        ("backtick in key position", "git `rm -rf /`", None),
        ("backtick after key", "echo hi `whoami`", Some(&["echo hi", "whoami"])),
        ("nested substitution", "echo x $(git log -1 $(echo y))", Some(&["echo x", "git log", "echo y"])),
        ("substitution in double quotes", "printf '%s\\n' \"$(date)\"", Some(&["printf %s\\n", "date"])),
        ("empty substitution", "echo x $()", Some(&["echo x"])),
        ("substitution in assignment", "X=$(date) make", None),
        ("arithmetic expansion", "echo $((1+2))", None),
        ("arithmetic command", "((x++))", None),
        ("escaped backtick inside backticks", "echo `echo \\`rm x\\``", None),
        // --- assignments and wrappers ---
        ("assignment attack", "FOO=1 rm -rf /", Some(&["FOO=1 rm -rf /"])),
        ("assignment only", "FOO=1", Some(&["FOO=1"])),
        ("quoted assignment value", "FOO=\"a b\" make", Some(&["FOO='a b' make"])),
        ("quoted name is a program", "\"FOO=1\" cmd", None),
        ("env attack", "env rm -rf /", Some(&["rm -rf /"])),
        ("env with options", "env -i -u HOME FOO=1 make test", Some(&["env -i -u HOME FOO=1 make test"])),
        ("env split string", "env -S 'rm -rf /'", None),
        ("env alone", "env", Some(&["env"])),
        ("sudo attack", "sudo rm", Some(&["sudo", "sudo rm"])),
        ("sudo with user", "sudo -u bob rm -rf x", Some(&["sudo", "sudo -u bob rm -rf x"])),
        ("sudo shell", "sudo -s", None),
        ("timeout attack", "timeout 5 rm -rf /", Some(&["rm -rf /"])),
        ("timeout options", "timeout -s KILL --preserve-status 10s cargo test", Some(&["cargo test"])),
        ("timeout dynamic duration", "timeout $T git status", None),
        ("nice", "nice -n 10 cargo build", Some(&["cargo build"])),
        ("nice obsolete form", "nice -5 make", Some(&["make"])),
        ("nohup in background", "nohup python -m http.server &", Some(&["python -m http.server"])),
        ("time", "time -p cargo build", Some(&["cargo build"])),
        ("command", "command git status", Some(&["git status"])),
        ("command -v", "command -v git", Some(&["command -v git"])),
        ("command -p", "command -p git status", None),
        ("exec", "exec git status", Some(&["git status"])),
        ("exec with option", "exec -a name git", None),
        ("stacked wrappers", "sudo env FOO=1 timeout 5 nice rm -rf x", Some(&["sudo", "sudo FOO=1 rm -rf x"])),
        ("xargs", "find . -name '*.o' | xargs rm -f", Some(&["find .", "xargs rm -f"])),
        ("xargs replace", "ls | xargs -I {} cp {} backup/", Some(&["ls", "xargs -I {} cp {}"])),
        ("xargs replace differs from plain xargs", "xargs cp {}", Some(&["xargs cp {}"])),
        ("xargs attached replace", "xargs -I% mv % old/", Some(&["xargs -I % mv %"])),
        ("xargs -i default replace", "xargs -i cp {} b/", Some(&["xargs -I {} cp {}"])),
        ("xargs --replace", "xargs --replace=@ cp @ b/", Some(&["xargs -I @ cp @"])),
        ("xargs replace in program attack", "xargs -I echo echo hi", None),
        ("xargs replace string as program", "xargs -I {} {} -rf /", None),
        ("xargs replace inside sh -c attack", "xargs -I {} sh -c 'echo {}'", None),
        ("xargs replace in wrapper option", "xargs -I U sudo -u U rm x", None),
        ("xargs replace in test operand", "xargs -I V [ -v V ]", None),
        ("xargs empty replace string", "xargs -I '' rm x", None),
        ("xargs replace not in key", "xargs -I {} git status {}", Some(&["xargs -I {} git status"])),
        ("xargs null", "find . -print0 | xargs -0 rm -f", Some(&["find .", "xargs rm -f"])),
        ("xargs -n value", "xargs -n 1 rm", Some(&["xargs rm"])),
        ("xargs -n attached", "xargs -n1 -P4 cargo test", Some(&["xargs cargo test"])),
        ("xargs -P value is not the program", "xargs -P 4 rm -rf x", Some(&["xargs rm -rf x"])),
        ("xargs clustered values", "xargs -0rn 2 git add", Some(&["xargs git add"])),
        ("xargs long value", "xargs --max-procs 2 --delimiter=, rm", Some(&["xargs rm"])),
        ("xargs -L and -s", "xargs -L 3 -s 100 echo", Some(&["xargs echo"])),
        ("xargs arg file", "xargs -a list.txt rm", Some(&["xargs rm"])),
        ("xargs wraps sudo", "xargs sudo rm", Some(&["sudo", "xargs sudo rm"])),
        ("xargs wraps timeout", "xargs timeout 5 rm -rf x", Some(&["xargs rm -rf x"])),
        ("xargs sh -c parsed", "xargs sh -c 'ls; rm -rf ~'", Some(&["xargs ls", "xargs rm -rf ~"])),
        ("xargs sh -c without script", "xargs sh -c", None),
        ("xargs missing option value", "xargs -n", None),
        ("xargs dynamic option value", "xargs -n $N rm", None),
        ("xargs alone", "ls | xargs", Some(&["ls", "xargs"])),
        ("xargs unknown option", "ls | xargs --frobnicate rm", None),
        ("env by path is a program", "/usr/bin/env rm -rf /", Some(&["/usr/bin/env rm"])),
        ("flock", "flock /tmp/build.lock cargo test -q", Some(&["flock /tmp/build.lock", "cargo test"])),
        ("flock options", "flock -x -w 10 .lock rm -rf target", Some(&["flock .lock", "rm -rf target"])),
        ("flock attack", "flock l rm -rf /", Some(&["flock l", "rm -rf /"])),
        ("flock -c runs $SHELL", "flock .lock -c 'make && rm -rf /'", None),
        ("flock --command runs $SHELL", "flock .lock --command 'git status; and rm -rf ~'", None),
        ("flock -c dynamic", "flock .lock -c \"$CMD\"", None),
        ("flock -c extra word", "flock .lock -c ls rm", None),
        ("flock -c before the file", "flock -c 'rm -rf /' .lock", None),
        ("flock descriptor", "flock -n 9", Some(&["flock -n 9"])),
        ("flock dynamic file", "flock $L make", None),
        ("flock unknown option", "flock --frob l make", None),
        ("sudo flock", "sudo flock l rm x", Some(&["sudo", "sudo flock l", "sudo rm x"])),
        ("taskset", "taskset 0x3 cargo test", Some(&["cargo test"])),
        ("taskset cpu list", "taskset -c 0,1 rm -rf /", Some(&["rm -rf /"])),
        ("taskset -c is not a value-taking flag", "taskset -c 0 git push", Some(&["git push"])),
        ("taskset all tasks", "taskset -a -c 1 make", Some(&["make"])),
        ("taskset pid", "taskset -p 0x1 1234", Some(&["taskset -p 0x1 1234"])),
        ("taskset missing command", "taskset 0x3", Some(&["taskset 0x3"])),
        ("chroot", "chroot /srv/jail ls -la", Some(&["chroot", "chroot /srv/jail ls -la"])),
        ("chroot options", "chroot --userspec=1000:1000 /srv/jail cargo test", Some(&["chroot", "chroot --userspec=1000:1000 /srv/jail cargo test"])),
        ("chroot shell", "chroot /srv/jail", Some(&["chroot /srv/jail"])),
        ("chroot sh -c", "chroot /j sh -c 'ls; rm x'", Some(&["chroot", "chroot /j ls", "chroot /j rm x"])),
        ("stdbuf", "stdbuf -oL cargo test", Some(&["cargo test"])),
        ("stdbuf separate value", "stdbuf -o L -e 0 rm -rf x", Some(&["rm -rf x"])),
        ("stdbuf long", "stdbuf --output=L git push", Some(&["git push"])),
        ("ionice", "ionice -c 3 cargo build", Some(&["cargo build"])),
        ("ionice attached", "ionice -c2 -n7 -t rm -rf x", Some(&["rm -rf x"])),
        ("ionice pid", "ionice -c 3 -p 1234", Some(&["ionice -c 3 -p 1234"])),
        ("nohup with option", "nohup --frob rm", None),
        ("time wraps sh -c", "time sh -c 'rm -rf /'", Some(&["rm -rf /"])),
        ("nice wraps bash -c", "nice -n 5 bash -c 'git push'", Some(&["git push"])),
        ("timeout wraps sh -c", "timeout 5 sh -c 'ls; rm x'", Some(&["ls", "rm x"])),
        ("env wraps sh -c", "env FOO=1 sh -c 'rm x'", Some(&["FOO=1 rm x"])),
        ("command wraps sh -c", "command sh -c 'rm x'", Some(&["rm x"])),
        ("exec wraps bash -c", "exec bash -c 'rm x'", Some(&["rm x"])),
        ("nohup wraps sh -c", "nohup sh -c 'rm x' &", Some(&["rm x"])),
        ("busybox applet", "busybox rm -rf x", Some(&["busybox rm -rf x"])),
        ("busybox sh -c", "busybox sh -c 'ls; rm -rf ~'", Some(&["busybox ls", "busybox rm -rf ~"])),
        ("busybox alone", "busybox --list", Some(&["busybox --list"])),
        ("ash -c parsed", "ash -c 'rm x'", Some(&["rm x"])),
        ("zsh -c", "zsh -c 'ls; rm -rf ~'", None),
        ("zsh clustered -c", "zsh -fc 'rm -rf ~'", None),
        ("fish -c", "fish -c 'rm -rf ~'", None),
        ("fish --command", "fish --command='rm -rf ~'", None),
        ("zsh script", "zsh build.zsh", Some(&["zsh build.zsh"])),
        ("sh by path keeps the whole script", "/bin/sh -c 'ls; rm -rf ~'", Some(&["/bin/sh -c 'ls; rm -rf ~'"])),
        ("sh -c sh reads stdin", "sh -c sh", None),
        ("sh -c keys its script", "sh -c 'git status'", Some(&["git status"])),
        ("su", "su root -c 'rm -rf /'", None),
        ("runuser", "runuser -u bob -- rm x", None),
        ("doas", "doas cargo test", None),
        ("watch joins its arguments", "watch ls '; rm -rf ~'", None),
        ("setsid", "setsid cargo test", None),
        ("script -c", "script -qc 'rm -rf ~' /dev/null", None),
        ("parallel", "parallel rm ::: a b", None),
        ("strace", "strace -f cargo test", None),
        ("unshare", "unshare -r rm x", None),
        ("env wraps an opaque runner", "env su -c 'rm x'", None),
        ("local script named like a wrapper", "./nohup rm -rf x", Some(&["./nohup rm"])),
        // --- sh -c ---
        ("bash -c parsed", "bash -c 'git status && rm -rf /'", Some(&["git status", "rm -rf /"])),
        ("sh -ec parsed", "sh -ec \"make; make install\"", Some(&["make", "make install"])),
        ("sudo bash -c with redirection", "sudo bash -c 'echo x > /etc/f'", Some(&["sudo", "sudo echo x", "sudo > /etc/f"])),
        ("bash -o", "bash -o pipefail -c 'ls'", None),
        ("bash -lc", "bash -lc 'ls'", None),
        ("bash -c dynamic", "bash -c \"$CMD\"", None),
        ("bash -c empty", "bash -c ''", None),
        ("bash script file", "bash build.sh", Some(&["bash build.sh"])),
        ("xargs sh -c dynamic", "xargs sh -c 'rm \"$1\"' _", None),
        // --- comments, quotes, escapes ---
        ("comment attack", "git status #; rm", Some(&["git status"])),
        ("hash inside word", "echo a#b; ls", Some(&["echo a#b", "ls"])),
        ("comment then next line", "ls # note\nrm x", Some(&["ls", "rm x"])),
        ("quoted semicolon", "echo \"a;b\"", Some(&["echo a;b"])),
        ("quoted pipe", "grep 'a|b' file", Some(&["grep a|b"])),
        ("quoted ampersands", "echo 'a && b'", Some(&["echo 'a && b'"])),
        ("quoted newline", "echo 'a\nb'", Some(&["echo 'a\nb'"])),
        ("escaped semicolon", "echo a\\;b", Some(&["echo a;b"])),
        ("line continuation", "git \\\nstatus", Some(&["git status"])),
        ("continuation inside word", "gi\\\nt status", Some(&["git status"])),
        ("quoted glob differs from glob", "rm '*'", Some(&["rm '*'"])),
        ("glob", "rm *", Some(&["rm *"])),
        ("quoted blank", "echo \"a b\"", Some(&["echo 'a b'"])),
        ("empty argument", "git \"\"", Some(&["git ''"])),
        ("single quote in double quotes", "echo \"it's\"", Some(&["echo it's"])),
        ("comment only", "# just a comment", None),
        ("empty", "", None),
        ("blanks", "  \t ", None),
        // --- redirections ---
        ("redirect to file", "cargo test > out.txt", Some(&["cargo test", "> out.txt"])),
        ("stderr to stdout", "cargo test 2>&1 | tee log", Some(&["cargo test", "tee log"])),
        ("dev null", "make >/dev/null 2>&1", Some(&["make"])),
        ("append", "echo hi >> notes.md", Some(&["echo hi", ">> notes.md"])),
        ("fd write normalised", "cargo build 2> err.txt", Some(&["cargo build", "> err.txt"])),
        ("clobber normalised", "ls >| out", Some(&["ls", "> out"])),
        ("input", "sort < data.csv", Some(&["sort", "< data.csv"])),
        ("redirection first", "> out.txt echo hi", Some(&["> out.txt", "echo hi"])),
        ("redirection is not an argument", "git > out status", Some(&["git status", "> out"])),
        ("ampersand-greater", "cargo build &> log.txt", Some(&["cargo build", "> log.txt"])),
        ("ampersand-greater hides a command in dash", "git status &>/dev/null rm -rf x", Some(&["git status", "rm -rf x"])),
        ("greater-ampersand file", "make >& build.log", Some(&["make", "> build.log"])),
        ("here-string", "grep x <<< \"$VAR\"", Some(&["grep x"])),
        ("here-doc", "cat <<EOF\nhi\nEOF", None),
        ("process substitution", "diff <(ls a) <(ls b)", None),
        ("output process substitution", "tee >(rm x)", None),
        ("close descriptor", "make 2>&-", Some(&["make"])),
        ("dynamic target", "echo x > $OUT", None),
        ("tilde target", "echo x > ~/.bashrc", Some(&["echo x", "> ~/.bashrc"])),
        ("missing target", "echo x >", None),
        // --- not understood: None ---
        ("unbalanced single quote", "echo 'abc", None),
        ("unbalanced double quote", "echo \"abc", None),
        ("unbalanced paren", "(ls", None),
        ("stray close paren", "ls)", None),
        ("unclosed substitution", "echo $(ls", None),
        ("unclosed backtick", "echo `ls", None),
        ("if", "if true; then rm x; fi", None),
        ("for", "for f in *; do rm $f; done", None),
        ("while", "while true; do ls; done", None),
        ("case", "case x in a) ls;; esac", None),
        ("function definition", "f() { rm -rf /; }; f", None),
        ("function keyword", "function f { ls; }", None),
        ("eval", "eval \"rm -rf /\"", None),
        ("source", "source ./env.sh", None),
        ("dot", ". ./env.sh", None),
        ("variable program", "$CMD args", None),
        ("braced variable program", "${CMD} args", None),
        ("variable subcommand", "git $SUB", None),
        ("variable after key", "git status $X", Some(&["git status"])),
        ("ansi-c quoting", "echo $'a\\nb'", None),
        ("default with substitution", "echo ${X:-$(rm -rf /)}", None),
        ("trailing pipe", "ls |", None),
        ("trailing and", "ls &&", None),
        ("leading semicolon", "; ls", None),
        ("doubled and", "ls && && rm", None),
        ("double semicolon", "ls;; rm", None),
        ("test -v subscript injection", "[ -f x -a -v 'a[$(id)]' ]", None),
        ("let", "let x=1", None),
        ("declare", "declare -a x", None),
        ("glob in program", "/bin/r? -rf /", None),
        ("brace expansion program", "{rm,-rf,/}", None),
        ("tilde program", "~/bin/tool", None),
        ("double brackets", "[[ -f x ]]", None),
        ("array assignment", "a=(1 2); ls", None),
        ("group without separator", "{ ls }", None),
        ("empty subshell", "()", None),
        ("trailing backslash", "ls \\", None),
        ("quoted reserved word", "\"if\" x", None),
        ("word after subshell", "(ls) rm", None),
        ("NUL byte", "git status\0; rm -rf /", None),
    ];

    #[test]
    fn scope_table() {
        assert!(ROWS.len() >= 60, "only {} rows", ROWS.len());
        let mut failures = Vec::new();
        for (label, command, expected) in ROWS {
            let got = command_scope(command);
            let expected: Option<Vec<String>> =
                expected.map(|keys| keys.iter().map(|k| (*k).to_owned()).collect());
            if got != expected {
                failures.push(format!(
                    "{label}: {command:?}\n    expected {expected:?}\n    got      {got:?}"
                ));
            }
        }
        assert!(
            failures.is_empty(),
            "{} of {} rows failed:\n{}",
            failures.len(),
            ROWS.len(),
            failures.join("\n")
        );
    }

    #[test]
    fn deep_nesting_gives_up() {
        let depth = 100;
        let command = format!("{}ls{}", "echo $(".repeat(depth), ")".repeat(depth));
        assert_eq!(command_scope(&command), None);
        let shallow = format!("{}ls{}", "echo x $(".repeat(5), ")".repeat(5));
        assert_eq!(
            command_scope(&shallow),
            Some(vec!["echo x".to_owned(), "ls".to_owned()])
        );
    }

    /// A small deterministic generator (no dependency needed for a fuzz-style test).
    struct Lcg(u64);

    impl Lcg {
        fn below(&mut self, n: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 33) as usize) % n
        }
    }

    /// Whatever precedes it, a command on a line of its own is run, so it must be keyed (or
    /// the whole thing must be unscoped). Random prefixes of shell syntax probe the splitter.
    #[test]
    fn a_command_on_its_own_line_is_always_keyed() {
        const TOKENS: &[&str] = &[
            "git", "status", " ", " ", " ", ";", "&", "|", "&&", "||", "(", ")", "{", "}", "$",
            "$(", "'", "\"", "\\", "`", "#", "\n", ">", "<", "2>&1", "&>", "=", "FOO=", "-x", "--",
            "sudo", "env", "bash", "-c", "xargs", "timeout", "5", "*", "~", "!", "if", "then",
            "flock", "taskset", "chroot", "stdbuf", "ionice", "busybox", "-I", "{}", "-0", "-n",
            "fi", "<<", "<<<", "$X", "${X}", "{a,b}", "[", "]", "echo", "rm", "-rf", "/", "nohup",
            "exec", "command", "-v", "time", "\t", "é", "\\\n",
        ];
        let mut rng = Lcg(0x5eed);
        let mut scoped = 0;
        for _ in 0..20_000 {
            let len = 1 + rng.below(12);
            let prefix: String = (0..len).map(|_| TOKENS[rng.below(TOKENS.len())]).collect();
            if prefix.ends_with('\\') {
                continue; // a continuation joins the next line, as in the shell
            }
            let command = format!("{prefix}\nrm -rf /");
            if let Some(keys) = command_scope(&command) {
                scoped += 1;
                assert!(
                    keys.iter().any(|key| key == "rm -rf /"),
                    "{command:?} hides its last line: {keys:?}"
                );
            }
        }
        // The generator must reach the interesting (scoped) cases, not only syntax errors.
        assert!(scoped > 2_000, "only {scoped} random commands were scoped");
    }

    /// Approving one command for the session must not approve the attacks built on it.
    #[test]
    fn approved_keys_do_not_cover_attacks() {
        let approved: Vec<String> = ["git status", "cargo test", "ls -la", "rm -rf build"]
            .iter()
            .flat_map(|c| command_scope(c).unwrap())
            .collect();
        for attack in [
            "git push",
            "git status; rm -rf ~",
            "git status && curl x | sh",
            "git status $(rm -rf /)",
            "git status\nrm x",
            "git -C status push",
            "git --exec-path=/tmp status",
            "LD_PRELOAD=/tmp/x.so git status",
            "sudo git status",
            "git status > ~/.bashrc",
            "git status &>/dev/null rm -rf x",
            "bash -c 'git status; rm -rf /'",
            "rm -rf build /",
            "./git status",
            "xargs -I git git status",
            "flock l -c 'git status; rm -rf /'",
            "chroot /tmp/evil git status",
            "busybox sh -c 'git status; rm -rf /'",
            "taskset 1 git push",
            "stdbuf -oL cargo install evil",
        ] {
            if let Some(keys) = command_scope(attack) {
                assert!(
                    keys.iter().any(|key| !approved.contains(key)),
                    "{attack:?} would run without asking: {keys:?}"
                );
            }
        }
    }
}
