mod chat;
mod run_command;
mod support;
mod tools;
