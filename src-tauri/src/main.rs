//! Placeholder for the Gantry desktop app; the Tauri shell arrives with the desktop issue.

fn main() {
    println!("The Gantry desktop app is not built yet; use `gantry-cli` meanwhile.");
}
