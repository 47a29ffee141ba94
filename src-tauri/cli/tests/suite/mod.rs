mod file_tools;
mod run_command;
mod support;
mod tools;
