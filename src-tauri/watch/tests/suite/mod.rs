mod list_dir;
mod support;
