//! Desktop notifications, decided in the engine: which of its events the user would want to
//! hear about while looking elsewhere, and whether they are looking ([`decide`]). The desktop
//! shell only hands a finished notification to the desktop's service and routes its click.

pub mod decide;
