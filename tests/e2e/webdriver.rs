//! A minimal W3C WebDriver client: the dozen endpoints the suite uses, over plain HTTP/JSON.
//!
//! Why not `thirtyfour` or `fantoccini`: the suite needs sessions, script execution, element
//! clicks and screenshots, which are a few JSON requests each; a full client would add a large
//! dependency tree to every cold CI build for no more coverage. Requests that are safe to repeat
//! are retried when the connection itself fails (not when WebDriver answers with an error).

use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use base64::Engine as _;
use serde_json::{Value, json};

/// The key W3C WebDriver uses for element references.
const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A WebDriver session.
pub struct Session {
    http: reqwest::Client,
    base: String,
    id: String,
}

/// WebDriver's code points for the keys the suite presses.
pub struct Key;

impl Key {
    pub const ENTER: &'static str = "\u{E007}";
    pub const TAB: &'static str = "\u{E004}";
    pub const ESCAPE: &'static str = "\u{E00C}";
    pub const SPACE: &'static str = " ";
    pub const SHIFT: &'static str = "\u{E008}";
    pub const ARROW_DOWN: &'static str = "\u{E015}";
    pub const ARROW_UP: &'static str = "\u{E013}";
    pub const BACKSPACE: &'static str = "\u{E003}";
}

/// A reference to an element of the page.
#[derive(Debug, Clone)]
pub struct Element(String);

impl Session {
    /// Creates a session with `capabilities` (the `alwaysMatch` object) on the driver at `base`.
    pub async fn create(base: &str, capabilities: Value) -> Result<Self> {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()?;
        let body = json!({"capabilities": {"alwaysMatch": capabilities, "firstMatch": [{}]}});
        let value = send(
            &http,
            reqwest::Method::POST,
            &format!("{base}/session"),
            Some(&body),
            false,
        )
        .await
        .context("creating the WebDriver session")?;
        let id = value["sessionId"]
            .as_str()
            .ok_or_else(|| anyhow!("no sessionId in {value}"))?
            .to_owned();
        Ok(Self {
            http,
            base: base.to_owned(),
            id,
        })
    }

    fn url(&self, path: &str) -> String {
        format!("{}/session/{}{path}", self.base, self.id)
    }

    async fn get(&self, path: &str) -> Result<Value> {
        send(
            &self.http,
            reqwest::Method::GET,
            &self.url(path),
            None,
            true,
        )
        .await
    }

    async fn post(&self, path: &str, body: &Value, idempotent: bool) -> Result<Value> {
        send(
            &self.http,
            reqwest::Method::POST,
            &self.url(path),
            Some(body),
            idempotent,
        )
        .await
    }

    /// Runs `script` (a function body; `arguments` holds `args`) and returns its result.
    pub async fn execute(&self, script: &str, args: Value) -> Result<Value> {
        self.post(
            "/execute/sync",
            &json!({"script": script, "args": args}),
            true,
        )
        .await
    }

    /// Runs `script`, whose last argument is a callback to call with the result.
    pub async fn execute_async(&self, script: &str, args: Value) -> Result<Value> {
        self.post(
            "/execute/async",
            &json!({"script": script, "args": args}),
            false,
        )
        .await
    }

    /// Resizes the window (WebDriver's Set Window Rect), returning the rect it now has.
    pub async fn set_window_size(&self, width: u32, height: u32) -> Result<Value> {
        self.post(
            "/window/rect",
            &json!({"width": width, "height": height}),
            true,
        )
        .await
    }

    /// The handles of the app's windows (WebDriver's Get Window Handles).
    pub async fn window_handles(&self) -> Result<Vec<String>> {
        let value = self.get("/window/handles").await?;
        Ok(serde_json::from_value(value)?)
    }

