//! What looks like a secret: the one place Gantry decides it.
//!
//! Several parts of Gantry must tell a credential from ordinary text, each for its own reason:
//! the audit log hides secrets before a row reaches the database (gantry-store), the commands
//! and MCP servers Gantry starts do not get secret environment variables
//! ([`crate::scrub_environment`], gantry-mcp's server environment), the MCP trust step masks
//! the values it shows, and a desktop notification leaves secret words out of the error it
//! quotes. A shape known in one of those places and not in the others leaks through the others,
//! so the names and the shapes live here, once, and every caller asks this module.
//!
//! # Names
//!
//! - [`is_secret_key`]: a key whose value is secret — a JSON field, a header, the name in
//!   `NAME=value` or `name: value` — read word by word in any spelling (`api_key`, `apiKey`,
//!   `X-Auth-Token`, `OPENAI_API_KEY`, `identitytoken`), so `max_tokens` and `keyword` stay.
//! - [`is_secret_env_name`]: an environment variable named like a secret, read more strictly:
//!   `KEY`, `TOKEN`, `SECRET`, ... anywhere in the name, `PAT`, `JWT`, `DSN` and `AUTH` as whole
//!   `_`-parts (so `LD_LIBRARY_PATH` and `GIT_AUTHOR_NAME` stay), and every secret key name —
//!   except `SSH_AUTH_SOCK`, the agent socket git over SSH needs, which never reveals a key.
//! - [`mentions_auth`]: `AUTH` anywhere in a name, the strictest reading, for allowlists where a
//!   name left out by mistake costs nothing.
//!
//! # Values
//!
//! - [`looks_like_credential`]: one word shaped like a known kind of credential (`sk-…`,
//!   `ghp_…`, `xoxb-…`, `AKIA…`, a JWT, ...).
//! - [`is_secret_value`]: a whole value, such as an environment variable's, whatever it is
//!   called: it holds a credential word, a URL with a password or a token in it (user info or
//!   query), a Slack, Discord or Teams webhook, a JWT, a PEM private key, a secret name's value
//!   (`--password=…`, `Authorization: Bearer …`), or, for JSON, a non-empty secret field at any
//!   depth. `DATABASE_URL=postgres://app:pw@db/app` is a secret; `postgres://localhost/db` is not.
//! - [`is_secret_word`]: a word of a short message a person reads (a notification), which also
//!   leaves out any long opaque run of letters and digits — there, a word too many hidden costs
//!   nothing.
//!
//! # Redaction
//!
//! [`redact_text`] replaces what the rules find in a text with [`REDACTED`], keeping what is
//! around it (`postgres://app:[redacted]@db/app`, `OPENAI_API_KEY=[redacted]`), and
//! [`redact_value`] does the same through JSON, hiding whole values under secret keys.
//!
//! The rules look for names and shapes, not for entropy (except [`is_secret_word`]), and err on
//! the side of hiding: an audit row that says `[redacted]` where nothing was secret costs little;
//! a key in a log file or a child's environment costs a rotation.

use std::borrow::Cow;
use std::ops::Range;

use base64::Engine;
use serde_json::Value;

#[cfg(test)]
pub(crate) mod tests;

/// What a redacted value becomes.
pub const REDACTED: &str = "[redacted]";

/// Words that make a key name secret (`api_key`, `X-Auth-Token`, `clientSecret`, `GITHUB_PAT`).
const SECRET_KEY_WORDS: &[&str] = &[
    "key",
    "token",
    "secret",
    "secrets",
    "password",
    "passwd",
    "passphrase",
    "authorization",
    "auth",
    "auths",
    "credential",
    "credentials",
    "apikey",
    "cookie",
    "pat",
    "jwt",
    "dsn",
    "webhook",
];

