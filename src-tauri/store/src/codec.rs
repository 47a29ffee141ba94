//! Turning column text back into the engine's types, with a clear error when it doesn't fit.

use std::path::Path;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::{Result, StoreError};

/// An enum stored by its snake_case serde name (`"auto"`, `"allowed_once"`, ...).
pub(crate) fn parse_name<T: DeserializeOwned>(what: &'static str, name: &str) -> Result<T> {
    serde_json::from_value(Value::String(name.to_owned())).map_err(|_| StoreError::Corrupt {
        what,
        reason: format!("unknown name '{name}'"),
    })
}

/// A JSON column.
pub(crate) fn parse_json(what: &'static str, text: &str) -> Result<Value> {
    serde_json::from_str(text).map_err(|error| StoreError::Corrupt {
        what,
        reason: error.to_string(),
    })
}

/// A path as the database keeps it: UTF-8 text.
pub(crate) fn path_text<'p>(what: &'static str, path: &'p Path) -> Result<&'p str> {
    path.to_str()
        .ok_or_else(|| StoreError::invalid(what, format!("{} is not UTF-8", path.display())))
}

/// A count or size that SQLite keeps as a signed integer.
pub(crate) fn to_u32(what: &'static str, value: i64) -> Result<u32> {
    u32::try_from(value).map_err(|_| StoreError::Corrupt {
        what,
        reason: format!("{value} is out of range"),
    })
}
