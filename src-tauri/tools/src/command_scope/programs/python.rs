//! python, pytest and pip.
//!
//! python runs its script with the arguments after it (unknown options); `-c` evaluates
//! code, `-m MODULE` hands the rest to the module (pytest, pip, unittest and venv have
//! tables), and python without a script reads its input. `-W` and `-X` are not listed
//! (a warning filter imports the module it names).
//!
//! pytest: `-p` loads a plugin, `-c`/`-o` override its configuration, `--junitxml`,
//! `--basetemp`, `--log-file` write. pip: `--index-url` and friends change where code comes
//! from, `--target`, `--prefix`, `--root`, `--log` write elsewhere, `--user` installs
//! outside the project.

use super::scan::{Arg, Scanner, value_text};
use super::{Call, Family, Rule, Table, check_untabled};
use crate::command_scope::getopt::{Options, Style};
use crate::command_scope::unscoped::OptionEffect::{
    EvaluatesCode, InstallsOutside, LoadsCode, OverridesConfig, RunsProgram, WritesFile,
};
use crate::command_scope::unscoped::Unscoped;

pub(super) const PROGRAMS: &[(&str, Rule)] = &[
    ("python", Rule::Custom(python)),
    ("python3", Rule::Custom(python)),
    ("pytest", Rule::Table(&PYTEST)),
    ("py.test", Rule::Table(&PYTEST)),
    ("pip", Rule::Family(&PIP)),
    ("pip3", Rule::Family(&PIP)),
];

/// The modules `python -m` may run with a table.
pub(super) const MODULES: &[(&str, Rule)] = &[
    ("pytest", Rule::Table(&PYTEST)),
    ("pip", Rule::Family(&PIP)),
    ("unittest", Rule::Table(&UNITTEST)),
    ("venv", Rule::Table(&VENV)),
];

/// `python3.12` reads like `python3`.
pub(super) fn interpreter_alias(name: &str) -> Option<&'static str> {
    let version = name.strip_prefix("python3.")?;
    (!version.is_empty() && version.chars().all(|c| c.is_ascii_digit())).then_some("python3")
}

/// The interpreter's own options (before the script).
pub(super) const PYTHON: Options = Options {
    flags: "-u -B -E -s -S -I -q -v -b -O -x -R -P -d -V --version -h --help",
    values: "-m",
    harmful: &[("-c", EvaluatesCode)],
    ..Options::NONE
};

/// `python [OPTIONS] (SCRIPT | -m MODULE) [ARGS]`.
fn python(call: &Call) -> Result<(), Unscoped> {
    let mut scan = Scanner::new(&call.program, call.args, &PYTHON, Style::Getopt);
    let mut standalone = false;
    let script = loop {
        match scan.next()? {
            Some(Arg::Options(given)) => {
                if let Some(module) = given.iter().find(|option| option.name == "-m") {
                    let module = value_text(module)?.unwrap_or_default();
                    let sub = call.sub(&format!("-m {module}"), scan.rest());
                    return match MODULES.iter().find(|(name, _)| *name == module) {
                        Some((_, rule)) => rule.check(&sub),
                        None => check_untabled(&sub),
                    };
                }
                standalone |= given.iter().any(|option| {
                    matches!(option.name.as_str(), "-V" | "--version" | "-h" | "--help")
                });
            }
            Some(Arg::Operand(script)) => break Some((script, scan.rest())),
            Some(Arg::EndOfOptions) => break scan.rest().split_first(),
            None => break None,
        }
    };
    call.run_script(script, standalone)
}

