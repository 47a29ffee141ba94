mod limit;
mod list_dir;
mod support;
mod watcher;
