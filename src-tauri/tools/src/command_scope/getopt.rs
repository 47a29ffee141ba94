//! Reading options against a table: the one option reader wrappers and programs share.
//!
//! A table lists option names as whitespace-separated words (`"-n --max-count"`), in three
//! kinds: flags (no value), options taking a value (attached, `-n5` / `--max-count=5`, or the
//! next word) and options with an optional attached value (`--stat`, `--stat=80`, `-U3`).
//!
//! **When a program reads an option's value from the next word, that word is never checked**,
//! so an option is listed as taking a value only when the program certainly reads the next
//! word as its value. When unsure, it is listed with an optional attached value: the next word
//! is then checked like any other, which at worst asks once too often. For the same reason a
//! short option is listed as taking a value only when the program reads the rest of the
//! cluster as its value (`-n5`): listed as a flag, the letters after it are checked as
//! options.

use super::unscoped::{OptionEffect, Unscoped};
use super::word::Word;

/// A table of options (see the module docs).
#[derive(Debug)]
pub(super) struct Options {
    /// Options without a value.
    pub flags: &'static str,
    /// Options taking a value, attached or in the next word.
    pub values: &'static str,
    /// Options with an optional attached value.
    pub optional: &'static str,
    /// Options known to do more than the key shows, with what they do; only for the reason
    /// given (any option not listed as harmless asks). A long name ending in `.` covers the
    /// options it prefixes (`--config.` covers `--config.registry`).
    pub harmful: &'static [(&'static str, OptionEffect)],
    /// Tables whose options this one accepts as well (git's diff options for `git log`).
    pub also: &'static [&'static Options],
}

impl Options {
    /// A table listing nothing, for building others with `..Options::NONE`.
    pub const NONE: Options = Options {
        flags: "",
        values: "",
        optional: "",
        harmful: &[],
        also: &[],
    };

    /// How `name` (`-n`, `--max-count`, `-name`) reads, if it is listed as harmless.
    pub fn kind(&self, name: &str) -> Option<Kind> {
        let listed = |names: &str| names.split_whitespace().any(|listed| listed == name);
        if listed(self.flags) {
            Some(Kind::Flag)
        } else if listed(self.values) {
            Some(Kind::Value)
        } else if listed(self.optional) {
            Some(Kind::Optional)
        } else {
            self.also.iter().find_map(|table| table.kind(name))
        }
    }

    /// What `name` does, if this table knows it as harmful: by its exact name, as an
    /// abbreviation of a long name (getopt and git accept unambiguous prefixes), or under a
    /// listed prefix ending in `.`.
    pub fn harm(&self, name: &str) -> Option<OptionEffect> {
        self.harm_exactly(name).or_else(|| {
            // `--glob` may abbreviate `--globalconfig`; only when no option is called that.
            (name.starts_with("--") && name.len() > 3)
                .then(|| self.find_harm(&|listed| listed.starts_with(name)))
                .flatten()
        })
    }

    /// What `name` does by its exact name or a listed prefix ending in `.`.
    fn harm_exactly(&self, name: &str) -> Option<OptionEffect> {
        self.find_harm(&|listed| {
            listed == name || (listed.ends_with('.') && name.starts_with(listed))
        })
    }

    fn find_harm(&self, matches: &dyn Fn(&str) -> bool) -> Option<OptionEffect> {
        let own = self
            .harmful
            .iter()
            .find_map(|&(listed, effect)| matches(listed).then_some(effect));
        own.or_else(|| self.also.iter().find_map(|table| table.find_harm(matches)))
    }

    /// The refusal for an option this table does not list as harmless.
    pub fn refuse(&self, program: &str, name: &str) -> Unscoped {
        match self.harm(name) {
            Some(effect) => Unscoped::Harmful {
                program: program.to_owned(),
                option: name.to_owned(),
                effect,
            },
            None => Unscoped::UnknownOption {
                program: program.to_owned(),
                option: name.to_owned(),
            },
        }
    }
}

/// How a listed option reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Flag,
    Value,
    Optional,
}

/// How a program spells its options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Style {
    /// getopt: `-abc` clusters short options, `--long[=value]`.
    Getopt,
    /// Long names after one dash, never clustered: `-name`, `-run=x` (find, go; go also
    /// accepts two dashes).
    SingleDash,
}

/// An option as given.
#[derive(Debug)]
pub(super) struct Given<'a> {
    /// Its name as listed (`-n`, `--max-count`).
    pub name: String,
    pub value: Option<Value<'a>>,
}

