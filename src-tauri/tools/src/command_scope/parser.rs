//! The shell grammar: lists, pipelines, subshells, groups, simple commands and redirections.
//!
//! A recursive-descent reader of POSIX `sh` plus the bash extensions that change how a line
//! splits (`&>`, `&>>`, `|&`, `>&file`). Where bash and dash (Debian's `sh`) read a line
//! differently, the keys cover both readings: dash reads `a &> f b` as `a &` then `> f b`, so
//! `b` is keyed as a command of its own too. Comments (`#` at the start of a word) and
//! backslash-newline continuations are handled as the shell does.
//!
//! # Redirections
//!
//! Redirections are not arguments. One that names a file adds a key of its own, normalised to
//! the operator and the target: `> out.txt` (also for `2>`, `&>`, `>|`), `>> log`, `< input`,
//! `<> f`. Writing a file is a risk of its own and reading one can leak it, whatever the
//! command. Descriptor duplication (`2>&1`, `>&-`), `/dev/null`, `/dev/stdout`,
//! `/dev/stderr` and here-strings (`<<<`) add nothing.
//!
//! # What stops the parse
//!
//! Unbalanced quotes, parentheses or braces; a syntax error (`; ls`, `ls |`, `a && && b`);
//! here-documents (`<<`); `((`; a `(` inside a simple command (function definitions, arrays);
//! process substitution; a redirection to a target with an expansion; subshells nested deeper
//! than [`MAX_DEPTH`].

use super::keys::command_keys;
use super::lexer::{is_delimiter, is_operator_char};
use super::unscoped::{ShellConstruct, Unscoped};
use super::word::Word;

/// How deeply subshells, groups and substitutions may nest before the parser gives up.
const MAX_DEPTH: usize = 32;

/// Redirection targets that neither persist nor reveal anything.
const HARMLESS_TARGETS: &[&str] = &["/dev/null", "/dev/stdout", "/dev/stderr"];

/// Where a command list ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum End {
    /// The end of the input.
    Eof,
    /// A `)` closing a subshell or `$(`.
    Paren,
    /// A `}` in command position closing a `{` group.
    Brace,
}

/// Where the list parser stands between commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// At the start of the list or after `;`, `&` or a newline: a command may follow.
    Start,
    /// After `|`, `&&` or `||`: a command must follow.
    NeedCommand,
    /// Right after a command: an operator, a newline or the end must follow.
    AfterCommand,
}

/// A recursive-descent reader of the understood shell subset; every simple command it finishes
/// adds its keys to the list it was given.
pub(super) struct Parser {
    pub(super) chars: Vec<char>,
    pub(super) pos: usize,
    pub(super) depth: usize,
}

impl Parser {
    pub(super) fn new(text: &str, depth: usize) -> Self {
        Self {
            chars: text.chars().collect(),
            pos: 0,
            depth,
        }
    }

    pub(super) fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    pub(super) fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    /// The unquoted reserved word `word` starts here and ends at a delimiter.
    fn at_reserved(&self, word: &str) -> bool {
        let len = word.chars().count();
        word.chars()
            .enumerate()
            .all(|(i, c)| self.peek_at(i) == Some(c))
            && self.peek_at(len).is_none_or(is_delimiter)
    }

