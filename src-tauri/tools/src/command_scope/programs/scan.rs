//! Walking a program's arguments against its option table.
//!
//! Options may stand anywhere before `--` (GNU getopt, git and clap all permute), so every
//! word is read: an option must be in the table, and a word the shell may turn into an
//! option (an expansion, a substitution, a leading pattern; see [`Word::may_be_option`]) is
//! refused, because Gantry cannot tell which option it will be. Callers decide what operands
//! and the words after `--` mean for their program.

use crate::command_scope::getopt::{Given, Options, Style, Value, read_option};
use crate::command_scope::unscoped::Unscoped;
use crate::command_scope::word::Word;

/// One argument as read.
#[derive(Debug)]
pub(in crate::command_scope) enum Arg<'a> {
    /// One word of options (`-la` gives two), with their values.
    Options(Vec<Given<'a>>),
    /// A word that is not an option.
    Operand(&'a Word),
    /// `--`: the words after it are [`Scanner::rest`].
    EndOfOptions,
}

/// Reads a program's arguments one by one.
pub(in crate::command_scope) struct Scanner<'a> {
    program: &'a str,
    words: &'a [Word],
    index: usize,
    table: &'a Options,
    style: Style,
}

impl<'a> Scanner<'a> {
    pub fn new(program: &'a str, words: &'a [Word], table: &'a Options, style: Style) -> Self {
        Self {
            program,
            words,
            index: 0,
            table,
            style,
        }
    }

    /// The next argument, `None` after the last; a word that is not a harmless option (or
    /// may turn into one) is an error.
    pub fn next(&mut self) -> Result<Option<Arg<'a>>, Unscoped> {
        let Some(word) = self.words.get(self.index) else {
            return Ok(None);
        };
        self.index += 1;
        let text = word.value();
        if word.is_fixed() && text == "--" {
            return Ok(Some(Arg::EndOfOptions));
        }
        refuse_unreadable(self.program, word)?;
        if !text.starts_with('-') || text == "-" {
            return Ok(Some(Arg::Operand(word)));
        }
        let next = self.words.get(self.index);
        let (given, took_next) = read_option(self.program, &text, next, self.table, self.style)?;
        if took_next && let Some(value) = next {
            // A value the shell splits or expands may become more words than one.
            if value.splits || value.has_active() {
                return Err(may_be_option(self.program, value));
            }
            self.index += 1;
        }
        Ok(Some(Arg::Options(given)))
    }

    /// The words not read yet.
    pub fn rest(&self) -> &'a [Word] {
        self.words.get(self.index..).unwrap_or_default()
    }

    /// Reads every remaining argument, handing operands to `operand`; returns whether the
    /// scan stopped at `--` (the rest is then [`Scanner::rest`]).
    pub fn each_operand(
        &mut self,
        mut operand: impl FnMut(&'a Word) -> Result<(), Unscoped>,
    ) -> Result<bool, Unscoped> {
        while let Some(arg) = self.next()? {
            match arg {
                Arg::Options(_) => {}
                Arg::Operand(word) => operand(word)?,
                Arg::EndOfOptions => return Ok(true),
            }
        }
        Ok(false)
    }
}

/// Refuses a word whose text Gantry cannot know to be an option or not: one the shell may turn
/// into an option, or an option word with an expansion or a pattern in it.
pub(in crate::command_scope) fn refuse_unreadable(
    program: &str,
    word: &Word,
) -> Result<(), Unscoped> {
    if word.may_be_option() || (word.value().starts_with('-') && !word.is_fixed()) {
        return Err(may_be_option(program, word));
    }
    Ok(())
}

fn may_be_option(program: &str, word: &Word) -> Unscoped {
    Unscoped::MayBeOption {
        program: program.to_owned(),
        word: word.source.clone(),
    }
}

/// The attached or next-word value of an option, as fixed text.
pub(in crate::command_scope) fn value_text(given: &Given) -> Result<Option<String>, Unscoped> {
    given.value.as_ref().map(Value::literal).transpose()
}