const PYTEST: Table = Table::getopt(Options {
    flags: "-x --exitfirst -q --quiet -v --verbose -s -l --showlocals --lf --last-failed --ff \
            --failed-first --nf --new-first --sw --stepwise --sw-skip --stepwise-skip --co \
            --collect-only --no-header --no-summary --strict-markers --strict-config --strict \
            --disable-warnings --disable-pytest-warnings --runxfail --setup-show --setup-only \
            --setup-plan --fixtures --markers --cache-clear --doctest-modules --full-trace \
            --version -V -h --help --continue-on-collection-errors --pyargs \
            --no-showlocals",
    values: "-k -m -r -n",
    optional: "--tb --maxfail --durations --durations-min --capture --color \
               --code-highlight --import-mode --deselect --ignore --ignore-glob --log-level \
               --log-cli-level --verbosity --show-capture --dist --timeout",
    harmful: &[
        ("-p", LoadsCode),
        ("-c", OverridesConfig),
        ("--config-file", OverridesConfig),
        ("-o", OverridesConfig),
        ("--override-ini", OverridesConfig),
        ("--junitxml", WritesFile),
        ("--junit-xml", WritesFile),
        ("--basetemp", WritesFile),
        ("--log-file", WritesFile),
        ("--result-log", WritesFile),
        ("--pdbcls", LoadsCode),
    ],
    also: &[],
});

const UNITTEST: Table = Table::getopt(Options {
    flags: "-v --verbose -q --quiet -f --failfast -c --catch -b --buffer --locals",
    values: "-k -s -p -t --start-directory --pattern --top-level-directory",
    optional: "--durations",
    ..Options::NONE
});

const VENV: Table = Table::getopt(Options {
    flags: "--system-site-packages --symlinks --copies --clear --upgrade --without-pip \
            --upgrade-deps --without-scm-ignore-files",
    optional: "--prompt",
    ..Options::NONE
});

/// Options every pip command accepts.
const PIP_COMMON: Options = Options {
    flags: "-q --quiet -v --verbose --isolated --no-input --disable-pip-version-check \
            --no-color --no-cache-dir --require-virtualenv",
    harmful: &[
        ("-i", OverridesConfig),
        ("--index-url", OverridesConfig),
        ("--extra-index-url", OverridesConfig),
        ("--trusted-host", OverridesConfig),
        ("--proxy", OverridesConfig),
        ("--cert", OverridesConfig),
        ("--client-cert", OverridesConfig),
        ("-C", OverridesConfig),
        ("--config-settings", OverridesConfig),
        ("--log", WritesFile),
        ("--python", RunsProgram),
    ],
    ..Options::NONE
};

const PIP: Family = Family {
    global: PIP_COMMON,
    subcommands: &[
        ("install", Rule::Table(&PIP_INSTALL)),
        ("list", Rule::Table(&PIP_LIST)),
        ("show", Rule::Table(&PIP_SHOW)),
        ("freeze", Rule::Table(&PIP_FREEZE)),
        ("check", Rule::Table(&PIP_CHECK)),
    ],
};

const PIP_INSTALL: Table = Table::getopt(Options {
    flags: "-U --upgrade --no-deps --pre --force-reinstall -I --ignore-installed \
            --no-build-isolation --prefer-binary --require-hashes --no-warn-script-location \
            --dry-run --no-index --compile --no-compile",
    values: "-r --requirement -e --editable -c --constraint",
    optional: "--upgrade-strategy --only-binary --no-binary --progress-bar",
    harmful: &[
        ("-t", WritesFile),
        ("--target", WritesFile),
        ("--prefix", WritesFile),
        ("--root", WritesFile),
        ("--src", WritesFile),
        ("--report", WritesFile),
        ("--user", InstallsOutside),
        ("--break-system-packages", InstallsOutside),
    ],
    also: &[&PIP_COMMON],
});

const PIP_LIST: Table = Table::getopt(Options {
    flags: "-o --outdated -u --uptodate -e --editable -l --local --user --not-required --pre \
            --include-editable --exclude-editable",
    optional: "--format --exclude",
    also: &[&PIP_COMMON],
    ..Options::NONE
});

const PIP_SHOW: Table = Table::getopt(Options {
    flags: "-f --files",
    also: &[&PIP_COMMON],
    ..Options::NONE
});

const PIP_FREEZE: Table = Table::getopt(Options {
    flags: "--all -l --local --user --exclude-editable",
    optional: "--exclude",
    also: &[&PIP_COMMON],
    ..Options::NONE
});

const PIP_CHECK: Table = Table::getopt(Options {
    also: &[&PIP_COMMON],
    ..Options::NONE
});
