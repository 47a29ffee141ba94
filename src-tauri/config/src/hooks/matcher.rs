//! Hook matchers, exactly as Claude Code documents them (spec §1.1 "Matchers"):
//!
//! - `"*"`, `""` or no matcher: everything;
//! - only letters, digits, `_`, `-`, spaces, `,` and `|`: an exact name or a list of them
//!   (`Edit|Write`, `Edit, Write`);
//! - anything else: an unanchored regular expression (`Edit.*` also matches `NotebookEdit`;
//!   `^Bash$` only `Bash`). The `regex` crate agrees with JavaScript's `RegExp` for these uses;
//!   a pattern it cannot compile is reported and never matches.

use regex::Regex;

/// A compiled matcher.
#[derive(Debug, Clone)]
pub enum Matcher {
    /// Everything (`*`, empty, omitted).
    All,
    /// One of these exact names.
    Names(Vec<String>),
    /// An unanchored regular expression.
    Pattern(Regex),
    /// A pattern that does not compile: never matches.
    Invalid(String),
}

impl PartialEq for Matcher {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::All, Self::All) => true,
            (Self::Names(a), Self::Names(b)) => a == b,
            (Self::Pattern(a), Self::Pattern(b)) => a.as_str() == b.as_str(),
            (Self::Invalid(a), Self::Invalid(b)) => a == b,
            _ => false,
        }
    }
}

impl Matcher {
    /// Compiles `matcher` (`None`: no matcher given).
    pub fn compile(matcher: Option<&str>) -> Self {
        let text = matcher.unwrap_or("").trim();
        if text.is_empty() || text == "*" {
            return Self::All;
        }
        let plain = text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' ' | ',' | '|'));
        if plain {
            let names = text
                .split(['|', ','])
                .map(str::trim)
                .filter(|name| !name.is_empty())
                .map(str::to_owned)
                .collect();
            return Self::Names(names);
        }
        match Regex::new(text) {
            Ok(regex) => Self::Pattern(regex),
            Err(error) => Self::Invalid(format!(
                "matcher '{text}' is not a valid regular expression: {error}"
            )),
        }
    }

    /// True when `subject` (a tool name, a session source, a trigger) matches.
    pub fn matches(&self, subject: &str) -> bool {
        match self {
            Self::All => true,
            Self::Names(names) => names.iter().any(|name| name == subject),
            Self::Pattern(regex) => regex.is_match(subject),
            Self::Invalid(_) => false,
        }
    }

    /// Why the matcher never matches, when it is invalid.
    pub fn problem(&self) -> Option<&str> {
        match self {
            Self::Invalid(why) => Some(why),
            _ => None,
        }
    }
}

/// A handler's `if` condition: one permission-rule string (`Bash(git *)`, `Edit(*.ts)`,
/// `Read`), matched against the tool's name and its main input (the command, the file path,
/// the pattern or the URL) with `*` as a wildcard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IfRule {
    tool: String,
    pattern: Option<String>,
}

impl IfRule {
    /// Parses `Tool` or `Tool(pattern)`; `None` when it is neither.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        let (tool, pattern) = match text.split_once('(') {
            Some((tool, rest)) => (tool, Some(rest.strip_suffix(')')?.to_owned())),
            None => (text, None),
        };
        let valid = !tool.is_empty()
            && tool
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'));
        valid.then(|| Self {
            tool: tool.to_owned(),
            pattern: pattern.filter(|p| !p.is_empty() && p != "*"),
        })
    }

    /// True when a call of `tool` whose main input is `subject` meets the condition.
    pub fn matches(&self, tool: &str, subject: Option<&str>) -> bool {
        if self.tool != tool {
            return false;
        }
        match (&self.pattern, subject) {
            (None, _) => true,
            (Some(pattern), Some(subject)) => wildcard(pattern, subject),
            (Some(_), None) => false,
        }
    }
}

/// `*` matches any run of characters; `git *` also matches `git` alone, as Claude Code's
/// `Bash(git *)` does.
fn wildcard(pattern: &str, subject: &str) -> bool {
    let pattern = pattern
        .strip_suffix(":*")
        .map_or_else(|| pattern.to_owned(), |prefix| format!("{prefix} *"));
    let mut regex = String::from("^");
    for (index, part) in pattern.split('*').enumerate() {
        if index > 0 {
            regex.push_str(".*");
        }
        regex.push_str(&regex::escape(part));
    }
    regex.push('$');
    let bare = pattern
        .strip_suffix(" *")
        .is_some_and(|head| head == subject);
    bare || Regex::new(&regex).is_ok_and(|regex| regex.is_match(subject))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matchers_follow_the_documented_examples() {
        // (matcher, subject, expected)
        let table = [
            (None, "Bash", true),
            (Some("*"), "mcp__x__y", true),
            (Some(""), "Read", true),
            (Some("Bash"), "Bash", true),
            (Some("Bash"), "BashOutput", false),
            (Some("Edit|Write"), "Write", true),
            (Some("Edit|Write"), "Read", false),
            (Some("Edit, Write"), "Edit", true),
            (Some("Edit, Write"), "Write", true),
            (Some("Edit.*"), "NotebookEdit", true),
            (Some("^Edit$"), "NotebookEdit", false),
            (
                Some("mcp__memory__.*"),
                "mcp__memory__create_entities",
                true,
            ),
            (Some("mcp__memory"), "mcp__memory__create_entities", false),
            (Some("^Bash$"), "Bash", true),
            (Some("^Bash$"), "Bash2", false),
            (Some("my-tool"), "my-tool", true),
            (Some("startup|resume"), "compact", false),
            (Some("(unclosed"), "(unclosed", false),
        ];
        for (matcher, subject, expected) in table {
            assert_eq!(
                Matcher::compile(matcher).matches(subject),
                expected,
                "{matcher:?} against {subject}"
            );
        }
        assert!(Matcher::compile(Some("(unclosed")).problem().is_some());
        assert!(Matcher::compile(Some("Edit.*")).problem().is_none());
    }

    #[test]
    fn if_rules_match_the_tool_and_its_main_input() {
        let rm = IfRule::parse("Bash(rm *)").unwrap();
        assert!(rm.matches("Bash", Some("rm -rf x")));
        assert!(!rm.matches("Bash", Some("ls")));
        assert!(!rm.matches("Read", Some("rm x")));
        let git = IfRule::parse("Bash(git:*)").unwrap();
        assert!(git.matches("Bash", Some("git")));
        assert!(git.matches("Bash", Some("git status")));
        let ts = IfRule::parse("Edit(*.ts)").unwrap();
        assert!(ts.matches("Edit", Some("/p/src/a.ts")));
        assert!(!ts.matches("Edit", Some("/p/src/a.rs")));
        assert!(IfRule::parse("Read").unwrap().matches("Read", None));
        assert!(IfRule::parse("Bash(oops").is_none());
    }
}
