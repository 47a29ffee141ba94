mod app;
