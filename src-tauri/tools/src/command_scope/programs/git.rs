//! git: global options, then a table per everyday subcommand.
//!
//! Read-only subcommands (status, log, show, diff, branch listing, grep, blame, rev-parse,
//! ls-files, describe, remote) and the everyday writing ones (add, commit, fetch, pull,
//! push, clone, checkout, switch) have tables; any other subcommand (stash, merge, rebase,
//! reset, config, tag, ...) asks whenever it is given an option. Options that force,
//! delete or rewrite (`push --force`, `branch -D`) are left out on purpose: they are not
//! what approving the key meant.
//!
//! Before the subcommand only `-C DIR` (shown in the key), `--no-pager`, `-P`, `-p` and
//! pathspec switches are accepted: `-c`/`--config-env` override configuration (a pager, a
//! hook, `core.fsmonitor`), `--exec-path` chooses the programs git runs, and `--git-dir`,
//! `--work-tree`, `--bare` make git read another repository's configuration.

use super::{Family, Rule, Table};
use crate::command_scope::getopt::Options;
use crate::command_scope::unscoped::OptionEffect::{OverridesConfig, RunsProgram, WritesFile};

pub(super) const PROGRAMS: &[(&str, Rule)] = &[("git", Rule::Family(&GIT))];

const GIT: Family = Family {
    global: Options {
        flags: "-P -p --paginate --no-pager --no-replace-objects --literal-pathspecs \
                --glob-pathspecs --noglob-pathspecs --icase-pathspecs --no-optional-locks \
                --no-advice --version",
        values: "-C",
        harmful: &[
            ("-c", OverridesConfig),
            ("--config-env", OverridesConfig),
            ("--exec-path", RunsProgram),
        ],
        ..Options::NONE
    },
    subcommands: &[
        ("status", Rule::Table(&STATUS)),
        ("log", Rule::Table(&LOG)),
        ("show", Rule::Table(&LOG)),
        ("diff", Rule::Table(&DIFF)),
        ("branch", Rule::Table(&BRANCH)),
        ("grep", Rule::Table(&GREP)),
        ("blame", Rule::Table(&BLAME)),
        ("rev-parse", Rule::Table(&REV_PARSE)),
        ("ls-files", Rule::Table(&LS_FILES)),
        ("describe", Rule::Table(&DESCRIBE)),
        ("remote", Rule::Table(&REMOTE)),
        ("add", Rule::Table(&ADD)),
        ("commit", Rule::Table(&COMMIT)),
        ("fetch", Rule::Table(&FETCH)),
        ("pull", Rule::Table(&PULL)),
        ("push", Rule::Table(&PUSH)),
        ("clone", Rule::Table(&CLONE)),
        ("checkout", Rule::Table(&CHECKOUT)),
        ("switch", Rule::Table(&SWITCH)),
    ],
};

/// How diffs are shown, shared by `diff`, `log` and `show`.
const DIFF_OUTPUT: Options = Options {
    flags: "-p -u --patch -s --no-patch --raw --patch-with-raw --patch-with-stat -t \
            --indent-heuristic --no-indent-heuristic --minimal --patience --histogram \
            --compact-summary --numstat --shortstat --cumulative --summary -z --name-only \
            --name-status --no-color --no-color-moved --no-renames --rename-empty \
            --no-rename-empty --check --full-index --binary --find-copies-harder -D \
            --irreversible-delete --pickaxe-all --pickaxe-regex -R --no-relative -a --text \
            --ignore-cr-at-eol --ignore-space-at-eol -b --ignore-space-change -w \
            --ignore-all-space --ignore-blank-lines -W --function-context --exit-code --quiet \
            --no-ext-diff --no-textconv --no-prefix --default-prefix --ita-invisible-in-index \
            --ita-visible-in-index",
    optional: "--stat --stat-width --stat-name-width --stat-count --stat-graph-width \
               --dirstat --dirstat-by-file --submodule --color --color-moved --color-moved-ws \
               --word-diff --word-diff-regex --color-words --abbrev --find-renames \
               --find-copies --break-rewrites --relative --ignore-submodules --diff-filter \
               --find-object --skip-to --rotate-to --ignore-matching-lines \
               --inter-hunk-context --src-prefix --dst-prefix --line-prefix \
               --output-indicator-new --output-indicator-old --output-indicator-context \
               --unified --anchored --diff-algorithm --ws-error-highlight \
               -B -M -C -U -l -S -G -O -I",
    harmful: &[
        ("--output", WritesFile),
        ("--ext-diff", RunsProgram),
        ("--textconv", RunsProgram),
    ],
    ..Options::NONE
};

