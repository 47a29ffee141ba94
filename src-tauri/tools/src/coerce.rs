//! Lenient coercion and validation of model-written arguments against a parameter schema.
//!
//! Models write JSON loosely: `"1"` for a number, `"true"` for a boolean, an array sent as a
//! JSON-encoded string, `null` for "use the default". Rejecting those wastes a model step, so the
//! values are coerced in place, against the schema, before anything is deserialised. What still
//! does not fit is reported field by field, every problem at once, so the model can fix all of
//! them in one retry; nothing here panics and nothing that failed reaches a tool.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// One argument that does not fit the schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArgumentProblem {
    /// Where the value sits: `offset`, `options[2]`, `filter.glob`; empty for the whole object.
    pub field: String,
    /// What the schema asks for, e.g. `integer`, `one of "a", "b"`, `a required string`.
    pub expected: String,
    /// What the model sent, e.g. `string "abc"`, `nothing`.
    pub received: String,
}

impl fmt::Display for ArgumentProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let field = if self.field.is_empty() {
            "arguments"
        } else {
            &self.field
        };
        write!(
            f,
            "{field}: expected {}, received {}",
            self.expected, self.received
        )
    }
}

/// Coerces `args` in place to fit `schema` (an object schema as produced by
/// [`crate::schema::clean_parameters`]) and returns every problem that remains.
pub fn coerce_arguments(schema: &Value, args: &mut Value) -> Vec<ArgumentProblem> {
    let mut problems = Vec::new();
    coerce_object(schema, args, "", &mut problems);
    problems
}

/// The JSON types a schema node accepts; empty means anything.
fn accepted_types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(kind)) => vec![kind.as_str()],
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn allows_null(schema: &Value) -> bool {
    accepted_types(schema).contains(&"null")
        || alternatives(schema).is_some_and(|alts| alts.iter().any(allows_null))
}

fn alternatives(schema: &Value) -> Option<&Vec<Value>> {
    schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array)
}

fn join_path(parent: &str, field: &str) -> String {
    if parent.is_empty() {
        field.to_owned()
    } else {
        format!("{parent}.{field}")
    }
}

fn coerce_object(
    schema: &Value,
    value: &mut Value,
    path: &str,
    problems: &mut Vec<ArgumentProblem>,
) {
    let Value::Object(fields) = value else {
        problems.push(ArgumentProblem {
            field: path.to_owned(),
            expected: "an object".into(),
            received: describe(value),
        });
        return;
    };
    let empty = Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));

    // `null` for an optional field means "not given": let the default apply.
    fields.retain(|name, field_value| {
        let Some(field_schema) = properties.get(name) else {
            return true;
        };
        !(field_value.is_null() && !required.contains(&name.as_str()) && !allows_null(field_schema))
    });

    let mut unknown = Vec::new();
    for (name, field_value) in fields.iter_mut() {
        match properties.get(name) {
            Some(field_schema) => {
                coerce_value(field_schema, field_value, &join_path(path, name), problems)
            }
            None if closed => unknown.push(name.clone()),
            None => {}
        }
    }
    for name in required {
        if !fields.contains_key(name) {
            let kind = properties
                .get(name)
                .map(expected_text)
                .unwrap_or_else(|| "a value".into());
            problems.push(ArgumentProblem {
                field: join_path(path, name),
                expected: format!("{kind} (required)"),
                received: "nothing".into(),
            });
        }
    }
    for name in unknown {
        let known: Vec<&str> = properties.keys().map(String::as_str).collect();
        problems.push(ArgumentProblem {
            field: join_path(path, &name),
            expected: if known.is_empty() {
                "no such field (this tool takes no arguments)".into()
            } else {
                format!("no such field (known fields: {})", known.join(", "))
            },
            received: describe(&fields[&name]),
        });
    }
}

