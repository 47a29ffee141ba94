//! Redaction of secret-looking values before anything reaches the database.
//!
//! Tool arguments and results can carry credentials: a `curl -H "Authorization: Bearer ..."`
//! command, an `env` map, the excerpt of a `.env` file. The audit log must not become a second
//! copy of them. Two rules, applied to the JSON arguments and to every text the audit keeps:
//!
//! - a value under a key whose name says it is secret (`api_key`, `token`, `password`,
//!   `Authorization`, ... in any case, nested objects and arrays included) becomes
//!   [`REDACTED`];
//! - a string that looks like a credential (`sk-...`, `ghp_...`, `xoxb-...`, `AKIA...`, a JWT,
//!   the word after `Bearer`, the value in `API_KEY=...`, a PEM private key) has that part
//!   replaced by [`REDACTED`].
//!
//! The rules err on the side of hiding: an audit row that says `[redacted]` where nothing was
//! secret costs little; a key in a log file costs a rotation.

use std::borrow::Cow;

use serde_json::Value;

/// What a redacted value becomes.
pub const REDACTED: &str = "[redacted]";

/// Words that make a key name secret (`api_key`, `X-Auth-Token`, `clientSecret`).
const SECRET_WORDS: &[&str] = &[
    "key",
    "token",
    "secret",
    "secrets",
    "password",
    "passwd",
    "passphrase",
    "authorization",
    "auth",
    "credential",
    "credentials",
    "apikey",
    "cookie",
];

/// Runs of letters that make a key name secret wherever they stand (`APIKEY`, `dbPassword`).
const SECRET_PARTS: &[&str] = &[
    "apikey",
    "accesskey",
    "secretkey",
    "privatekey",
    "password",
    "passwd",
    "secret",
    "credential",
    "authorization",
    "accesstoken",
    "authtoken",
    "refreshtoken",
];

/// The JSON `value` with every secret-looking part replaced by [`REDACTED`].
pub fn redact_value(value: &Value) -> Value {
    match value {
        Value::Object(map) => map
            .iter()
            .map(|(key, item)| {
                let item = if is_secret_key(key) && !item.is_null() {
                    Value::String(REDACTED.to_owned())
                } else {
                    redact_value(item)
                };
                (key.clone(), item)
            })
            .collect(),
        Value::Array(items) => items.iter().map(redact_value).collect(),
        Value::String(text) => Value::String(redact_text(text).into_owned()),
        other => other.clone(),
    }
}

/// True when a key's name says its value is secret.
pub fn is_secret_key(key: &str) -> bool {
    let words = key_words(key);
    if words
        .iter()
        .any(|word| SECRET_WORDS.contains(&word.as_str()))
    {
        return true;
    }
    let joined = words.concat();
    SECRET_PARTS.iter().any(|part| joined.contains(part))
}

/// `OPENAI_API_KEY` → `openai api key`; `accessToken` → `access token`; `APIKey` → `apikey`.
fn key_words(key: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut after_lower = false;
    for c in key.chars() {
        if !c.is_alphanumeric() {
            words.extend((!word.is_empty()).then(|| std::mem::take(&mut word)));
            after_lower = false;
            continue;
        }
        if c.is_uppercase() && after_lower {
            words.push(std::mem::take(&mut word));
        }
        word.extend(c.to_lowercase());
        after_lower = c.is_lowercase() || c.is_ascii_digit();
    }
    words.extend((!word.is_empty()).then_some(word));
    words
}