/// Which commits `log` and `show` walk and how they are shown.
const LOG: Table = Table::getopt(Options {
    flags: "-NUM --follow --no-decorate --source --mailmap --no-mailmap --use-mailmap \
            --no-use-mailmap --full-diff --log-size --all-match --invert-grep -i \
            --regexp-ignore-case --basic-regexp -E --extended-regexp -F --fixed-strings -P \
            --perl-regexp --remove-empty --merges --no-merges --no-min-parents \
            --no-max-parents --first-parent --exclude-first-parent-only --not --all --reflog \
            --alternate-refs --single-worktree --ignore-missing --bisect --stdin \
            --cherry-mark --cherry-pick --left-only --right-only --cherry -g --walk-reflogs \
            --merge --boundary --simplify-by-decoration --show-pulls --full-history --dense \
            --sparse --simplify-merges --date-order --author-date-order --topo-order \
            --reverse --do-walk --abbrev-commit --no-abbrev-commit --oneline \
            --no-expand-tabs --no-notes --standard-notes --no-standard-notes --relative-date \
            --parents --children --left-right --graph -c --cc --dd --remerge-diff -m \
            --no-diff-merges --combined-all-paths --clear-decorations",
    values: "-n --max-count -L",
    optional: "--decorate --branches --tags --remotes --ancestry-path --no-walk --pretty \
               --format --expand-tabs --notes --show-notes --show-linear-break --skip \
               --since --after --until --before --since-as-filter --author --committer \
               --grep-reflog --grep --min-parents --max-parents --glob --exclude \
               --exclude-hidden --decorate-refs --decorate-refs-exclude --encoding --date \
               --diff-merges",
    harmful: &[],
    also: &[&DIFF_OUTPUT],
});

const DIFF: Table = Table::getopt(Options {
    flags: "--cached --staged --merge-base --no-index -0 -1 -2 -3 --base --ours --theirs",
    also: &[&DIFF_OUTPUT],
    ..Options::NONE
});

const STATUS: Table = Table::getopt(Options {
    flags: "-s --short -b --branch --show-stash --long -v --verbose -z --null --no-column \
            --ahead-behind --no-ahead-behind --renames --no-renames",
    optional: "--porcelain --untracked-files -u --ignore-submodules --ignored --column \
               --find-renames",
    ..Options::NONE
});

/// `git branch` listing; creating is an operand, and deleting, moving, copying, forcing and
/// editing a description are left out.
const BRANCH: Table = Table::getopt(Options {
    flags: "-a --all -r --remotes -v --verbose -l --list --show-current -i --ignore-case \
            --no-color --no-column --omit-empty --no-abbrev",
    optional: "--contains --no-contains --merged --no-merged --points-at --sort --format \
               --color --column --abbrev",
    ..Options::NONE
});

const GREP: Table = Table::getopt(Options {
    flags: "-NUM -i --ignore-case -I -w --word-regexp -v --invert-match -h -H --full-name -E \
            --extended-regexp -G --basic-regexp -F --fixed-strings -P --perl-regexp -n \
            --line-number --column -l --files-with-matches --name-only -L \
            --files-without-match -z --null -o --only-matching -c --count --no-color --break \
            --heading -p --show-function -W --function-context --and --or --not --all-match \
            -q --quiet --cached --untracked --no-index --recurse-submodules -r --recursive \
            --no-recursive --exclude-standard --no-exclude-standard -a --text --no-textconv",
    values: "-e -f -A -B -C -m",
    optional: "--color --max-depth --threads --context --after-context --before-context \
               --max-count",
    harmful: &[
        ("-O", RunsProgram),
        ("--open-files-in-pager", RunsProgram),
        ("--textconv", RunsProgram),
    ],
    also: &[],
});

const BLAME: Table = Table::getopt(Options {
    flags: "-b --root --show-stats -f --show-name -n --show-number -s -e --show-email -w \
            --incremental --porcelain --line-porcelain -p -c -t -l --color-lines \
            --color-by-age --progress --no-progress --reverse --first-parent --minimal",
    values: "-L",
    optional: "--abbrev --ignore-rev --ignore-revs-file --since --date --contents --encoding \
               -M -C",
    ..Options::NONE
});

const REV_PARSE: Table = Table::getopt(Options {
    flags: "--show-toplevel --show-prefix --show-cdup --git-dir --git-common-dir \
            --absolute-git-dir --is-inside-work-tree --is-inside-git-dir \
            --is-bare-repository --is-shallow-repository --verify -q --quiet --symbolic \
            --symbolic-full-name --all --local-env-vars --sq --revs-only --no-revs --flags \
            --no-flags --show-superproject-working-tree --shared-index-path --not \
            --end-of-options --show-ref-format",
    values: "--git-path",
    optional: "--abbrev-ref --short --branches --tags --remotes --glob --exclude \
               --show-object-format --path-format --since --after --until --before \
               --disambiguate",
    ..Options::NONE
});

const LS_FILES: Table = Table::getopt(Options {
    flags: "-c --cached -d --deleted -m --modified -o --others -i --ignored -s --stage -u \
            --unmerged -k --killed -z -t -v -f --directory --no-empty-directory --eol \
            --deduplicate --exclude-standard --error-unmatch --full-name \
            --recurse-submodules --debug --sparse --resolve-undo",
    optional: "--exclude --exclude-from --exclude-per-directory --with-tree --abbrev --format \
               -x -X",
    ..Options::NONE
});

const DESCRIBE: Table = Table::getopt(Options {
    flags: "--all --tags --long --always --exact-match --first-parent --contains --debug",
    optional: "--abbrev --dirty --broken --match --exclude --candidates",
    ..Options::NONE
});

