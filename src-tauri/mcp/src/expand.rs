//! `${VAR}` expansion in commands, arguments, env values, URLs and headers.
//!
//! The shared config files are often committed or synced, so tokens are written as `${VAR}` and
//! taken from the environment when the server starts (`${VAR:-default}` gives a fallback, `$$`
//! is a literal `$`). A missing variable fails that one server with a message that names the
//! variable and the key, never the value of anything. Later, a value named like a secret may come
//! from the keychain instead (the store issue): [`Lookup`] is the seam for that.

use std::collections::BTreeMap;

/// Where variable values come from.
pub trait Lookup: Send + Sync {
    /// The value of `name`, if set.
    fn get(&self, name: &str) -> Option<String>;
}

/// The process environment.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessEnv;

impl Lookup for ProcessEnv {
    fn get(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
}

impl Lookup for BTreeMap<String, String> {
    fn get(&self, name: &str) -> Option<String> {
        BTreeMap::get(self, name).cloned()
    }
}

/// A value that could not be expanded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExpandError {
    /// `${NAME}` with NAME unset and no default.
    #[error("environment variable {name} is not set (used in {key})")]
    Missing {
        /// The variable.
        name: String,
        /// Where it was used, e.g. `env.API_KEY` or `headers.Authorization`.
        key: String,
    },
    /// `${` without a closing `}` or with an invalid name.
    #[error("malformed ${{...}} in {key}")]
    Malformed {
        /// Where.
        key: String,
    },
}

/// Expands every `${VAR}` / `${VAR:-default}` in `text`; `key` names the value in errors.
pub fn expand(text: &str, key: &str, lookup: &dyn Lookup) -> Result<String, ExpandError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(index) = rest.find('$') {
        out.push_str(&rest[..index]);
        let after = &rest[index + 1..];
        if let Some(stripped) = after.strip_prefix('$') {
            out.push('$');
            rest = stripped;
            continue;
        }
        let Some(body_and_rest) = after.strip_prefix('{') else {
            out.push('$');
            rest = after;
            continue;
        };
        let Some(close) = body_and_rest.find('}') else {
            return Err(ExpandError::Malformed {
                key: key.to_owned(),
            });
        };
        let body = &body_and_rest[..close];
        let (name, default) = match body.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (body, None),
        };
        let valid = !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit());
        if !valid {
            return Err(ExpandError::Malformed {
                key: key.to_owned(),
            });
        }
        match (lookup.get(name), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => {
                return Err(ExpandError::Missing {
                    name: name.to_owned(),
                    key: key.to_owned(),
                });
            }
        }
        rest = &body_and_rest[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Expands every value of a map (`prefix.KEY` names each in errors).
pub fn expand_map(
    map: &BTreeMap<String, String>,
    prefix: &str,
    lookup: &dyn Lookup,
) -> Result<BTreeMap<String, String>, ExpandError> {
    map.iter()
        .map(|(key, value)| {
            Ok((
                key.clone(),
                expand(value, &format!("{prefix}.{key}"), lookup)?,
            ))
        })
        .collect()
}

/// The names of the variables `text` refers to with `${NAME}` or `${NAME:-default}`, in order
/// of appearance (`$$` escapes skipped). Text after a malformed `${` is not looked at.
pub fn referenced_variables(text: &str) -> Vec<String> {
    /// Records every name asked for and answers with an empty value.
    struct Recorder(std::sync::Mutex<Vec<String>>);
    impl Lookup for Recorder {
        fn get(&self, name: &str) -> Option<String> {
            self.0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(name.to_owned());
            Some(String::new())
        }
    }
    let recorder = Recorder(std::sync::Mutex::new(Vec::new()));
    let _ = expand(text, "", &recorder);
    recorder
        .0
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    #[test]
    fn referenced_variables_are_listed_in_order() {
        assert_eq!(
            super::referenced_variables("Bearer ${TOKEN} $$ ${HOME:-/h}/${TOKEN} ${1bad}"),
            ["TOKEN", "HOME", "TOKEN"]
        );
        assert!(super::referenced_variables("plain $HOME").is_empty());
    }

    use super::*;

    fn vars() -> BTreeMap<String, String> {
        [("TOKEN", "s3cret"), ("HOME", "/home/u")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect()
    }

    #[test]
    fn expands_variables_defaults_and_literal_dollars() {
        let vars = vars();
        assert_eq!(
            expand("Bearer ${TOKEN}", "h", &vars).unwrap(),
            "Bearer s3cret"
        );
        assert_eq!(
            expand("${HOME}/src:${NOPE:-/tmp}", "a", &vars).unwrap(),
            "/home/u/src:/tmp"
        );
        assert_eq!(expand("$$5 and $PATH", "a", &vars).unwrap(), "$5 and $PATH");
        assert_eq!(expand("${NOPE:-}", "a", &vars).unwrap(), "");
    }

    #[test]
    fn missing_and_malformed_name_the_key_not_the_value() {
        let vars = vars();
        let error = expand("x ${MISSING}", "headers.Authorization", &vars).unwrap_err();
        assert_eq!(
            error.to_string(),
            "environment variable MISSING is not set (used in headers.Authorization)"
        );
        assert!(matches!(
            expand("${TOKEN", "args[0]", &vars),
            Err(ExpandError::Malformed { .. })
        ));
        assert!(matches!(
            expand("${1X}", "args[0]", &vars),
            Err(ExpandError::Malformed { .. })
        ));
        let map: BTreeMap<String, String> = [("K".to_owned(), "${NOPE}".to_owned())].into();
        assert_eq!(
            expand_map(&map, "env", &vars).unwrap_err().to_string(),
            "environment variable NOPE is not set (used in env.K)"
        );
    }
}
