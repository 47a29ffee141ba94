mod mcp;
mod support;
mod tools;
