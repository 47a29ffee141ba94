//! The HTTP side: one handler that records each request and answers it from the script.
//!
//! Everything goes through a single fallback handler rather than axum routes so that every
//! request, including ones to paths the provider does not serve, is recorded the same way.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes, to_bytes};
use axum::extract::{Request, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::record::Delivery;
use crate::script::{Reply, Turn};
use crate::state::{ChatDecision, Incoming, Shared};
use crate::wire::{self, Context, Step};

/// Largest request body read (agent transcripts can be big).
const MAX_BODY_BYTES: usize = 256 * 1024 * 1024;
/// Prefix of the admin endpoints, which are not recorded.
pub(crate) const ADMIN_PREFIX: &str = "/__scripted/";
/// How long a cut waits so that everything sent before it reaches the client.
const FLUSH_BEFORE_CUT: Duration = Duration::from_millis(20);
/// Model echoed when a request names none.
const FALLBACK_MODEL: &str = crate::script::DEFAULT_MODEL;

/// The provider's router.
pub(crate) fn router(shared: Arc<Shared>) -> Router {
    Router::new().fallback(handle).with_state(shared)
}

async fn handle(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let path = parts
        .uri
        .path_and_query()
        .map_or_else(|| parts.uri.path().to_owned(), |pq| pq.as_str().to_owned());
    let bytes = match to_bytes(body, MAX_BODY_BYTES).await {
        Ok(bytes) => bytes,
        Err(error) => {
            let message = format!("scripted provider: could not read the request body: {error}");
            return json_response(
                StatusCode::BAD_REQUEST,
                wire::provider_error_body(&message, "invalid_request_error", "unreadable_body"),
            );
        }
    };
    let route = parts.uri.path().to_owned();
    if route.starts_with(ADMIN_PREFIX) {
        return admin(&shared, &parts.method, &route, &bytes);
    }
    let raw_body = String::from_utf8_lossy(&bytes).into_owned();
    let incoming = Incoming {
        method: parts.method.to_string(),
        path,
        headers: collect_headers(&parts.headers),
        body: serde_json::from_slice(&bytes).ok(),
        raw_body,
    };
    if route != "/v1/chat/completions"
        && let Some(body) = shared.route(&format!("{} {route}", parts.method))
    {
        shared.record_other(incoming, 200, None);
        return json_response(StatusCode::OK, body.to_string());
    }
    match (&parts.method, route.as_str()) {
        (&Method::POST, "/v1/chat/completions") => chat(shared, incoming).await,
        (&Method::GET, "/v1/models") => {
            let (models, created) = shared.models();
            shared.record_other(incoming, 200, None);
            json_response(StatusCode::OK, wire::models_body(&models, created))
        }
        (&Method::GET, model_path) if model_path.starts_with("/v1/models/") => {
            let id = model_path.trim_start_matches("/v1/models/").to_owned();
            let (models, created) = shared.models();
            if models.contains(&id) {
                shared.record_other(incoming, 200, None);
                json_response(StatusCode::OK, wire::model_body(&id, created))
            } else {
                shared.record_other(incoming, 404, None);
                let message = format!("The model `{id}` does not exist");
                json_response(
                    StatusCode::NOT_FOUND,
                    wire::provider_error_body(&message, "invalid_request_error", "model_not_found"),
                )
            }
        }
        (method, other) => {
            let message = format!(
                "scripted provider: no such endpoint: {method} {other} (served: POST \
                 /v1/chat/completions, GET /v1/models)"
            );
            shared.record_other(incoming, 404, Some(message.clone()));
            json_response(
                StatusCode::NOT_FOUND,
                wire::provider_error_body(&message, "invalid_request_error", "unknown_url"),
            )
        }
    }
}

async fn chat(shared: Arc<Shared>, incoming: Incoming) -> Response {
    let body = incoming.body.clone().unwrap_or(Value::Null);
    let request_bytes = incoming.raw_body.len();
    match shared.decide_chat(incoming) {
        ChatDecision::Refuse {
            status,
            code,
            message,
        } => json_response(
            StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            wire::provider_error_body(&message, "scripted_provider_error", code),
        ),
        ChatDecision::Play {
            seq,
            turn_index,
            reply: Reply::Error(error),
            ..
        } => {
            tracing::debug!(seq, turn_index, status = error.status, "scripted error");
            let mut response = json_response(
                StatusCode::from_u16(error.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
                wire::error_body(&error),
            );
            for (name, value) in &error.headers {
                // Validated when the turn was queued; a bad pair is skipped, not fatal.
                if let (Ok(name), Ok(value)) = (
                    HeaderName::try_from(name.as_str()),
                    HeaderValue::try_from(value.as_str()),
                ) {
                    response.headers_mut().insert(name, value);
                }
            }
            response
        }
        ChatDecision::Play {
            seq,
            turn_index,
            reply: Reply::Completion(completion),
            created,
        } => {
            let context = Context {
                id: format!("chatcmpl-scripted-{turn_index}"),
                created,
                model: body
                    .get("model")
                    .and_then(Value::as_str)
                    .unwrap_or(FALLBACK_MODEL)
                    .to_owned(),
                include_usage: body
                    .pointer("/stream_options/include_usage")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
                request_bytes,
            };
            let streamed = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
            tracing::debug!(seq, turn_index, streamed, "scripted completion");
            if streamed {
                let steps = wire::stream_steps(&completion, &context);
                let mut response = Response::new(body_from_steps(shared, seq, steps));
                let headers = response.headers_mut();
                headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
                headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
                response
            } else {
                let (pause, steps) = wire::completion_steps(&completion, &context);
                if !pause.is_zero() && !pause_or_shutdown(&shared, pause).await {
                    shared.settle(seq, Delivery::ShutDown);
                    return StatusCode::SERVICE_UNAVAILABLE.into_response();
                }
                let mut response = Response::new(body_from_steps(shared, seq, steps));
                response
                    .headers_mut()
                    .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
                response
            }
        }
    }
}

/// Waits `pause`; false if the provider shut down first.
async fn pause_or_shutdown(shared: &Shared, pause: Duration) -> bool {
    tokio::select! {
        () = tokio::time::sleep(pause) => true,
        () = shared.shutdown.cancelled() => false,
    }
}

/// Settles a response's [`Delivery`] when its body ends, or when it is dropped unfinished
/// (hyper drops the body when the client goes away).
struct DeliveryGuard {
    shared: Arc<Shared>,
    seq: usize,
    settled: bool,
}

impl DeliveryGuard {
    fn settle(&mut self, delivery: Delivery) {
        if !self.settled {
            self.settled = true;
            self.shared.settle(self.seq, delivery);
        }
    }
}

impl Drop for DeliveryGuard {
    fn drop(&mut self) {
        let delivery = if self.shared.shutdown.is_cancelled() {
            Delivery::ShutDown
        } else {
            Delivery::ClientClosed
        };
        self.settle(delivery);
    }
}

type BodyState = (VecDeque<Step>, DeliveryGuard);

/// A response body that plays `steps`: pauses, sends, and breaks or holds the connection.
fn body_from_steps(shared: Arc<Shared>, seq: usize, steps: Vec<Step>) -> Body {
    let guard = DeliveryGuard {
        shared,
        seq,
        settled: false,
    };
    let stream = futures::stream::unfold(
        (VecDeque::from(steps), guard),
        |(mut steps, mut guard): BodyState| async move {
            loop {
                let outcome: Result<Bytes, std::io::Error> = match steps.pop_front() {
                    None => {
                        guard.settle(Delivery::Complete);
                        return None;
                    }
                    Some(Step::Send(bytes)) => Ok(bytes),
                    Some(Step::Pause(pause)) => {
                        if pause_or_shutdown(&guard.shared, pause).await {
                            continue;
                        }
                        guard.settle(Delivery::ShutDown);
                        Err(std::io::Error::other("scripted provider shut down"))
                    }
                    Some(Step::Cut) => {
                        // Hyper drops its unflushed write buffer when a body fails; pending
                        // once lets it flush what the script sent before the cut.
                        tokio::time::sleep(FLUSH_BEFORE_CUT).await;
                        guard.settle(Delivery::Cut);
                        Err(std::io::Error::other("scripted cut"))
                    }
                    Some(Step::Hang) => {
                        guard.shared.shutdown.cancelled().await;
                        guard.settle(Delivery::ShutDown);
                        Err(std::io::Error::other("scripted provider shut down"))
                    }
                };
                if outcome.is_err() {
                    steps.clear();
                }
                return Some((outcome, (steps, guard)));
            }
        },
    );
    Body::from_stream(stream)
}

/// `/__scripted/state` (GET) and `/__scripted/turns` (POST a turn or a list of turns).
fn admin(shared: &Shared, method: &Method, route: &str, bytes: &Bytes) -> Response {
    match (method, route.trim_start_matches(ADMIN_PREFIX)) {
        (&Method::GET, "state") => {
            let state = serde_json::json!({
                "requests": shared.requests(),
                "failures": shared.failures(),
                "consumed_turns": shared.consumed_turns(),
                "remaining_turns": shared.remaining_turns(),
            });
            json_response(StatusCode::OK, state.to_string())
        }
        (&Method::POST, "turns") => match parse_turns(bytes) {
            Ok(turns) => {
                let queued = turns.len();
                shared.push_turns(turns);
                let reply = serde_json::json!({
                    "queued": queued,
                    "remaining_turns": shared.remaining_turns(),
                });
                json_response(StatusCode::OK, reply.to_string())
            }
            Err(message) => json_response(
                StatusCode::BAD_REQUEST,
                wire::provider_error_body(&message, "invalid_request_error", "invalid_turns"),
            ),
        },
        _ => json_response(
            StatusCode::NOT_FOUND,
            wire::provider_error_body(
                "admin endpoints: GET /__scripted/state, POST /__scripted/turns",
                "invalid_request_error",
                "unknown_url",
            ),
        ),
    }
}

fn parse_turns(bytes: &Bytes) -> Result<Vec<Turn>, String> {
    let value: Value =
        serde_json::from_slice(bytes).map_err(|error| format!("body is not JSON: {error}"))?;
    let turns = if value.is_array() {
        serde_json::from_value::<Vec<Turn>>(value)
    } else {
        serde_json::from_value::<Turn>(value).map(|turn| vec![turn])
    }
    .map_err(|error| format!("not a turn or a list of turns: {error}"))?;
    turns
        .iter()
        .enumerate()
        .try_for_each(|(index, turn)| turn.validate().map_err(|p| format!("turn {index}: {p}")))?;
    Ok(turns)
}

fn collect_headers(headers: &HeaderMap) -> BTreeMap<String, String> {
    let mut collected: BTreeMap<String, String> = BTreeMap::new();
    for (name, value) in headers {
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        collected
            .entry(name.as_str().to_owned())
            .and_modify(|existing| {
                existing.push_str(", ");
                existing.push_str(&value);
            })
            .or_insert(value);
    }
    collected
}

fn json_response(status: StatusCode, body: String) -> Response {
    (status, [(CONTENT_TYPE, "application/json")], body).into_response()
}
