//! The YAML front matter of other agents' Markdown files (commands, skills, agents).
//!
//! A file may start with `---`, YAML, and `---`; the rest is the body. Parsing is lenient as the
//! Agent Skills client guide asks: when the YAML does not parse, it is tried once more with each
//! `key: value` line's value quoted (the common `description: Use when: x` mistake), and only
//! then reported as a problem. Values come back as JSON values so callers read them with the
//! helpers here ([`FrontMatter::text`], [`FrontMatter::list`], [`FrontMatter::flag`]).

use serde_json::{Map, Value};

/// A Markdown file split into its front matter and body.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FrontMatter {
    /// The fields, empty when the file has no front matter.
    pub fields: Map<String, Value>,
    /// Why the front matter could not be read (the fields are then empty).
    pub problem: Option<String>,
    /// True when the file had a front matter block at all.
    pub present: bool,
}

/// Splits `text` into its front matter and body.
pub fn split(text: &str) -> (FrontMatter, &str) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return (FrontMatter::default(), text);
    };
    let (yaml, body) = match closing_fence(rest) {
        Some((end, after)) => (&rest[..end], &rest[after..]),
        None => return (FrontMatter::default(), text),
    };
    let body = body.trim_start_matches(['\r', '\n']);
    let front = match parse_yaml(yaml)
        .or_else(|first| parse_yaml(&quote_values(yaml)).map_err(|_| first))
    {
        Ok(fields) => FrontMatter {
            fields,
            problem: None,
            present: true,
        },
        Err(problem) => FrontMatter {
            fields: Map::new(),
            problem: Some(problem),
            present: true,
        },
    };
    (front, body)
}

/// The byte offsets of the closing `---` line in `rest`: where the YAML ends and the body starts.
fn closing_fence(rest: &str) -> Option<(usize, usize)> {
    if rest.starts_with("---")
        && rest[3..]
            .trim_start_matches([' ', '\t'])
            .starts_with(['\n', '\r'])
    {
        return Some((0, 3));
    }
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let trimmed = line.trim_end_matches(['\n', '\r']).trim_end();
        if trimmed == "---" && offset > 0 {
            return Some((offset, offset + line.len()));
        }
        offset += line.len();
    }
    None
}

fn parse_yaml(yaml: &str) -> Result<Map<String, Value>, String> {
    if yaml.trim().is_empty() {
        return Ok(Map::new());
    }
    let value: Value = serde_yaml_ng::from_str(yaml).map_err(|error| error.to_string())?;
    match value {
        Value::Object(fields) => Ok(fields),
        Value::Null => Ok(Map::new()),
        _ => Err("the front matter is not a list of `key: value` fields".into()),
    }
}