/// Runs of letters that make a key name secret wherever they stand (`APIKEY`, `dbPassword`).
const SECRET_KEY_PARTS: &[&str] = &[
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

/// Endings that make a key name secret (`identitytoken`, `registrytoken`).
const SECRET_KEY_ENDINGS: &[&str] = &["token"];

/// Substrings of an upper-cased environment name that mark a secret. `KEY` covers `API_KEY`,
/// `APIKEY` and `PRIVATE_KEY`.
const SECRET_ENV_WORDS: &[&str] = &[
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "WEBHOOK",
];

/// Whole `_`-separated parts of an upper-cased environment name that mark a secret
/// (`GITHUB_PAT`, `CI_JOB_JWT`, `SENTRY_DSN`, `NPM_CONFIG__AUTH`), checked as parts so that
/// `LD_LIBRARY_PATH` and `GIT_AUTHOR_NAME` stay.
const SECRET_ENV_PARTS: &[&str] = &["PAT", "JWT", "DSN", "AUTH"];

/// Environment names the rules would catch that are not secrets (exact, upper case).
const NOT_SECRET_ENV: &[&str] = &["SSH_AUTH_SOCK"];

/// Words of a URL query parameter's name that carry a credential besides the secret key words
/// (`sig`, `X-Amz-Signature`, `pwd`).
const SECRET_PARAM_WORDS: &[&str] = &["sig", "signature", "pass", "pwd"];

/// Endings of a URL query parameter's name that carry a credential (`xsignature`).
const SECRET_PARAM_ENDINGS: &[&str] = &["signature"];

/// HTTP authorization schemes whose next word is the credential (`Bearer …`, `Basic …`).
const AUTH_SCHEMES: &[&str] = &["bearer", "basic", "token"];

/// What the word after an authorization scheme must at least be to count as its credential.
const AUTH_CREDENTIAL_MIN_CHARS: usize = 8;

/// Which characters may follow a credential's prefix.
#[derive(Clone, Copy)]
enum Body {
    /// ASCII letters and digits.
    Alnum,
    /// ASCII letters and digits, `-` and `_`.
    AlnumDash,
}

impl Body {
    fn allows(self, c: char) -> bool {
        match self {
            Self::Alnum => c.is_ascii_alphanumeric(),
            Self::AlnumDash => is_alnum_dash(c),
        }
    }
}

/// Credentials known by their prefix: the prefix, the fewest characters after it, and what
/// those are made of.
const PREFIXED_CREDENTIALS: &[(&str, usize, Body)] = &[
    // GitHub.
    ("ghp_", 20, Body::Alnum),
    ("gho_", 20, Body::Alnum),
    ("ghu_", 20, Body::Alnum),
    ("ghs_", 20, Body::Alnum),
    ("ghr_", 20, Body::Alnum),
    ("github_pat_", 20, Body::AlnumDash),
    // GitLab.
    ("glpat-", 20, Body::AlnumDash),
    // Slack.
    ("xoxa-", 10, Body::AlnumDash),
    ("xoxb-", 10, Body::AlnumDash),
    ("xoxp-", 10, Body::AlnumDash),
    ("xoxr-", 10, Body::AlnumDash),
    ("xoxs-", 10, Body::AlnumDash),
    // Stripe.
    ("sk_live_", 16, Body::Alnum),
    ("sk_test_", 16, Body::Alnum),
    ("rk_live_", 16, Body::Alnum),
    ("rk_test_", 16, Body::Alnum),
    // Google, Hugging Face, npm, PyPI.
    ("AIza", 30, Body::AlnumDash),
    ("hf_", 30, Body::Alnum),
    ("npm_", 30, Body::Alnum),
    ("pypi-", 50, Body::AlnumDash),
];

/// OpenAI's and Anthropic's key prefix, and the fewest characters after it.
const PROVIDER_KEY: (&str, usize) = ("sk-", 20);

/// AWS access key ids: the prefixes and the whole length.
const AWS_KEY_IDS: (&[&str], usize) = (&["AKIA", "ASIA"], 20);

/// How every JWT starts: `{"` in base64url.
const JWT_START: &str = "eyJ";

/// Prefixes that make a word of a message a key whatever follows (`sk-…`, `ghp_…`).
const KEY_WORD_PREFIXES: &[&str] = &["sk-", "sk_", "ghp_"];

/// A word of a message is an opaque token from this many characters on.
const OPAQUE_WORD_CHARS: usize = 20;

/// A user name alone in a URL is taken as a token from this many characters on.
const TOKEN_USER_CHARS: usize = 20;

/// JSON is not parsed beyond this depth (a value nested deeper counts as a secret).
const MAX_JSON_DEPTH: usize = 32;

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

/// The start of a PEM BEGIN line, before its label.
const PEM_BEGIN: &str = "-----BEGIN ";

/// The start of a PEM END line, before its label.
const PEM_END: &str = "-----END ";

/// What closes a PEM line's label.
const PEM_DASHES: &str = "-----";

/// What a PEM label of a private key contains (`RSA PRIVATE KEY`, `PGP PRIVATE KEY BLOCK`).
const PRIVATE_KEY_LABEL: &str = "PRIVATE KEY";

// ---------------------------------------------------------------------------------------------
// Names

/// True when a key's name says its value is secret (see the module docs).
pub fn is_secret_key(key: &str) -> bool {
    let words = key_words(key);
    if words
        .iter()
        .any(|word| SECRET_KEY_WORDS.contains(&word.as_str()))
    {
        return true;
    }
    let joined = words.concat();
    SECRET_KEY_PARTS.iter().any(|part| joined.contains(part))
        || SECRET_KEY_ENDINGS
            .iter()
            .any(|ending| joined.ends_with(ending))
}

/// True when an environment variable's name follows a secret convention (see the module docs).
/// Only the name: which variables a child may see is [`crate::is_secret_var`]'s to say.
pub fn is_secret_env_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    !NOT_SECRET_ENV.contains(&upper.as_str())
        && (SECRET_ENV_WORDS.iter().any(|word| upper.contains(word))
            || upper
                .split('_')
                .any(|part| SECRET_ENV_PARTS.contains(&part))
            || is_secret_key(name))
}

