//! What a notification says, in English or Simplified Chinese, as plain text.
//!
//! The sentences are the UI's: they live in its locale catalogs (`ui/src/lib/locales/en.ts`
//! and `zh-CN.ts`, the keys under `notification.`), which are built into the engine and read
//! here ([`sentence`]), so each sentence is written and translated once. A test checks that
//! every key the engine needs is in both catalogs with the placeholders it fills.
//!
//! The language is the UI's (the webview says which it shows), else the system's, chosen the way
//! the UI chooses (`localeFor` in `ui/src/lib/i18n.svelte.ts`): any Chinese reads the Simplified
//! sentences, anything else English. Every piece that comes from elsewhere (the project's folder
//! name, the session's title, a tool's name, an error's message) is cut to one short line with
//! control characters removed, and words that look like keys or tokens are left out, so a
//! notification never carries a secret from a provider's error, and never more than a line of
//! anything.

use std::collections::HashMap;
use std::sync::LazyLock;

use super::decide::Happening;

/// The languages notifications are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Locale {
    /// English.
    En,
    /// Simplified Chinese.
    ZhCn,
}

/// The language for preferred language tags (BCP 47 or POSIX, preferred first).
pub fn locale_for<S: AsRef<str>>(tags: &[S]) -> Locale {
    for tag in tags {
        let lower = tag.as_ref().to_ascii_lowercase();
        if lower == "zh" || lower.starts_with("zh-") || lower.starts_with("zh_") {
            return Locale::ZhCn;
        }
        if lower == "en" || lower.starts_with("en-") || lower.starts_with("en_") {
            return Locale::En;
        }
    }
    Locale::En
}

/// A notification's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    /// The first line: the project's name.
    pub summary: String,
    /// What happened, in which session.
    pub body: String,
    /// The label of the notification's default action (shown by servers that show actions).
    pub action: String,
}

/// The longest project name or session title shown, in characters.
const NAME_CHARS: usize = 60;
/// The longest failure reason shown, in characters.
const REASON_CHARS: usize = 100;

/// The words of a notification about `what` in session `title` of project `project`.
pub fn text(locale: Locale, project: &str, title: &str, what: &Happening) -> Text {
    let project = one_line(project, NAME_CHARS);
    let title = one_line(title, NAME_CHARS);
    let title = if title.is_empty() {
        sentence(locale, "notification.newSession").to_owned()
    } else {
        title
    };
    let title = ("title", title.as_str());
    let body = match what {
        Happening::Finished => fill(sentence(locale, "notification.finished"), &[title]),
        Happening::StepLimit => fill(sentence(locale, "notification.stepLimit"), &[title]),
        Happening::Failed { reason } => {
            let unknown = sentence(locale, "notification.unknownError");
            let reason = reason_or(reason, unknown);
            let template = sentence(locale, "notification.failed");
            fill(template, &[title, ("reason", &reason)])
        }
        Happening::Approval { tool } => {
            let tool = one_line(tool, NAME_CHARS);
            let template = sentence(locale, "notification.approval");
            fill(template, &[title, ("tool", &tool)])
        }
        Happening::Question => fill(sentence(locale, "notification.question"), &[title]),
    };
    Text {
        summary: if project.is_empty() {
            "Gantry".to_owned()
        } else {
            project
        },
        body,
        action: sentence(locale, "notification.show").to_owned(),
    }
}

/// The UI's catalogs, as they were when the engine was built.
const CATALOGS: [(Locale, &str); 2] = [
    (
        Locale::En,
        include_str!("../../../../ui/src/lib/locales/en.ts"),
    ),
    (
        Locale::ZhCn,
        include_str!("../../../../ui/src/lib/locales/zh-CN.ts"),
    ),
];

/// The notification sentences of each catalog, read once.
static SENTENCES: LazyLock<HashMap<Locale, HashMap<String, String>>> = LazyLock::new(|| {
    CATALOGS
        .iter()
        .map(|(locale, catalog)| (*locale, notification_entries(catalog)))
        .collect()
});

