mod audit;
mod projects;
mod providers;
mod run_command;
mod support;
mod tools;