fn coerce_value(
    schema: &Value,
    value: &mut Value,
    path: &str,
    problems: &mut Vec<ArgumentProblem>,
) {
    if let Some(alts) = alternatives(schema) {
        coerce_alternatives(schema, alts, value, path, problems);
        return;
    }
    let kinds = accepted_types(schema);
    if kinds.is_empty() {
        check_enum(schema, value, path, problems);
        return;
    }
    if kinds.iter().any(|kind| matches_type(kind, value)) {
        recurse(schema, value, path, problems);
        return;
    }
    match kinds.iter().find_map(|kind| coerced(kind, value)) {
        Some(fixed) => {
            *value = fixed;
            recurse(schema, value, path, problems);
        }
        None => problems.push(ArgumentProblem {
            field: path.to_owned(),
            expected: expected_text(schema),
            received: describe(value),
        }),
    }
}

/// `anyOf`/`oneOf`: the first alternative the value fits as is, else the first it can be
/// coerced into without problems.
fn coerce_alternatives(
    schema: &Value,
    alts: &[Value],
    value: &mut Value,
    path: &str,
    problems: &mut Vec<ArgumentProblem>,
) {
    let mut best: Option<Value> = None;
    for alt in alts {
        let mut attempt = value.clone();
        let mut alt_problems = Vec::new();
        coerce_value(alt, &mut attempt, path, &mut alt_problems);
        if alt_problems.is_empty() {
            if attempt == *value {
                return;
            }
            best.get_or_insert(attempt);
        }
    }
    match best {
        Some(fixed) => *value = fixed,
        None => problems.push(ArgumentProblem {
            field: path.to_owned(),
            expected: expected_text(schema),
            received: describe(value),
        }),
    }
}

fn recurse(schema: &Value, value: &mut Value, path: &str, problems: &mut Vec<ArgumentProblem>) {
    match value {
        Value::Object(_) if schema.get("properties").is_some() => {
            coerce_object(schema, value, path, problems)
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items").filter(|s| s.is_object()) {
                for (index, item) in items.iter_mut().enumerate() {
                    coerce_value(item_schema, item, &format!("{path}[{index}]"), problems);
                }
            }
        }
        Value::Number(number) => check_bounds(schema, number, path, problems),
        _ => {}
    }
    check_enum(schema, value, path, problems);
}

fn matches_type(kind: &str, value: &Value) -> bool {
    match (kind, value) {
        ("integer", Value::Number(n)) => n.is_i64() || n.is_u64(),
        ("number", Value::Number(_)) => true,
        ("string", Value::String(_)) => true,
        ("boolean", Value::Bool(_)) => true,
        ("object", Value::Object(_)) => true,
        ("array", Value::Array(_)) => true,
        ("null", Value::Null) => true,
        _ => false,
    }
}