/// True when `name` contains `AUTH` anywhere, in any case (`NODE_AUTH_TOKEN`, npm's
/// `_authToken`, but also `XAUTHORITY` and `GIT_AUTHOR_NAME`): the strictest reading, for
/// allowlists where a name left out by mistake costs nothing.
pub fn mentions_auth(name: &str) -> bool {
    name.to_ascii_uppercase().contains("AUTH")
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

/// True for a URL query parameter whose value is a credential (`token`, `sig`,
/// `X-Amz-Signature`, `client_secret`).
fn is_secret_param(name: &str) -> bool {
    let words = key_words(name);
    let joined = words.concat();
    is_secret_key(name)
        || words
            .iter()
            .any(|word| SECRET_PARAM_WORDS.contains(&word.as_str()))
        || SECRET_PARAM_ENDINGS
            .iter()
            .any(|ending| joined.ends_with(ending))
}

/// `Bearer`, `Basic`, `token` as in an HTTP Authorization header.
fn is_auth_scheme(word: &str) -> bool {
    AUTH_SCHEMES
        .iter()
        .any(|scheme| word.eq_ignore_ascii_case(scheme))
}

// ---------------------------------------------------------------------------------------------
// Values

/// True for a word shaped like a known kind of credential (see the module docs).
pub fn looks_like_credential(word: &str) -> bool {
    let trimmed = word.trim_end_matches('.');
    is_provider_key(trimmed)
        || is_prefixed_credential(trimmed)
        || is_aws_key_id(trimmed)
        || looks_like_jwt(word)
}

/// True when `value` has the shape of a credential or carries one (see the module docs).
pub fn is_secret_value(value: &str) -> bool {
    let value = value.trim();
    if value.is_empty() {
        return false;
    }
    if !shape_spans(value).is_empty() {
        return true;
    }
    // JSON is judged by its fields; `"token": null` assigns nothing.
    match json_container(value) {
        Some(json) => json_has_secret(&json, 0),
        None => !name_spans(value).is_empty(),
    }
}

/// True when a word of a message a person reads could be a key or a token: a credential by the
/// rules above, a word starting the way provider keys do, or a long opaque run of letters and
/// digits. Punctuation around the word is ignored.
pub fn is_secret_word(word: &str) -> bool {
    let word = word.trim_matches(|c: char| !c.is_ascii_alphanumeric());
    KEY_WORD_PREFIXES
        .iter()
        .any(|prefix| word.starts_with(prefix))
        || is_opaque_word(word)
        || looks_like_credential(word)
        || is_secret_value(word)
}

/// `sk-…` with letters and digits: a word like `sk-learn-notes` has no digits.
fn is_provider_key(word: &str) -> bool {
    let (prefix, min_chars) = PROVIDER_KEY;
    word.strip_prefix(prefix).is_some_and(|body| {
        body.len() >= min_chars
            && body.chars().all(is_alnum_dash)
            && body.chars().any(|c| c.is_ascii_digit())
            && body.chars().any(|c| c.is_ascii_alphabetic())
    })
}

fn is_prefixed_credential(word: &str) -> bool {
    PREFIXED_CREDENTIALS
        .iter()
        .any(|&(prefix, min_chars, body)| {
            word.strip_prefix(prefix)
                .is_some_and(|rest| rest.len() >= min_chars && rest.chars().all(|c| body.allows(c)))
        })
}

fn is_aws_key_id(word: &str) -> bool {
    let (prefixes, length) = AWS_KEY_IDS;
    prefixes.iter().any(|prefix| word.starts_with(prefix))
        && word.len() == length
        && word
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
}

/// `eyJ…` in three base64url parts, or any three parts whose header decodes to a JWT header.
fn looks_like_jwt(word: &str) -> bool {
    let trimmed = word.trim_end_matches('.');
    let shaped = trimmed.starts_with(JWT_START) && {
        let parts: Vec<&str> = trimmed.split('.').collect();
        parts.len() == 3
            && parts
                .iter()
                .all(|part| part.len() >= 4 && part.chars().all(is_alnum_dash))
    };
    shaped || is_jwt(word)
}

/// `header.payload.signature` in base64url, the header a JSON object with `alg` (the signature
/// may be empty: an unsigned token is still a bearer credential).
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

/// A long run of letters and digits (and the punctuation of tokens) with nothing that reads as
/// prose: it has both letters and digits.
fn is_opaque_word(word: &str) -> bool {
    word.len() >= OPAQUE_WORD_CHARS
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | '+' | '='))
        && word.chars().any(|c| c.is_ascii_digit())
        && word.chars().any(|c| c.is_ascii_alphabetic())
}

