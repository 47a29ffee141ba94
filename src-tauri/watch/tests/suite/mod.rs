mod children;
mod limit;
mod support;
mod watcher;
