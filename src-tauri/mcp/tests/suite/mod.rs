mod config_and_trust;
mod everything;
mod faults;
mod serve;
mod support;
