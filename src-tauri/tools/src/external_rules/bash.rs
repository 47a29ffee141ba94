//! `Bash(...)` rules of Claude Code: how a pattern matches a command line.
//!
//! As documented (`shared/reference/extensibility-specs.md` §6, [CC:permissions]):
//!
//! - `*` matches any text, spaces included; a pattern without `*` matches the command exactly
//!   (`Bash(git diff)` matches `git diff`, not `git diff HEAD`);
//! - a ` *` at the end keeps a word boundary: `Bash(ls *)` matches `ls` and `ls -la`, not
//!   `lsof`; `Bash(ls*)` matches `lsof` too;
//! - the legacy `:*` at the end means ` *` (`Bash(npm run test:*)` ≡ `Bash(npm run test *)`);
//! - a compound command (`&&`, `||`, `;`, `|`, `|&`, `&`, newline) matches per subcommand:
//!   an allow rule must cover every part, a deny or ask rule matches when it matches any part;
//! - the wrappers `timeout`, `time`, `nice`, `nohup`, `stdbuf`, `command`, `builtin`, `noglob`
//!   and a bare `xargs` are stripped before matching, and so are leading `VAR=value`
//!   assignments (for deny and ask rules only: an assignment such as `LD_PRELOAD=...` changes
//!   what the program does, so an allow rule never covers a part that carries one).
//!
//! What this splitter does not read — command substitutions, subshells, here-documents,
//! redirections — makes a command impossible to cover with an allow rule (it asks), while deny
//! and ask rules also match every key of Gantry's own parse of the command
//! ([`crate::command_scope`]), which reads substitutions, subshells and `sh -c` scripts.

/// A command line split into its subcommands, each with wrappers stripped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitCommand {
    /// The subcommands, as words joined by single spaces.
    pub parts: Vec<String>,
    /// The parts with leading assignments kept (what an allow rule must match).
    pub strict_parts: Vec<String>,
    /// True when the line holds something the splitter does not read (a substitution, a
    /// subshell, a group, a here-document, a redirection): no allow rule covers it.
    pub opaque: bool,
}

/// Splits `command` into subcommands (see the module docs).
pub fn split(command: &str) -> SplitCommand {
    let mut parts = Vec::new();
    let mut strict_parts = Vec::new();
    let (segments, mut opaque) = segments(command);
    for words in segments {
        if words.is_empty() {
            continue;
        }
        parts.push(strip(&words, true).join(" "));
        strict_parts.push(strip(&words, false).join(" "));
    }
    if parts.is_empty() {
        opaque = true;
    }
    SplitCommand {
        parts,
        strict_parts,
        opaque,
    }
}

/// Every subcommand a deny or ask rule is matched against: the parts of `command` and, in
/// turn, of the command substitutions, subshells and process substitutions inside it
/// (`$(...)`, `` `...` ``, `(...)`, `<(...)`), at any depth.
pub fn narrowing_parts(command: &str) -> Vec<String> {
    let mut parts = split(command).parts;
    let mut pending = bodies(command);
    let mut seen = 0;
    while let Some(body) = pending.pop() {
        seen += 1;
        if seen > 64 {
            break;
        }
        parts.extend(split(&body).parts);
        pending.extend(bodies(&body));
    }
    let elevated: Vec<String> = parts.iter().filter_map(|part| unelevated(part)).collect();
    parts.extend(elevated);
    parts
}

/// `part` without a leading `sudo`, `doas` or `env` and their options and assignments (for
/// deny and ask rules only: `Bash(rm -rf *)` also refuses `sudo rm -rf /`).
fn unelevated(part: &str) -> Option<String> {
    let mut words = part.split(' ').peekable();
    let mut stripped = false;
    while words
        .peek()
        .is_some_and(|word| matches!(*word, "sudo" | "doas" | "env"))
    {
        words.next();
        stripped = true;
        while words
            .peek()
            .is_some_and(|word| word.starts_with('-') || is_assignment(word))
        {
            words.next();
        }
    }
    let rest: Vec<&str> = words.collect();
    (stripped && !rest.is_empty()).then(|| rest.join(" "))
}

/// The outermost bodies of `(...)` and `` `...` `` in `command` (outside single quotes).
fn bodies(command: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut single = false;
    let mut depth = 0usize;
    let mut backtick: Option<String> = None;
    let mut current = String::new();
    for c in command.chars() {
        if let Some(body) = backtick.as_mut() {
            if c == '`' {
                found.push(std::mem::take(body));
                backtick = None;
            } else {
                body.push(c);
            }
            continue;
        }
        match c {
            '\'' if depth == 0 => single = !single,
            _ if single => {}
            '`' if depth == 0 => backtick = Some(String::new()),
            '(' => {
                if depth > 0 {
                    current.push(c);
                }
                depth += 1;
            }
            ')' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    found.push(std::mem::take(&mut current));
                } else {
                    current.push(c);
                }
            }
            _ if depth > 0 => current.push(c),
            _ => {}
        }
    }
    if depth > 0 {
        found.push(current);
    }
    found
}

