//! Why a command cannot be allowed for the session.
//!
//! Every refusal says why in words the user reads in the approval dialog ("`--output` writes a
//! file", "Gantry could not parse this command"). The causes are typed so the interface can
//! tell them apart (and translate them) without parsing sentences.

use std::fmt;

/// Why [`command_scope`](super::command_scope) gives a command no session scope: it will ask
/// every time. `Display` gives the sentence the user reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unscoped {
    /// The command is empty or holds only comments.
    #[error("the command runs nothing")]
    Empty,
    /// The command holds a NUL byte (the shell would never see what follows it).
    #[error("the command contains a NUL byte")]
    NulByte,
    /// Outside the shell grammar Gantry reads: unbalanced quotes or parentheses, a syntax
    /// error, a function definition.
    #[error("Gantry could not parse this command")]
    Unparsed,
    /// Subshells, groups and substitutions nest deeper than Gantry follows.
    #[error("the command nests too deeply")]
    TooDeep,
    /// A shell construct Gantry does not follow.
    #[error("Gantry does not follow {0}")]
    Construct(ShellConstruct),
    /// A reserved word starting control flow (`if`, `for`, `while`, `case`, `[[`, ...).
    #[error("Gantry does not follow the shell's `{word}`")]
    ReservedWord {
        /// The reserved word.
        word: String,
    },
    /// A builtin that evaluates text as code or changes how later commands are read
    /// (`eval`, `source`, `trap`, `read`, `alias`, ...).
    #[error("`{name}` evaluates text as code or changes the shell's state")]
    ShellBuiltin {
        /// The builtin.
        name: String,
    },
    /// `test` or `[` with `$` or a backtick in an operand (bash evaluates `-v` subscripts).
    #[error("`{program}` may evaluate code in an operand holding `$` or a backtick")]
    TestOperand {
        /// `test` or `[`.
        program: String,
    },
    /// A word Gantry must know (the program, a word of the key, an assignment, a wrapper's
    /// argument, a redirection's target) holds an expansion, a substitution or a pattern.
    #[error("`{word}` is only known when the command runs")]
    Dynamic {
        /// The word as written.
        word: String,
    },
    /// Such a word holds the replace string of an enclosing `xargs -I`.
    #[error("`{word}` is filled in by `xargs` from its input")]
    FilledByXargs {
        /// The word as written.
        word: String,
    },
    /// An argument whose value is only known when the command runs may turn out to be an
    /// option of a program that has harmful ones.
    #[error("`{word}` may expand to an option of `{program}`")]
    MayBeOption {
        /// The program (and subcommand) receiving the argument.
        program: String,
        /// The argument as written.
        word: String,
    },
    /// `xargs` appends arguments read from its input, which may be options.
    #[error("`xargs` may pass options read from its input to `{program}`")]
    InputArguments {
        /// The program (and subcommand) xargs runs.
        program: String,
    },
    /// A program that runs another command in a way Gantry does not model (`su`, `watch`,
    /// `strace`, `parallel`, ...).
    #[error("`{program}` runs another command in a way Gantry does not follow")]
    OpaqueRunner {
        /// The runner.
        program: String,
    },
    /// A shell or interpreter given no script: it runs whatever its standard input holds.
    #[error("`{program}` runs whatever its standard input holds")]
    ReadsInput {
        /// The shell or interpreter.
        program: String,
    },
    /// A command string handed to a shell whose grammar Gantry does not parse (`zsh -c`,
    /// `flock -c`, which uses the user's `$SHELL`).
    #[error("`{runner}` runs a command string in a shell Gantry does not parse")]
    ForeignShell {
        /// The program and its option (`zsh -c`).
        runner: String,
    },
    /// An option known to do more than the key shows.
    #[error("`{option}` {effect}")]
    Harmful {
        /// The program (and subcommand) given the option.
        program: String,
        /// The option as its name (`--output`, `-O`), or a word (`CC=gcc` for make).
        option: String,
        /// What it does.
        effect: OptionEffect,
    },
    /// A command of a script language (sed's `w`, `e`) known to do more than the key shows.
    #[error("the `{program}` command `{command}` {effect}")]
    ScriptCommand {
        /// The program reading the script.
        program: String,
        /// The command (`w`, `s///e`).
        command: String,
        /// What it does.
        effect: OptionEffect,
    },
    /// A script Gantry could not read through (an unknown sed command, an unterminated `s`).
    #[error("Gantry could not read the `{program}` script")]
    UnreadableScript {
        /// The program reading the script.
        program: String,
    },
    /// An option that is not in the program's table of harmless options, or any option of a
    /// program that has no table.
    #[error("`{option}` is not known to be harmless for `{program}`")]
    UnknownOption {
        /// The program (and subcommand).
        program: String,
        /// The option's name.
        option: String,
    },
    /// A wrapper's option without its value (`xargs -n` at the end).
    #[error("`{option}` of `{program}` needs a value")]
    MissingValue {
        /// The wrapper.
        program: String,
        /// The option.
        option: String,
    },
}

/// What a harmful option (or script command) does beyond what a key shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionEffect {
    /// Writes a file it names (`--output`, `sort -o`, `sed -i`, `find -fprint`).
    WritesFile,
    /// Deletes files (`find -delete`, `cargo clean --target-dir`).
    DeletesFiles,
    /// Runs a program, pager or editor (`--open-files-in-pager`, `find -exec`, `git add -e`).
    RunsProgram,
    /// Overrides configuration (`--config`, `git -c`, a make variable on the command line).
    OverridesConfig,
    /// Evaluates code given on the command line (`--eval`, `python -c`, `node -e`).
    EvaluatesCode,
    /// Loads code from a file or module the key does not show (`make -f`, `node -r`,
    /// `pytest -p`, `sed -f`).
    LoadsCode,
    /// Installs outside the project (`npm -g`, `pip --user`).
    InstallsOutside,
    /// Sets a shell variable that later commands read (`printf -v`).
    SetsVariable,
}

impl fmt::Display for OptionEffect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::WritesFile => "writes a file",
            Self::DeletesFiles => "deletes files",
            Self::RunsProgram => "runs a program",
            Self::OverridesConfig => "overrides configuration",
            Self::EvaluatesCode => "evaluates code",
            Self::LoadsCode => "loads code",
            Self::InstallsOutside => "installs outside the project",
            Self::SetsVariable => "sets a shell variable",
        })
    }
}

/// A shell construct outside the subset Gantry parses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellConstruct {
    /// `<<` and `<<-`.
    HereDocument,
    /// `<(...)` and `>(...)`.
    ProcessSubstitution,
    /// `$((...))` and `((...))`.
    Arithmetic,
    /// `${...}` with an operator (`${X:-default}`, `${#X}`, ...).
    ParameterOperation,
    /// `$'...'` and `$"..."`.
    SpecialQuoting,
}

impl fmt::Display for ShellConstruct {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::HereDocument => "here-documents (`<<`)",
            Self::ProcessSubstitution => "process substitution (`<(…)`, `>(…)`)",
            Self::Arithmetic => "arithmetic (`$((…))`, `((…))`)",
            Self::ParameterOperation => "`${…}` beyond a plain `${NAME}`",
            Self::SpecialQuoting => "`$'…'` and `$\"…\"` quoting",
        })
    }
}