/// The sentence under `key` in `locale`'s catalog (the key itself if it is missing, which a
/// test rules out).
fn sentence(locale: Locale, key: &'static str) -> &'static str {
    SENTENCES
        .get(&locale)
        .and_then(|entries| entries.get(key))
        .map_or(key, String::as_str)
}

/// The entries under `notification.` of a catalog's source: each a line `"key": "sentence",`
/// (the sentence a JSON-compatible string literal).
fn notification_entries(catalog: &str) -> HashMap<String, String> {
    catalog
        .lines()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix('"')?;
            let (key, rest) = rest.split_once('"')?;
            if !key.starts_with("notification.") {
                return None;
            }
            let literal = rest.trim_start().strip_prefix(':')?.trim();
            let literal = literal.strip_suffix(',').unwrap_or(literal);
            let sentence = serde_json::from_str::<String>(literal).ok()?;
            Some((key.to_owned(), sentence))
        })
        .collect()
}

/// `template` with each `{name}` of `values` replaced by its value, in one pass (as the UI's
/// `t` fills them: a value's own braces stay as they are); an unknown one stays visible.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut filled = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        filled.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let value = after.find('}').and_then(|close| {
            let name = &after[..close];
            let (_, value) = values.iter().find(|(known, _)| *known == name)?;
            Some((value, close))
        });
        match value {
            Some((value, close)) => {
                filled.push_str(value);
                rest = &after[close + 1..];
            }
            None => {
                filled.push('{');
                rest = after;
            }
        }
    }
    filled.push_str(rest);
    filled
}

/// The reason cut short with likely secrets left out, or `fallback` when nothing is left.
fn reason_or(reason: &str, fallback: &str) -> String {
    let words: Vec<&str> = reason
        .split(' ')
        .map(|word| if looks_secret(word) { "…" } else { word })
        .collect();
    let shown = one_line(&words.join(" "), REASON_CHARS);
    if shown.is_empty() {
        fallback.to_owned()
    } else {
        shown
    }
}

/// A word that could be a key or a token ([`gantry_tools::is_secret_word`]).
fn looks_secret(word: &str) -> bool {
    gantry_tools::is_secret_word(word)
}

/// The first line of `text`, control characters removed, spaces collapsed, at most `max`
/// characters (cut with an ellipsis).
pub fn one_line(text: &str, max: usize) -> String {
    let line = text
        .lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or("");
    let cleaned: String = line
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let collapsed = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() <= max {
        return collapsed;
    }
    let mut cut: String = collapsed.chars().take(max.saturating_sub(1)).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    cut
}

