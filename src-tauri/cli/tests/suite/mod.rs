mod audit;
mod projects;
mod providers;
mod support;
mod tools;
