//! The two things read out of an instruction file's Markdown: its `@path` imports and its block
//! HTML comments.
//!
//! Claude Code (spec §5, [CC:memory]) expands `@path` references "ignored inside code spans and
//! code blocks", and strips block HTML comments before the text reaches the model. An import is
//! an `@` at the start of a line or after white space, followed by a path up to the next white
//! space (`see @docs/style.md.` imports `docs/style.md`: trailing sentence punctuation is not
//! part of the path). A mail address (`me@example.com`) is not an import.

/// The `@path` references of `text`, in order, outside fenced blocks and code spans.
pub fn imports(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut fence: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(open) = &fence {
            if trimmed.starts_with(open.as_str()) {
                fence = None;
            }
            continue;
        }
        if let Some(marker) = fence_marker(trimmed) {
            fence = Some(marker);
            continue;
        }
        imports_of_line(line, &mut found);
    }
    found
}

/// The fence a line opens (three or more backticks or tildes), if it opens one.
fn fence_marker(trimmed: &str) -> Option<String> {
    for mark in ['`', '~'] {
        let count = trimmed.chars().take_while(|c| *c == mark).count();
        if count >= 3 {
            return Some(std::iter::repeat_n(mark, count).collect());
        }
    }
    None
}

/// Adds the imports of one line outside a fence, skipping code spans (`` `like @this` ``).
fn imports_of_line(line: &str, found: &mut Vec<String>) {
    let chars: Vec<char> = line.chars().collect();
    let mut index = 0;
    while index < chars.len() {
        let current = chars[index];
        if current == '`' {
            let ticks = chars[index..].iter().take_while(|c| **c == '`').count();
            match closing_ticks(&chars, index + ticks, ticks) {
                Some(end) => {
                    index = end + ticks;
                    continue;
                }
                None => {
                    index += ticks;
                    continue;
                }
            }
        }
        let starts_word = index == 0 || chars[index - 1].is_whitespace();
        if current == '@' && starts_word {
            let path: String = chars[index + 1..]
                .iter()
                .take_while(|c| !c.is_whitespace() && **c != '`')
                .collect();
            let length = path.chars().count();
            let path = path.trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']']);
            if !path.is_empty() && !path.starts_with('@') {
                found.push(path.to_owned());
            }
            index += 1 + length;
            continue;
        }
        index += 1;
    }
}

/// Where a code span opened with `ticks` backticks closes (the index of its closing run).
fn closing_ticks(chars: &[char], from: usize, ticks: usize) -> Option<usize> {
    let mut index = from;
    while index < chars.len() {
        if chars[index] == '`' {
            let run = chars[index..].iter().take_while(|c| **c == '`').count();
            if run == ticks {
                return Some(index);
            }
            index += run;
        } else {
            index += 1;
        }
    }
    None
}

/// `text` without its block HTML comments: a comment that starts a line (after white space)
/// and runs to its `-->`, over any number of lines. Comments inside fenced blocks and comments
/// within a line of prose stay.
pub fn strip_block_comments(text: &str) -> String {
    let mut kept = String::with_capacity(text.len());
    let mut fence: Option<String> = None;
    let mut in_comment = false;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if in_comment {
            if let Some(end) = line.find("-->") {
                in_comment = false;
                let rest = &line[end + 3..];
                if !rest.trim().is_empty() {
                    kept.push_str(rest);
                }
            }
            continue;
        }
        if let Some(open) = &fence {
            if trimmed.starts_with(open.as_str()) {
                fence = None;
            }
            kept.push_str(line);
            continue;
        }
        if let Some(marker) = fence_marker(trimmed) {
            fence = Some(marker);
            kept.push_str(line);
            continue;
        }
        if let Some(body) = trimmed.strip_prefix("<!--") {
            match body.find("-->") {
                Some(end) => {
                    let rest = &body[end + 3..];
                    if !rest.trim().is_empty() {
                        kept.push_str(rest);
                    }
                }
                None => in_comment = true,
            }
            continue;
        }
        kept.push_str(line);
    }
    kept
}

/// True when `text` says nothing but its imports (a `CLAUDE.md` that is just `@AGENTS.md`).
pub fn only_imports(text: &str) -> bool {
    let imported = imports(text);
    !imported.is_empty()
        && text.split_whitespace().all(|word| {
            word.starts_with('@')
                && imported
                    .iter()
                    .any(|path| word[1..].starts_with(path.as_str()))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_are_found_outside_code_only() {
        let text = "See @docs/style.md. Mail me@example.com.\n\
                    @~/.claude/mine.md\n\
                    Not `@in/span.md` but @after/span.md\n\
                    ```\n@in/fence.md\n```\n\
                    ~~~sh\n@in/tilde.md\n~~~\n\
                    (@/abs/path.md)\n@two @three\n";
        assert_eq!(
            imports(text),
            [
                "docs/style.md",
                "~/.claude/mine.md",
                "after/span.md",
                "two",
                "three"
            ]
        );
    }

    #[test]
    fn block_comments_go_and_inline_ones_stay() {
        let text = "a\n<!-- one line -->\nb <!-- inline --> c\n  <!--\nmany\nlines\n-->\n\
                    ```\n<!-- in a fence -->\n```\nd\n";
        assert_eq!(
            strip_block_comments(text),
            "a\nb <!-- inline --> c\n```\n<!-- in a fence -->\n```\nd\n"
        );
    }

    #[test]
    fn a_file_of_imports_only_is_recognised() {
        assert!(only_imports("@AGENTS.md\n"));
        assert!(only_imports("@AGENTS.md @docs/more.md"));
        assert!(!only_imports("Read @AGENTS.md first"));
        assert!(!only_imports(""));
    }
}
