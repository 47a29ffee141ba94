//! Desktop notifications through the freedesktop Notifications service on the session bus, and
//! the clicks on them.
//!
//! Why not `tauri-plugin-notification` (besides keeping Tauri out of the engine): on desktop it
//! hands the notification to `notify-rust` and drops the handle, so a click is never reported on
//! Linux (its `onAction` is mobile-only), and it would give the webview commands of its own. Why
//! not `notify-rust`'s `NotificationHandle::wait_for_action`: it opens a bus connection per
//! notification, blocks a thread for each until the notification closes, and subscribes to
//! `ActionInvoked` only after the notification was sent, so a quick click can be missed. zbus is
//! already linked (the keychain reaches the Secret Service through it), so this module talks to
//! the service itself: one connection, opened when the first notification is sent, subscribed to
//! `ActionInvoked` and `NotificationClosed` *before* that first `Notify`, and a map from each
//! notification's id to the session it is about.
//!
//! A notification about a call that waits (an approval, a question) is withdrawn
//! (`CloseNotification`) once the call was answered ([`Desktop::withdraw`]).
//!
//! Every notification asks for the `default` action (what a click on its body sends). The body
//! is plain text; for a server that interprets markup (`body-markup` in its capabilities) its
//! `&`, `<` and `>` are escaped so it still shows as the text it is.

use std::collections::HashMap;
use std::sync::Arc;

use futures::StreamExt;
use tokio::sync::Mutex;
use zbus::message::Type as MessageType;
use zbus::zvariant::Value;
use zbus::{Connection, MatchRule, MessageStream};

use super::words::{Text, escape_markup};

/// The service's well-known name, object path and interface.
const SERVICE: &str = "org.freedesktop.Notifications";
const PATH: &str = "/org/freedesktop/Notifications";
const INTERFACE: &str = "org.freedesktop.Notifications";
/// The action a click on the notification's body sends.
pub const DEFAULT_ACTION: &str = "default";
/// The app's name as notifications show it, and its desktop entry (`Gantry.desktop`, as the
/// package installs it), from which servers take the icon.
const APP_NAME: &str = "Gantry";
const DESKTOP_ENTRY: &str = "Gantry";
/// Notifications the app remembers the session of (the oldest id is forgotten first).
const REMEMBERED: usize = 256;

/// What a notification is about: where a click takes the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The app's id of the project.
    pub project_id: u32,
    /// The session.
    pub session_id: String,
}

/// Why a notification could not be shown.
#[derive(Debug, thiserror::Error)]
pub enum DesktopError {
    /// There is no session bus (or it refused the connection).
    #[error("no session bus for notifications: {0}")]
    NoBus(String),
    /// The notification service failed the call (or none runs).
    #[error("the notification service refused: {0}")]
    Service(#[from] zbus::Error),
}

type ClickHandler = Arc<dyn Fn(Target) + Send + Sync>;

/// The notifications sent and not yet closed: id → target, oldest first, and the ids of those
/// about a call that waits, by call id.
#[derive(Default)]
struct Shown {
    targets: HashMap<u32, Target>,
    order: std::collections::VecDeque<u32>,
    calls: HashMap<String, u32>,
}

impl Shown {
    fn insert(&mut self, id: u32, target: Target, call: Option<String>) {
        if self.targets.insert(id, target).is_none() {
            self.order.push_back(id);
        }
        if let Some(call) = call {
            self.calls.insert(call, id);
        }
        while self.order.len() > REMEMBERED {
            if let Some(oldest) = self.order.pop_front() {
                self.forget(oldest);
            }
        }
    }

    fn remove(&mut self, id: u32) -> Option<Target> {
        let target = self.targets.get(&id).cloned()?;
        self.order.retain(|shown| *shown != id);
        self.forget(id);
        Some(target)
    }

    /// The notification about `call`, forgotten.
    fn take_call(&mut self, call: &str) -> Option<u32> {
        let id = self.calls.remove(call)?;
        self.remove(id);
        Some(id)
    }

    fn forget(&mut self, id: u32) {
        self.targets.remove(&id);
        self.calls.retain(|_, shown| *shown != id);
    }
}

/// The notification service, reached on first use.
pub struct Desktop {
    bus: tokio::sync::OnceCell<Result<Connection, String>>,
    shown: Arc<Mutex<Shown>>,
    on_click: ClickHandler,
}

impl Desktop {
    /// A client that calls `on_click` (on the async runtime) with the target of a notification
    /// the user clicked.
    pub fn new(on_click: impl Fn(Target) + Send + Sync + 'static) -> Self {
        Self {
            bus: tokio::sync::OnceCell::new(),
            shown: Arc::new(Mutex::new(Shown::default())),
            on_click: Arc::new(on_click),
        }
    }

