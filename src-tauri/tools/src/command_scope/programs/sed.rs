//! sed: `-i` edits files in place, `-f` runs a script from a file Gantry does not see, and
//! the script itself may write (`w`, `W`, `s///w`) or run a program (`e`, `s///e`): the
//! script (the `-e` expressions, or the first operand without them) is read by
//! [`super::sed_script`], and one that Gantry cannot read through asks.

use super::scan::{Arg, Scanner, value_text};
use super::sed_script::{self, Finding};
use super::{Call, Rule};
use crate::command_scope::getopt::{Options, Style};
use crate::command_scope::unscoped::OptionEffect::{LoadsCode, RunsProgram, WritesFile};
use crate::command_scope::unscoped::Unscoped;
use crate::command_scope::word::Word;

pub(super) const PROGRAMS: &[(&str, Rule)] = &[("sed", Rule::Custom(sed))];

/// GNU sed's options.
pub(super) const SED: Options = Options {
    flags: "-n --quiet --silent -E -r --regexp-extended -s --separate -u --unbuffered -z \
            --null-data --posix --debug --sandbox -b --binary --follow-symlinks",
    values: "-e --expression -l --line-length",
    harmful: &[
        ("-i", WritesFile),
        ("--in-place", WritesFile),
        ("-f", LoadsCode),
        ("--file", LoadsCode),
    ],
    ..Options::NONE
};

fn sed(call: &Call) -> Result<(), Unscoped> {
    let mut scan = Scanner::new(&call.program, call.args, &SED, Style::Getopt);
    let mut expressions: Vec<String> = Vec::new();
    let mut operands: Vec<&Word> = Vec::new();
    while let Some(arg) = scan.next()? {
        match arg {
            Arg::Options(given) => {
                for option in &given {
                    if matches!(option.name.as_str(), "-e" | "--expression") {
                        expressions.extend(value_text(option)?);
                    }
                }
            }
            Arg::Operand(word) => operands.push(word),
            Arg::EndOfOptions => {
                operands.extend(scan.rest());
                break;
            }
        }
    }
    call.no_appended_options()?;
    // GNU sed joins its expressions with newlines; without one, the first operand is the
    // script.
    let script = if expressions.is_empty() {
        match operands.first() {
            Some(word) => word.literal()?,
            None => return Ok(()),
        }
    } else {
        expressions.join("\n")
    };
    sed_script::check(&script).map_err(|finding| match finding {
        Finding::Writes(command) => Unscoped::ScriptCommand {
            program: call.program.clone(),
            command,
            effect: WritesFile,
        },
        Finding::Runs(command) => Unscoped::ScriptCommand {
            program: call.program.clone(),
            command,
            effect: RunsProgram,
        },
        Finding::Unreadable => Unscoped::UnreadableScript {
            program: call.program.clone(),
        },
    })
}
