//! A project's MCP servers in the app: the hub and the changes the MCP panel makes to it
//! ([`servers`]), what the panel shows ([`panel`]), what the servers tell the webview unasked
//! ([`events`]), and remote servers' sign-in tokens in the OS keychain ([`tokens`]).

pub mod events;
pub mod panel;
pub mod servers;
pub mod service;
pub mod tokens;