/// `text` with every credential-looking part replaced by [`REDACTED`].
pub fn redact_text(text: &str) -> Cow<'_, str> {
    let text = redact_private_keys(text);
    let tokens = token_spans(&text);
    let mut hidden: Vec<(usize, usize)> = Vec::new();
    for (index, &(start, end)) in tokens.iter().enumerate() {
        if hidden
            .last()
            .is_some_and(|&(_, hidden_end)| start < hidden_end)
        {
            continue;
        }
        let token = &text[start..end];
        if looks_like_credential(token) {
            hidden.push((start, end));
            continue;
        }
        let Some(&(prev_start, prev_end)) = index.checked_sub(1).and_then(|i| tokens.get(i)) else {
            continue;
        };
        let previous = &text[prev_start..prev_end];
        let between = &text[prev_end..start];
        if is_auth_scheme(previous) && between.chars().all(char::is_whitespace) && end - start >= 8
        {
            hidden.push((start, end));
        } else if is_secret_key(previous) && is_assignment(between) {
            // A quoted value is hidden up to its closing quote, spaces and all.
            let quote = between.trim_end().chars().last().filter(|c| is_quote(*c));
            let value_end = quote
                .and_then(|q| text[start..].find(q).map(|offset| start + offset))
                .unwrap_or(end);
            hidden.push((start, value_end.max(end)));
        }
    }
    if hidden.is_empty() {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for (start, end) in hidden {
        out.push_str(&text[copied..start]);
        out.push_str(REDACTED);
        copied = end;
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// Characters of a word that could be (part of) a credential.
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+' | '/')
}

fn is_quote(c: char) -> bool {
    matches!(c, '"' | '\'' | '`')
}

/// Byte ranges of the runs of token characters.
fn token_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (index, c) in text.char_indices() {
        match (is_token_char(c), start) {
            (true, None) => start = Some(index),
            (false, Some(begun)) => {
                spans.push((begun, index));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(begun) = start {
        spans.push((begun, text.len()));
    }
    spans
}

/// `Bearer`, `Basic`, `token` as in an HTTP Authorization header.
fn is_auth_scheme(word: &str) -> bool {
    ["bearer", "basic", "token"]
        .iter()
        .any(|scheme| word.eq_ignore_ascii_case(scheme))
}

/// What stands between a key and its value: `=`, `:`, `: "`, `= '`, `:=`, `=>`.
fn is_assignment(between: &str) -> bool {
    let core = between.trim_matches(|c: char| c.is_whitespace() || is_quote(c));
    matches!(core, "=" | ":" | ":=" | "=>")
}

/// True for a word shaped like a known kind of credential.
pub fn looks_like_credential(token: &str) -> bool {
    let token = token.trim_end_matches('.');
    let alnum = |c: char| c.is_ascii_alphanumeric();
    let alnum_dash = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let rest = |prefix: &str, min: usize, allowed: &dyn Fn(char) -> bool| {
        token
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.len() >= min && rest.chars().all(allowed))
    };
    if let Some(body) = token.strip_prefix("sk-") {
        // OpenAI and Anthropic keys; a word like `sk-learn-notes` has no digits.
        return body.len() >= 20
            && body.chars().all(alnum_dash)
            && body.chars().any(|c| c.is_ascii_digit())
            && body.chars().any(|c| c.is_ascii_alphabetic());
    }
    let github = ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]
        .iter()
        .any(|prefix| rest(prefix, 20, &alnum));
    let slack = ["xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-"]
        .iter()
        .any(|prefix| rest(prefix, 10, &alnum_dash));
    let stripe = ["sk_live_", "sk_test_", "rk_live_", "rk_test_"]
        .iter()
        .any(|prefix| rest(prefix, 16, &alnum));
    let aws = (token.starts_with("AKIA") || token.starts_with("ASIA"))
        && token.len() == 20
        && token
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
    let jwt = token.starts_with("eyJ") && {
        let parts: Vec<&str> = token.split('.').collect();
        parts.len() == 3
            && parts
                .iter()
                .all(|p| p.len() >= 4 && p.chars().all(alnum_dash))
    };
    github
        || slack
        || stripe
        || aws
        || jwt
        || rest("github_pat_", 20, &alnum_dash)
        || rest("glpat-", 20, &alnum_dash)
        || rest("AIza", 30, &alnum_dash)
        || rest("hf_", 30, &alnum)
        || rest("npm_", 30, &alnum)
        || rest("pypi-", 50, &alnum_dash)
}

/// Hides PEM private key blocks (to their END line, or to the end of a cut excerpt).
fn redact_private_keys(text: &str) -> Cow<'_, str> {
    const BEGIN: &str = "-----BEGIN ";
    let mut out: Option<String> = None;
    let mut rest = text;
    while let Some(begin) = rest.find(BEGIN) {
        let header_end = rest[begin + BEGIN.len()..]
            .find("-----")
            .map(|i| begin + BEGIN.len() + i);
        let Some(header_end) = header_end else { break };
        let label = &rest[begin + BEGIN.len()..header_end];
        let body_start = header_end + "-----".len();
        if !label.ends_with("PRIVATE KEY") {
            out.get_or_insert_with(String::new)
                .push_str(&rest[..body_start]);
            rest = &rest[body_start..];
            continue;
        }
        let end_marker = format!("-----END {label}-----");
        let block_end = rest[body_start..]
            .find(&end_marker)
            .map_or(rest.len(), |i| body_start + i + end_marker.len());
        let buffer = out.get_or_insert_with(String::new);
        buffer.push_str(&rest[..begin]);
        buffer.push_str(REDACTED);
        rest = &rest[block_end..];
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut buffer) => {
            buffer.push_str(rest);
            Cow::Owned(buffer)
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const OPENAI: &str = "sk-proj-4f9A8b7C6d5E4f3G2h1I0jKlMnOpQr";
    const GITHUB: &str = "ghp_1234567890abcdefghijABCDEFGHIJ123456";

    #[test]
    fn secret_key_names_are_recognised_in_any_spelling() {
        for key in [
            "api_key",
            "apiKey",
            "APIKey",
            "OPENAI_API_KEY",
            "x-api-key",
            "token",
            "accessToken",
            "Authorization",
            "password",
            "db_passwd",
            "clientSecret",
            "credentials",
            "private_key",
            "auth",
        ] {
            assert!(is_secret_key(key), "{key}");
        }
        for key in [
            "path",
            "command",
            "max_tokens",
            "keyword",
            "author",
            "content",
            "monkey",
        ] {
            assert!(!is_secret_key(key), "{key}");
        }
    }

    #[test]
    fn values_under_secret_keys_are_hidden_at_any_depth() {
        let arguments = json!({
            "path": "src/main.rs",
            "api_key": "plain-looking",
            "headers": {"Authorization": "anything", "Accept": "text/plain"},
            "env": [{"name": "X", "GITHUB_TOKEN": 12345}],
            "password": null,
            "nested": {"credentials": {"user": "me", "pass": "x"}},
        });
        let redacted = redact_value(&arguments);
        assert_eq!(
            redacted,
            json!({
                "path": "src/main.rs",
                "api_key": REDACTED,
                "headers": {"Authorization": REDACTED, "Accept": "text/plain"},
                "env": [{"name": "X", "GITHUB_TOKEN": REDACTED}],
                "password": null,
                "nested": {"credentials": REDACTED},
            })
        );
    }

    #[test]
    fn credential_shaped_strings_are_hidden_wherever_they_are() {
        let arguments = json!({
            "command": format!("curl -H 'Authorization: Bearer {OPENAI}' https://x"),
            "list": [OPENAI, "ok"],
            "note": format!("use {GITHUB}."),
        });
        let redacted = redact_value(&arguments);
        assert_eq!(
            redacted,
            json!({
                "command": "curl -H 'Authorization: [redacted] [redacted]' https://x",
                "list": [REDACTED, "ok"],
                "note": "use [redacted]",
            })
        );
    }

    #[test]
    fn known_credential_shapes() {
        let yes = [
            OPENAI,
            "sk-ant-api03-abcdefghij0123456789",
            GITHUB,
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
            "xoxb-123456789012-abcdefghij",
            "AKIAIOSFODNN7EXAMPLE",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlX2hlcmU",
            "glpat-abcdefghij0123456789",
            "AIzaSyA1234567890abcdefghijklmnopqrstu",
            "sk_live_0123456789abcdef",
        ];
        for token in yes {
            assert!(looks_like_credential(token), "{token}");
        }
        let no = [
            "sk-learn-notes-for-the-project",
            "sk-short1",
            "ghp_short",
            "AKIAlower0000000000",
            "src/main.rs",
            "eyJ",
            "hello",
        ];
        for token in no {
            assert!(!looks_like_credential(token), "{token}");
        }
    }

    #[test]
    fn assignments_of_secret_names_are_hidden_in_text() {
        let cases = [
            (
                "OPENAI_API_KEY=abc123 other=1",
                "OPENAI_API_KEY=[redacted] other=1",
            ),
            (
                "password: hunter2\nuser: me",
                "password: [redacted]\nuser: me",
            ),
            (
                r#"{"token": "two words", "a": 1}"#,
                r#"{"token": "[redacted]", "a": 1}"#,
            ),
            (
                "export DB_PASSWORD='s3cr et'",
                "export DB_PASSWORD='[redacted]'",
            ),
            (
                "Authorization: Basic dXNlcjpwYXNz",
                "Authorization: [redacted] [redacted]",
            ),
            ("the key is fine", "the key is fine"),
        ];
        for (text, expected) in cases {
            assert_eq!(redact_text(text), expected, "{text}");
        }
    }

    #[test]
    fn private_key_blocks_are_hidden() {
        let text = "before\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----\nafter";
        assert_eq!(redact_text(text), "before\n[redacted]\nafter");
        let cut = "x -----BEGIN RSA PRIVATE KEY-----\nMIIEow";
        assert_eq!(redact_text(cut), "x [redacted]");
        let public = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";
        assert_eq!(redact_text(public), public);
    }

    #[test]
    fn text_without_secrets_is_borrowed_unchanged() {
        let text = "cargo test -p gantry-store -- --nocapture";
        assert!(matches!(redact_text(text), Cow::Borrowed(t) if t == text));
    }
}
