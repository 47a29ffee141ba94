//! Which options of which programs are harmless.
//!
//! A key names a program and its subcommand; what a later call adds after it is not shown to
//! the user who approved the key. So a call is coverable by a session grant only when every
//! option it carries — before and after the subcommand — is known to be harmless for that
//! program: it neither writes a file it names, nor runs a program (a pager, an editor, an
//! `-exec`), nor overrides configuration, nor evaluates or loads code. Approving `git log`
//! therefore covers `git log --oneline -n 5` but not `git log --output=../x`.
//!
//! Each program family has a table of harmless options (one module per family); anything not
//! listed asks, with the reason the table knows (`--output` writes a file) or a plain "not
//! known to be harmless". Operands (file names, revisions, test filters) keep the key's rule:
//! they are not part of the scope, except where a family says otherwise (make's `VAR=value`
//! overrides a variable, sed's script may write or run).
//!
//! - **Every option harmless** ([`simple::ANY_OPTION`]: `ls`, `cat`, `grep`, `rm`, `echo`, ...):
//!   programs none of whose options write elsewhere, run or load anything. Their arguments
//!   may be anything, even text Gantry cannot read.
//! - **Tables** for `git` (status, log, show, diff, branch, grep, blame, rev-parse, ls-files,
//!   add, commit, describe, remote, fetch, pull, push, clone, checkout, switch), `cargo`
//!   (test, bench, build, check, clippy, doc, run, fmt, tree, metadata, clean), `npm`,
//!   `pnpm`, `yarn` (test, run, start, install, ci), `node`, `python` (`-m pytest`, `-m pip`,
//!   `-m unittest`, `-m venv`), `pytest`, `pip`, `make`, `go` (build, test, vet, run, fmt,
//!   list, mod, env, version, doc), `find`, `sed`, `sort`, `tree`, `rg`, `cp`, `mv`, `date`,
//!   `printf`.
//! - **No table** (any other program, a subcommand without a table, a program called by
//!   path, a script's own arguments): its options are unknown, so any option asks;
//!   operands keep the key's rule.
//!
//! An argument whose text Gantry cannot know (`$X`, `$(cmd)`, a word starting with `*`, text
//! `xargs -I` fills in) may turn out to be any option: it asks unless every option of the
//! program is harmless or it stands after `--`. So do arguments `xargs` appends from its
//! input.

mod cargo;
mod find;
mod git;
mod go;
mod js;
mod make;
mod python;
pub(super) mod scan;
mod sed;
mod sed_script;
pub(super) mod simple;
#[cfg(test)]
mod tests;

use super::getopt::{Options, Style};
use super::unscoped::Unscoped;
use super::word::{Word, is_flag};
use scan::{Arg, Scanner, refuse_unreadable};

/// One program call to check: the program (and subcommand) as named in reasons, and its
/// arguments.
#[derive(Debug)]
pub(super) struct Call<'a> {
    /// `git log`, `python3 -m pytest`, `./build.sh`.
    pub program: String,
    pub args: &'a [Word],
    /// An enclosing `xargs` appends arguments read from its input.
    pub appended: bool,
}

