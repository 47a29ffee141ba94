//! Reading a sed script far enough to find the commands that write files or run programs.
//!
//! GNU sed's grammar: commands separated by newlines or `;`, each after an optional address
//! (`3`, `$`, `/re/I`, `\%re%`, `first~step`, `a,b`, `a,+N`, `a,~N`, then `!`). Regexes and
//! replacements end at the first unescaped delimiter (sed knows no brackets there), text of
//! `a`, `i`, `c` and file names of `r`, `R`, `w`, `W` run to the end of the line, labels end
//! at the first blank, `;`, `}` or `#` (the earliest any sed ends them, so what follows is
//! read as commands rather than skipped). `w`, `W`, `s///w` write; `e`, `s///e` run a program.
//! Anything else unexpected makes the script unreadable: the command asks.

/// What the script does that the key does not show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Finding {
    /// A command writing a file (`w`, `W`, `s///w`).
    Writes(String),
    /// A command running a program (`e`, `s///e`).
    Runs(String),
    /// Something Gantry cannot read through.
    Unreadable,
}

/// Checks a whole script (expressions joined by newlines).
pub(super) fn check(script: &str) -> Result<(), Finding> {
    let mut reader = Reader {
        chars: script.chars().collect(),
        pos: 0,
    };
    reader.script()
}

struct Reader {
    chars: Vec<char>,
    pos: usize,
}

