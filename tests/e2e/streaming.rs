//! Streaming that keeps up: a long Markdown answer arriving as thousands of small deltas renders
//! as fast as it arrives. The page's own frames are recorded while it streams (frames per
//! second, the longest gap between two frames), the moment the answer's end is on screen is
//! compared with the moment the provider sent it (both wall clocks on one machine), and the CPU
//! time of the app and its WebKit processes is read from /proc. The limits asserted are
//! ceilings against hangs; the figures go to metrics.txt.

use std::fmt::Write as _;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use gantry_scripted_provider::{Completion, Delivery, Event};
use serde_json::json;

use crate::app::App;
use crate::chat::{ChatRig, idle, send};
use crate::scenarios::report;
use crate::{SERIAL, enabled};

/// A real-looking Markdown answer of about `bytes` bytes: headings, prose with inline code and
/// CJK text, lists, tables and code fences, ending with `marker`.
fn answer(bytes: usize, marker: &str) -> String {
    let mut text = String::new();
    let mut section = 1;
    while text.len() < bytes {
        let _ = write!(
            text,
            "## Step {section}: what changes\n\n\
             The function `parse_{section}` reads the **input** line by line and keeps a \
             running total; 注意：空行会被跳过。 See [the docs](https://example.com/{section}).\n\n\
             - first, open the file\n- then read each line\n  - skip blank ones\n- finally, sum\n\n\
             | column | meaning | example |\n|---|---|---|\n| `a` | the first value | {section} |\n\
             | `b` | the second value | {} |\n\n\
             ```rust\nfn parse_{section}(input: &str) -> u64 {{\n    input.lines().filter(|l| \
             !l.is_empty()).count() as u64\n}}\n```\n\n> A quote to close the step {section}.\n\n",
            section * 2
        );
        section += 1;
    }
    text.push_str(marker);
    text
}

