mod batching;
mod cancel;
mod conversation;
mod models;
mod ollama;
mod resilience;
mod resume;
mod support;
