//! Row ids. SQLite rowids, typed so a session id can't be passed where a project id belongs.
//!
//! They are shown and parsed as plain decimal numbers; that is also how a session id travels in
//! [`gantry_tools::AuditRecord::session_id`].

use std::fmt;
use std::num::ParseIntError;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

macro_rules! row_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub i64);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }

        impl FromStr for $name {
            type Err = ParseIntError;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                s.trim().parse().map(Self)
            }
        }
    };
}

row_id!(
    /// A project's id.
    ProjectId
);
row_id!(
    /// A session's id.
    SessionId
);
row_id!(
    /// An audit record's id.
    AuditId
);
row_id!(
    /// A message's id (its position in the session is its `ordinal`).
    MessageId
);
row_id!(
    /// A checkpoint change's id (later changes have larger ids).
    ChangeId
);
row_id!(
    /// A checkpoint restore's id.
    RestoreId
);
row_id!(
    /// A set-aside version of a conversation.
    BranchId
);
