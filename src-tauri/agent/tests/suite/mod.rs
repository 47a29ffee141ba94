mod cancel;
mod conversation;
mod ollama;
mod resilience;
mod resume;
mod support;
