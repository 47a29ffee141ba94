//! The provider's unit tests: presets and keys, retry timing, and error responses and
//! connection failures in words. Calls against a real (scripted) server are in `tests/`.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{HeaderMap, HeaderValue, RETRY_AFTER};

use super::attempt::retry_after;
use super::call::refuses_stream_options;
use super::error_body::error_message;
use super::transport::{Transport, describe_transport};
use super::*;

#[test]
fn presets_cover_the_documented_providers_and_default_to_ollama() {
    let names: Vec<String> = ProviderConfig::presets()
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(
        names,
        [
            "openai",
            "openrouter",
            "deepseek",
            "mistral",
            "groq",
            "together",
            "gemini",
            "anthropic",
            "ollama",
            "lmstudio",
            "llamacpp",
            "vllm"
        ]
    );
    let default = ProviderConfig::default_local();
    assert_eq!(default.base_url, "http://localhost:11434/v1");
    assert_eq!(default.api_key_env, None);
    assert_eq!(Some(default), ProviderConfig::preset("Ollama"));
    assert_eq!(
        ProviderConfig::preset("LM Studio").map(|p| p.base_url),
        Some("http://localhost:1234/v1".to_owned())
    );
    assert!(ProviderConfig::preset("llama.cpp").is_some());
    assert!(ProviderConfig::preset("nope").is_none());
    assert_eq!(
        ProviderConfig::preset("openai")
            .unwrap()
            .chat_completions_url(),
        "https://api.openai.com/v1/chat/completions"
    );
}

#[test]
fn a_missing_key_names_the_variable_and_keys_never_print() {
    let config = ProviderConfig::new(
        "x",
        "http://h/v1",
        "m",
        Some("GANTRY_TEST_SURELY_UNSET_VAR"),
        10,
    );
    let error = config.api_key_from_env().unwrap_err();
    assert!(error.to_string().contains("GANTRY_TEST_SURELY_UNSET_VAR"));
    let key = ApiKey::new("sk-secret");
    assert_eq!(format!("{key:?} {key}"), "ApiKey(<redacted>) <redacted>");
    let provider = Provider::new(config, Some(key), ProviderOptions::default()).unwrap();
    assert!(!format!("{provider:?}").contains("sk-secret"));
}

#[test]
fn a_providers_key_variable_is_scrubbed_from_children_once_known() {
    let variable = "CORP_LLM_BEARER_Q9";
    assert!(!gantry_tools::is_secret_env(variable));
    let config = ProviderConfig::new("corp", "https://llm.corp/v1", "m", Some(variable), 10);
    let _ = Provider::new(config, None, ProviderOptions::default()).unwrap();
    assert!(gantry_tools::is_secret_env(variable));
    let other = "CORP_OTHER_BEARER_Q9";
    let config = ProviderConfig::new("corp2", "https://llm.corp/v1", "m", Some(other), 10);
    let _ = config.api_key_from_env();
    assert!(gantry_tools::is_secret_env(other));
}

#[test]
fn bad_base_urls_are_configuration_errors() {
    for url in ["not a url", "ftp://host/v1"] {
        let config = ProviderConfig::new("x", url, "m", None, 10);
        assert!(matches!(
            Provider::new(config, None, ProviderOptions::default()),
            Err(ProviderError::Config(_))
        ));
    }
}

#[test]
fn backoff_doubles_up_to_the_cap_with_bounded_jitter() {
    let policy = RetryPolicy {
        initial_backoff: Duration::from_millis(100),
        max_backoff: Duration::from_millis(350),
        jitter: false,
        ..RetryPolicy::default()
    };
    let waits: Vec<u128> = (1..=4).map(|n| policy.backoff(n).as_millis()).collect();
    assert_eq!(waits, [100, 200, 350, 350]);
    let jittered = RetryPolicy {
        jitter: true,
        ..policy
    };
    for _ in 0..100 {
        let wait = jittered.backoff(2).as_millis();
        assert!((150..=250).contains(&wait), "{wait}");
    }
}

#[test]
fn retry_after_reads_milliseconds_and_seconds() {
    let mut headers = HeaderMap::new();
    assert_eq!(retry_after(&headers), None);
    headers.insert(RETRY_AFTER, HeaderValue::from_static("2"));
    assert_eq!(retry_after(&headers), Some(Duration::from_secs(2)));
    headers.insert("retry-after-ms", HeaderValue::from_static("150"));
    assert_eq!(retry_after(&headers), Some(Duration::from_millis(150)));
    let mut dated = HeaderMap::new();
    dated.insert(
        RETRY_AFTER,
        HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
    );
    assert_eq!(retry_after(&dated), None);
}