/// An option's value.
#[derive(Debug)]
pub(super) enum Value<'a> {
    /// Attached to the option (`-n5`, `--max-count=5`).
    Attached(String),
    /// The next word.
    Next(&'a Word),
}

impl Value<'_> {
    /// The value as fixed text.
    pub fn literal(&self) -> Result<String, Unscoped> {
        match self {
            Value::Attached(text) => Ok(text.clone()),
            Value::Next(word) => word.literal(),
        }
    }
}

/// Reads the options in `text` (a fixed word starting with `-`, not `-` or `--`) against
/// `table`; `next` is the word after it, which an option may take as its value. Returns the
/// options and whether `next` was taken.
pub(super) fn read_option<'a>(
    program: &str,
    text: &str,
    next: Option<&'a Word>,
    table: &Options,
    style: Style,
) -> Result<(Vec<Given<'a>>, bool), Unscoped> {
    let long = match style {
        Style::Getopt => text.strip_prefix("--").map(|rest| ("--", rest)),
        Style::SingleDash => {
            let rest = text.strip_prefix("--").unwrap_or(&text[1..]);
            Some(("-", rest))
        }
    };
    if let Some((dashes, rest)) = long {
        let (bare, attached) = match rest.split_once('=') {
            Some((bare, attached)) => (bare, Some(attached.to_owned())),
            None => (rest, None),
        };
        let name = format!("{dashes}{bare}");
        let taken = match (table.kind(&name), attached) {
            (Some(Kind::Flag), None) => (None, false),
            (Some(Kind::Optional | Kind::Value), Some(attached)) => {
                (Some(Value::Attached(attached)), false)
            }
            (Some(Kind::Optional), None) => (None, false),
            (Some(Kind::Value), None) => {
                let word = next.ok_or_else(|| Unscoped::MissingValue {
                    program: program.to_owned(),
                    option: name.clone(),
                })?;
                (Some(Value::Next(word)), true)
            }
            _ => return Err(table.refuse(program, &name)),
        };
        let (value, took_next) = taken;
        return Ok((vec![Given { name, value }], took_next));
    }
    let letters: Vec<char> = text.chars().skip(1).collect();
    if letters.iter().all(char::is_ascii_digit) && table.kind("-NUM").is_some() {
        let given = Given {
            name: "-NUM".to_owned(),
            value: Some(Value::Attached(letters.iter().collect())),
        };
        return Ok((vec![given], false));
    }
    let mut given = Vec::new();
    for (at, letter) in letters.iter().enumerate() {
        let name = format!("-{letter}");
        let rest: String = letters[at + 1..].iter().collect();
        match table.kind(&name) {
            Some(Kind::Flag) => given.push(Given { name, value: None }),
            Some(Kind::Optional) => {
                let value = (!rest.is_empty()).then_some(Value::Attached(rest));
                given.push(Given { name, value });
                break;
            }
            Some(Kind::Value) if !rest.is_empty() => {
                given.push(Given {
                    name,
                    value: Some(Value::Attached(rest)),
                });
                break;
            }
            Some(Kind::Value) => {
                let word = next.ok_or_else(|| Unscoped::MissingValue {
                    program: program.to_owned(),
                    option: name.clone(),
                })?;
                given.push(Given {
                    name,
                    value: Some(Value::Next(word)),
                });
                return Ok((given, true));
            }
            None => return Err(table.refuse(program, &name)),
        }
    }
    Ok((given, false))
}

/// Reads a wrapper's options from `words[start]` on, getopt style, up to the first word that
/// is not an option (or just after `--`); returns the index of that word and the options.
/// Every option must be in `table` and every word read fixed text.
pub(super) fn wrapper_options<'a>(
    program: &str,
    words: &'a [Word],
    start: usize,
    table: &Options,
) -> Result<(usize, Vec<Given<'a>>), Unscoped> {
    let mut given = Vec::new();
    let mut index = start;
    while let Some(word) = words.get(index) {
        let text = word.literal()?;
        if text == "--" {
            return Ok((index + 1, given));
        }
        if !text.starts_with('-') || text == "-" {
            return Ok((index, given));
        }
        let (options, took_next) =
            read_option(program, &text, words.get(index + 1), table, Style::Getopt)?;
        if took_next {
            words[index + 1].literal()?;
        }
        index += 1 + usize::from(took_next);
        given.extend(options);
    }
    Ok((index, given))
}