/// `git remote` listing; its subcommands are operands.
const REMOTE: Table = Table::getopt(Options {
    flags: "-v --verbose",
    ..Options::NONE
});

const ADD: Table = Table::getopt(Options {
    flags: "-n --dry-run -v --verbose -f --force -u --update -A --all --no-all \
            --ignore-removal --no-ignore-removal -N --intent-to-add --refresh --ignore-errors \
            --ignore-missing --renormalize --sparse --no-warn-embedded-repo \
            --pathspec-file-nul",
    optional: "--chmod --pathspec-from-file",
    harmful: &[("-e", RunsProgram), ("--edit", RunsProgram)],
    ..Options::NONE
});

const COMMIT: Table = Table::getopt(Options {
    flags: "-a --all --amend --no-edit -s --signoff --no-signoff -q --quiet -v --verbose \
            --allow-empty --allow-empty-message -n --no-verify --verify --dry-run --short \
            --long --porcelain --reset-author -o --only -i --include --no-gpg-sign --status \
            --no-status -z --null --pathspec-file-nul",
    values: "-m -F",
    optional: "--message --file --author --date --cleanup --trailer --reuse-message -C \
               -u --untracked-files --pathspec-from-file",
    harmful: &[
        ("-e", RunsProgram),
        ("--edit", RunsProgram),
        ("-c", RunsProgram),
        ("--reedit-message", RunsProgram),
    ],
    also: &[],
});

/// Talking to a remote, shared by `fetch`, `pull`, `push` and `clone`.
const REMOTE_IO: Options = Options {
    flags: "-q --quiet -v --verbose --progress --no-progress -4 --ipv4 -6 --ipv6",
    harmful: &[
        ("--upload-pack", RunsProgram),
        ("--receive-pack", RunsProgram),
        ("--exec", RunsProgram),
    ],
    ..Options::NONE
};

const FETCH: Table = Table::getopt(Options {
    flags: "--all --append -a --atomic --dry-run -f --force -k --keep --multiple --prefetch \
            -p --prune -P --prune-tags -n --no-tags -t --tags --no-write-fetch-head \
            --write-fetch-head --unshallow --update-shallow --set-upstream \
            --no-auto-maintenance --auto-maintenance --no-auto-gc --no-recurse-submodules",
    optional: "--depth --deepen --shallow-since --shallow-exclude --jobs --recurse-submodules \
               --negotiation-tip",
    also: &[&REMOTE_IO],
    ..Options::NONE
});

const PULL: Table = Table::getopt(Options {
    flags: "--no-rebase --ff --no-ff --ff-only --squash --no-squash --commit --no-commit \
            --stat --no-stat -n --autostash --no-autostash --verify --no-verify --no-edit \
            --all --append -a --atomic --dry-run -f --force -k --keep -p --prune --no-tags \
            -t --tags --unshallow --update-shallow --set-upstream --no-recurse-submodules",
    optional: "--rebase --depth --deepen --shallow-since --shallow-exclude --jobs \
               --recurse-submodules",
    harmful: &[
        ("-e", RunsProgram),
        ("--edit", RunsProgram),
        ("-s", RunsProgram),
        ("--strategy", RunsProgram),
    ],
    also: &[&REMOTE_IO],
    ..Options::NONE
});

/// `git push`; forcing, deleting, mirroring and pruning are left out.
const PUSH: Table = Table::getopt(Options {
    flags: "-u --set-upstream --tags --follow-tags --no-follow-tags -n --dry-run --porcelain \
            --no-verify --verify --atomic --no-atomic --no-signed",
    optional: "--recurse-submodules",
    also: &[&REMOTE_IO],
    ..Options::NONE
});

const CLONE: Table = Table::getopt(Options {
    flags: "-n --no-checkout --bare --single-branch --no-single-branch --no-tags \
            --shallow-submodules --no-shallow-submodules --sparse --also-filter-submodules \
            --remote-submodules --no-remote-submodules --no-hardlinks -l --local",
    values: "-b --branch -o --origin -j --jobs",
    optional: "--depth --shallow-since --shallow-exclude --filter --recurse-submodules",
    harmful: &[
        ("-u", RunsProgram),
        ("-c", OverridesConfig),
        ("--config", OverridesConfig),
        ("--template", RunsProgram),
    ],
    also: &[&REMOTE_IO],
});

const CHECKOUT: Table = Table::getopt(Options {
    flags: "-q --quiet --detach --no-track --guess --no-guess --progress --no-progress \
            --ignore-other-worktrees --no-recurse-submodules --overlay --no-overlay -m --merge",
    values: "-b",
    optional: "--track --recurse-submodules --conflict",
    ..Options::NONE
});

const SWITCH: Table = Table::getopt(Options {
    flags: "-q --quiet -d --detach --no-track --guess --no-guess --progress --no-progress \
            --ignore-other-worktrees --no-recurse-submodules -m --merge",
    values: "-c --create",
    optional: "--track --recurse-submodules --conflict",
    ..Options::NONE
});
