//! Gantry tool system (in progress).

pub mod confine;
pub mod walk;
