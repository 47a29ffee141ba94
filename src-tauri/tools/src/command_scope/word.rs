//! A shell word after quote removal, and how words appear in keys.
//!
//! - **Words are shown unquoted** (`git "status"` is `git status`, `echo "a;b"` is `echo a;b`)
//!   unless that would be ambiguous: a word that is empty or contains a quoted blank or a
//!   quoted `* ? [ ] { } ~ < > =` is shown single-quoted, so `rm '*'` and `rm *` differ.
//! - A word remembers what it was made of: expansions and substitutions (its value is only
//!   known when the command runs), unquoted ones (the shell may split it into several words),
//!   and text `xargs -I` fills in. Keys and wrappers need fixed text ([`Word::literal`]);
//!   option checks need to know whether a word could turn into an option
//!   ([`Word::may_be_option`]).

use super::unscoped::Unscoped;

/// One character of a word after quote removal.
#[derive(Debug, Clone, Copy)]
pub(super) struct WordChar {
    pub c: char,
    pub quoted: bool,
}

/// A shell word after quote removal.
#[derive(Debug, Default, Clone)]
pub(super) struct Word {
    pub chars: Vec<WordChar>,
    /// The word as written, for reasons.
    pub source: String,
    /// Contains a parameter expansion (`$X`, `${X}`).
    pub expands: bool,
    /// Contains a command substitution (its commands were keyed already).
    pub substitutes: bool,
    /// An expansion or substitution outside double quotes: the shell splits its result into
    /// words, so the word may become several, any of which may start with `-`.
    pub splits: bool,
    /// Starts with an expansion or substitution: its first character is unknown.
    pub starts_dynamic: bool,
    /// Contains the replace string of an enclosing `xargs -I`: xargs puts text read from
    /// standard input there, so the word may be anything when the command runs.
    pub replaced: bool,
}

impl Word {
    pub fn push(&mut self, c: char, quoted: bool) {
        self.chars.push(WordChar { c, quoted });
    }

    /// Records an expansion (`substitution` false) or a command substitution at this point.
    pub fn mark_dynamic(&mut self, substitution: bool, quoted: bool) {
        if self.chars.is_empty() && !self.is_dynamic() {
            self.starts_dynamic = true;
        }
        if substitution {
            self.substitutes = true;
        } else {
            self.expands = true;
        }
        self.splits |= !quoted;
    }

    pub fn value(&self) -> String {
        self.chars.iter().map(|wc| wc.c).collect()
    }

    /// Its value depends on the environment or on other commands.
    pub fn is_dynamic(&self) -> bool {
        self.expands || self.substitutes
    }

    /// Has unquoted characters the shell would expand: a glob (`*`, `?`, `[...]`), a brace
    /// expansion (`{a,b}`, `{1..3}`) or a leading tilde.
    pub fn has_active(&self) -> bool {
        let unquoted = |index: usize, c: char| {
            self.chars
                .get(index)
                .is_some_and(|wc| !wc.quoted && wc.c == c)
        };
        if unquoted(0, '~') {
            return true;
        }
        self.chars.iter().enumerate().any(|(index, wc)| {
            if wc.quoted {
                return false;
            }
            match wc.c {
                '*' | '?' => true,
                '[' => (index + 1..self.chars.len()).any(|later| unquoted(later, ']')),
                '{' => {
                    let Some(close) = (index + 1..self.chars.len()).find(|&i| unquoted(i, '}'))
                    else {
                        return false;
                    };
                    (index + 1..close)
                        .any(|i| unquoted(i, ',') || (unquoted(i, '.') && unquoted(i + 1, '.')))
                }
                _ => false,
            }
        })
    }

    /// Whether the words the shell makes of this one may start with `-` although its text
    /// does not: it splits, it starts with an expansion, `xargs -I` fills it in, or it starts
    /// with a pattern (`*` may match a file named `--output=x`).
    pub fn may_be_option(&self) -> bool {
        self.splits
            || self.starts_dynamic
            || self.replaced
            || (self.has_active()
                && self
                    .chars
                    .first()
                    .is_some_and(|wc| !wc.quoted && matches!(wc.c, '*' | '?' | '[' | '{')))
    }

