//! A minimal Tauri 2 app: one window showing one static page.

fn main() {
    tauri::Builder::default()
        .run(tauri::generate_context!())
        .unwrap_or_else(|error| panic!("the app failed: {error}"));
}
