use serde_json::json;

use super::*;

/// A JWT with header `{"alg":"HS256","typ":"JWT"}`.
pub(crate) const JWT: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

const OPENAI: &str = "sk-proj-4f9A8b7C6d5E4f3G2h1I0jKlMnOpQr";
const GITHUB: &str = "ghp_1234567890abcdefghijABCDEFGHIJ123456";

// Names

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
        // Once only JSON fields or environment names.
        "auths",
        "identitytoken",
        "registrytoken",
        "GITHUB_PAT",
        "CI_JOB_JWT",
        "SENTRY_DSN",
        "slack_webhook",
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
        "pattern",
    ] {
        assert!(!is_secret_key(key), "{key}");
    }
}

#[test]
fn secret_environment_names_follow_the_conventions() {
    for name in [
        "OPENAI_API_KEY",
        "MY_APIKEY",
        "SSH_PRIVATE_KEY",
        "GITHUB_TOKEN",
        "MY_SECRET",
        "DB_PASSWORD",
        "PASSWD_FILE",
        "MYSQL_PASSWD",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "AWS_CREDENTIAL_FILE",
        "GITHUB_PAT",
        "GL_PAT_RO",
        "pat",
        "aws_secret_access_key",
        "Api_Key",
        "SENTRY_DSN",
        "SLACK_WEBHOOK_URL",
        "DOCKER_AUTH_CONFIG",
        "NPM_CONFIG__AUTH",
        "NPM_CONFIG__AUTHTOKEN",
        "npm_config__auth",
        "CI_JOB_JWT",
        "CI_JOB_JWT_V2",
        "PDO_DSN",
        "DISCORD_WEBHOOK",
        // The names of secret keys count too.
        "GPG_PASSPHRASE",
        "HTTP_AUTHORIZATION",
        "sessionCookie",
    ] {
        assert!(is_secret_env_name(name), "{name}");
    }
    for name in [
        "PATH",
        "LD_LIBRARY_PATH",
        "PKG_CONFIG_PATH",
        "PATTERN",
        "HOME",
        "LANG",
        "TERM",
        "CARGO_HOME",
        "SSH_AUTH_SOCK",
        "ssh_auth_sock",
        "GIT_AUTHOR_NAME",
        "XAUTHORITY",
        "DBUS_SYSTEM_BUS_ADDRESS",
        "XDG_RUNTIME_DIR",
        "RUST_LOG",
        "DATABASE_URL",
        "REDIS_URL",
        "MONGODB_URI",
        "WORK_LLM_BEARER_7f3a",
    ] {
        assert!(!is_secret_env_name(name), "{name}");
    }
}

#[test]
fn mentioning_auth_is_the_strictest_reading() {
    for name in ["NODE_AUTH_TOKEN", "npm_config__authToken", "XAUTHORITY"] {
        assert!(mentions_auth(name), "{name}");
    }
    assert!(!mentions_auth("NODE_EXTRA_CA_CERTS"));
}

// Values

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
        // An unsigned JWT.
        "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.",
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
fn credential_shaped_values_are_secret() {
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
        &format!("https://example.com/session/{JWT}"),
        // Auth JSON.
        r#"{"auths":{"registry.example.com":{"auth":"dXNlcjpwYXNz"}}}"#,
        r#"{"credHelpers":{},"auths":{"r":{"identitytoken":"x"}}}"#,
        r#"{"username":"ci","password":"pw"}"#,
        r#"[{"url":"https://x","api_token":"t"}]"#,
        r#"{"db":{"url":"postgres://a:b@h/d"}}"#,
        // PEM.
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----",
        // Once only caught in text: credential words and values given away by their name.
        OPENAI,
        &format!("--header=x-token:{GITHUB}"),
        "--password=hunter2",
        "Authorization: Bearer abcdefgh12",
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
        "unix:path=/run/dbus/system_bus_socket",
        "1.2.3",
        "a.b.c",
        r#"{"editor":"vim","tabs":4}"#,
        r#"{"auth":"","token":null}"#,
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
        "é://not-a-scheme, ü+x://user@host",
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

#[test]
fn words_of_a_message_that_could_be_keys() {
    for word in [
        "sk-x",
        "(sk_live_short)",
        "ghp_x1",
        "a1b2c3d4e5f6a7b8c9d0e1f2a3b4",
        "AKIAIOSFODNN7EXAMPLE.",
        "postgres://app:hunter2@db/app",
        "password=hunter2",
    ] {
        assert!(is_secret_word(word), "{word}");
    }
    for word in [
        "internationalization",
        "HTTP",
        "401:",
        "provided:",
        "key",
        "",
    ] {
        assert!(!is_secret_word(word), "{word}");
    }
}

// Redaction

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
fn the_secret_parts_of_urls_are_hidden_and_the_rest_kept() {
    let cases = [
        (
            "DATABASE_URL is postgres://app:hunter2@db/app now",
            "DATABASE_URL is postgres://app:[redacted]@db/app now",
        ),
        (
            "git clone https://ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ012345@github.com/o/r.git",
            "git clone https://[redacted]@github.com/o/r.git",
        ),
        (
            "GET https://api.example.com/feed?page=2&token=abc123&sig=x#top",
            "GET https://api.example.com/feed?page=2&token=[redacted]&sig=[redacted]#top",
        ),
        (
            "POST https://hooks.slack.com/services/T000/B000/XXXXXXXX done",
            "POST https://hooks.slack.com/services/[redacted] done",
        ),
        (
            "see https://example.com/docs?q=1",
            "see https://example.com/docs?q=1",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(redact_text(text), expected, "{text}");
    }
    let glued = format!("open https://example.com/session/{JWT} now");
    assert_eq!(
        redact_text(&glued),
        "open https://example.com/session/[redacted] now"
    );
}

#[test]
fn private_key_blocks_are_hidden() {
    let text = "before\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----\nafter";
    assert_eq!(redact_text(text), "before\n[redacted]\nafter");
    let cut = "x -----BEGIN RSA PRIVATE KEY-----\nMIIEow";
    assert_eq!(redact_text(cut), "x [redacted]");
    let public = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";
    assert_eq!(redact_text(public), public);
    let pgp =
        "a\n-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----\nb";
    assert_eq!(redact_text(pgp), "a\n[redacted]\nb");
    let begun_before = format!("{public}\nMIIEow\n-----END RSA PRIVATE KEY-----\nafter");
    assert_eq!(
        redact_text(&begun_before),
        format!("{public}[redacted]\nafter")
    );
}

#[test]
fn text_without_secrets_is_borrowed_unchanged() {
    let text = "cargo test -p gantry-store -- --nocapture";
    assert!(matches!(redact_text(text), Cow::Borrowed(t) if t == text));
}
