//! make: a target is an operand, but `NAME=value` on the command line overrides a variable
//! (`SHELL`, `CC`, any recipe's), so it asks; so do `--eval`/`-E` (evaluate makefile text),
//! `-f` (another makefile), `-e` (the environment overrides the makefile), `-t` (touches
//! targets), and `-C`/`-I` (another directory's makefiles).

use super::scan::Scanner;
use super::{Call, Rule};
use crate::command_scope::getopt::{Options, Style};
use crate::command_scope::unscoped::OptionEffect::{
    EvaluatesCode, LoadsCode, OverridesConfig, WritesFile,
};
use crate::command_scope::unscoped::Unscoped;
use crate::command_scope::word::Word;

pub(super) const PROGRAMS: &[(&str, Rule)] =
    &[("make", Rule::Custom(make)), ("gmake", Rule::Custom(make))];

/// GNU make's options.
pub(super) const MAKE: Options = Options {
    flags: "-k --keep-going -s --silent --quiet -B --always-make -n --just-print --dry-run \
            --recon -w --print-directory --no-print-directory -r --no-builtin-rules -R \
            --no-builtin-variables -q --question -i --ignore-errors -d --trace -p \
            --print-data-base -v --version -S --no-keep-going --stop \
            --warn-undefined-variables",
    values: "-W -o --what-if --new-file --assume-new --old-file --assume-old",
    optional: "-j --jobs -l --load-average --max-load -O --output-sync --debug --shuffle",
    harmful: &[
        ("--eval", EvaluatesCode),
        ("-E", EvaluatesCode),
        ("-f", LoadsCode),
        ("--file", LoadsCode),
        ("--makefile", LoadsCode),
        ("-e", OverridesConfig),
        ("--environment-overrides", OverridesConfig),
        ("-t", WritesFile),
        ("--touch", WritesFile),
    ],
    also: &[],
};

fn make(call: &Call) -> Result<(), Unscoped> {
    let mut scan = Scanner::new(&call.program, call.args, &MAKE, Style::Getopt);
    if scan.each_operand(|word| no_variable(call, word))? {
        for word in scan.rest() {
            no_variable(call, word)?;
        }
    }
    // Arguments from xargs' input may be options or variables, after `--` too.
    call.no_appended_options()
}

/// Refuses a `NAME=value` operand, which overrides the variable.
fn no_variable(call: &Call, word: &Word) -> Result<(), Unscoped> {
    let value = word.value();
    match value.split_once('=') {
        Some((name, _)) => Err(Unscoped::Harmful {
            program: call.program.clone(),
            option: format!("{name}=…"),
            effect: OverridesConfig,
        }),
        None => Ok(()),
    }
}
