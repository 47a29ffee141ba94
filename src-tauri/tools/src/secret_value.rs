//! Whether an environment variable's *value* is a credential, whatever the variable is called.
//!
//! Names catch the conventions (`*_TOKEN`, `*_PASSWORD`, see [`crate::secret_env`]), but many
//! credentials live in variables named for what they point at: `DATABASE_URL=postgres://app:
//! hunter2@db/app`, `REDIS_URL=redis://:pw@cache`, `SENTRY_DSN=https://<key>@o1.ingest.sentry.io/1`,
//! `SLACK_WEBHOOK_URL=https://hooks.slack.com/services/...`, `DOCKER_AUTH_CONFIG={"auths":...}`,
//! `CI_JOB_JWT=eyJhbGciOi...`. So values are looked at too, for shapes that only credentials
//! have:
//!
//! - a URL (anywhere in the value, so lists of URLs count) whose user info has a password
//!   (`scheme://user:pass@host`, `redis://:pass@host`), or whose user name alone is a long
//!   token (a Sentry DSN, `https://ghp_...@github.com`);
//! - a URL whose query carries a token, key or signature (`?token=`, `access_token=`, `key=`,
//!   `sig=`, `X-Amz-Signature=`, any parameter ending in `_token`, `_key`, `_secret`);
//! - a Slack, Discord or Microsoft Teams webhook URL (the URL is the credential);
//! - a JSON Web Token: three base64url segments whose first decodes to a JSON object with `alg`;
//! - a JSON value with a non-empty credential field (`auth`, `auths`, `password`, `token`,
//!   `secret`, `credentials`, `*_token`, ...) at any depth, or with a string that is a secret by
//!   these rules;
//! - a PEM private key.
//!
//! What stays: plain URLs (`https://example.com`, `postgres://localhost/db`,
//! `postgres://app@localhost/db`), paths, locales, log filters. The rules look for shapes, not
//! for entropy, so a random-looking but harmless value is kept and a credential in a shape not
//! listed here is missed; names remain the first line.

use base64::Engine;
use serde_json::Value;

/// A user name alone in a URL is taken as a token from this many characters on.
const TOKEN_USER_CHARS: usize = 20;

/// JSON is not parsed beyond this depth (a value nested deeper counts as a secret).
const MAX_JSON_DEPTH: usize = 32;

/// Query parameter names (lower case, `-` as `_`) that carry a credential.
const SECRET_PARAMS: &[&str] = &[
    "key",
    "apikey",
    "sig",
    "signature",
    "token",
    "auth",
    "password",
    "passwd",
    "pass",
    "pwd",
    "secret",
    "x_amz_credential",
    "x_goog_credential",
];

/// Endings of query parameter names that carry a credential.
const SECRET_PARAM_ENDINGS: &[&str] = &["_token", "_key", "_secret", "password", "signature"];

/// Places whose URLs are credentials by themselves (lower case).
const WEBHOOK_MARKERS: &[&str] = &[
    "hooks.slack.com/services/",
    "hooks.slack.com/workflows/",
    "hooks.slack.com/triggers/",
    "discord.com/api/webhooks/",
    "discordapp.com/api/webhooks/",
    "webhook.office.com/",
    "outlook.office.com/webhook",
];

/// JSON field names (lower case) whose non-empty value is a credential.
const SECRET_FIELDS: &[&str] = &[
    "auth",
    "auths",
    "authorization",
    "password",
    "passwd",
    "token",
    "secret",
    "credentials",
    "credential",
    "apikey",
    "api_key",
    "private_key",
    "identitytoken",
    "registrytoken",
    "client_secret",
];

/// Endings of JSON field names whose non-empty value is a credential.
const SECRET_FIELD_ENDINGS: &[&str] = &["token", "password", "secret", "_key"];

/// True when `value` has the shape of a credential (see the module docs).
pub fn is_secret_value(value: &str) -> bool {
    let value = value.trim();
    if value.is_empty() {
        return false;
    }
    let lower = value.to_ascii_lowercase();
    WEBHOOK_MARKERS.iter().any(|marker| lower.contains(marker))
        || (value.contains("-----BEGIN") && value.contains("PRIVATE KEY-----"))
        || urls(value).any(url_has_credentials)
        || value.split(|c| !is_token_char(c)).any(is_jwt)
        || is_auth_json(value)
}

