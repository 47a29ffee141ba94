//! Gantry tool system (in progress).

pub mod command_scope;
pub mod confine;
pub mod walk;