/// The value converted to `kind` by one of the lenient rules, if one applies.
fn coerced(kind: &str, value: &Value) -> Option<Value> {
    match (kind, value) {
        ("integer", Value::Number(n)) => whole_number(n.as_f64()?),
        ("integer", Value::String(s)) => {
            let s = s.trim();
            if let Ok(n) = s.parse::<i64>() {
                return Some(Value::from(n));
            }
            if let Ok(n) = s.parse::<u64>() {
                return Some(Value::from(n));
            }
            whole_number(s.parse::<f64>().ok()?)
        }
        ("number", Value::String(s)) => {
            let n = s.trim().parse::<f64>().ok().filter(|n| n.is_finite())?;
            Number::from_f64(n).map(Value::Number)
        }
        ("boolean", Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        ("object", Value::String(s)) => serde_json::from_str::<Value>(s.trim())
            .ok()
            .filter(Value::is_object),
        ("array", Value::String(s)) => serde_json::from_str::<Value>(s.trim())
            .ok()
            .filter(Value::is_array),
        _ => None,
    }
}

fn whole_number(n: f64) -> Option<Value> {
    if !n.is_finite() || n.fract() != 0.0 {
        return None;
    }
    // Within these bounds the conversions are exact.
    if (-9.007_199_254_740_992e15..=9.007_199_254_740_992e15).contains(&n) {
        #[allow(clippy::cast_possible_truncation)]
        Some(Value::from(n as i64))
    } else {
        None
    }
}

fn check_bounds(schema: &Value, number: &Number, path: &str, problems: &mut Vec<ArgumentProblem>) {
    let Some(n) = number.as_f64() else { return };
    let minimum = schema.get("minimum").and_then(Value::as_f64);
    let maximum = schema.get("maximum").and_then(Value::as_f64);
    let too_small = minimum.is_some_and(|min| n < min);
    let too_large = maximum.is_some_and(|max| n > max);
    if too_small || too_large {
        let kind = expected_text(schema);
        let range = match (minimum, maximum) {
            (Some(min), Some(max)) => format!("{kind} from {min} to {max}"),
            (Some(min), None) => format!("{kind} of at least {min}"),
            (None, Some(max)) => format!("{kind} of at most {max}"),
            (None, None) => kind,
        };
        problems.push(ArgumentProblem {
            field: path.to_owned(),
            expected: range,
            received: describe(&Value::Number(number.clone())),
        });
    }
}

fn check_enum(schema: &Value, value: &Value, path: &str, problems: &mut Vec<ArgumentProblem>) {
    let allowed = match (schema.get("enum"), schema.get("const")) {
        (Some(Value::Array(allowed)), _) => allowed.clone(),
        (None, Some(constant)) => vec![constant.clone()],
        _ => return,
    };
    if !allowed.contains(value) {
        let listed: Vec<String> = allowed.iter().map(Value::to_string).collect();
        problems.push(ArgumentProblem {
            field: path.to_owned(),
            expected: format!("one of {}", listed.join(", ")),
            received: describe(value),
        });
    }
}

/// A short human description of what a schema node accepts.
fn expected_text(schema: &Value) -> String {
    if let Some(Value::Array(allowed)) = schema.get("enum") {
        let listed: Vec<String> = allowed.iter().map(Value::to_string).collect();
        return format!("one of {}", listed.join(", "));
    }
    if let Some(alts) = alternatives(schema) {
        let texts: Vec<String> = alts.iter().map(expected_text).collect();
        return texts.join(" or ");
    }
    let kinds = accepted_types(schema);
    if kinds.is_empty() {
        return "a value".into();
    }
    let texts: Vec<String> = kinds
        .iter()
        .map(|kind| match *kind {
            "array" => match schema.get("items").map(expected_text) {
                Some(item) if item != "a value" => format!("an array of {item}"),
                _ => "an array".into(),
            },
            "object" => "an object".into(),
            other => other.to_owned(),
        })
        .collect();
    texts.join(" or ")
}

/// A short description of a received value: its JSON type and a bounded excerpt.
fn describe(value: &Value) -> String {
    const EXCERPT_CHARS: usize = 60;
    let kind = match value {
        Value::Null => return "null".into(),
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let text = value.to_string();
    let excerpt: String = text.chars().take(EXCERPT_CHARS).collect();
    let ellipsis = if text.chars().count() > EXCERPT_CHARS {
        "…"
    } else {
        ""
    };
    format!("{kind} {excerpt}{ellipsis}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "offset": {"type": "integer", "minimum": 0, "default": 1},
                "ratio": {"type": "number"},
                "flag": {"type": "boolean", "default": false},
                "options": {"type": "array", "items": {"type": "string"}, "default": []},
                "filter": {"type": "object", "properties": {"glob": {"type": "string"}, "depth": {"type": "integer"}}, "required": ["glob"]},
                "mode": {"type": "string", "enum": ["fast", "slow"]},
                "note": {"type": ["string", "null"]},
                "either": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]}
            },
            "required": ["path"],
            "additionalProperties": false
        })
    }

    fn run(args: Value) -> (Value, Vec<String>) {
        let mut args = args;
        let problems = coerce_arguments(&schema(), &mut args);
        (args, problems.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn coercion_table() {
        // (label, input, expected output)
        let table: Vec<(&str, Value, Value)> = vec![
            (
                "string integer",
                json!({"path": "a", "offset": "1"}),
                json!({"path": "a", "offset": 1}),
            ),
            (
                "padded string integer",
                json!({"path": "a", "offset": " 7 "}),
                json!({"path": "a", "offset": 7}),
            ),
            (
                "whole float to integer",
                json!({"path": "a", "offset": 2.0}),
                json!({"path": "a", "offset": 2}),
            ),
            (
                "string whole float to integer",
                json!({"path": "a", "offset": "3.0"}),
                json!({"path": "a", "offset": 3}),
            ),
            (
                "string float",
                json!({"path": "a", "ratio": "1.5"}),
                json!({"path": "a", "ratio": 1.5}),
            ),
            (
                "integer is a number",
                json!({"path": "a", "ratio": 2}),
                json!({"path": "a", "ratio": 2}),
            ),
            (
                "string true",
                json!({"path": "a", "flag": "true"}),
                json!({"path": "a", "flag": true}),
            ),
            (
                "string FALSE",
                json!({"path": "a", "flag": "FALSE"}),
                json!({"path": "a", "flag": false}),
            ),
            (
                "encoded array",
                json!({"path": "a", "options": "[\"x\",\"y\"]"}),
                json!({"path": "a", "options": ["x", "y"]}),
            ),
            (
                "encoded object",
                json!({"path": "a", "filter": "{\"glob\":\"*.rs\",\"depth\":\"2\"}"}),
                json!({"path": "a", "filter": {"glob": "*.rs", "depth": 2}}),
            ),
            (
                "null means default",
                json!({"path": "a", "offset": null, "flag": null}),
                json!({"path": "a"}),
            ),
            (
                "nullable keeps null",
                json!({"path": "a", "note": null}),
                json!({"path": "a", "note": null}),
            ),
            (
                "anyOf picks the fitting branch",
                json!({"path": "a", "either": "true"}),
                json!({"path": "a", "either": true}),
            ),
            (
                "anyOf prefers the integer",
                json!({"path": "a", "either": "5"}),
                json!({"path": "a", "either": 5}),
            ),
            (
                "untouched",
                json!({"path": "a", "mode": "fast"}),
                json!({"path": "a", "mode": "fast"}),
            ),
        ];
        for (label, input, expected) in table {
            let (output, problems) = run(input);
            assert!(
                problems.is_empty(),
                "{label}: unexpected problems {problems:?}"
            );
            assert_eq!(output, expected, "{label}");
        }
    }

    #[test]
    fn every_bad_field_is_named_with_what_was_expected_and_received() {
        let (_, problems) = run(json!({
            "offset": "abc",
            "ratio": "fast",
            "flag": "yes",
            "options": [1],
            "filter": {"depth": 1.5},
            "mode": "medium",
            "colour": "red"
        }));
        assert_eq!(
            problems,
            vec![
                "offset: expected integer, received string \"abc\"",
                "ratio: expected number, received string \"fast\"",
                "flag: expected boolean, received string \"yes\"",
                "options[0]: expected string, received number 1",
                "filter.depth: expected integer, received number 1.5",
                "filter.glob: expected string (required), received nothing",
                "mode: expected one of \"fast\", \"slow\", received string \"medium\"",
                "path: expected string (required), received nothing",
                "colour: expected no such field (known fields: path, offset, ratio, flag, options, filter, mode, note, either), received string \"red\"",
            ]
        );
    }

    #[test]
    fn fractions_and_bounds_are_not_forced_into_integers() {
        let (_, problems) = run(json!({"path": "a", "offset": 2.5}));
        assert_eq!(
            problems,
            vec!["offset: expected integer, received number 2.5"]
        );
        let (_, problems) = run(json!({"path": "a", "offset": -3}));
        assert_eq!(
            problems,
            vec!["offset: expected integer of at least 0, received number -3"]
        );
        let (_, problems) = run(json!({"path": "a", "offset": "1e400"}));
        assert_eq!(
            problems,
            vec!["offset: expected integer, received string \"1e400\""]
        );
    }

    #[test]
    fn a_non_object_is_one_clear_problem() {
        let mut args = json!([1, 2]);
        let problems = coerce_arguments(&schema(), &mut args);
        assert_eq!(problems.len(), 1);
        assert_eq!(
            problems[0].to_string(),
            "arguments: expected an object, received array [1,2]"
        );
    }

    #[test]
    fn required_null_is_a_problem() {
        let (_, problems) = run(json!({"path": null}));
        assert_eq!(problems, vec!["path: expected string, received null"]);
    }

    #[test]
    fn long_values_are_excerpted() {
        let long = "x".repeat(500);
        let (_, problems) = run(json!({"path": "a", "offset": long}));
        assert!(problems[0].ends_with("…"), "{}", problems[0]);
        assert!(problems[0].len() < 120);
    }
}
