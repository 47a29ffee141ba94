//! Integration tests of the agent loop against the scripted OpenAI-compatible provider.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
