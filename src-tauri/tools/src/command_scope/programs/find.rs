//! find: its expression may run programs (`-exec`, `-execdir`, `-ok`, `-okdir`), delete
//! (`-delete`) or write files (`-fprint`, `-fprint0`, `-fprintf`, `-fls`); the tests and the
//! other actions (`-print`, `-printf`, `-ls`, `-prune`, `-quit`) are harmless. `--` only
//! ends find's own options: the expression after it is checked the same way.

use super::scan::Scanner;
use super::{Call, Rule};
use crate::command_scope::getopt::{Options, Style};
use crate::command_scope::unscoped::OptionEffect::{DeletesFiles, RunsProgram, WritesFile};
use crate::command_scope::unscoped::Unscoped;

pub(super) const PROGRAMS: &[(&str, Rule)] = &[("find", Rule::Custom(find))];

/// GNU find's options, tests and actions.
pub(super) const FIND: Options = Options {
    flags: "-H -L -P -print -print0 -ls -prune -quit -depth -d -empty -readable -writable \
            -executable -nouser -nogroup -true -false -not -a -o -and -or -follow -xdev \
            -mount -noleaf -ignore_readdir_race -noignore_readdir_race -daystart -version \
            -help",
    values: "-name -iname -path -ipath -wholename -iwholename -regex -iregex -regextype -type \
             -xtype -size -mtime -mmin -atime -amin -ctime -cmin -newer -anewer -cnewer \
             -newermt -newerct -newerat -used -perm -user -group -uid -gid -links -inum \
             -samefile -lname -ilname -maxdepth -mindepth -fstype -context -printf \
             -files0-from",
    harmful: &[
        ("-exec", RunsProgram),
        ("-execdir", RunsProgram),
        ("-ok", RunsProgram),
        ("-okdir", RunsProgram),
        ("-delete", DeletesFiles),
        ("-fprint", WritesFile),
        ("-fprint0", WritesFile),
        ("-fprintf", WritesFile),
        ("-fls", WritesFile),
    ],
    ..Options::NONE
};

fn find(call: &Call) -> Result<(), Unscoped> {
    let mut words = call.args;
    loop {
        let mut scan = Scanner::new(&call.program, words, &FIND, Style::SingleDash);
        if !scan.each_operand(|_| Ok(()))? {
            break;
        }
        words = scan.rest();
    }
    call.no_appended_options()
}
