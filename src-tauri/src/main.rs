//! `gantry [FOLDER]`: the desktop app.

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use std::process::ExitCode;

use gantry_app::args::{self, Launch};
use gantry_app::compositing;

fn main() -> ExitCode {
    set_webkit_environment();
    gantry_app::init_tracing();
    let cwd = std::env::current_dir().unwrap_or_default();
    match args::parse(std::env::args_os().skip(1), &cwd) {
        Launch::Help => {
            println!("{}", args::USAGE);
            ExitCode::SUCCESS
        }
        Launch::Version => {
            println!("gantry {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        Launch::Window(folder) => match gantry_app::run(folder) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("gantry: {error}");
                ExitCode::FAILURE
            }
        },
    }
}

/// Sets what WebKit reads from the environment when its processes start (see
/// [`compositing::startup_environment`]); a value the user set already is kept.
#[allow(unsafe_code)]
fn set_webkit_environment() {
    let choice = compositing::for_this_machine();
    if let Some((name, value)) = compositing::startup_environment(choice)
        && std::env::var_os(name).is_none()
    {
        // SAFETY: the first thing `main` does, while the process has one thread: nothing reads
        // or writes the environment at the same time.
        unsafe { std::env::set_var(name, value) };
    }
}
