//! The first run and the chat header's model: no provider chosen, a "local server" (the scripted
//! provider, named by `GANTRY_LOCAL_SERVERS` so the machine's real ports are never asked) found
//! and used from the empty chat; then the session switched to another model from the header,
//! remembered across a restart.

use gantry_scripted_provider::{Expect, Script, ScriptedProvider, Turn};
use serde_json::json;

use crate::app::App;
use crate::chat::{assistant_says, idle, send};
use crate::fixture::Fixture;
use crate::{SERIAL, enabled};

#[tokio::test]
async fn the_first_run_offers_a_local_server_and_the_header_switches_the_model() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let fixture = Fixture::new();
    let data = crate::fixture::data_dir();
    let server = ScriptedProvider::start(
        Script::new([
            Turn::text("Hello from the small model.")
                .expect(Expect::new().model("qwen2.5-coder:7b")),
            Turn::text("Hello from the big model.").expect(Expect::new().model("qwen3:32b")),
            Turn::text("Still the big model.").expect(Expect::new().model("qwen3:32b")),
        ])
        .models(["qwen2.5-coder:7b", "qwen3:32b"])
        // Ollama's own API: the window the loaded model runs with.
        .route(
            "GET /api/ps",
            json!({"models": [{"name": "qwen3:32b", "model": "qwen3:32b", "context_length": 16384},
                              {"name": "qwen2.5-coder:7b", "model": "qwen2.5-coder:7b", "context_length": 32768}]}),
        )
        .route("POST /api/show", json!({"model_info": {}})),
    )
    .await
    .unwrap();
    let local = format!("ollama={}", server.base_url());
    let env = [("GANTRY_LOCAL_SERVERS", local.as_str())];
    let arg = fixture.arg();
    let mut app =
        App::launch_with_env("first-run-models", &[arg.as_str()], data.path(), true, &env)
            .await
            .unwrap();

    // The empty chat offers what answers on "this machine", with its models.
    app.wait_for_css("[data-testid=setup-server][data-preset=ollama]")
        .await
        .unwrap();
    let offered = app
        .eval(
            "return document.querySelector('[data-testid=setup-server]').textContent;",
            json!([]),
        )
        .await
        .unwrap();
    assert!(offered.as_str().unwrap().contains("2 models"), "{offered}");
    app.screenshot("offered").await.unwrap();
    app.click("[data-testid=setup-use]").await.unwrap();
    app.wait_for(
        "the offer gone and the model in the header",
        "return !document.querySelector('[data-testid=local-setup]') &&\
           document.querySelector('[data-testid=provider-summary]')?.textContent === 'Ollama · qwen2.5-coder:7b';",
        json!([]),
    )
    .await
    .unwrap();
    send(&app, "hello").await;
    assistant_says(&app, "Hello from the small model.").await;
    idle(&app).await;

    // Switch this session to the other model from the header.
    app.click("[data-testid=model-picker]").await.unwrap();
    app.wait_for_css("[data-testid=model-list]").await.unwrap();
    let window = app
        .eval(
            "return document.querySelector('[data-testid=model-window]').textContent;",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(
        window.as_str().unwrap(),
        "Context window: 32K tokens, as the server runs the model."
    );
    app.eval(
        "[...document.querySelectorAll('[data-testid=model-list] button')]\
           .find(b => b.textContent === 'qwen3:32b').click();",
        json!([]),
    )
    .await
    .unwrap();
    app.screenshot("picker").await.unwrap();
    app.click("[data-testid=model-use]").await.unwrap();
    app.wait_for(
        "the header showing the switched model",
        "return document.querySelector('[data-testid=provider-summary]')?.textContent === 'Ollama · qwen3:32b';",
        json!([]),
    )
    .await
    .unwrap();
    send(&app, "hello again").await;
    assistant_says(&app, "Hello from the big model.").await;
    idle(&app).await;
    app.quit().await.unwrap();

    // After a restart the session still talks to the model it was switched to.
    let mut app = App::launch_with_env(
        "first-run-models",
        &[arg.as_str()],
        data.path(),
        false,
        &env,
    )
    .await
    .unwrap();
    app.wait_for(
        "the remembered model",
        "return document.querySelector('[data-testid=provider-summary]')?.textContent === 'Ollama · qwen3:32b';",
        json!([]),
    )
    .await
    .unwrap();
    send(&app, "and now?").await;
    assistant_says(&app, "Still the big model.").await;
    idle(&app).await;
    app.screenshot("remembered").await.unwrap();
    server.verify().unwrap();
}
