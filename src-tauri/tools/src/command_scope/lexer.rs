//! Reading words: quotes, escapes, parameter expansions and command substitutions.
//!
//! Only plain expansions are understood (`$NAME`, `${NAME}`, the special parameters); `${...}`
//! with an operator, `$((...))`, `$'...'` and `$"..."` stop the parse. A substitution's
//! commands are keyed as they are met (`git status $(rm -rf /)` keys `rm -rf /` too); the word
//! holding it is marked dynamic.

use super::parser::{End, Parser};
use super::unscoped::{ShellConstruct, Unscoped};
use super::word::Word;

impl Parser {
    /// Skips blanks and backslash-newline continuations.
    pub(super) fn skip_blanks(&mut self) {
        loop {
            match self.peek() {
                Some(' ' | '\t') => self.pos += 1,
                Some('\\') if self.peek_at(1) == Some('\n') => self.pos += 2,
                _ => return,
            }
        }
    }

    /// Skips blanks and, if one starts here, a comment up to (not including) the newline.
    pub(super) fn skip_blanks_and_comment(&mut self) {
        self.skip_blanks();
        if self.peek() == Some('#') {
            while self.peek().is_some_and(|c| c != '\n') {
                self.pos += 1;
            }
        }
    }

    /// Reads one word (quotes, escapes, expansions, substitutions); substitutions' commands
    /// are keyed into `out` as they are met.
    pub(super) fn read_word(&mut self, out: &mut Vec<String>) -> Result<Word, Unscoped> {
        let start = self.pos;
        let mut word = Word::default();
        while let Some(c) = self.peek() {
            match c {
                c if c == ' ' || c == '\t' || c == '\n' || is_operator_char(c) => break,
                '\\' => match self.peek_at(1) {
                    Some('\n') => self.pos += 2,
                    Some(escaped) => {
                        word.push(escaped, true);
                        self.pos += 2;
                    }
                    None => return Err(Unscoped::Unparsed),
                },
                '\'' => {
                    self.pos += 1;
                    loop {
                        match self.peek() {
                            Some('\'') => break,
                            Some(c) => word.push(c, true),
                            None => return Err(Unscoped::Unparsed),
                        }
                        self.pos += 1;
                    }
                    self.pos += 1;
                }
                '"' => self.double_quoted(&mut word, out)?,
                '$' => self.dollar(&mut word, out, false)?,
                '`' => self.backtick(&mut word, out, false)?,
                c => {
                    word.push(c, false);
                    self.pos += 1;
                }
            }
        }
        word.source = self.chars[start..self.pos].iter().collect();
        Ok(word)
    }

    fn double_quoted(&mut self, word: &mut Word, out: &mut Vec<String>) -> Result<(), Unscoped> {
        self.pos += 1;
        loop {
            match self.peek() {
                None => return Err(Unscoped::Unparsed),
                Some('"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some('\\') => match self.peek_at(1) {
                    Some(escaped @ ('$' | '`' | '"' | '\\')) => {
                        word.push(escaped, true);
                        self.pos += 2;
                    }
                    Some('\n') => self.pos += 2,
                    Some(_) => {
                        word.push('\\', true);
                        self.pos += 1;
                    }
                    None => return Err(Unscoped::Unparsed),
                },
                Some('$') => self.dollar(word, out, true)?,
                Some('`') => self.backtick(word, out, true)?,
                Some(c) => {
                    word.push(c, true);
                    self.pos += 1;
                }
            }
        }
    }

    /// A `$` at the cursor: an expansion, a command substitution, or a literal `$`.
    fn dollar(
        &mut self,
        word: &mut Word,
        out: &mut Vec<String>,
        quoted: bool,
    ) -> Result<(), Unscoped> {
        match self.peek_at(1) {
            Some('(') => {
                if self.peek_at(2) == Some('(') {
                    return Err(Unscoped::Construct(ShellConstruct::Arithmetic));
                }
                self.pos += 2;
                self.parse_list(End::Paren, out)?;
                word.mark_dynamic(true, quoted);
            }
            Some('{') => {
                self.pos += 2;
                let name_len = self.name_len();
                let special = self.peek().is_some_and(is_special_parameter);
                let len = if name_len > 0 {
                    name_len
                } else if special {
                    1
                } else {
                    return Err(Unscoped::Construct(ShellConstruct::ParameterOperation));
                };
                if self.peek_at(len) != Some('}') {
                    return Err(Unscoped::Construct(ShellConstruct::ParameterOperation));
                }
                self.pos += len + 1;
                word.mark_dynamic(false, quoted);
            }
            Some('\'' | '"') if !quoted => {
                return Err(Unscoped::Construct(ShellConstruct::SpecialQuoting));
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                self.pos += 1;
                self.pos += self.name_len();
                word.mark_dynamic(false, quoted);
            }
            Some(c) if is_special_parameter(c) => {
                self.pos += 2;
                word.mark_dynamic(false, quoted);
            }
            _ => {
                word.push('$', quoted);
                self.pos += 1;
            }
        }
        Ok(())
    }

    /// Length of the variable name (`[A-Za-z_][A-Za-z0-9_]*`) at the cursor, 0 if none.
    fn name_len(&self) -> usize {
        let rest = &self.chars[self.pos..];
        match rest.first() {
            Some(c) if c.is_ascii_alphabetic() || *c == '_' => rest
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == '_')
                .count(),
            _ => 0,
        }
    }

    /// A backtick substitution: its text is unescaped and parsed as a script of its own.
    fn backtick(
        &mut self,
        word: &mut Word,
        out: &mut Vec<String>,
        quoted: bool,
    ) -> Result<(), Unscoped> {
        self.pos += 1;
        let mut inner = String::new();
        loop {
            match self.peek() {
                None => return Err(Unscoped::Unparsed),
                Some('`') => {
                    self.pos += 1;
                    break;
                }
                Some('\\') => match self.peek_at(1) {
                    Some(escaped @ ('`' | '\\' | '$')) => {
                        inner.push(escaped);
                        self.pos += 2;
                    }
                    // Shells disagree about `\"` inside "`...`".
                    Some('"') if quoted => return Err(Unscoped::Unparsed),
                    Some(_) => {
                        inner.push('\\');
                        self.pos += 1;
                    }
                    None => return Err(Unscoped::Unparsed),
                },
                Some(c) => {
                    inner.push(c);
                    self.pos += 1;
                }
            }
        }
        Parser::new(&inner, self.depth + 1).parse_list(End::Eof, out)?;
        word.mark_dynamic(true, quoted);
        Ok(())
    }
}

/// Characters that end a word outside quotes.
pub(super) fn is_operator_char(c: char) -> bool {
    matches!(c, ';' | '&' | '|' | '(' | ')' | '<' | '>')
}

/// Characters after which a reserved word ends.
pub(super) fn is_delimiter(c: char) -> bool {
    c == ' ' || c == '\t' || c == '\n' || is_operator_char(c)
}

/// `$@ $* $# $? $$ $! $- $0`..`$9`.
fn is_special_parameter(c: char) -> bool {
    c.is_ascii_digit() || matches!(c, '@' | '*' | '#' | '?' | '$' | '!' | '-')
}