    /// Whether the shell passes this word on as exactly its text: no expansion, no pattern,
    /// nothing filled in by xargs.
    pub fn is_fixed(&self) -> bool {
        !self.is_dynamic() && !self.has_active() && !self.replaced
    }

    /// A word whose value is fixed text, as wrappers' own arguments must be.
    pub fn literal(&self) -> Result<String, Unscoped> {
        if self.replaced {
            return Err(Unscoped::FilledByXargs {
                word: self.source.clone(),
            });
        }
        if self.is_dynamic() || self.has_active() {
            return Err(self.dynamic());
        }
        Ok(self.value())
    }

    /// The reason a word must be fixed text but is not.
    pub fn dynamic(&self) -> Unscoped {
        if self.replaced {
            Unscoped::FilledByXargs {
                word: self.source.clone(),
            }
        } else {
            Unscoped::Dynamic {
                word: self.source.clone(),
            }
        }
    }

    /// The word as it appears in a key (see the module docs).
    pub fn render(&self) -> String {
        render_chars(&self.chars)
    }

    /// `NAME=value` or `NAME+=value` with an unquoted valid name: the split point (the index
    /// of the first character of the value).
    pub fn assignment_split(&self) -> Option<usize> {
        let mut chars = self.chars.iter().enumerate();
        let (_, first) = chars.next()?;
        if first.quoted || !(first.c.is_ascii_alphabetic() || first.c == '_') {
            return None;
        }
        for (index, wc) in chars {
            if wc.quoted {
                return None;
            }
            match wc.c {
                '=' => return Some(index + 1),
                '+' => {
                    let next = self.chars.get(index + 1)?;
                    return (!next.quoted && next.c == '=').then_some(index + 2);
                }
                c if c.is_ascii_alphanumeric() || c == '_' => {}
                _ => return None,
            }
        }
        None
    }
}

/// Renders characters for a key: plain when unambiguous, single-quoted otherwise.
pub(super) fn render_chars(chars: &[WordChar]) -> String {
    if chars.is_empty() {
        return "''".to_owned();
    }
    let needs_quotes = chars.iter().any(|wc| {
        wc.quoted
            && (wc.c.is_whitespace()
                || wc.c.is_control()
                || matches!(
                    wc.c,
                    '*' | '?' | '[' | ']' | '{' | '}' | '~' | '<' | '>' | '='
                ))
    });
    if !needs_quotes {
        return chars.iter().map(|wc| wc.c).collect();
    }
    let mut out = String::new();
    let mut open = false;
    for wc in chars {
        if wc.quoted != open {
            out.push('\'');
            open = wc.quoted;
        }
        if wc.c == '\'' && open {
            out.push_str("'\\''");
        } else {
            out.push(wc.c);
        }
    }
    if open {
        out.push('\'');
    }
    out
}

/// Renders an assignment word (`NAME=value`) for a key prefix; its value must be fixed text.
pub(super) fn render_assignment(word: &Word, split: usize) -> Result<String, Unscoped> {
    if word.is_dynamic() || word.replaced {
        return Err(word.dynamic());
    }
    let (name, value) = word.chars.split_at(split);
    let mut out: String = name.iter().map(|wc| wc.c).collect();
    if !value.is_empty() {
        out.push_str(&render_chars(value));
    }
    Ok(out)
}

/// A wrapper's literal argument as shown in a key: plain when it is made of letters, digits
/// and `{ } % @ _ - . / : + ,`, single-quoted otherwise.
pub(super) fn quote_for_key(value: &str) -> String {
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_alphanumeric() || "{}%@_-./:+,".contains(c));
    if plain {
        value.to_owned()
    } else {
        format!("'{}'", value.replace('\'', "'\\''"))
    }
}

/// A flag as keys see it: `-x`, `--long`, `+x` (but not a lone `-` or `+`).
pub(super) fn is_flag(value: &str) -> bool {
    (value.starts_with('-') || value.starts_with('+')) && value.len() > 1
}