    /// Shows `text`; a click on it calls the click handler with `target`. `call`: the tool
    /// call it asks the user about (withdrawn with it). Returns its id.
    pub async fn show(
        &self,
        text: &Text,
        target: Target,
        call: Option<String>,
    ) -> Result<u32, DesktopError> {
        let connection = self
            .bus
            .get_or_init(|| self.connect())
            .await
            .as_ref()
            .map_err(|error| DesktopError::NoBus(error.clone()))?;
        let capabilities: Vec<String> = connection
            .call_method(Some(SERVICE), PATH, Some(INTERFACE), "GetCapabilities", &())
            .await?
            .body()
            .deserialize()?;
        let body = if capabilities.iter().any(|c| c == "body-markup") {
            escape_markup(&text.body)
        } else {
            text.body.clone()
        };
        let actions = [DEFAULT_ACTION, text.action.as_str()];
        let hints = HashMap::from([
            ("desktop-entry", Value::from(DESKTOP_ENTRY)),
            ("urgency", Value::from(1u8)),
        ]);
        // Locked across the call, so a click that arrives before the reply is read waits for
        // the id to be remembered (the listener takes the same lock).
        let mut shown = self.shown.lock().await;
        let reply = connection
            .call_method(
                Some(SERVICE),
                PATH,
                Some(INTERFACE),
                "Notify",
                &(
                    APP_NAME,
                    0u32,
                    "",
                    text.summary.as_str(),
                    body.as_str(),
                    &actions[..],
                    hints,
                    -1i32,
                ),
            )
            .await?;
        let id: u32 = reply.body().deserialize()?;
        shown.insert(id, target, call);
        Ok(id)
    }

    /// Withdraws the notification about tool call `call`, if one is shown.
    pub async fn withdraw(&self, call: &str) -> Result<(), DesktopError> {
        let Some(Ok(connection)) = self.bus.get() else {
            return Ok(());
        };
        let Some(id) = self.shown.lock().await.take_call(call) else {
            return Ok(());
        };
        connection
            .call_method(
                Some(SERVICE),
                PATH,
                Some(INTERFACE),
                "CloseNotification",
                &(id,),
            )
            .await?;
        Ok(())
    }

    /// Connects to the session bus and starts listening to clicks and closings.
    async fn connect(&self) -> Result<Connection, String> {
        let connection = Connection::session()
            .await
            .map_err(|error| error.to_string())?;
        let rule = MatchRule::builder()
            .msg_type(MessageType::Signal)
            .interface(INTERFACE)
            .and_then(|rule| rule.path(PATH))
            .map_err(|error| error.to_string())?
            .build();
        let stream = MessageStream::for_match_rule(rule, &connection, None)
            .await
            .map_err(|error| error.to_string())?;
        let shown = Arc::clone(&self.shown);
        let on_click = Arc::clone(&self.on_click);
        tokio::spawn(listen(stream, shown, on_click));
        Ok(connection)
    }
}

/// Follows the service's signals: a click on a notification of ours calls `on_click` with its
/// target; a closed one is forgotten.
async fn listen(mut stream: MessageStream, shown: Arc<Mutex<Shown>>, on_click: ClickHandler) {
    while let Some(message) = stream.next().await {
        let Ok(message) = message else { continue };
        let header = message.header();
        let Some(member) = header.member() else {
            continue;
        };
        match member.as_str() {
            "ActionInvoked" => {
                let Ok((id, action)) = message.body().deserialize::<(u32, String)>() else {
                    continue;
                };
                if action != DEFAULT_ACTION {
                    continue;
                }
                let target = shown.lock().await.remove(id);
                if let Some(target) = target {
                    on_click(target);
                }
            }
            "NotificationClosed" => {
                if let Ok((id, _reason)) = message.body().deserialize::<(u32, u32)>() {
                    shown.lock().await.remove(id);
                }
            }
            _ => {}
        }
    }
    tracing::info!("the session bus closed: notification clicks are no longer followed");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(n: u32) -> Target {
        Target {
            project_id: 1,
            session_id: format!("s{n}"),
        }
    }

    #[test]
    fn shown_notifications_are_remembered_until_closed_and_bounded() {
        let mut shown = Shown::default();
        shown.insert(1, target(1), None);
        assert_eq!(shown.remove(1), Some(target(1)));
        assert_eq!(shown.remove(1), None);
        for id in 0..(REMEMBERED as u32 + 5) {
            shown.insert(id, target(id), Some(format!("call_{id}")));
        }
        assert_eq!(shown.targets.len(), REMEMBERED);
        assert_eq!(shown.calls.len(), REMEMBERED);
        assert_eq!(shown.remove(0), None);
        assert_eq!(shown.take_call("call_0"), None);
        assert_eq!(shown.remove(5), Some(target(5)));
        assert_eq!(shown.take_call("call_5"), None);
        assert_eq!(shown.order.len(), REMEMBERED - 1);
    }

    #[test]
    fn a_notification_about_a_call_is_found_once_by_the_call() {
        let mut shown = Shown::default();
        shown.insert(7, target(7), Some("call_a".into()));
        shown.insert(8, target(8), None);
        assert_eq!(shown.take_call("call_a"), Some(7));
        assert_eq!(shown.take_call("call_a"), None);
        assert_eq!(shown.remove(7), None, "the click target went with it");
        assert_eq!(shown.remove(8), Some(target(8)));
    }
}