/// `text` cut into `pieces` parts of about equal size, on character boundaries.
fn split(text: &str, pieces: usize) -> Vec<String> {
    let size = text.len().div_ceil(pieces).max(1);
    let mut parts = Vec::with_capacity(pieces);
    let mut current = String::new();
    for character in text.chars() {
        current.push(character);
        if current.len() >= size {
            parts.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        parts.push(current);
    }
    parts
}

/// The answer's pieces as one reply, one delta each, `every` apart.
fn streamed(text: &str, pieces: usize, every: Duration) -> Completion {
    split(text, pieces)
        .into_iter()
        .fold(Completion::new(), |reply, piece| {
            reply.event(Event::Text(piece))
        })
        .chunk_delay(every)
}

/// Starts recording the page's frames and the moment `marker` is on screen.
async fn start_probe(app: &App, marker: &str) {
    app.eval(
        "const marker = arguments[0];\
         const probe = {frames: [], endAt: null};\
         window.__probe = probe;\
         const tick = (at) => {\
           if (window.__probe !== probe) return;\
           probe.frames.push(at);\
           if (probe.endAt === null) {\
             const last = [...document.querySelectorAll('[data-testid=chat-message][data-role=assistant]')].at(-1);\
             if (last && last.textContent.includes(marker)) probe.endAt = performance.timeOrigin + performance.now();\
           }\
           if (probe.endAt === null || at - probe.frames[0] < 60000) requestAnimationFrame(tick);\
         };\
         requestAnimationFrame(tick);",
        json!([marker]),
    )
    .await
    .unwrap();
}

/// What the probe saw: frames per second over `[from, to]` (page milliseconds), the longest
/// gap between frames there, and when the end was on screen (Unix milliseconds).
async fn read_probe(app: &App) -> (Vec<f64>, Option<f64>) {
    let value = app
        .eval(
            "return {frames: window.__probe.frames, endAt: window.__probe.endAt, origin: performance.timeOrigin};",
            json!([]),
        )
        .await
        .unwrap();
    let origin = value["origin"].as_f64().unwrap();
    let frames = value["frames"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(serde_json::Value::as_f64)
        .map(|at| origin + at)
        .collect();
    (frames, value["endAt"].as_f64())
}

fn unix_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        * 1000.0
}

/// One streamed answer's figures.
struct Figures {
    fps: f64,
    longest_gap_ms: f64,
    end_after_last_delta_ms: f64,
    cores: f64,
}

impl Figures {
    fn line(&self, label: &str) -> String {
        format!(
            "{label}: {:.1} frames/s while streaming, longest frame gap {:.0} ms, end on screen \
             {:.0} ms after the last delta, {:.2} cores (app + WebKit)",
            self.fps, self.longest_gap_ms, self.end_after_last_delta_ms, self.cores
        )
    }
}

/// Sends a message, lets the scripted reply stream, and measures it.
async fn measure(rig: &ChatRig, app: &App, message: &str, marker: &str) -> Figures {
    start_probe(app, marker).await;
    let requests_before = rig.provider.chat_requests().len();
    let cpu_before = app.cpu_seconds();
    let started_ms = unix_ms();
    let started = Instant::now();
    send(app, message).await;
    let deadline = Instant::now() + Duration::from_secs(120);
    // The provider's send of the last delta, and the page's sight of it.
    let sent_ms = loop {
        let requests = rig.provider.chat_requests();
        if let Some(request) = requests.get(requests_before)
            && request.delivery == Delivery::Complete
        {
            break request.settled_at_unix_ms.unwrap() as f64;
        }
        assert!(Instant::now() < deadline, "the reply never finished");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let end_ms = loop {
        let (_, end) = read_probe(app).await;
        if let Some(end) = end {
            break end;
        }
        assert!(Instant::now() < deadline, "the end never showed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let cores = (app.cpu_seconds() - cpu_before) / started.elapsed().as_secs_f64();
    idle(app).await;
    let (frames, _) = read_probe(app).await;
    let streaming: Vec<f64> = frames
        .into_iter()
        .filter(|at| *at >= started_ms && *at <= end_ms)
        .collect();
    let window = (end_ms - started_ms).max(1.0);
    let longest_gap_ms = streaming
        .windows(2)
        .map(|pair| pair[1] - pair[0])
        .fold(0.0, f64::max);
    Figures {
        fps: streaming.len() as f64 * 1000.0 / window,
        longest_gap_ms,
        end_after_last_delta_ms: (end_ms - sent_ms).max(0.0),
        cores,
    }
}

#[tokio::test]
async fn a_long_answer_streams_as_fast_as_it_arrives() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let medium = answer(13_000, "END-OF-MEDIUM");
    let large = answer(100_000, "END-OF-LARGE");
    let rig = ChatRig::new(vec![
        // 13 KB in 2,000 deltas at 200 a second; 100 KB in 5,000 deltas at 500 a second.
        streamed(&medium, 2_000, Duration::from_millis(5)).into(),
        streamed(&large, 5_000, Duration::from_millis(2)).into(),
    ])
    .await;
    let mut app = rig.launch("streaming", true).await;

    let medium_figures = measure(&rig, &app, "a medium answer, please", "END-OF-MEDIUM").await;
    app.screenshot("medium-answer").await.unwrap();
    // Scrolled up, the view stops following and offers the way back.
    app.eval(
        "document.querySelector('[data-testid=transcript]').scrollTop = 0;",
        json!([]),
    )
    .await
    .unwrap();
    app.wait_for_css("[data-testid=jump-latest]").await.unwrap();
    app.click("[data-testid=jump-latest]").await.unwrap();
    app.wait_for(
        "the view back at the bottom",
        "const view = document.querySelector('[data-testid=transcript]');\
         return view.scrollHeight - view.scrollTop - view.clientHeight < 4;",
        json!([]),
    )
    .await
    .unwrap();

    // The large answer; meanwhile the user types, key by key, and the box keeps up.
    let typing = {
        async {
            tokio::time::sleep(Duration::from_millis(1500)).await;
            let started = Instant::now();
            app.type_into("[data-testid=chat-input]", "typed while streaming")
                .await
                .unwrap();
            let value = app
                .eval(
                    "return document.querySelector('[data-testid=chat-input]').value;",
                    json!([]),
                )
                .await
                .unwrap();
            (value, started.elapsed())
        }
    };
    let (large_figures, (typed, typing_took)) = tokio::join!(
        measure(&rig, &app, "a very long answer, please", "END-OF-LARGE"),
        typing
    );
    app.screenshot("large-answer").await.unwrap();
    assert_eq!(typed, "typed while streaming", "the input took every key");

    let metrics = format!(
        "{}\n{}\ntyping 21 keys during the large answer took {:.0} ms",
        medium_figures.line("13 KB answer, 2,000 deltas at 200/s"),
        large_figures.line("100 KB answer, 5,000 deltas at 500/s"),
        typing_took.as_secs_f64() * 1000.0
    );
    report("streaming", &metrics);
    // Floors against a regression (per-delta re-rendering measured 1.2 frames/s, 5.4 s freezes
    // and 93 s late on the medium answer; compositing in software 10-15 frames/s, see
    // src-tauri/src/compositing.rs), with room for a loaded machine: this debug build measured
    // about 60 frames/s, gaps under 60 ms and the end within 30 ms here.
    for figures in [&medium_figures, &large_figures] {
        assert!(figures.fps >= 30.0, "{metrics}");
        assert!(figures.longest_gap_ms < 200.0, "{metrics}");
        assert!(figures.end_after_last_delta_ms < 500.0, "{metrics}");
    }
    rig.verify();
}