#[test]
fn error_bodies_in_every_shape_give_a_message() {
    let status = StatusCode::BAD_REQUEST;
    assert_eq!(
        error_message(
            r#"{"error":{"message":"bad model","code":"model_not_found"}}"#,
            status
        ),
        ("bad model".to_owned(), Some("model_not_found".to_owned()))
    );
    assert_eq!(
        error_message(r#"{"error":{"message":"slow down","code":429}}"#, status),
        ("slow down".to_owned(), Some("429".to_owned()))
    );
    assert_eq!(error_message(r#"{"error":"plain"}"#, status).0, "plain");
    assert_eq!(error_message(r#"{"message":"top"}"#, status).0, "top");
    assert_eq!(error_message("", status).0, "Bad Request");
    assert_eq!(
        error_message("plain text\nsecond", status).0,
        "plain text\nsecond"
    );
}

#[test]
fn html_pages_are_summarised_to_their_title_or_first_line() {
    let nginx = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.18.0</center>\r\n</body>\r\n</html>\r\n";
    let status = StatusCode::BAD_GATEWAY;
    assert_eq!(error_message(nginx, status).0, "502 Bad Gateway");
    let untitled = "<!DOCTYPE html><html><head><style>p{}</style></head><body>\n  <p>Upstream   timed out</p><p>more</p></body></html>";
    assert_eq!(error_message(untitled, status).0, "Upstream timed out");
    assert_eq!(
        error_message("<html><body></body></html>", status).0,
        "Bad Gateway"
    );
}

#[test]
fn arrays_and_validation_reports_read_like_objects() {
    let status = StatusCode::BAD_REQUEST;
    let gemini = r#"[{"error": {"code": 400, "message": "Function call is missing a thought_signature", "status": "INVALID_ARGUMENT"}}]"#;
    assert_eq!(
        error_message(gemini, status),
        (
            "Function call is missing a thought_signature".to_owned(),
            Some("400".to_owned())
        )
    );
    let mistral = r#"{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","stream_options"],"msg":"Extra inputs are not permitted","input":{"include_usage":true}}]},"type":"invalid_request_message_error","param":null,"code":null}"#;
    assert_eq!(
        error_message(mistral, StatusCode::UNPROCESSABLE_ENTITY).0,
        "body.stream_options: Extra inputs are not permitted"
    );
    assert_eq!(
        error_message(r#"{"detail": "Not Found"}"#, status).0,
        "Not Found"
    );
}

#[test]
fn a_refusal_of_stream_options_is_recognised_only_in_client_errors() {
    let status = |status: u16, message: &str| ProviderError::Status {
        provider: "p".into(),
        status,
        message: message.into(),
        code: None,
        retry_after: None,
    };
    assert!(refuses_stream_options(&status(
        422,
        "body.stream_options: Extra inputs are not permitted"
    )));
    assert!(refuses_stream_options(&status(
        400,
        "Unknown field: Stream_Options"
    )));
    assert!(!refuses_stream_options(&status(
        500,
        "stream_options broke"
    )));
    assert!(!refuses_stream_options(&status(401, "stream_options")));
    assert!(!refuses_stream_options(&status(400, "bad model")));
}

#[test]
fn transport_failures_are_described_without_internals() {
    #[derive(Debug)]
    struct Layer(&'static str, std::io::Error);
    impl fmt::Display for Layer {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }
    impl std::error::Error for Layer {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.1)
        }
    }
    let refused = Layer(
        "tcp connect error",
        std::io::Error::from(std::io::ErrorKind::ConnectionRefused),
    );
    assert_eq!(describe_transport(&refused), Transport::Refused);
    let dns = Layer(
        "dns error",
        std::io::Error::other("failed to lookup address information"),
    );
    assert_eq!(
        describe_transport(&dns),
        Transport::Described("the host name could not be resolved".into())
    );
    let other = Layer(
        "client error (Connect)",
        std::io::Error::other("Network is unreachable (os error 101)"),
    );
    let Transport::Described(text) = describe_transport(&other) else {
        panic!("not described");
    };
    assert_eq!(text, "the connection failed (Network is unreachable)");
}

#[test]
fn retryable_errors_follow_the_status() {
    let status = |status: u16, code: Option<&str>| ProviderError::Status {
        provider: "p".into(),
        status,
        message: String::new(),
        code: code.map(str::to_owned),
        retry_after: None,
    };
    assert!(status(429, Some("rate_limit_exceeded")).is_retryable());
    assert!(!status(429, Some("insufficient_quota")).is_retryable());
    assert!(status(500, None).is_retryable());
    assert!(status(503, None).is_retryable());
    assert!(!status(400, None).is_retryable());
    assert!(!status(401, None).is_retryable());
    assert!(!status(404, None).is_retryable());
    assert!(ProviderError::Incomplete.is_retryable());
    assert!(!ProviderError::Config("x".into()).is_retryable());
}
