//! cargo: a toolchain (`+nightly`), global options, then a table per everyday subcommand.
//!
//! Everywhere `--config` overrides configuration (a `target.*.runner` or a linker runs any
//! program), `--target-dir` and `--artifact-dir` write elsewhere, and `--manifest-path`,
//! `-C` and `-Z` (another project, unstable behaviour) are not listed. After `--`, `cargo
//! test` and `cargo bench` hand their arguments to libtest (whose `--logfile` writes),
//! `cargo clippy` to the lint flags, `cargo fmt` to rustfmt, and `cargo run` to the program
//! it built (whose options are unknown). `cargo doc --open` runs a browser.

use super::{Call, Family, Rest, Rule, Table};
use crate::command_scope::getopt::{Options, Style};
use crate::command_scope::unscoped::OptionEffect::{
    DeletesFiles, OverridesConfig, RunsProgram, WritesFile,
};
use crate::command_scope::unscoped::Unscoped;

pub(super) const PROGRAMS: &[(&str, Rule)] = &[("cargo", Rule::Custom(cargo))];

/// `cargo [+TOOLCHAIN] ...`: a toolchain name (no path) may come first.
fn cargo(call: &Call) -> Result<(), Unscoped> {
    let args = match call.args.first() {
        Some(first) if first.value().starts_with('+') => {
            let name = first.literal()?;
            let plain = name[1..]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
            if name.len() < 2 || !plain {
                return Err(Unscoped::UnknownOption {
                    program: call.program.clone(),
                    option: name,
                });
            }
            &call.args[1..]
        }
        _ => call.args,
    };
    CARGO.check(&call.with_args(args))
}

pub(super) const CARGO: Family = Family {
    global: Options {
        flags: "-V --version --list",
        optional: "--explain",
        also: &[&COMMON],
        ..Options::NONE
    },
    subcommands: &[
        ("test", Rule::Table(&TEST)),
        ("t", Rule::Table(&TEST)),
        ("bench", Rule::Table(&TEST)),
        ("build", Rule::Table(&BUILD)),
        ("b", Rule::Table(&BUILD)),
        ("check", Rule::Table(&BUILD)),
        ("c", Rule::Table(&BUILD)),
        ("clippy", Rule::Table(&CLIPPY)),
        ("doc", Rule::Table(&DOC)),
        ("run", Rule::Table(&RUN)),
        ("r", Rule::Table(&RUN)),
        ("fmt", Rule::Table(&FMT)),
        ("tree", Rule::Table(&TREE)),
        ("metadata", Rule::Table(&METADATA)),
        ("clean", Rule::Table(&CLEAN)),
    ],
};

/// Options every cargo command accepts.
const COMMON: Options = Options {
    flags: "-v --verbose -q --quiet --frozen --locked --offline",
    optional: "--color",
    harmful: &[("--config", OverridesConfig)],
    ..Options::NONE
};

/// Package selection, targets, features and profiles, shared by the building commands.
const COMPILE: Options = Options {
    flags: "--workspace --all --lib --bins --examples --tests --benches --all-targets \
            --all-features --no-default-features -r --release --keep-going \
            --ignore-rust-version --future-incompat-report",
    values: "-p --package -F --features -j --jobs",
    optional: "--timings --message-format --profile --exclude --bin --example --test --bench",
    harmful: &[
        ("--target-dir", WritesFile),
        ("--artifact-dir", WritesFile),
        ("--out-dir", WritesFile),
    ],
    also: &[&COMMON],
};

const TEST: Table = Table {
    options: Options {
        flags: "--no-run --no-fail-fast --doc",
        also: &[&COMPILE],
        ..Options::NONE
    },
    style: Style::Getopt,
    after_dashes: Rest::Options(&LIBTEST),
};

/// libtest's options (after `cargo test --`).
const LIBTEST: Options = Options {
    flags: "--nocapture --no-capture --show-output --ignored --include-ignored --exact -q \
            --quiet --list --report-time --ensure-time --shuffle --bench --test \
            --force-run-in-process --exclude-should-panic",
    optional: "--color --format --test-threads --skip --shuffle-seed",
    harmful: &[("--logfile", WritesFile)],
    ..Options::NONE
};

const BUILD: Table = Table::getopt(Options {
    also: &[&COMPILE],
    ..Options::NONE
});

const CLIPPY: Table = Table {
    options: Options {
        flags: "--fix --allow-dirty --allow-staged --allow-no-vcs --no-deps --broken-code",
        also: &[&COMPILE],
        ..Options::NONE
    },
    style: Style::Getopt,
    after_dashes: Rest::Options(&LINT_LEVELS),
};

/// Lint levels after `cargo clippy --` (other compiler flags, such as `-C linker=...`, ask).
const LINT_LEVELS: Options = Options {
    values: "-D -W -A -F --deny --warn --allow --forbid",
    optional: "--cap-lints",
    ..Options::NONE
};

const DOC: Table = Table::getopt(Options {
    flags: "--no-deps --document-private-items",
    harmful: &[("--open", RunsProgram)],
    also: &[&COMPILE],
    ..Options::NONE
});

const RUN: Table = Table {
    options: Options {
        also: &[&COMPILE],
        ..Options::NONE
    },
    style: Style::Getopt,
    after_dashes: Rest::Untabled,
};

const FMT: Table = Table {
    options: Options {
        flags: "--all --check",
        values: "-p --package",
        optional: "--message-format",
        also: &[&COMMON],
        ..Options::NONE
    },
    style: Style::Getopt,
    after_dashes: Rest::Options(&RUSTFMT),
};

/// rustfmt's options (after `cargo fmt --`).
const RUSTFMT: Options = Options {
    flags: "--check -l --files-with-diff -v --verbose -q --quiet",
    optional: "--edition --style-edition --emit --color",
    harmful: &[
        ("--config-path", OverridesConfig),
        ("--config", OverridesConfig),
    ],
    ..Options::NONE
};

const TREE: Table = Table::getopt(Options {
    flags: "--workspace --all-features --no-default-features --no-dedupe -d --duplicates \
            --all-targets",
    values: "-p --package -i --invert -e --edges -F --features",
    optional: "--prefix --charset -f --format --depth --target --exclude",
    also: &[&COMMON],
    ..Options::NONE
});

const METADATA: Table = Table::getopt(Options {
    flags: "--no-deps --all-features --no-default-features",
    values: "-F --features",
    optional: "--format-version --filter-platform",
    also: &[&COMMON],
    ..Options::NONE
});

const CLEAN: Table = Table::getopt(Options {
    flags: "-r --release --doc --dry-run -n",
    values: "-p --package",
    optional: "--profile",
    harmful: &[("--target-dir", DeletesFiles)],
    also: &[&COMMON],
});