/// The URLs in `value`: from each scheme (`letters://`) to the next separator.
fn urls(value: &str) -> impl Iterator<Item = &str> {
    value.match_indices("://").filter_map(move |(at, _)| {
        let scheme_start = value[..at]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
            .map_or(0, |i| i + 1);
        let scheme = &value[scheme_start..at];
        if !scheme.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return None;
        }
        let rest = &value[at + 3..];
        let end = rest
            .find(|c: char| c.is_whitespace() || matches!(c, ',' | '"' | '\'' | '<' | '>'))
            .unwrap_or(rest.len());
        Some(&rest[..end])
    })
}

/// `url` is what follows `scheme://`: credentials in the user info or in the query.
fn url_has_credentials(url: &str) -> bool {
    let authority_end = url.find(['/', '?', '#']).unwrap_or(url.len());
    let authority = &url[..authority_end];
    if let Some((userinfo, _host)) = authority.rsplit_once('@') {
        match userinfo.split_once(':') {
            Some((_, password)) if !password.is_empty() => return true,
            Some(_) => {}
            None => {
                if userinfo.len() >= TOKEN_USER_CHARS && userinfo.chars().all(is_token_char) {
                    return true;
                }
            }
        }
    }
    let rest = &url[authority_end..];
    let Some(query_start) = rest.find('?') else {
        return false;
    };
    let query = &rest[query_start + 1..];
    let query = query.split('#').next().unwrap_or_default();
    query
        .split(['&', ';'])
        .any(|pair| match pair.split_once('=') {
            Some((name, value)) => !value.is_empty() && is_secret_param(name),
            None => false,
        })
}

fn is_secret_param(name: &str) -> bool {
    let name = name.to_ascii_lowercase().replace('-', "_");
    SECRET_PARAMS.contains(&name.as_str())
        || SECRET_PARAM_ENDINGS
            .iter()
            .any(|ending| name.ends_with(ending))
}

/// Characters of base64url, JWT segments and tokens.
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')
}

/// `header.payload.signature` in base64url, the header a JSON object with `alg` (the
/// signature may be empty: an unsigned token is still a bearer credential).
fn is_jwt(candidate: &str) -> bool {
    let mut segments = candidate.split('.');
    let (Some(header), Some(payload), Some(_signature), None) = (
        segments.next(),
        segments.next(),
        segments.next(),
        segments.next(),
    ) else {
        return false;
    };
    if header.is_empty() || payload.is_empty() {
        return false;
    }
    let Ok(decoded) = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(header) else {
        return false;
    };
    serde_json::from_slice::<Value>(&decoded)
        .is_ok_and(|header| header.get("alg").is_some_and(|alg| !alg.is_null()))
}

/// A JSON object or array with a credential in it.
fn is_auth_json(value: &str) -> bool {
    if !value.starts_with(['{', '[']) {
        return false;
    }
    serde_json::from_str::<Value>(value).is_ok_and(|json| json_has_secret(&json, 0))
}

fn json_has_secret(json: &Value, depth: usize) -> bool {
    if depth > MAX_JSON_DEPTH {
        return true;
    }
    match json {
        Value::Object(fields) => fields.iter().any(|(name, value)| {
            (is_secret_field(name) && !is_empty_json(value)) || json_has_secret(value, depth + 1)
        }),
        Value::Array(items) => items.iter().any(|item| json_has_secret(item, depth + 1)),
        Value::String(text) => is_secret_value(text),
        _ => false,
    }
}

fn is_secret_field(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    SECRET_FIELDS.contains(&name.as_str())
        || SECRET_FIELD_ENDINGS
            .iter()
            .any(|ending| name.ends_with(ending))
}

