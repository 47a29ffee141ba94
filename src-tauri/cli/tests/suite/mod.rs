mod audit;
mod file_tools;
mod mcp;
mod projects;
mod providers;
mod run_command;
mod support;
mod tools;
