//! `gantry [FOLDER]`: the desktop app.

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use std::process::ExitCode;

use gantry_app::args::{self, Launch};

fn main() -> ExitCode {
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