/// `key: value: more` lines with the value quoted, for the lenient second try.
fn quote_values(yaml: &str) -> String {
    yaml.lines()
        .map(|line| {
            let Some((key, value)) = line.split_once(':') else {
                return line.to_owned();
            };
            let value = value.trim();
            let simple_key = !key.starts_with([' ', '\t', '-'])
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'));
            if !simple_key || value.is_empty() || value.starts_with(['"', '\'', '[', '{', '|', '>'])
            {
                return line.to_owned();
            }
            format!(
                "{key}: \"{}\"",
                value.replace('\\', "\\\\").replace('"', "\\\"")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

impl FrontMatter {
    /// A text field (numbers and booleans as written), `None` when absent or not text-like.
    pub fn text(&self, key: &str) -> Option<String> {
        match self.fields.get(key)? {
            Value::String(text) => Some(text.trim().to_owned()),
            Value::Number(number) => Some(number.to_string()),
            Value::Bool(flag) => Some(flag.to_string()),
            _ => None,
        }
    }

    /// A list field: a YAML list, or a string of items separated by commas or spaces
    /// (`allowed-tools: Bash(git add:*), Read` or `tools: Read Grep`). Commas and spaces inside
    /// parentheses stay in their item.
    pub fn list(&self, key: &str) -> Option<Vec<String>> {
        match self.fields.get(key)? {
            Value::Array(items) => Some(
                items
                    .iter()
                    .filter_map(|item| match item {
                        Value::String(text) => Some(text.trim().to_owned()),
                        Value::Null => None,
                        other => Some(other.to_string()),
                    })
                    .filter(|item| !item.is_empty())
                    .collect(),
            ),
            Value::String(text) => Some(split_list(text)),
            _ => None,
        }
    }

    /// A yes/no field: YAML booleans and `yes/no/on/off/1/0/true/false` written as text.
    pub fn flag(&self, key: &str) -> Option<bool> {
        match self.fields.get(key)? {
            Value::Bool(flag) => Some(*flag),
            Value::Number(number) => number.as_i64().map(|n| n != 0),
            Value::String(text) => match text.trim().to_ascii_lowercase().as_str() {
                "yes" | "on" | "true" | "1" => Some(true),
                "no" | "off" | "false" | "0" => Some(false),
                _ => None,
            },
            _ => None,
        }
    }
}

/// Items separated by commas or whitespace, outside parentheses.
pub fn split_list(text: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => {
                depth += 1;
                current.push(c);
            }
            ')' => {
                depth = depth.saturating_sub(1);
                current.push(c);
            }
            ',' if depth == 0 => items.push(std::mem::take(&mut current)),
            c if c.is_whitespace() && depth == 0 => items.push(std::mem::take(&mut current)),
            c => current.push(c),
        }
    }
    items.push(current);
    items
        .into_iter()
        .map(|item| item.trim().to_owned())
        .filter(|item| !item.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_and_body_are_split() {
        let (front, body) =
            split("---\ndescription: Review a file\nargument-hint: [file]\n---\nBody $ARGUMENTS\n");
        assert!(front.present);
        assert_eq!(front.text("description").as_deref(), Some("Review a file"));
        assert_eq!(front.list("argument-hint"), Some(vec!["file".into()]));
        assert_eq!(body, "Body $ARGUMENTS\n");
    }

    #[test]
    fn no_front_matter_leaves_the_text_whole() {
        let (front, body) = split("# Title\ntext");
        assert!(!front.present);
        assert_eq!(body, "# Title\ntext");
        let (front, body) = split("---\nnot closed");
        assert!(!front.present);
        assert_eq!(body, "---\nnot closed");
    }

    #[test]
    fn an_unquoted_colon_is_read_on_the_second_try() {
        let (front, _) = split("---\nname: pdf\ndescription: Use when: PDFs are involved\n---\nx");
        assert_eq!(front.problem, None);
        assert_eq!(
            front.text("description").as_deref(),
            Some("Use when: PDFs are involved")
        );
    }

    #[test]
    fn broken_yaml_is_a_problem_not_a_panic() {
        let (front, body) = split("---\nname: [unclosed\n---\nbody");
        assert!(front.present);
        assert!(front.problem.is_some());
        assert!(front.fields.is_empty());
        assert_eq!(body, "body");
    }

    #[test]
    fn lists_and_flags_read_every_documented_form() {
        let (front, _) = split(
            "---\nallowed-tools: Bash(git add:*), Bash(git status:*) Read\ntools: [Read, Grep]\ndisable-model-invocation: yes\nuser-invocable: false\n---\n",
        );
        assert_eq!(
            front.list("allowed-tools").unwrap(),
            vec!["Bash(git add:*)", "Bash(git status:*)", "Read"]
        );
        assert_eq!(front.list("tools").unwrap(), vec!["Read", "Grep"]);
        assert_eq!(front.flag("disable-model-invocation"), Some(true));
        assert_eq!(front.flag("user-invocable"), Some(false));
        assert_eq!(front.flag("missing"), None);
    }

    #[test]
    fn an_empty_front_matter_is_present_and_empty() {
        let (front, body) = split("---\n---\nbody");
        assert!(front.present);
        assert!(front.fields.is_empty());
        assert_eq!(body, "body");
    }
}
