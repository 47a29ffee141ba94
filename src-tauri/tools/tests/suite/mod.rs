mod as_nobody;
mod escapes;
mod lifecycle;
mod support;
mod work;
