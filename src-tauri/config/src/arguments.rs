//! What follows a slash command, put into its prompt as each source documents it.
//!
//! Claude Code (commands and skills, `shared/reference/extensibility-specs.md` §2 and §4):
//! `$ARGUMENTS` is everything, `$ARGUMENTS[N]` and `$N` are the N-th argument **0-based** (since
//! v2.1.19), arguments are split shell-style so quotes group words, and when the prompt has no
//! placeholder at all the arguments are appended as `ARGUMENTS: <value>`. Codex custom prompts
//! (§4): `$1`–`$9` are **1-based**, `$ARGUMENTS` is everything, `$NAME` is filled by a
//! `NAME=value` argument, and `$$` is a literal `$`. Gantry's own `.gantry/commands` keep their
//! convention: `$ARGUMENTS`, and arguments without a placeholder follow the prompt.

use std::collections::BTreeMap;

/// How a prompt numbers and places its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Numbering {
    /// Claude Code commands and skills: `$N` 0-based, `ARGUMENTS:` appended.
    Claude,
    /// Codex custom prompts: `$1`–`$9` 1-based, `$NAME` from `NAME=value`, `$$`.
    Codex,
    /// Gantry's `.gantry/commands`: `$ARGUMENTS` only; arguments otherwise follow the prompt.
    Gantry,
}

/// `arguments` split shell-style: whitespace separates, single and double quotes group (and
/// are removed), a backslash outside single quotes keeps the next character.
pub fn split_arguments(arguments: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = arguments.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(open), c) if c == open => quote = None,
            (Some('"') | None, '\\') => {
                if let Some(next) = chars.next() {
                    current.push(next);
                }
                in_word = true;
            }
            (Some(_), c) => current.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            (None, c) => {
                current.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(current);
    }
    words
}

/// `body` with `arguments` substituted per `numbering`.
pub fn substitute(body: &str, arguments: &str, numbering: Numbering) -> String {
    let arguments = arguments.trim();
    match numbering {
        Numbering::Claude => claude(body, arguments),
        Numbering::Codex => codex(body, arguments),
        Numbering::Gantry => {
            if body.contains("$ARGUMENTS") {
                body.replace("$ARGUMENTS", arguments)
            } else if arguments.is_empty() {
                body.to_owned()
            } else {
                format!("{}\n\n{arguments}", body.trim_end())
            }
        }
    }
}

fn claude(body: &str, arguments: &str) -> String {
    let words = split_arguments(arguments);
    let mut out = String::with_capacity(body.len() + arguments.len());
    let mut placeholder = false;
    let mut rest = body;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix("ARGUMENTS") {
            placeholder = true;
            if let Some((index, consumed)) = bracket_index(tail) {
                out.push_str(words.get(index).map_or("", String::as_str));
                rest = &tail[consumed..];
            } else {
                out.push_str(arguments);
                rest = tail;
            }
            continue;
        }
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 {
            placeholder = true;
            let index: usize = after[..digits].parse().unwrap_or(usize::MAX);
            out.push_str(words.get(index).map_or("", String::as_str));
            rest = &after[digits..];
            continue;
        }
        out.push('$');
        rest = after;
    }
    out.push_str(rest);
    if !placeholder && !arguments.is_empty() {
        out = format!("{}\n\nARGUMENTS: {arguments}", out.trim_end());
    }
    out
}

/// `[N]` at the start of `tail`: the index and the bytes it takes.
fn bracket_index(tail: &str) -> Option<(usize, usize)> {
    let inner = tail.strip_prefix('[')?;
    let end = inner.find(']')?;
    let index = inner[..end].trim().parse().ok()?;
    Some((index, end + 2))
}

fn codex(body: &str, arguments: &str) -> String {
    let words = split_arguments(arguments);
    let mut named = BTreeMap::new();
    let mut positional = Vec::new();
    for word in &words {
        match word.split_once('=') {
            Some((key, value))
                if !key.is_empty()
                    && key
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_') =>
            {
                named.insert(key.to_owned(), value.to_owned());
            }
            _ => positional.push(word.clone()),
        }
    }
    let mut out = String::with_capacity(body.len() + arguments.len());
    let mut rest = body;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
        } else if let Some(tail) = after.strip_prefix("ARGUMENTS") {
            out.push_str(&positional.join(" "));
            rest = tail;
        } else if let Some(digit) = after.chars().next().filter(|c| ('1'..='9').contains(c)) {
            let index = digit as usize - '1' as usize;
            out.push_str(positional.get(index).map_or("", String::as_str));
            rest = &after[1..];
        } else {
            let len = after
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                .count();
            match named.get(&after[..len]) {
                Some(value) if len > 0 => {
                    out.push_str(value);
                    rest = &after[len..];
                }
                _ => {
                    out.push('$');
                    rest = after;
                }
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_group_words() {
        assert_eq!(
            split_arguments(r#"a "b c" 'd e' f\ g"#),
            ["a", "b c", "d e", "f g"]
        );
        assert!(split_arguments("   ").is_empty());
        assert_eq!(split_arguments(r#""""#), [""]);
    }

    #[test]
    fn claude_numbers_from_zero_and_appends_without_a_placeholder() {
        let body = "Fix $0 in \"$1\" ($ARGUMENTS[1]); all: $ARGUMENTS; cost $ 5";
        assert_eq!(
            substitute(body, r#"bug "src/a b.rs""#, Numbering::Claude),
            "Fix bug in \"src/a b.rs\" (src/a b.rs); all: bug \"src/a b.rs\"; cost $ 5"
        );
        assert_eq!(
            substitute("Review the code.\n", "src/a.rs", Numbering::Claude),
            "Review the code.\n\nARGUMENTS: src/a.rs"
        );
        assert_eq!(substitute("Review.", "", Numbering::Claude), "Review.");
        assert_eq!(
            substitute("Missing: [$3]", "a", Numbering::Claude),
            "Missing: []"
        );
    }

    #[test]
    fn codex_numbers_from_one_with_named_values_and_dollars() {
        let body = "First $1, second $2, all $ARGUMENTS, file $FILE, price $$5, other $HOME";
        assert_eq!(
            substitute(body, "a b FILE=src/x.rs", Numbering::Codex),
            "First a, second b, all a b, file src/x.rs, price $5, other $HOME"
        );
    }

    #[test]
    fn gantry_commands_keep_their_convention() {
        assert_eq!(
            substitute("Fix it.", "#12", Numbering::Gantry),
            "Fix it.\n\n#12"
        );
        assert_eq!(
            substitute("Review $ARGUMENTS.", " a.rs ", Numbering::Gantry),
            "Review a.rs."
        );
    }
}
