mod config_and_trust;
mod everything;
mod faults;
mod https;
mod oauth;
mod reload;
mod serve;
mod support;
