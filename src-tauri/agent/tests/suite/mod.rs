mod cancel;
mod conversation;
mod models;
mod ollama;
mod quirks;
mod resilience;
mod resume;
mod support;
