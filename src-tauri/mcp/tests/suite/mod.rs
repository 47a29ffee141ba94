mod config_and_trust;
mod everything;
mod faults;
mod https;
mod serve;
mod support;