/// The words of each subcommand, and whether something unread was met.
fn segments(command: &str) -> (Vec<Vec<String>>, bool) {
    let chars: Vec<char> = command.chars().collect();
    let mut segments: Vec<Vec<String>> = vec![Vec::new()];
    let mut word = String::new();
    let mut opaque = false;
    let mut index = 0;
    let mut quote: Option<char> = None;
    let finish = |word: &mut String, segments: &mut Vec<Vec<String>>| {
        if !word.is_empty()
            && let Some(last) = segments.last_mut()
        {
            last.push(std::mem::take(word));
        }
    };
    while let Some(&c) = chars.get(index) {
        let next = chars.get(index + 1).copied();
        if let Some(open) = quote {
            word.push(c);
            if c == '\\' && open == '"' {
                if let Some(n) = next {
                    word.push(n);
                    index += 1;
                }
            } else if c == open {
                quote = None;
            } else if open == '"' && (c == '`' || (c == '$' && next == Some('('))) {
                opaque = true;
            }
            index += 1;
            continue;
        }
        match c {
            '\'' | '"' => {
                quote = Some(c);
                word.push(c);
            }
            '\\' => {
                word.push(c);
                if let Some(n) = next {
                    if n == '\n' {
                        word.pop();
                    } else {
                        word.push(n);
                    }
                    index += 1;
                }
            }
            ' ' | '\t' => finish(&mut word, &mut segments),
            '\n' | ';' => {
                finish(&mut word, &mut segments);
                segments.push(Vec::new());
            }
            '&' | '|' => {
                if c == '&' && (word.ends_with('>') || word.ends_with('<') || next == Some('>')) {
                    // `2>&1`, `>&-`, `&>file`: a redirection.
                    opaque |= next == Some('>');
                    word.push(c);
                } else {
                    finish(&mut word, &mut segments);
                    segments.push(Vec::new());
                    if matches!((c, next), ('&', Some('&')) | ('|', Some('|' | '&'))) {
                        index += 1;
                    }
                }
            }
            '#' if word.is_empty() => {
                while chars.get(index).is_some_and(|&c| c != '\n') {
                    index += 1;
                }
                continue;
            }
            _ => {
                if matches!(c, '`' | '(' | ')' | '{' | '}' | '<' | '>')
                    || (c == '$' && next == Some('('))
                {
                    opaque = true;
                }
                word.push(c);
            }
        }
        index += 1;
    }
    opaque |= quote.is_some() || command.contains('\0');
    finish(&mut word, &mut segments);
    (segments, opaque)
}

/// True when `word` is a `NAME=value` assignment.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

/// The words with leading assignments (when `assignments`) and wrappers stripped.
fn strip(words: &[String], assignments: bool) -> Vec<String> {
    let mut rest = words;
    loop {
        let before = rest.len();
        if assignments {
            while rest.first().is_some_and(|word| is_assignment(word)) {
                rest = &rest[1..];
            }
        }
        rest = strip_wrapper(rest);
        if rest.len() == before {
            return rest.to_vec();
        }
    }
}

/// `words` after one wrapper at their start, or `words` itself.
fn strip_wrapper(words: &[String]) -> &[String] {
    let Some(first) = words.first() else {
        return words;
    };
    let rest = &words[1..];
    let after_flags = |rest: &[String], valued: &[&str]| -> usize {
        let mut index = 0;
        while let Some(word) = rest.get(index) {
            if word == "--" {
                return index + 1;
            }
            if !word.starts_with('-') || word == "-" {
                break;
            }
            index += if valued.contains(&word.as_str()) {
                2
            } else {
                1
            };
        }
        index.min(rest.len())
    };
    let skip = match first.as_str() {
        "time" | "nohup" | "builtin" | "noglob" => after_flags(rest, &[]),
        "command" => {
            if rest
                .first()
                .is_some_and(|word| word == "-v" || word == "-V")
            {
                return words;
            }
            after_flags(rest, &[])
        }
        "nice" => after_flags(rest, &["-n", "--adjustment"]),
        "stdbuf" => after_flags(rest, &["-i", "-o", "-e"]),
        "timeout" => {
            let flags = after_flags(rest, &["-s", "--signal", "-k", "--kill-after"]);
            // The duration.
            (flags + 1).min(rest.len())
        }
        "xargs" if rest.first().is_some_and(|word| !word.starts_with('-')) => 0,
        _ => return words,
    };
    if skip >= rest.len() {
        // A wrapper with nothing to run is the command itself.
        return words;
    }
    &rest[skip..]
}

/// A `Bash(...)` specifier ready to match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandPattern {
    /// The pattern with the legacy `:*` rewritten and blanks normalised.
    pattern: String,
}

