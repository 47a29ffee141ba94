mod support;
mod tools;
