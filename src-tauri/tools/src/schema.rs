//! JSON Schemas for tool parameters, cleaned for model providers.
//!
//! schemars describes a Rust type faithfully, with `$defs`/`$ref` indirection, `title`s and
//! Rust-specific integer formats. Providers are pickier: several reject `$ref`, some reject
//! unknown `format`s, and all of them do better with a flat object whose `required` list says
//! exactly which fields must be present. [`clean_parameters`] turns any parameter schema — a
//! built-in tool's derived one or an MCP server's `inputSchema` — into that shape, once, when
//! the tool is registered.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// How deep `$ref`s are inlined before a recursive type is cut off with an open schema.
const MAX_INLINE_DEPTH: usize = 16;

/// Keys that only document a schema or point into its definitions; dropped everywhere.
const DROPPED_KEYS: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "title",
    "$defs",
    "definitions",
];

/// Integer and float formats that schemars emits for Rust types and that providers may reject.
const RUST_NUMBER_FORMATS: &[&str] = &[
    "int", "int8", "int16", "int32", "int64", "int128", "uint", "uint8", "uint16", "uint32",
    "uint64", "uint128", "float", "double",
];

/// The raw (uncleaned) JSON Schema that schemars derives for `T`, draft 2020-12, describing how
/// `T` is deserialised.
pub fn raw_schema_for<T: JsonSchema>() -> Value {
    let mut settings = SchemaSettings::draft2020_12().for_deserialize();
    settings.inline_subschemas = true;
    settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// The cleaned parameter schema of `T`, ready for [`clean_parameters`]'s consumers.
pub fn parameters_for<T: JsonSchema>() -> Value {
    clean_parameters(&raw_schema_for::<T>(), Strictness::Closed)
}

/// Whether a cleaned top-level object accepts properties it does not declare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strictness {
    /// Always `additionalProperties: false` (built-in tools: an unknown field is a mistake).
    Closed,
    /// `additionalProperties: false` unless the schema itself says otherwise (MCP servers).
    AsDeclared,
}