/// `text` with the three characters freedesktop body markup gives meaning escaped, for a
/// server that interprets markup (its capabilities list `body-markup`): the body then shows as
/// the plain text it is.
pub fn escape_markup(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            other => escaped.push(other),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_language_follows_the_first_tag_the_app_is_written_in() {
        assert_eq!(locale_for(&["zh-CN"]), Locale::ZhCn);
        assert_eq!(locale_for(&["zh_TW.UTF-8"]), Locale::ZhCn);
        assert_eq!(locale_for(&["fr-FR", "zh"]), Locale::ZhCn);
        assert_eq!(locale_for(&["en_US.UTF-8", "zh-CN"]), Locale::En);
        assert_eq!(locale_for(&["de"]), Locale::En);
        assert_eq!(locale_for::<&str>(&[]), Locale::En);
    }

    #[test]
    fn each_happening_reads_in_both_languages() {
        let cases = [
            (
                Happening::Finished,
                "“Fix the build” finished.",
                "“Fix the build”已完成。",
            ),
            (
                Happening::Failed {
                    reason: "HTTP 500: upstream down".into(),
                },
                "“Fix the build” failed: HTTP 500: upstream down",
                "“Fix the build”失败：HTTP 500: upstream down",
            ),
            (
                Happening::Approval {
                    tool: "write_file".into(),
                },
                "“Fix the build” waits for your approval: write_file",
                "“Fix the build”等待你批准：write_file",
            ),
            (
                Happening::Question,
                "“Fix the build” asks you a question.",
                "“Fix the build”向你提了一个问题。",
            ),
            (
                Happening::StepLimit,
                "“Fix the build” stopped at the step limit.",
                "“Fix the build”达到步数上限，已停止。",
            ),
        ];
        for (what, en, zh) in cases {
            let english = text(Locale::En, "demo", "Fix the build", &what);
            assert_eq!(english.summary, "demo");
            assert_eq!(english.body, en);
            assert_eq!(english.action, "Show");
            let chinese = text(Locale::ZhCn, "demo", "Fix the build", &what);
            assert_eq!(chinese.body, zh);
            assert_eq!(chinese.action, "查看");
        }
    }

    #[test]
    fn outside_words_are_one_short_line() {
        let title = format!("first line\twith a tab\nsecond line {}", "x".repeat(100));
        let shown = text(Locale::En, "p\u{7}roject", &title, &Happening::Finished);
        assert_eq!(shown.summary, "p roject");
        assert_eq!(shown.body, "“first line with a tab” finished.");
        let long = "y".repeat(200);
        let cut = one_line(&long, 60);
        assert_eq!(cut.chars().count(), 60);
        assert!(cut.ends_with('…'));
        assert_eq!(
            text(Locale::En, "", "", &Happening::Question).summary,
            "Gantry"
        );
        assert_eq!(
            text(Locale::En, "p", "  ", &Happening::Question).body,
            "“New session” asks you a question."
        );
    }

    #[test]
    fn a_failure_reason_leaves_out_what_looks_like_a_key() {
        let reason = "HTTP 401: Incorrect API key provided: sk-proj-abc123XYZ. You can find \
                      your key; token ghp_16C7e42F292c6912E7710c838347Ae178B4a given";
        let shown = text(
            Locale::En,
            "demo",
            "t",
            &Happening::Failed {
                reason: reason.into(),
            },
        );
        assert!(!shown.body.contains("sk-proj"), "{}", shown.body);
        assert!(!shown.body.contains("ghp_"), "{}", shown.body);
        assert!(
            shown.body.contains("Incorrect API key provided: …"),
            "{}",
            shown.body
        );
        assert!(shown.body.chars().count() < 140, "{}", shown.body);
        let opaque = "a1b2c3d4e5f6a7b8c9d0e1f2a3b4";
        let empty = text(
            Locale::En,
            "demo",
            "t",
            &Happening::Failed {
                reason: "\n".into(),
            },
        );
        assert_eq!(empty.body, "“t” failed: unknown error");
        assert!(looks_secret(opaque));
        assert!(!looks_secret("internationalization"));
        assert!(!looks_secret("HTTP"));
    }

    #[test]
    fn markup_characters_are_escaped_for_a_markup_server() {
        assert_eq!(
            escape_markup("<b>bold</b> & more"),
            "&lt;b&gt;bold&lt;/b&gt; &amp; more"
        );
    }

    /// Each sentence the engine writes, with the placeholders it fills.
    const NEEDED: [(&str, &[&str]); 8] = [
        ("notification.finished", &["title"]),
        ("notification.stepLimit", &["title"]),
        ("notification.failed", &["reason", "title"]),
        ("notification.approval", &["title", "tool"]),
        ("notification.question", &["title"]),
        ("notification.newSession", &[]),
        ("notification.unknownError", &[]),
        ("notification.show", &[]),
    ];

    /// The `{placeholders}` of `sentence`, sorted (as the UI's `placeholders` lists them).
    fn placeholders(sentence: &str) -> Vec<&str> {
        let mut names: Vec<&str> = sentence
            .split('{')
            .skip(1)
            .filter_map(|part| part.split_once('}').map(|(name, _)| name))
            .collect();
        names.sort_unstable();
        names
    }

    #[test]
    fn both_catalogs_hold_every_sentence_with_the_placeholders_the_engine_fills() {
        for (locale, catalog) in CATALOGS {
            let entries = notification_entries(catalog);
            assert_eq!(entries.len(), NEEDED.len(), "{locale:?}: {entries:?}");
            for (key, names) in NEEDED {
                let sentence = entries.get(key);
                assert!(sentence.is_some(), "{locale:?} lacks {key}");
                let sentence = sentence.map_or("", String::as_str);
                assert!(!sentence.trim().is_empty(), "{locale:?}: {key}");
                assert_eq!(placeholders(sentence), names, "{locale:?}: {key}");
                assert_eq!(super::sentence(locale, key), sentence);
            }
        }
    }

    #[test]
    fn a_catalog_line_is_read_as_its_key_and_sentence() {
        let catalog = r#"
  "notification.a": "“{title}” said \"hi\"",
  "notification.b": "last, no comma"
  "other.key": "not ours",
  // "notification.c": a comment
"#;
        let entries = notification_entries(catalog);
        assert_eq!(entries.len(), 2, "{entries:?}");
        assert_eq!(entries["notification.a"], "“{title}” said \"hi\"");
        assert_eq!(entries["notification.b"], "last, no comma");
    }

    #[test]
    fn placeholders_are_filled_once_and_unknown_ones_stay() {
        let values = [("title", "{tool} & {title}"), ("tool", "t")];
        assert_eq!(
            fill("“{title}”: {tool} {other} {", &values),
            "“{tool} & {title}”: t {other} {"
        );
    }
}
