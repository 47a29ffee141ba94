mod audit;
mod concurrency;
mod crash;
mod keychain;
mod projects;
mod schema;
mod sessions;
mod support;