impl CommandPattern {
    /// The pattern of `Bash(specifier)`.
    pub fn new(specifier: &str) -> Self {
        let trimmed = specifier.trim();
        let rewritten = match trimmed.strip_suffix(":*") {
            Some(head) => format!("{} *", head.trim_end()),
            None => trimmed.to_owned(),
        };
        Self {
            pattern: rewritten.split_whitespace().collect::<Vec<_>>().join(" "),
        }
    }

    /// True when the pattern covers every command (`*`).
    pub fn is_everything(&self) -> bool {
        self.pattern.chars().all(|c| c == '*')
    }

    /// True when the pattern matches one subcommand (words joined by single spaces).
    pub fn matches(&self, part: &str) -> bool {
        let part = part.split_whitespace().collect::<Vec<_>>().join(" ");
        if wildcard(&self.pattern, &part) {
            return true;
        }
        // `ls *` also matches `ls` alone: the word boundary, not a required argument.
        self.pattern
            .strip_suffix(" *")
            .is_some_and(|head| wildcard(head, &part))
    }
}

/// `*`-only wildcard matching (the star spans anything, spaces included).
fn wildcard(pattern: &str, text: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let text: Vec<char> = text.chars().collect();
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && pattern[p] == '*' {
            star = Some((p, t));
            p += 1;
        } else if p < pattern.len() && pattern[p] == text[t] {
            p += 1;
            t += 1;
        } else if let Some((star_p, star_t)) = star {
            p = star_p + 1;
            t = star_t + 1;
            star = Some((star_p, star_t + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

/// `*`-only wildcard matching for names (MCP tools).
pub fn name_matches(pattern: &str, name: &str) -> bool {
    wildcard(pattern, name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_as_documented() {
        // (pattern, command part, matches)
        let table = [
            ("git diff", "git diff", true),
            ("git diff", "git diff HEAD", false),
            ("npm run test:*", "npm run test", true),
            ("npm run test:*", "npm run test --watch", true),
            ("npm run test:*", "npm run test:unit", false),
            ("npm:*", "npm install", true),
            ("ls *", "ls -la", true),
            ("ls *", "ls", true),
            ("ls *", "lsof", false),
            ("ls*", "lsof", true),
            ("git * main", "git push origin main", true),
            ("git * main", "git push origin dev", false),
            ("npm run *", "npm  run   build", true),
            ("*", "anything at all", true),
        ];
        for (pattern, part, expected) in table {
            assert_eq!(
                CommandPattern::new(pattern).matches(part),
                expected,
                "{pattern} vs {part}"
            );
        }
        assert!(CommandPattern::new("*").is_everything());
        assert!(!CommandPattern::new("ls *").is_everything());
    }

    #[test]
    fn compound_commands_split_and_wrappers_strip() {
        let split_parts = |command: &str| split(command).parts;
        assert_eq!(
            split_parts("npm test && git push origin main; ls | wc -l & echo a || b"),
            [
                "npm test",
                "git push origin main",
                "ls",
                "wc -l",
                "echo a",
                "b"
            ]
        );
        assert_eq!(
            split_parts("timeout 30 nice -n 5 nohup npm test\ncommand git status"),
            ["npm test", "git status"]
        );
        assert_eq!(split_parts("FOO=1 time -p cargo test"), ["cargo test"]);
        assert_eq!(split("FOO=1 cargo test").strict_parts, ["FOO=1 cargo test"]);
        assert_eq!(split_parts("stdbuf -oL xargs rm"), ["rm"]);
        assert_eq!(
            split_parts("echo 'a && b' \"c; d\""),
            ["echo 'a && b' \"c; d\""]
        );
        assert_eq!(split_parts("make 2>&1 |& tee"), ["make 2>&1", "tee"]);
        assert!(!split("git status").opaque);
        assert_eq!(
            narrowing_parts("echo \"$(git push `id -u`)\" && (cd x; rm -rf y) | cat <(ls)"),
            [
                "echo \"$(git push `id -u`)\"",
                "(cd x",
                "rm -rf y)",
                "cat <(ls)",
                "ls",
                "cd x",
                "rm -rf y",
                "git push `id -u`",
                "id -u"
            ]
        );
        assert_eq!(
            narrowing_parts("echo '$(rm -rf /)'"),
            ["echo '$(rm -rf /)'"]
        );
        assert_eq!(
            narrowing_parts("sudo -E env A=1 rm -rf /"),
            ["sudo -E env A=1 rm -rf /", "rm -rf /"]
        );
        for opaque in [
            "echo $(rm -rf /)",
            "echo `id`",
            "(cd x && ls)",
            "ls > out.txt",
            "cat <<EOF",
            "echo 'unterminated",
            "",
        ] {
            assert!(split(opaque).opaque, "{opaque}");
        }
    }
}