/// `value` parsed, when it is a JSON object or array.
fn json_container(value: &str) -> Option<Value> {
    if !value.starts_with(['{', '[']) {
        return None;
    }
    serde_json::from_str(value).ok()
}

/// True when `json` holds a non-empty value under a secret key, or a secret string, at any
/// depth.
fn json_has_secret(json: &Value, depth: usize) -> bool {
    if depth > MAX_JSON_DEPTH {
        return true;
    }
    match json {
        Value::Object(fields) => fields.iter().any(|(name, value)| {
            (is_secret_key(name) && !is_empty_json(value)) || json_has_secret(value, depth + 1)
        }),
        Value::Array(items) => items.iter().any(|item| json_has_secret(item, depth + 1)),
        Value::String(text) => is_secret_value(text),
        Value::Null | Value::Bool(_) | Value::Number(_) => false,
    }
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

// ---------------------------------------------------------------------------------------------
// Redaction

/// The JSON `value` with every secret-looking part replaced by [`REDACTED`]: the whole value
/// under a secret key (unless it is null), and what [`redact_text`] hides in every string.
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

/// `text` with every secret-looking part replaced by [`REDACTED`] (borrowed when there is
/// none).
pub fn redact_text(text: &str) -> Cow<'_, str> {
    let mut spans = shape_spans(text);
    spans.extend(name_spans(text));
    let spans = merged(spans);
    if spans.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for span in spans {
        out.push_str(&text[copied..span.start]);
        out.push_str(REDACTED);
        copied = span.end;
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// `spans` sorted, overlapping ones joined.
fn merged(mut spans: Vec<Range<usize>>) -> Vec<Range<usize>> {
    spans.sort_by_key(|span| span.start);
    let mut out: Vec<Range<usize>> = Vec::with_capacity(spans.len());
    for span in spans {
        match out.last_mut() {
            Some(last) if span.start < last.end => last.end = last.end.max(span.end),
            _ => out.push(span),
        }
    }
    out
}

/// Where `text` holds something shaped like a credential, whatever stands around it:
/// credential words, JWTs, private keys, webhooks, and the secret parts of URLs.
fn shape_spans(text: &str) -> Vec<Range<usize>> {
    let mut spans = private_key_spans(text);
    spans.extend(
        runs(text, is_word_char)
            .into_iter()
            .filter(|word| looks_like_credential(&text[word.clone()])),
    );
    spans.extend(
        runs(text, is_token_char)
            .into_iter()
            .filter(|token| looks_like_jwt(&text[token.clone()])),
    );
    spans.extend(webhook_spans(text));
    spans.extend(urls(text).flat_map(|url| url_secret_spans(text, url)));
    spans
}

/// Where `text` holds a value that a name next to it gives away: the word after an
/// authorization scheme (`Bearer …`), and the value assigned to a secret name (`API_KEY=…`,
/// `password: …`, a quoted value to its closing quote).
fn name_spans(text: &str) -> Vec<Range<usize>> {
    let words = runs(text, is_word_char);
    let mut spans: Vec<Range<usize>> = Vec::new();
    for pair in words.windows(2) {
        let [name, word] = pair else { continue };
        if spans.last().is_some_and(|hidden| word.start < hidden.end) {
            continue;
        }
        let name_text = &text[name.clone()];
        let between = &text[name.end..word.start];
        if is_auth_scheme(name_text)
            && between.chars().all(char::is_whitespace)
            && word.len() >= AUTH_CREDENTIAL_MIN_CHARS
        {
            spans.push(word.clone());
        } else if is_secret_key(name_text) && is_assignment(between) {
            spans.push(word.start..assigned_value_end(text, between, word));
        }
    }
    spans
}

/// What stands between a key and its value: `=`, `:`, `: "`, `= '`, `:=`, `=>`.
fn is_assignment(between: &str) -> bool {
    let core = between.trim_matches(|c: char| c.is_whitespace() || is_quote(c));
    matches!(core, "=" | ":" | ":=" | "=>")
}

/// Where a value assigned after `between` ends: at its closing quote when it is quoted (spaces
/// and all), else at the end of its first word.
fn assigned_value_end(text: &str, between: &str, word: &Range<usize>) -> usize {
    let quote = between.trim_end().chars().last().filter(|c| is_quote(*c));
    quote
        .and_then(|quote| text[word.start..].find(quote))
        .map_or(word.end, |offset| (word.start + offset).max(word.end))
}

/// PEM private keys: from a BEGIN line whose label names a private key to its END line (or to
/// the end of a text cut inside the key), and up to an END line whose BEGIN line was cut off.
fn private_key_spans(text: &str) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some(line) = next_pem_line(text, from) {
        let start = from;
        from = line.span.end;
        if !line.label.contains(PRIVATE_KEY_LABEL) {
            continue;
        }
        if !line.begins {
            spans.push(start..line.span.end);
            continue;
        }
        let end_line = format!("{PEM_END}{}{PEM_DASHES}", line.label);
        from = text[line.span.end..]
            .find(&end_line)
            .map_or(text.len(), |offset| line.span.end + offset + end_line.len());
        spans.push(line.span.start..from);
    }
    spans
}

/// A PEM BEGIN or END line.
struct PemLine<'a> {
    /// Where it stands, dashes included.
    span: Range<usize>,
    /// What it names (`RSA PRIVATE KEY`).
    label: &'a str,
    /// Whether it is a BEGIN line.
    begins: bool,
}