fn is_empty_json(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(text) => text.is_empty(),
        Value::Array(items) => items.is_empty(),
        Value::Object(fields) => fields.is_empty(),
        Value::Bool(_) | Value::Number(_) => false,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A JWT with header `{"alg":"HS256","typ":"JWT"}`.
    pub(crate) const JWT: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

    #[test]
    fn credential_shapes_are_secret() {
        let cases = [
            // URLs with a password.
            "postgres://app:hunter2@db.internal:5432/app",
            "postgresql://app:p%40ss@localhost/app?sslmode=require",
            "redis://:s3cret@cache:6379/0",
            "rediss://default:pw@redis.example.com:6380",
            "mongodb+srv://admin:pw@cluster0.abcd.mongodb.net/db?retryWrites=true",
            "amqp://guest:guest@localhost:5672/",
            "https://user:pass@registry.example.com/simple",
            "redis-sentinel://h1:26379,redis://:pw@h2:6379",
            // A token as the user name (Sentry DSN, git remote with a token).
            "https://0123456789abcdef0123456789abcdef@o123456.ingest.sentry.io/4504",
            "https://ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ012345@github.com/org/repo.git",
            // Tokens in the query.
            "https://api.example.com/feed?token=abc123",
            "https://example.com/cb?state=x&access_token=abc",
            "https://maps.googleapis.com/maps/api/geocode/json?key=AIzaSyD",
            "https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sig=abc%3D",
            "https://bucket.s3.amazonaws.com/o?X-Amz-Credential=AKIA&X-Amz-Signature=ab",
            "wss://stream.example.com/socket?client_secret=xyz",
            // Webhooks.
            "https://hooks.slack.com/services/T000/B000/XXXXXXXX",
            "https://discord.com/api/webhooks/123/abc",
            "https://discordapp.com/api/webhooks/123/abc",
            "https://contoso.webhook.office.com/webhookb2/abc",
            // JWTs, alone or inside something.
            JWT,
            &format!("Bearer {JWT}"),
            "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.",
            // Auth JSON.
            r#"{"auths":{"registry.example.com":{"auth":"dXNlcjpwYXNz"}}}"#,
            r#"{"credHelpers":{},"auths":{"r":{"identitytoken":"x"}}}"#,
            r#"{"username":"ci","password":"pw"}"#,
            r#"[{"url":"https://x","api_token":"t"}]"#,
            r#"{"db":{"url":"postgres://a:b@h/d"}}"#,
            // PEM.
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
        ];
        for value in cases {
            assert!(is_secret_value(value), "{value}");
        }
    }

    #[test]
    fn ordinary_values_are_not_secret() {
        let cases = [
            "/usr/local/bin:/usr/bin:/bin",
            "/home/user",
            "en_US.UTF-8",
            "C.UTF-8",
            "info,hyper=warn,gantry_tools=debug",
            "debug",
            "https://example.com",
            "https://example.com/path/@scoped/pkg?page=2&sort=asc",
            "postgres://localhost/db",
            "postgres://app@localhost/db",
            "postgres://app:@localhost/db",
            "http://[::1]:8080/health",
            "git@github.com:org/repo.git",
            "https://registry.npmjs.org/",
            "https://example.com/search?q=token&keyword=x",
            "xterm-256color",
            "rs=0:di=01;34:ln=01;36:*.tar=01;31:*.tar.gz=01;31",
            "1.2.3",
            "a.b.c",
            r#"{"editor":"vim","tabs":4}"#,
            r#"{"auth":"","token":null}"#,
            "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
            "",
        ];
        for value in cases {
            assert!(!is_secret_value(value), "{value}");
        }
    }

    #[test]
    fn jwt_needs_a_json_header_with_alg() {
        assert!(is_jwt(JWT));
        // {"typ":"JWT"} has no alg.
        assert!(!is_jwt("eyJ0eXAiOiJKV1QifQ.eyJzdWIiOiJ4In0.sig"));
        assert!(!is_jwt("not.base64!.x"));
        assert!(!is_jwt("www.example.com"));
        assert!(!is_jwt(&format!("{JWT}.extra")));
    }

    #[test]
    fn deeply_nested_json_counts_as_secret() {
        let deep = "[".repeat(40) + &"]".repeat(40);
        assert!(is_secret_value(&deep));
        assert!(!is_secret_value("[[[]]]"));
    }
}
