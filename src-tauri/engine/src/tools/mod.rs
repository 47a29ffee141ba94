//! A project's tools and rules in the app: the Tools panel's policies and session grants
//! ([`panel`]), the command sandbox settings, passed variables and lasting rules ([`rules`]),
//! and the audit log's view and export ([`audit`]).

pub mod audit;
pub mod panel;
pub mod rules;
pub mod service;