/// The first PEM BEGIN or END line of `text` from byte `from` on.
fn next_pem_line(text: &str, from: usize) -> Option<PemLine<'_>> {
    let rest = &text[from..];
    let (offset, lead, begins) = [(PEM_BEGIN, true), (PEM_END, false)]
        .into_iter()
        .filter_map(|(lead, begins)| rest.find(lead).map(|offset| (offset, lead, begins)))
        .min_by_key(|&(offset, ..)| offset)?;
    let label_start = from + offset + lead.len();
    let label_len = text[label_start..].find(PEM_DASHES)?;
    Some(PemLine {
        span: from + offset..label_start + label_len + PEM_DASHES.len(),
        label: &text[label_start..label_start + label_len],
        begins,
    })
}

/// Webhook URLs: their path after the marker (`hooks.slack.com/services/[redacted]`), or the
/// marker itself when nothing follows it.
fn webhook_spans(text: &str) -> Vec<Range<usize>> {
    // ASCII lower-casing keeps every byte where it was.
    let lower = text.to_ascii_lowercase();
    WEBHOOK_MARKERS
        .iter()
        .flat_map(|marker| {
            lower.match_indices(marker).map(|(at, _)| {
                let path = at + marker.len();
                let end = url_end(text, path);
                if end > path { path..end } else { at..path }
            })
        })
        .collect()
}

