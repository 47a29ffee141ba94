mod file_tools;
mod support;
mod tools;
