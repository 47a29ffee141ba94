//! npm, pnpm, yarn and node.
//!
//! The package managers read every `--name=value` as a configuration setting, so only the
//! everyday switches are listed: `--script-shell` and `--node-options` run or load code,
//! `--registry`, `--userconfig` and pnpm's `--config.*` override configuration, `-g`
//! installs outside the project. `test`, `run`, `start`, `install` and `ci` have tables;
//! what follows `--` goes to the package's script, whose options are unknown. A script run
//! by its own name (`yarn build`) is a subcommand without a table.
//!
//! node runs its script with the arguments after it (unknown options); `-e`, `-p` evaluate
//! code, `-r`, `--import`, `--loader` load it, and node without a script reads its input.

use super::scan::{Arg, Scanner};
use super::{Call, Family, Rest, Rule, Table};
use crate::command_scope::getopt::{Options, Style};
use crate::command_scope::unscoped::OptionEffect::{
    EvaluatesCode, InstallsOutside, LoadsCode, OverridesConfig, RunsProgram, WritesFile,
};
use crate::command_scope::unscoped::Unscoped;

pub(super) const PROGRAMS: &[(&str, Rule)] = &[
    ("npm", Rule::Family(&NPM)),
    ("pnpm", Rule::Family(&PNPM)),
    ("yarn", Rule::Family(&YARN)),
    ("node", Rule::Custom(node)),
];

/// What every package manager refuses, with why.
const PACKAGE_MANAGER: Options = Options {
    flags: "-s --silent -q --quiet --verbose --if-present --ignore-scripts --offline \
            --prefer-offline --prefer-online --no-progress",
    optional: "--loglevel --color",
    harmful: &[
        ("--script-shell", RunsProgram),
        ("--node-options", LoadsCode),
        ("--userconfig", OverridesConfig),
        ("--globalconfig", OverridesConfig),
        ("--registry", OverridesConfig),
        ("--config.", OverridesConfig),
        ("--prefix", WritesFile),
        ("--cache", WritesFile),
        ("-g", InstallsOutside),
        ("--global", InstallsOutside),
        ("--location", InstallsOutside),
    ],
    ..Options::NONE
};

/// Installing what the project's manifest and lockfile say.
const INSTALLING: Options = Options {
    flags: "-D --save-dev -P --save-prod -O --save-optional -E --save-exact --no-save \
            --save-peer --legacy-peer-deps --strict-peer-deps --no-package-lock \
            --package-lock-only --production --prod --dev --no-optional --install-links \
            --no-bin-links --no-audit --no-fund --frozen-lockfile --no-frozen-lockfile \
            --immutable --immutable-cache --check-cache --check-files --pure-lockfile \
            --ignore-engines --non-interactive --prefer-dedupe --dry-run --fix-lockfile \
            --lockfile-only",
    optional: "--omit --include",
    also: &[&PACKAGE_MANAGER],
    ..Options::NONE
};

/// Running one of the package's scripts; the words after `--` are the script's.
const SCRIPT: Table = Table {
    options: Options {
        flags: "--workspaces --include-workspace-root -r --recursive --parallel --stream",
        optional: "--workspace --filter",
        also: &[&PACKAGE_MANAGER],
        ..Options::NONE
    },
    style: Style::Getopt,
    after_dashes: Rest::Untabled,
};

const INSTALL: Table = Table::getopt(Options {
    flags: "--workspaces --include-workspace-root",
    optional: "--workspace",
    also: &[&INSTALLING],
    ..Options::NONE
});

const NPM: Family = Family {
    global: PACKAGE_MANAGER,
    subcommands: &[
        ("test", Rule::Table(&SCRIPT)),
        ("t", Rule::Table(&SCRIPT)),
        ("run", Rule::Table(&SCRIPT)),
        ("run-script", Rule::Table(&SCRIPT)),
        ("start", Rule::Table(&SCRIPT)),
        ("install", Rule::Table(&INSTALL)),
        ("i", Rule::Table(&INSTALL)),
        ("ci", Rule::Table(&INSTALL)),
    ],
};

const PNPM: Family = Family {
    global: Options {
        values: "-F --filter",
        also: &[&PACKAGE_MANAGER],
        ..Options::NONE
    },
    subcommands: &[
        ("test", Rule::Table(&SCRIPT)),
        ("t", Rule::Table(&SCRIPT)),
        ("run", Rule::Table(&SCRIPT)),
        ("start", Rule::Table(&SCRIPT)),
        ("install", Rule::Table(&INSTALL)),
        ("i", Rule::Table(&INSTALL)),
    ],
};

const YARN: Family = Family {
    global: PACKAGE_MANAGER,
    subcommands: &[
        ("test", Rule::Table(&SCRIPT)),
        ("run", Rule::Table(&SCRIPT)),
        ("start", Rule::Table(&SCRIPT)),
        ("install", Rule::Table(&INSTALL)),
    ],
};

/// node's own options (before the script).
pub(super) const NODE: Options = Options {
    flags: "--test --watch --watch-preserve-output -c --check --enable-source-maps \
            --trace-warnings --trace-uncaught --trace-deprecation --throw-deprecation \
            --pending-deprecation --no-deprecation --no-warnings --experimental-vm-modules \
            --experimental-strip-types --experimental-test-coverage --test-only \
            --abort-on-uncaught-exception --preserve-symlinks --expose-gc --jitless -v \
            --version -h --help",
    optional: "--test-name-pattern --test-skip-pattern --test-concurrency --test-timeout \
               --max-old-space-size --stack-size --unhandled-rejections --input-type \
               --conditions",
    harmful: &[
        ("-e", EvaluatesCode),
        ("--eval", EvaluatesCode),
        ("-p", EvaluatesCode),
        ("--print", EvaluatesCode),
        ("-r", LoadsCode),
        ("--require", LoadsCode),
        ("--import", LoadsCode),
        ("--loader", LoadsCode),
        ("--experimental-loader", LoadsCode),
        ("--test-reporter", LoadsCode),
        ("--env-file", OverridesConfig),
        ("--test-reporter-destination", WritesFile),
        ("--redirect-warnings", WritesFile),
    ],
    ..Options::NONE
};

/// `node [OPTIONS] SCRIPT [ARGS]`; without a script it reads its input (a REPL), unless it
/// only prints its version or help or runs the test runner.
fn node(call: &Call) -> Result<(), Unscoped> {
    let mut scan = Scanner::new(&call.program, call.args, &NODE, Style::Getopt);
    let mut standalone = false;
    let script = loop {
        match scan.next()? {
            Some(Arg::Options(given)) => {
                standalone |= given.iter().any(|option| {
                    matches!(
                        option.name.as_str(),
                        "-v" | "--version" | "-h" | "--help" | "--test"
                    )
                });
            }
            Some(Arg::Operand(script)) => break Some((script, scan.rest())),
            Some(Arg::EndOfOptions) => break scan.rest().split_first(),
            None => break None,
        }
    };
    call.run_script(script, standalone)
}
