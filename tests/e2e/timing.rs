//! Timing an interaction inside the page, so that WebDriver's own round trips do not count.
//!
//! A measurement is armed first ([`Stopwatch::arm`]): a listener notes, by the page's clock, the
//! first `click` or `keydown` that starts it, and a mutation observer notes when an element
//! matching the awaited selector is in the document and laid out. Then the scenario acts with a
//! real click or key press (or changes a file from outside, whose time it takes by the wall
//! clock, which the page's `performance.timeOrigin` shares), and [`Stopwatch::read`] collects.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::json;

use crate::app::App;

/// What starts a measurement.
#[derive(Clone, Copy)]
pub enum Start {
    /// The first click in the page after arming.
    Click,
    /// The first key pressed after arming.
    Key,
    /// Something outside the page, at a wall-clock time given to [`Stopwatch::read_since`].
    Outside,
}

/// One armed measurement.
pub struct Stopwatch;

impl Stopwatch {
    /// Arms a measurement that ends when `css` matches an element.
    pub async fn arm(app: &App, css: &str, start: Start) {
        let start = match start {
            Start::Click => "click",
            Start::Key => "keydown",
            Start::Outside => "",
        };
        // WebKitWebDriver now and then answers a script with "unknown error" on a loaded machine;
        // arming twice is harmless (the second replaces the first).
        let mut attempt = 0;
        let armed = loop {
            attempt += 1;
            let answer = app
                .eval(
                    "const [css, startOn] = arguments;\
                 const m = window.__gantryStopwatch = {start: null, end: null, endEpoch: null};\
                 if (startOn) document.addEventListener(startOn, () => {\
                   if (m.start === null) m.start = performance.now();\
                 }, {capture: true, once: true});\
                 const check = () => {\
                   if (m.end !== null) return;\
                   const el = document.querySelector(css);\
                   if (el === null) return;\
                   el.getBoundingClientRect();\
                   m.end = performance.now();\
                   m.endEpoch = performance.timeOrigin + m.end;\
                   observer.disconnect();\
                 };\
                 const observer = new MutationObserver(check);\
                 observer.observe(document.documentElement,\
                   {childList: true, subtree: true, attributes: true, characterData: true});\
                 return document.querySelector(css) === null;",
                    json!([css, start]),
                )
                .await;
            match answer {
                Ok(armed) => break armed,
                Err(error) if attempt < 3 => {
                    eprintln!("arming again after: {error}");
                    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                }
                Err(error) => panic!("cannot arm the measurement of {css}: {error}"),
            }
        };
        assert_eq!(
            armed,
            json!(true),
            "{css} matched before the measurement began"
        );
    }

    /// Waits for the armed measurement to end; the time from the click or key press to then.
    pub async fn read(app: &App) -> Duration {
        let value = Self::wait(app).await;
        let start = value["start"]
            .as_f64()
            .expect("no click or key press started it");
        let end = value["end"].as_f64().unwrap();
        Duration::from_secs_f64(((end - start) / 1000.0).max(0.0))
    }

    /// Waits for the armed measurement to end; the time from `since` (the wall clock) to then.
    pub async fn read_since(app: &App, since: SystemTime) -> Duration {
        let value = Self::wait(app).await;
        let end = value["endEpoch"].as_f64().unwrap();
        let since = since.duration_since(UNIX_EPOCH).unwrap().as_secs_f64() * 1000.0;
        Duration::from_secs_f64(((end - since) / 1000.0).max(0.0))
    }

    async fn wait(app: &App) -> serde_json::Value {
        let ended = app
            .wait_for(
                "the measured state",
                "const m = window.__gantryStopwatch; return m && m.end !== null ? m : null;",
                json!([]),
            )
            .await;
        match ended {
            Ok(value) => value,
            Err(error) => {
                let page = app
                    .eval(
                        "const list = document.querySelector('[data-testid=completion-list]');\
                         return [JSON.stringify(window.__gantryStopwatch),\
                           document.querySelector('[data-testid=chat-input]')?.value,\
                           list?.dataset.query, list?.children.length,\
                           document.querySelector('[data-testid=preview]')?.dataset.state,\
                           document.querySelector('[data-testid=tree]')?.dataset.loaded,\
                           document.body.innerText.slice(0, 600)];",
                        json!([]),
                    )
                    .await;
                panic!("{error}; the page: {page:?}");
            }
        }
    }
}

/// `label: median X, p95 Y (n runs: a, b, ...)` for a metrics file.
pub fn line(label: &str, samples: &[Duration]) -> String {
    let mut sorted = samples.to_vec();
    let (median, p95) = crate::percentiles(&mut sorted);
    let runs: Vec<String> = samples
        .iter()
        .map(|sample| format!("{:.0}", sample.as_secs_f64() * 1000.0))
        .collect();
    format!(
        "{label}: median {}, p95 {} ({} runs, ms: {})",
        crate::ms(median),
        crate::ms(p95),
        samples.len(),
        runs.join(" ")
    )
}
