//! go: a table per everyday subcommand (Go flags: one dash, `-name=value` or `-name value`).
//!
//! `-o` and the profile outputs write files, `-exec`, `-toolexec` and `vet -vettool` run
//! programs, `-modfile` and `-overlay` replace the module's files, `go env -w`/`-u` change
//! Go's configuration; `-ldflags`, `-gcflags` and `-asmflags` are not listed (they reach the
//! linker and compilers). `go run` hands the arguments after its package to the program,
//! `go test -args` hands the rest to the test binary; their options are unknown.

use super::scan::{Arg, Scanner};
use super::{Call, Family, Rule, Table, check_untabled};
use crate::command_scope::getopt::{Options, Style};
use crate::command_scope::unscoped::OptionEffect::{OverridesConfig, RunsProgram, WritesFile};
use crate::command_scope::unscoped::Unscoped;

pub(super) const PROGRAMS: &[(&str, Rule)] = &[("go", Rule::Family(&GO))];

const GO: Family = Family {
    global: Options::NONE,
    subcommands: &[
        ("build", Rule::Table(&BUILD)),
        ("test", Rule::Custom(test)),
        ("vet", Rule::Table(&VET)),
        ("run", Rule::Custom(run)),
        ("fmt", Rule::Table(&FMT)),
        ("list", Rule::Table(&LIST)),
        ("mod", Rule::Family(&MOD)),
        ("env", Rule::Table(&ENV)),
        ("version", Rule::Table(&VERSION)),
        ("doc", Rule::Table(&DOC)),
    ],
};

/// Build flags, shared by build, test, vet, run and list.
const BUILD_FLAGS: Options = Options {
    flags: "-a -n -race -msan -asan -cover -v -work -x -trimpath -linkshared",
    values: "-p -tags -mod -covermode -coverpkg",
    optional: "-buildvcs",
    harmful: &[
        ("-o", WritesFile),
        ("-pkgdir", WritesFile),
        ("-toolexec", RunsProgram),
        ("-exec", RunsProgram),
        ("-modfile", OverridesConfig),
        ("-overlay", OverridesConfig),
    ],
    also: &[],
};

const BUILD: Table = Table::single_dash(Options {
    flags: "-json",
    also: &[&BUILD_FLAGS],
    ..Options::NONE
});

/// go test's own flags (before or after the packages).
pub(super) const TEST: Options = Options {
    flags: "-short -failfast -benchmem -json -args",
    values: "-run -skip -count -timeout -bench -benchtime -cpu -parallel -shuffle -fuzz \
             -fuzztime -fuzzminimizetime -list -vet",
    harmful: &[
        ("-coverprofile", WritesFile),
        ("-cpuprofile", WritesFile),
        ("-memprofile", WritesFile),
        ("-blockprofile", WritesFile),
        ("-mutexprofile", WritesFile),
        ("-trace", WritesFile),
        ("-outputdir", WritesFile),
    ],
    also: &[&BUILD_FLAGS],
    ..Options::NONE
};

/// `go test [FLAGS] [PACKAGES] [-args ARGS]`.
fn test(call: &Call) -> Result<(), Unscoped> {
    let mut scan = Scanner::new(&call.program, call.args, &TEST, Style::SingleDash);
    while let Some(arg) = scan.next()? {
        match arg {
            Arg::Options(given) if given.iter().any(|option| option.name == "-args") => {
                return check_untabled(&call.sub("-args", scan.rest()));
            }
            Arg::EndOfOptions => return check_untabled(&call.with_args(scan.rest())),
            _ => {}
        }
    }
    call.no_appended_options()
}

/// `go run [FLAGS] PACKAGE [ARGS]`: the arguments after the package are the program's.
fn run(call: &Call) -> Result<(), Unscoped> {
    let mut scan = Scanner::new(&call.program, call.args, &BUILD_FLAGS, Style::SingleDash);
    loop {
        match scan.next()? {
            Some(Arg::Options(_)) => {}
            Some(Arg::Operand(package)) => {
                return check_untabled(&call.sub(&package.value(), scan.rest()));
            }
            Some(Arg::EndOfOptions) => return check_untabled(&call.with_args(scan.rest())),
            None => return call.no_appended_options(),
        }
    }
}

const VET: Table = Table::single_dash(Options {
    flags: "-json",
    harmful: &[("-vettool", RunsProgram)],
    also: &[&BUILD_FLAGS],
    ..Options::NONE
});

const FMT: Table = Table::single_dash(Options {
    flags: "-n -x",
    values: "-mod",
    ..Options::NONE
});

const LIST: Table = Table::single_dash(Options {
    flags: "-m -u -versions -deps -test -e -find -export -compiled -retracted",
    values: "-f",
    optional: "-json",
    also: &[&BUILD_FLAGS],
    ..Options::NONE
});

const MOD: Family = Family {
    global: Options::NONE,
    subcommands: &[
        ("tidy", Rule::Table(&MOD_TIDY)),
        ("download", Rule::Table(&MOD_DOWNLOAD)),
        ("verify", Rule::Table(&MOD_VERIFY)),
        ("graph", Rule::Table(&MOD_GRAPH)),
        ("why", Rule::Table(&MOD_WHY)),
    ],
};

const MOD_TIDY: Table = Table::single_dash(Options {
    flags: "-v -e -x -diff",
    optional: "-go -compat",
    ..Options::NONE
});

const MOD_DOWNLOAD: Table = Table::single_dash(Options {
    flags: "-json -x",
    optional: "-reuse",
    ..Options::NONE
});

const MOD_VERIFY: Table = Table::single_dash(Options::NONE);

const MOD_GRAPH: Table = Table::single_dash(Options {
    flags: "-x",
    optional: "-go",
    ..Options::NONE
});

const MOD_WHY: Table = Table::single_dash(Options {
    flags: "-m -vendor",
    ..Options::NONE
});

const ENV: Table = Table::single_dash(Options {
    flags: "-json -changed",
    harmful: &[("-w", OverridesConfig), ("-u", OverridesConfig)],
    ..Options::NONE
});

const VERSION: Table = Table::single_dash(Options {
    flags: "-m -v -json",
    ..Options::NONE
});

const DOC: Table = Table::single_dash(Options {
    flags: "-all -c -cmd -short -src -u",
    ..Options::NONE
});
