mod config_and_trust;
mod everything;
mod faults;
mod https;
mod reload;
mod serve;
mod support;
