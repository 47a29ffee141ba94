//! Everyday file and text programs (coreutils, grep, ripgrep, tree).
//!
//! Most of them have no option that writes elsewhere, runs or loads anything: their every
//! option is harmless ([`ANY_OPTION`]). The others have tables: `sort` (`-o` writes,
//! `--compress-program` runs), `tree` (`-o` writes), `rg` (`--pre` runs), `cp`/`mv`
//! (`-t` and `-S` choose where they write), `date` (`-s` sets the clock) and `printf`
//! (bash's `-v` sets a variable later commands read).

use super::scan::{Arg, Scanner};
use super::{Call, Rule, Table};
use crate::command_scope::getopt::{Options, Style};
use crate::command_scope::unscoped::OptionEffect::{RunsProgram, SetsVariable, WritesFile};
use crate::command_scope::unscoped::Unscoped;

/// Programs none of whose options writes a file other than their operands, runs a program,
/// loads code or reads configuration: any option is harmless (GNU coreutils' and grep's
/// option sets were checked one by one; `rm`, `mkdir`, `touch`, `chmod` and `tee` act only on
/// their operands, which the key's rule covers).
pub(in crate::command_scope) const ANY_OPTION: &[&str] = &[
    "basename", "cat", "cd", "chmod", "cmp", "comm", "cut", "df", "diff", "dirname", "du", "echo",
    "egrep", "false", "fgrep", "grep", "head", "id", "ls", "mkdir", "nl", "pwd", "readlink",
    "realpath", "rev", "rm", "rmdir", "sleep", "stat", "tac", "tail", "tee", "touch", "tr", "true",
    "uname", "uniq", "wc", "which", "whoami",
];

pub(super) const PROGRAMS: &[(&str, Rule)] = &[
    ("sort", Rule::Table(&SORT)),
    ("tree", Rule::Table(&TREE)),
    ("rg", Rule::Table(&RG)),
    ("cp", Rule::Table(&CP_MV)),
    ("mv", Rule::Table(&CP_MV)),
    ("date", Rule::Table(&DATE)),
    ("printf", Rule::Custom(printf)),
];

const SORT: Table = Table::getopt(Options {
    flags: "-b -d -f -g -i -M -h -n -R -r -V -c -C -m -s -u -z --ignore-leading-blanks \
            --dictionary-order --ignore-case --general-numeric-sort --ignore-nonprinting \
            --month-sort --human-numeric-sort --numeric-sort --random-sort --reverse \
            --version-sort --merge --stable --unique --zero-terminated --debug",
    values: "-k -t -S --key --field-separator --buffer-size",
    optional: "--check --sort --parallel --batch-size --random-source --files0-from",
    harmful: &[
        ("-o", WritesFile),
        ("--output", WritesFile),
        ("-T", WritesFile),
        ("--temporary-directory", WritesFile),
        ("--compress-program", RunsProgram),
    ],
    also: &[],
});

const TREE: Table = Table::getopt(Options {
    flags: "-a -d -l -f -x -i -q -N -Q -p -u -g -s -h -D -F -v -t -c -U -r -n -C -A -S -J -X \
            --si --du --dirsfirst --filesfirst --noreport --inodes --device --prune \
            --gitignore --ignore-case --matchdirs --nolinks --metafirst --info",
    values: "-L -P -I",
    optional: "--charset --filelimit --timefmt --sort --fromfile",
    harmful: &[("-o", WritesFile), ("-R", WritesFile)],
    also: &[],
});

const RG: Table = Table::getopt(Options {
    flags: "-i -s -S -w -x -v -c -l -L -n -N -H -I -u -o -q -0 -F -P -U -z -a -b -p \
            --hidden --no-hidden --ignore-case --case-sensitive --smart-case --word-regexp \
            --line-regexp --invert-match --count --count-matches --files-with-matches \
            --files-without-match --line-number --no-line-number --with-filename \
            --no-filename --column --no-column --heading --no-heading --vimgrep --json \
            --no-json --only-matching --quiet --null --null-data --fixed-strings --pcre2 \
            --multiline --multiline-dotall --files --type-list --follow --no-follow \
            --no-ignore --no-ignore-vcs --no-ignore-dot --no-ignore-global --no-ignore-parent \
            --no-ignore-exclude --no-ignore-files --no-messages --no-config --stats --trim \
            --passthru --search-zip --text --byte-offset --pretty --unrestricted \
            --no-unicode --crlf --debug --trace --sort-files --block-buffered \
            --line-buffered --include-zero --max-columns-preview --glob-case-insensitive",
    values: "-e -f -g -t -T -A -B -C -m -M -j -E -r -d --regexp --file --glob --iglob --type \
             --type-not --after-context --before-context --context --max-count \
             --max-columns --threads --encoding --replace --max-depth --max-filesize \
             --type-add --type-clear --ignore-file --sort --sortr --engine --colors \
             --context-separator --field-match-separator --field-context-separator \
             --path-separator --dfa-size-limit --regex-size-limit",
    optional: "--color",
    harmful: &[("--pre", RunsProgram), ("--hostname-bin", RunsProgram)],
    also: &[],
});

/// cp and mv write only where their operands say, except with a target directory or a
/// backup suffix given as options.
const CP_MV: Table = Table::getopt(Options {
    flags: "-r -R -a -f -i -n -v -p -u -L -P -d -H -l -s -x -T -b --recursive --archive \
            --force --interactive --no-clobber --verbose --dereference --no-dereference \
            --one-file-system --strip-trailing-slashes --remove-destination \
            --attributes-only --copy-contents --no-target-directory --parents --debug",
    optional: "--preserve --no-preserve --update --sparse --reflink --backup",
    harmful: &[
        ("-t", WritesFile),
        ("--target-directory", WritesFile),
        ("-S", WritesFile),
        ("--suffix", WritesFile),
    ],
    ..Options::NONE
});

const DATE: Table = Table::getopt(Options {
    flags: "-u -R --utc --universal --rfc-email --debug",
    values: "-d -r -f --date --reference --file",
    optional: "-I --iso-8601 --rfc-3339 --resolution",
    ..Options::NONE
});

/// bash's printf builtin, whose only option is `-v`.
pub(super) const PRINTF: Options = Options {
    harmful: &[("-v", SetsVariable)],
    ..Options::NONE
};

/// bash's builtins read options only up to the first operand (printf's format); what follows
/// is data. (Through xargs it is coreutils' printf, which has no `-v`.)
fn printf(call: &Call) -> Result<(), Unscoped> {
    let mut scan = Scanner::new(&call.program, call.args, &PRINTF, Style::Getopt);
    while let Some(Arg::Options(_)) = scan.next()? {}
    Ok(())
}
