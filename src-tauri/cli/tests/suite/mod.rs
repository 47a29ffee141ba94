mod search_tools;
mod support;
mod tools;