impl Reader {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        Some(c)
    }

    fn eat(&mut self, c: char) -> bool {
        let found = self.peek() == Some(c);
        self.pos += usize::from(found);
        found
    }

    fn skip_blanks(&mut self) {
        while self.peek().is_some_and(|c| c == ' ' || c == '\t') {
            self.pos += 1;
        }
    }

    fn skip_digits(&mut self) -> bool {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        self.pos > start
    }

    /// Up to (not including) the end of the line.
    fn skip_line(&mut self) {
        while self.peek().is_some_and(|c| c != '\n') {
            self.pos += 1;
        }
    }

    fn script(&mut self) -> Result<(), Finding> {
        loop {
            while self.peek().is_some_and(|c| c.is_whitespace() || c == ';') {
                self.pos += 1;
            }
            let Some(first) = self.peek() else {
                return Ok(());
            };
            if first == '#' {
                self.skip_line();
                continue;
            }
            if self.address()? {
                self.skip_blanks();
                if self.eat(',') {
                    self.skip_blanks();
                    if self.eat('+') || self.eat('~') {
                        if !self.skip_digits() {
                            return Err(Finding::Unreadable);
                        }
                    } else if !self.address()? {
                        return Err(Finding::Unreadable);
                    }
                }
            }
            self.skip_blanks();
            while self.eat('!') {
                self.skip_blanks();
            }
            let command = self.next().ok_or(Finding::Unreadable)?;
            self.command(command)?;
        }
    }

    /// An optional address; returns whether there was one.
    fn address(&mut self) -> Result<bool, Finding> {
        match self.peek() {
            Some(c) if c.is_ascii_digit() => {
                self.skip_digits();
                if self.eat('~') && !self.skip_digits() {
                    return Err(Finding::Unreadable);
                }
                Ok(true)
            }
            Some('$') => {
                self.pos += 1;
                Ok(true)
            }
            Some('/') => {
                self.pos += 1;
                self.delimited('/')?;
                self.regex_flags();
                Ok(true)
            }
            Some('\\') => {
                self.pos += 1;
                let delimiter = self.delimiter()?;
                self.delimited(delimiter)?;
                self.regex_flags();
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn regex_flags(&mut self) {
        while self.eat('I') || self.eat('M') {}
    }

    /// A delimiter for `s`, `y` or `\c...c`: anything but a newline or a backslash.
    fn delimiter(&mut self) -> Result<char, Finding> {
        match self.next() {
            Some('\n' | '\\') | None => Err(Finding::Unreadable),
            Some(c) => Ok(c),
        }
    }

    /// Text up to and including the first unescaped `delimiter`; an unescaped newline or the
    /// end of the script first is an error (as in sed).
    fn delimited(&mut self, delimiter: char) -> Result<(), Finding> {
        loop {
            match self.next() {
                None | Some('\n') => return Err(Finding::Unreadable),
                Some('\\') => {
                    self.next().ok_or(Finding::Unreadable)?;
                }
                Some(c) if c == delimiter => return Ok(()),
                Some(_) => {}
            }
        }
    }

    /// After a command: blanks, then the end, a newline, `;`, `}` or `#`.
    fn end_of_command(&mut self) -> Result<(), Finding> {
        self.skip_blanks();
        match self.peek() {
            None | Some('\n' | ';' | '}' | '#') => Ok(()),
            Some(_) => Err(Finding::Unreadable),
        }
    }

    /// A label: blanks, then up to a blank, newline, `;`, `}` or `#`.
    fn label(&mut self) {
        self.skip_blanks();
        while self
            .peek()
            .is_some_and(|c| !matches!(c, ' ' | '\t' | '\n' | ';' | '}' | '#'))
        {
            self.pos += 1;
        }
    }

    /// Text of `a`, `i`, `c`: to the end of the line, a backslash escaping the newline.
    fn text(&mut self) {
        while let Some(c) = self.next() {
            match c {
                '\\' => {
                    self.next();
                }
                '\n' => return,
                _ => {}
            }
        }
    }

    fn command(&mut self, command: char) -> Result<(), Finding> {
        match command {
            '{' | '}' => Ok(()),
            '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x' | 'z' | 'F' => {
                self.end_of_command()
            }
            'l' | 'L' | 'q' | 'Q' => {
                self.skip_blanks();
                self.skip_digits();
                self.end_of_command()
            }
            ':' | 'b' | 't' | 'T' | 'v' => {
                self.label();
                Ok(())
            }
            'a' | 'i' | 'c' => {
                self.text();
                Ok(())
            }
            'r' | 'R' => {
                self.skip_line();
                Ok(())
            }
            'w' | 'W' => Err(Finding::Writes(command.to_string())),
            'e' => Err(Finding::Runs("e".to_owned())),
            's' => self.substitute(),
            'y' => {
                let delimiter = self.delimiter()?;
                self.delimited(delimiter)?;
                self.delimited(delimiter)?;
                self.end_of_command()
            }
            _ => Err(Finding::Unreadable),
        }
    }

    /// `s/regex/replacement/flags`.
    fn substitute(&mut self) -> Result<(), Finding> {
        let delimiter = self.delimiter()?;
        self.delimited(delimiter)?;
        self.delimited(delimiter)?;
        loop {
            match self.peek() {
                None | Some('\n' | ';') => return Ok(()),
                Some('}' | '#') => return Ok(()),
                Some('g' | 'p' | 'i' | 'I' | 'm' | 'M' | ' ' | '\t') => self.pos += 1,
                Some(c) if c.is_ascii_digit() => self.pos += 1,
                Some('w') => return Err(Finding::Writes("s///w".to_owned())),
                Some('e') => return Err(Finding::Runs("s///e".to_owned())),
                Some(_) => return Err(Finding::Unreadable),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Finding, check};

    #[test]
    fn harmless_scripts_read_through() {
        for script in [
            "s/a/b/",
            "s/a/b/g",
            "s|/usr|/opt|2p",
            "s/w/e/",
            "s/a\\/w/b/",
            "1,5d",
            "/^#/d;s/x/y/gI",
            "$!N; P; D",
            "10q",
            "2,+3p",
            "0~4d",
            "\\%re%p",
            "y/abc/xyz/",
            "/start/,/end/{s/a/b/;p}",
            ":a;N;$!ba;s/\\n/ /g",
            "1i\\\nheader",
            "$a text with w and e; s///e",
            "r other.txt",
            "# a comment with w\np",
            "",
        ] {
            assert_eq!(check(script), Ok(()), "{script:?}");
        }
    }

    #[test]
    fn writing_and_running_commands_are_found() {
        let writes = |command: &str| Err(Finding::Writes(command.to_owned()));
        let runs = |command: &str| Err(Finding::Runs(command.to_owned()));
        for (script, expected) in [
            ("w /tmp/x", writes("w")),
            ("1W out", writes("W")),
            ("s/a/b/w /etc/x", writes("s///w")),
            ("s/a/b/gw out", writes("s///w")),
            ("s|a|b|e", runs("s///e")),
            ("e rm -rf ~", runs("e")),
            ("/x/e", runs("e")),
            ("p;w out", writes("w")),
            ("$!{w out\n}", writes("w")),
            ("1~2 w x", writes("w")),
            ("/a/,/b/ ! e", runs("e")),
            ("s/a/b/\nw x", writes("w")),
            ("b end; w x", writes("w")),
            (":a w x", writes("w")),
            ("1a\\\ntext\nw x", writes("w")),
            ("y/a/b/;e", runs("e")),
        ] {
            assert_eq!(check(script), expected, "{script:?}");
        }
    }

    #[test]
    fn what_cannot_be_read_is_unreadable() {
        for script in [
            "s/a/b",
            "s/a\nb/c/",
            "s/a/b/x",
            "k",
            "/unterminated",
            "p x",
            "1,",
            "y/a/",
            "s\\a\\b\\",
        ] {
            assert_eq!(check(script), Err(Finding::Unreadable), "{script:?}");
        }
    }
}