    /// Parses commands up to `end`; returns whether there was at least one.
    pub(super) fn parse_list(&mut self, end: End, out: &mut Vec<String>) -> Result<bool, Unscoped> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Unscoped::TooDeep);
        }
        let mut state = State::Start;
        let mut any = false;
        loop {
            self.skip_blanks_and_comment();
            let Some(c) = self.peek() else {
                if end != End::Eof || state == State::NeedCommand {
                    return Err(Unscoped::Unparsed);
                }
                break;
            };
            if state == State::AfterCommand {
                let next = self.peek_at(1);
                match c {
                    '\n' => {
                        self.pos += 1;
                        state = State::Start;
                    }
                    ';' => {
                        // `;;` and `;&` belong to `case`.
                        if matches!(next, Some(';' | '&')) {
                            return Err(Unscoped::Unparsed);
                        }
                        self.pos += 1;
                        state = State::Start;
                    }
                    '&' if next == Some('&') => {
                        self.pos += 2;
                        state = State::NeedCommand;
                    }
                    '&' => {
                        self.pos += 1;
                        state = State::Start;
                    }
                    '|' => {
                        self.pos += if matches!(next, Some('|' | '&')) {
                            2
                        } else {
                            1
                        };
                        state = State::NeedCommand;
                    }
                    ')' if end == End::Paren => {
                        self.pos += 1;
                        break;
                    }
                    _ => return Err(Unscoped::Unparsed),
                }
                continue;
            }
            match c {
                '\n' => {
                    self.pos += 1;
                    continue;
                }
                ')' if end == End::Paren && state == State::Start => {
                    self.pos += 1;
                    break;
                }
                ';' | '&' | '|' | ')' => return Err(Unscoped::Unparsed),
                _ => {}
            }
            if end == End::Brace && state == State::Start && self.at_reserved("}") {
                self.pos += 1;
                break;
            }
            self.parse_command(out)?;
            any = true;
            state = State::AfterCommand;
        }
        self.depth -= 1;
        Ok(any)
    }

    /// One command of a pipeline: a subshell, a group, a negation or a simple command.
    fn parse_command(&mut self, out: &mut Vec<String>) -> Result<(), Unscoped> {
        self.skip_blanks();
        if self.peek() == Some('(') {
            if self.peek_at(1) == Some('(') {
                return Err(Unscoped::Construct(ShellConstruct::Arithmetic));
            }
            self.pos += 1;
            if !self.parse_list(End::Paren, out)? {
                return Err(Unscoped::Unparsed);
            }
            return self.trailing_redirections(out);
        }
        if self.at_reserved("{") {
            self.pos += 1;
            if !self.parse_list(End::Brace, out)? {
                return Err(Unscoped::Unparsed);
            }
            return self.trailing_redirections(out);
        }
        if self.at_reserved("!") {
            self.pos += 1;
            self.skip_blanks();
            if self
                .peek()
                .is_none_or(|c| matches!(c, '\n' | ';' | '&' | '|' | ')' | '#'))
            {
                return Err(Unscoped::Unparsed);
            }
            return self.parse_command(out);
        }
        self.simple_command(out)
    }

    /// Redirections after a subshell or group; they key like any other.
    fn trailing_redirections(&mut self, out: &mut Vec<String>) -> Result<(), Unscoped> {
        loop {
            self.skip_blanks();
            match self.peek() {
                Some('<' | '>') => self.redirection(None, out)?,
                Some('&') if self.peek_at(1) == Some('>') => self.redirection(None, out)?,
                Some(c) if c.is_ascii_digit() => match self.fd_prefix() {
                    Some(fd) => self.redirection(Some(fd), out)?,
                    None => return Err(Unscoped::Unparsed),
                },
                _ => return Ok(()),
            }
        }
    }

    /// If digits followed by `<` or `>` start here, consumes the digits and returns them.
    fn fd_prefix(&mut self) -> Option<String> {
        let digits: String = self.chars[self.pos..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        let after = self.peek_at(digits.len());
        if !digits.is_empty() && matches!(after, Some('<' | '>')) {
            self.pos += digits.len();
            Some(digits)
        } else {
            None
        }
    }

    /// Reads a simple command (words and redirections) and adds its keys to `out`.
    fn simple_command(&mut self, out: &mut Vec<String>) -> Result<(), Unscoped> {
        let mut words: Vec<Word> = Vec::new();
        // Keys of this command's substitutions and redirections, in order of appearance.
        let mut local: Vec<String> = Vec::new();
        // Where in `local` the command's own keys go: before whatever its program word is
        // followed by.
        let mut slot: Option<usize> = None;
        // Word indices at which a bash `&>` sits; dash ends the command there (`&` + `>`).
        let mut splits: Vec<usize> = Vec::new();
        loop {
            self.skip_blanks();
            let Some(c) = self.peek() else { break };
            match c {
                '\n' | ';' | '|' | ')' | '#' => break,
                '&' if self.peek_at(1) == Some('>') => {
                    splits.push(words.len());
                    self.redirection(None, &mut local)?;
                }
                '&' => break,
                '(' => return Err(Unscoped::Unparsed),
                '<' | '>' => self.redirection(None, &mut local)?,
                _ => {
                    if c.is_ascii_digit()
                        && let Some(fd) = self.fd_prefix()
                    {
                        self.redirection(Some(fd), &mut local)?;
                        continue;
                    }
                    let before = local.len();
                    let word = self.read_word(&mut local)?;
                    if slot.is_none() && word.assignment_split().is_none() {
                        slot = Some(before);
                    }
                    words.push(word);
                }
            }
        }
        if words.is_empty() && local.is_empty() && splits.is_empty() {
            return Err(Unscoped::Unparsed);
        }
        let mut keys = command_keys(self.depth, &words)?;
        if !splits.is_empty() {
            let mut start = 0;
            for end in splits.iter().copied().chain([words.len()]) {
                keys.extend(command_keys(self.depth, &words[start..end])?);
                start = end;
            }
        }
        let at = slot.unwrap_or(local.len()).min(local.len());
        local.splice(at..at, keys);
        out.extend(local);
        Ok(())
    }

    /// Reads a redirection operator (after an optional fd number) and its target.
    fn redirection(&mut self, fd: Option<String>, out: &mut Vec<String>) -> Result<(), Unscoped> {
        enum Kind {
            /// Opens a file with this normalised operator.
            File(&'static str),
            /// `>&` / `<&`: duplicates or closes a descriptor (`>&file` writes a file in bash).
            Dup { can_be_file: bool },
            /// `<<<`: the target is data, not a file.
            HereString,
        }
        let first = self.peek().ok_or(Unscoped::Unparsed)?;
        let (len, kind) = match (first, self.peek_at(1), self.peek_at(2)) {
            ('&', Some('>'), Some('>')) => (3, Kind::File(">>")),
            ('&', Some('>'), _) => (2, Kind::File(">")),
            ('<', Some('<'), Some('<')) => (3, Kind::HereString),
            ('<', Some('<'), _) => return Err(Unscoped::Construct(ShellConstruct::HereDocument)),
            ('<' | '>', Some('('), _) => {
                return Err(Unscoped::Construct(ShellConstruct::ProcessSubstitution));
            }
            ('<', Some('>'), _) => (2, Kind::File("<>")),
            ('<', Some('&'), _) => (2, Kind::Dup { can_be_file: false }),
            ('<', _, _) => (1, Kind::File("<")),
            ('>', Some('>'), _) => (2, Kind::File(">>")),
            ('>', Some('&'), _) => (
                2,
                Kind::Dup {
                    can_be_file: fd.is_none(),
                },
            ),
            ('>', Some('|'), _) => (2, Kind::File(">")),
            ('>', _, _) => (1, Kind::File(">")),
            _ => return Err(Unscoped::Unparsed),
        };
        self.pos += len;
        self.skip_blanks();
        if self
            .peek()
            .is_none_or(|c| c == '\n' || c == '#' || is_operator_char(c))
        {
            return Err(Unscoped::Unparsed);
        }
        let target = self.read_word(out)?;
        let op = match kind {
            Kind::HereString => return Ok(()),
            Kind::File(op) => op,
            Kind::Dup { can_be_file } => {
                let value = target.literal()?;
                let number = value.strip_suffix('-').unwrap_or(&value);
                if value == "-"
                    || (!number.is_empty() && number.chars().all(|c| c.is_ascii_digit()))
                {
                    return Ok(());
                }
                if !can_be_file {
                    return Err(Unscoped::Unparsed);
                }
                ">"
            }
        };
        if target.is_dynamic() {
            return Err(target.dynamic());
        }
        if !target.has_active() && HARMLESS_TARGETS.contains(&target.value().as_str()) {
            return Ok(());
        }
        out.push(format!("{op} {}", target.render()));
        Ok(())
    }
}