impl<'a> Call<'a> {
    /// The call of a subcommand (or module, script, ...) `name` with `args`.
    pub fn sub(&self, name: &str, args: &'a [Word]) -> Call<'a> {
        Call {
            program: format!("{} {name}", self.program),
            args,
            appended: self.appended,
        }
    }

    /// The same program with other arguments (the words after `--`).
    pub fn with_args(&self, args: &'a [Word]) -> Call<'a> {
        Call {
            program: self.program.clone(),
            args,
            appended: self.appended,
        }
    }

    /// An interpreter's call once its options are read: the script (its first operand, `-`
    /// aside) runs with the arguments after it, checked as a subcommand named after it; with no
    /// script the interpreter reads its input (a REPL, a program piped in), which no grant can
    /// cover, unless its options only print a version or help (`standalone`).
    pub fn run_script(
        &self,
        script: Option<(&Word, &'a [Word])>,
        standalone: bool,
    ) -> Result<(), Unscoped> {
        match script {
            Some((script, args)) if script.value() != "-" => {
                check_untabled(&self.sub(&script.value(), args))
            }
            None if standalone => self.no_appended_options(),
            _ => Err(Unscoped::ReadsInput {
                program: self.program.clone(),
            }),
        }
    }

    /// Arguments appended from xargs' input would land among this call's options.
    pub fn no_appended_options(&self) -> Result<(), Unscoped> {
        if self.appended {
            return Err(Unscoped::InputArguments {
                program: self.program.clone(),
            });
        }
        Ok(())
    }
}

/// How a program's (or subcommand's) arguments are checked.
#[derive(Debug)]
pub(super) enum Rule {
    /// Every option of the program is harmless.
    AnyOption,
    /// Options from a table; operands are ordinary.
    Table(&'static Table),
    /// Global options, then a subcommand with a rule of its own.
    Family(&'static Family),
    /// A program whose arguments need reading of their own (make's variables, sed's script,
    /// python's `-m`, find's expression).
    Custom(fn(&Call) -> Result<(), Unscoped>),
}

impl Rule {
    pub fn check(&self, call: &Call) -> Result<(), Unscoped> {
        match self {
            Rule::AnyOption => Ok(()),
            Rule::Table(table) => table.check(call),
            Rule::Family(family) => family.check(call),
            Rule::Custom(check) => check(call),
        }
    }
}

/// A program's options, and what follows its `--`.
#[derive(Debug)]
pub(super) struct Table {
    pub options: Options,
    pub style: Style,
    pub after_dashes: Rest,
}

impl Table {
    /// A getopt table whose `--` ends the options.
    pub const fn getopt(options: Options) -> Table {
        Table {
            options,
            style: Style::Getopt,
            after_dashes: Rest::Operands,
        }
    }

    /// A table whose options have one dash (`-run`, go's) and whose `--` ends them.
    pub const fn single_dash(options: Options) -> Table {
        Table {
            options,
            style: Style::SingleDash,
            after_dashes: Rest::Operands,
        }
    }

    pub fn check(&self, call: &Call) -> Result<(), Unscoped> {
        let mut scan = Scanner::new(&call.program, call.args, &self.options, self.style);
        if scan.each_operand(|_| Ok(()))? {
            return self.after_dashes.check(&call.with_args(scan.rest()));
        }
        call.no_appended_options()
    }
}

/// What the words after a program's `--` are.
#[derive(Debug)]
pub(super) enum Rest {
    /// Operands only (file names, paths).
    Operands,
    /// Arguments of another program (a script, the program `cargo run` builds) with unknown
    /// options.
    Untabled,
    /// Arguments of another program with this table (libtest's after `cargo test --`).
    Options(&'static Options),
}

impl Rest {
    pub fn check(&self, call: &Call) -> Result<(), Unscoped> {
        match self {
            Rest::Operands => Ok(()),
            Rest::Untabled => check_untabled(call),
            Rest::Options(options) => {
                let mut scan = Scanner::new(&call.program, call.args, options, Style::Getopt);
                if !scan.each_operand(|_| Ok(()))? {
                    call.no_appended_options()?;
                }
                Ok(())
            }
        }
    }
}

/// A program with subcommands (`git`, `cargo`, `go mod`).
#[derive(Debug)]
pub(super) struct Family {
    /// Options before the subcommand.
    pub global: Options,
    /// The subcommands with a rule; others are checked as programs without a table.
    pub subcommands: &'static [(&'static str, Rule)],
}

impl Family {
    pub fn check(&self, call: &Call) -> Result<(), Unscoped> {
        let mut scan = Scanner::new(&call.program, call.args, &self.global, Style::Getopt);
        loop {
            match scan.next()? {
                None => return call.no_appended_options(),
                Some(Arg::Options(_)) => {}
                Some(Arg::EndOfOptions) => {
                    return Err(Unscoped::UnknownOption {
                        program: call.program.clone(),
                        option: "--".to_owned(),
                    });
                }
                Some(Arg::Operand(word)) => {
                    let name = word.literal()?;
                    let sub = call.sub(&name, scan.rest());
                    return match self.subcommands.iter().find(|(listed, _)| *listed == name) {
                        Some((_, rule)) => rule.check(&sub),
                        None => check_untabled(&sub),
                    };
                }
            }
        }
    }
}

/// The programs with a rule, by family.
const REGISTRY: &[&[(&str, Rule)]] = &[
    git::PROGRAMS,
    cargo::PROGRAMS,
    js::PROGRAMS,
    python::PROGRAMS,
    make::PROGRAMS,
    go::PROGRAMS,
    find::PROGRAMS,
    sed::PROGRAMS,
    simple::PROGRAMS,
];

/// The rule for a program called by its bare name `name`.
fn lookup(name: &str) -> Option<&'static Rule> {
    if simple::ANY_OPTION.contains(&name) {
        return Some(&Rule::AnyOption);
    }
    let name = python::interpreter_alias(name).unwrap_or(name);
    REGISTRY
        .iter()
        .flat_map(|programs| programs.iter())
        .find(|(listed, _)| *listed == name)
        .map(|(_, rule)| rule)
}

/// Checks the arguments of `call` (its program named as written): every option must be
/// harmless for that program.
pub(super) fn check(call: &Call) -> Result<(), Unscoped> {
    match lookup(&call.program) {
        Some(rule) => rule.check(call),
        None => check_untabled(call),
    }
}

/// Checks the arguments of a program without a table: any option asks.
pub(super) fn check_untabled(call: &Call) -> Result<(), Unscoped> {
    for word in call.args {
        refuse_unreadable(&call.program, word)?;
        let text = word.value();
        if is_flag(&text) && text != "--" {
            return Err(Unscoped::UnknownOption {
                program: call.program.clone(),
                option: text.split('=').next().unwrap_or_default().to_owned(),
            });
        }
    }
    call.no_appended_options()
}
