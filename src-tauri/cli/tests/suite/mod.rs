mod audit;
mod chat;
mod file_tools;
mod projects;
mod providers;
mod run_command;
mod support;
mod tools;