/// Cleans a parameter schema for providers:
/// - `$ref`s into `$defs`/`definitions` are inlined (recursive types are cut off after a depth);
/// - `$schema`, `$id`, `title`, `$comment` and the definition tables are dropped everywhere, and
///   the top-level `description` too (the tool's own description says it);
/// - Rust-specific number formats (`uint32`, `double`, ...) are dropped (bounds stay);
/// - the top level is `type: object` with `properties`, a `required` list holding exactly the
///   declared properties that have no `default`, and `additionalProperties: false` (see
///   [`Strictness`]).
pub fn clean_parameters(raw: &Value, strictness: Strictness) -> Value {
    let definitions = collect_definitions(raw);
    let mut cleaned = inline_and_strip(raw, &definitions, 0);
    let mut top = match cleaned.take() {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    top.remove("description");
    top.insert("type".into(), Value::String("object".into()));
    let properties = match top.remove("properties") {
        Some(Value::Object(properties)) => properties,
        _ => Map::new(),
    };
    let declared_required: Vec<String> = match top.remove("required") {
        Some(Value::Array(names)) => names
            .into_iter()
            .filter_map(|n| n.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    let required: Vec<Value> = declared_required
        .into_iter()
        .filter(|name| {
            properties
                .get(name)
                .is_some_and(|p| p.get("default").is_none())
        })
        .map(Value::String)
        .collect();
    top.insert("properties".into(), Value::Object(properties));
    top.insert("required".into(), Value::Array(required));
    let keep_declared =
        strictness == Strictness::AsDeclared && top.contains_key("additionalProperties");
    if !keep_declared {
        top.insert("additionalProperties".into(), Value::Bool(false));
    }
    Value::Object(top)
}

/// Every named definition in the schema, by the `$ref` string that points at it.
fn collect_definitions(raw: &Value) -> Map<String, Value> {
    let mut found = Map::new();
    for table in ["$defs", "definitions"] {
        if let Some(Value::Object(defs)) = raw.get(table) {
            for (name, schema) in defs {
                found.insert(format!("#/{table}/{name}"), schema.clone());
            }
        }
    }
    found
}

fn inline_and_strip(node: &Value, definitions: &Map<String, Value>, depth: usize) -> Value {
    match node {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref") {
                let mut merged = match definitions.get(reference) {
                    Some(target) if depth < MAX_INLINE_DEPTH => {
                        match inline_and_strip(target, definitions, depth + 1) {
                            Value::Object(inlined) => inlined,
                            _ => Map::new(),
                        }
                    }
                    // Unknown or too deep: an open schema accepts whatever the model sends.
                    _ => Map::new(),
                };
                // Siblings of `$ref` (usually a field's description or default) win.
                for (key, value) in map {
                    if key != "$ref" && !DROPPED_KEYS.contains(&key.as_str()) {
                        merged.insert(key.clone(), inline_and_strip(value, definitions, depth));
                    }
                }
                return Value::Object(merged);
            }
            let mut out = Map::with_capacity(map.len());
            for (key, value) in map {
                if DROPPED_KEYS.contains(&key.as_str()) || is_rust_number_format(key, value) {
                    continue;
                }
                let cleaned = if key == "description"
                    && let Value::String(text) = value
                {
                    Value::String(unwrap_lines(text))
                } else if key == "properties" {
                    // Property names are data, not schema keywords: never strip them.
                    match value {
                        Value::Object(properties) => Value::Object(
                            properties
                                .iter()
                                .map(|(name, schema)| {
                                    (name.clone(), inline_and_strip(schema, definitions, depth))
                                })
                                .collect(),
                        ),
                        other => other.clone(),
                    }
                } else {
                    inline_and_strip(value, definitions, depth)
                };
                out.insert(key.clone(), cleaned);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| inline_and_strip(item, definitions, depth))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn is_rust_number_format(key: &str, value: &Value) -> bool {
    key == "format"
        && value
            .as_str()
            .is_some_and(|format| RUST_NUMBER_FORMATS.contains(&format))
}

/// A doc comment's text as one line per paragraph: rustdoc wraps lines for the source's width,
/// which means nothing to a model and costs tokens.
fn unwrap_lines(text: &str) -> String {
    text.split("\n\n")
        .map(|paragraph| {
            paragraph
                .lines()
                .map(str::trim)
                .filter(|line| !line.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|paragraph| !paragraph.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The first paragraph of a doc comment, its lines joined with spaces: the model-facing
/// description of a tool (the rest of the doc comment is for Gantry's developers).
pub fn first_paragraph(doc: &str) -> String {
    doc.trim()
        .lines()
        .map(str::trim)
        .take_while(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use schemars::JsonSchema;
    use serde::Deserialize;
    use serde_json::json;

    fn one() -> usize {
        1
    }

    /// Read a window of a file.
    ///
    /// Details for developers.
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct ReadArgs {
        /// Path relative to the project root.
        path: String,
        /// First line to return, 1-based.
        #[serde(default = "one")]
        offset: usize,
        /// Search case-insensitively.
        #[serde(default)]
        case_insensitive: bool,
        /// Optional filter.
        include: Option<String>,
        /// Nested settings.
        mode: Mode,
    }

    /// How to open.
    #[derive(Deserialize, JsonSchema)]
    #[serde(rename_all = "snake_case")]
    #[allow(dead_code)]
    enum Mode {
        Text,
        Binary,
    }

    #[test]
    fn derived_schema_is_flat_and_documented() {
        let schema = parameters_for::<ReadArgs>();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(
            schema["properties"]["path"]["description"],
            "Path relative to the project root."
        );
        assert_eq!(schema["properties"]["offset"]["default"], 1);
        assert_eq!(schema["properties"]["case_insensitive"]["default"], false);
        assert_eq!(
            schema["properties"]["mode"]["enum"],
            json!(["text", "binary"])
        );
        assert_eq!(schema["required"], json!(["path", "mode"]));
        let text = schema.to_string();
        for banned in ["$schema", "$ref", "$defs", "title", "uint"] {
            assert!(!text.contains(banned), "{banned} left in {text}");
        }
        assert!(schema.get("description").is_none());
    }

    #[test]
    fn refs_are_inlined_with_their_siblings() {
        let raw = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Args",
            "type": "object",
            "properties": {
                "target": {"$ref": "#/$defs/Target", "description": "Where to go."},
                "legacy": {"$ref": "#/definitions/Old"},
                "title": {"type": "string", "title": "A field literally named title"}
            },
            "required": ["target", "legacy", "title", "ghost"],
            "$defs": {"Target": {"title": "Target", "type": "object", "properties": {"x": {"type": "integer", "format": "int32"}}}},
            "definitions": {"Old": {"type": "string", "format": "date-time"}}
        });
        let cleaned = clean_parameters(&raw, Strictness::Closed);
        assert_eq!(
            cleaned,
            json!({
                "type": "object",
                "properties": {
                    "target": {"type": "object", "properties": {"x": {"type": "integer"}}, "description": "Where to go."},
                    "legacy": {"type": "string", "format": "date-time"},
                    "title": {"type": "string"}
                },
                "required": ["target", "legacy", "title"],
                "additionalProperties": false
            })
        );
    }

    #[test]
    fn recursive_refs_stop_at_a_depth() {
        let raw = json!({
            "type": "object",
            "properties": {"node": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}}}}
        });
        let cleaned = clean_parameters(&raw, Strictness::Closed);
        let mut node = &cleaned["properties"]["node"];
        let mut depth = 0;
        while let Some(child) = node.get("properties").and_then(|p| p.get("child")) {
            node = child;
            depth += 1;
        }
        assert_eq!(depth, MAX_INLINE_DEPTH);
    }

    #[test]
    fn declared_additional_properties_survive_only_as_declared() {
        let raw = json!({"type": "object", "properties": {}, "additionalProperties": true});
        assert_eq!(
            clean_parameters(&raw, Strictness::AsDeclared)["additionalProperties"],
            true
        );
        assert_eq!(
            clean_parameters(&raw, Strictness::Closed)["additionalProperties"],
            false
        );
        let bare = json!({"type": "object"});
        assert_eq!(
            clean_parameters(&bare, Strictness::AsDeclared)["additionalProperties"],
            false
        );
        assert_eq!(
            clean_parameters(&json!(true), Strictness::AsDeclared)["properties"],
            json!({})
        );
    }

    #[test]
    fn wrapped_field_descriptions_are_unwrapped() {
        let raw = json!({"type": "object", "properties": {
            "path": {"type": "string", "description": "Path relative to\nthe project root.\n\nSecond paragraph."}
        }});
        let cleaned = clean_parameters(&raw, Strictness::Closed);
        assert_eq!(
            cleaned["properties"]["path"]["description"],
            "Path relative to the project root.\n\nSecond paragraph."
        );
    }

    #[test]
    fn first_paragraph_joins_wrapped_lines() {
        assert_eq!(
            first_paragraph(" Read a file,\n returning lines.\n\n More detail."),
            "Read a file, returning lines."
        );
        assert_eq!(first_paragraph(""), "");
    }
}
