//! Gantry tool system (in progress).

pub mod walk;