/// Every URL in `text`, as the range of what follows its `scheme://` up to the next separator.
fn urls(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    text.match_indices("://").filter_map(move |(at, _)| {
        let scheme_start = text[..at]
            .char_indices()
            .rev()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
            .map_or(0, |(index, c)| index + c.len_utf8());
        let scheme = &text[scheme_start..at];
        let start = at + "://".len();
        scheme
            .starts_with(|c: char| c.is_ascii_alphabetic())
            .then(|| start..url_end(text, start))
    })
}

/// Where a URL starting at byte `from` of `text` ends.
fn url_end(text: &str, from: usize) -> usize {
    text[from..]
        .find(|c: char| c.is_whitespace() || matches!(c, ',' | '"' | '\'' | '<' | '>'))
        .map_or(text.len(), |offset| from + offset)
}

/// The secret parts of the URL at `url` in `text`: the password or token in its user info, and
/// the values of its secret query parameters.
fn url_secret_spans(text: &str, url: Range<usize>) -> Vec<Range<usize>> {
    let body = &text[url.clone()];
    let authority_end = body.find(['/', '?', '#']).unwrap_or(body.len());
    let mut spans: Vec<Range<usize>> = user_info_secret(&body[..authority_end])
        .into_iter()
        .collect();
    spans.extend(query_secrets(body, authority_end));
    spans
        .into_iter()
        .map(|span| url.start + span.start..url.start + span.end)
        .collect()
}

/// The secret part of a URL's authority: the password of `user:password@host`, or a token
/// standing alone as the user (`0123…@o1.ingest.sentry.io`, `ghp_…@github.com`).
fn user_info_secret(authority: &str) -> Option<Range<usize>> {
    let (user_info, _host) = authority.rsplit_once('@')?;
    match user_info.split_once(':') {
        Some((user, password)) => (!password.is_empty()).then(|| user.len() + 1..user_info.len()),
        None => (user_info.len() >= TOKEN_USER_CHARS && user_info.chars().all(is_token_char))
            .then_some(0..user_info.len()),
    }
}

/// The values of the secret parameters (`?token=…&sig=…`) in the query of a URL's `body`
/// whose authority ends at `authority_end`.
fn query_secrets(body: &str, authority_end: usize) -> Vec<Range<usize>> {
    let Some(question) = body[authority_end..].find('?') else {
        return Vec::new();
    };
    let start = authority_end + question + 1;
    let end = body[start..]
        .find('#')
        .map_or(body.len(), |offset| start + offset);
    let mut spans = Vec::new();
    let mut at = start;
    for pair in body[start..end].split(['&', ';']) {
        if let Some((name, value)) = pair.split_once('=')
            && !value.is_empty()
            && is_secret_param(name)
        {
            let value_start = at + name.len() + 1;
            spans.push(value_start..value_start + value.len());
        }
        at += pair.len() + 1;
    }
    spans
}

/// The byte ranges of the runs of characters `belongs` accepts.
fn runs(text: &str, belongs: fn(char) -> bool) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    let mut start = None;
    for (index, c) in text.char_indices() {
        match (belongs(c), start) {
            (true, None) => start = Some(index),
            (false, Some(begun)) => {
                spans.push(begun..index);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(begun) = start {
        spans.push(begun..text.len());
    }
    spans
}

/// Characters of a word of text that could be (part of) a credential.
fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+' | '/')
}

/// Characters of base64url, JWT segments and tokens.
fn is_token_char(c: char) -> bool {
    is_alnum_dash(c) || c == '.'
}

fn is_alnum_dash(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

fn is_quote(c: char) -> bool {
    matches!(c, '"' | '\'' | '`')
}