    /// The handle of the window the session drives.
    pub async fn window_handle(&self) -> Result<String> {
        let value = self.get("/window").await?;
        value
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| anyhow!("the window handle is not a string: {value}"))
    }

    /// Drives window `handle` from now on (WebDriver's Switch To Window).
    pub async fn switch_to_window(&self, handle: &str) -> Result<()> {
        self.post("/window", &json!({"handle": handle}), true)
            .await
            .map(drop)
    }

    /// The first element matching `css`, if any.
    pub async fn find(&self, css: &str) -> Result<Option<Element>> {
        let body = json!({"using": "css selector", "value": css});
        match self.post("/element", &body, true).await {
            Ok(value) => Ok(value[ELEMENT_KEY].as_str().map(|id| Element(id.to_owned()))),
            Err(error) if error.to_string().contains("no such element") => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// Clicks `element` as a user would (WebDriver's element click: scroll, hit test, pointer events).
    pub async fn click(&self, element: &Element) -> Result<()> {
        self.post(&format!("/element/{}/click", element.0), &json!({}), false)
            .await
            .map(drop)
    }

    /// Presses and releases `keys` one after the other, as a keyboard does (WebDriver's
    /// Perform Actions with a key input source: real keydown and keyup events, default actions
    /// included). A key is a character or one of [`Key`]'s code points; `modifier` (e.g.
    /// [`Key::SHIFT`]) is held down around them.
    pub async fn press_keys(&self, keys: &[&str], modifier: Option<&str>) -> Result<()> {
        let mut steps = Vec::new();
        if let Some(modifier) = modifier {
            steps.push(json!({"type": "keyDown", "value": modifier}));
        }
        for key in keys {
            steps.push(json!({"type": "keyDown", "value": key}));
            steps.push(json!({"type": "keyUp", "value": key}));
        }
        if let Some(modifier) = modifier {
            steps.push(json!({"type": "keyUp", "value": modifier}));
        }
        let body = json!({"actions": [{"type": "key", "id": "keyboard", "actions": steps}]});
        self.post("/actions", &body, false).await?;
        // Forget the keys' state, so the next sequence starts from nothing held.
        send(
            &self.http,
            reqwest::Method::DELETE,
            &self.url("/actions"),
            None,
            false,
        )
        .await
        .map(drop)
    }

    /// Holds `key` down (keydown, with the platform's repeats left out) until the next
    /// [`Self::press_keys`], whose keydown of it is then a repeat.
    pub async fn hold_key(&self, key: &str) -> Result<()> {
        let body = json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
            {"type": "keyDown", "value": key}
        ]}]});
        self.post("/actions", &body, false).await.map(drop)
    }

    /// Types `text` into `element` (WebDriver's Element Send Keys: focuses it, then a key press
    /// per character).
    pub async fn send_keys(&self, element: &Element, text: &str) -> Result<()> {
        self.post(
            &format!("/element/{}/value", element.0),
            &json!({"text": text}),
            false,
        )
        .await
        .map(drop)
    }

    /// A PNG of the viewport.
    pub async fn screenshot(&self) -> Result<Vec<u8>> {
        let value = self.get("/screenshot").await?;
        let data = value
            .as_str()
            .ok_or_else(|| anyhow!("screenshot is not a string"))?;
        Ok(base64::engine::general_purpose::STANDARD.decode(data)?)
    }

    /// Ends the session (the driver closes the app).
    pub async fn delete(&self) -> Result<()> {
        send(
            &self.http,
            reqwest::Method::DELETE,
            &self.url(""),
            None,
            false,
        )
        .await
        .map(drop)
    }
}

/// Sends one request and returns the response's `value`, retrying connection failures of
/// idempotent requests.
async fn send(
    http: &reqwest::Client,
    method: reqwest::Method,
    url: &str,
    body: Option<&Value>,
    idempotent: bool,
) -> Result<Value> {
    let attempts = if idempotent { 4 } else { 1 };
    let mut last = None;
    for attempt in 0..attempts {
        if attempt > 0 {
            tokio::time::sleep(Duration::from_millis(100 * attempt)).await;
        }
        let mut request = http.request(method.clone(), url);
        if let Some(body) = body {
            request = request
                .header("content-type", "application/json")
                .body(serde_json::to_vec(body)?);
        }
        let response = match request.send().await {
            Ok(response) => response,
            Err(error) => {
                last = Some(anyhow!(error).context(format!("{method} {url}")));
                continue;
            }
        };
        let status = response.status();
        let bytes = response.bytes().await?;
        let value: Value = serde_json::from_slice(&bytes).with_context(|| {
            format!(
                "{method} {url}: not JSON: {}",
                String::from_utf8_lossy(&bytes)
            )
        })?;
        if !status.is_success() {
            let error = value["value"]["error"].as_str().unwrap_or("unknown error");
            let message = value["value"]["message"].as_str().unwrap_or("");
            bail!("{method} {url}: {status} {error}: {message}");
        }
        return Ok(value["value"].clone());
    }
    Err(last.unwrap_or_else(|| anyhow!("{method} {url} failed")))
}
