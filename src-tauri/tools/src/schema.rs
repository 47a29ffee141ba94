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

/// The most nodes a cleaned schema may have; references met beyond it stay open schemas.
const MAX_SCHEMA_NODES: usize = 20_000;

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
/// - `$ref`s into `$defs`/`definitions` are inlined (a recursive type once, its inner
///   references left open; the whole result bounded by `MAX_SCHEMA_NODES`);
/// - `$schema`, `$id`, `title`, `$comment` and the definition tables are dropped everywhere, and
///   the top-level `description` too (the tool's own description says it);
/// - Rust-specific number formats (`uint32`, `double`, ...) are dropped (bounds stay);
/// - the top level is `type: object` with `properties`, a `required` list holding exactly the
///   declared properties that have no `default`, and `additionalProperties: false` (see
///   [`Strictness`]).
pub fn clean_parameters(raw: &Value, strictness: Strictness) -> Value {
    let definitions = collect_definitions(raw);
    let mut cleaned = Inliner::new(&definitions).clean(raw);
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

/// Inlines `$ref`s and strips documentation keys, within bounds: a definition that refers to
/// itself (directly or through others) is expanded once and its inner references become open
/// schemas, and once [`MAX_SCHEMA_NODES`] nodes have been produced every further reference is
/// left open too. A server's schema of a few hundred bytes can otherwise expand exponentially
/// (a filter type with `and`/`or`/`not` members is enough).
struct Inliner<'a> {
    definitions: &'a Map<String, Value>,
    /// The references being expanded on the current path, outermost first.
    expanding: Vec<&'a str>,
    /// How many more nodes may be produced.
    nodes_left: usize,
}

impl<'a> Inliner<'a> {
    fn new(definitions: &'a Map<String, Value>) -> Self {
        Self {
            definitions,
            expanding: Vec::new(),
            nodes_left: MAX_SCHEMA_NODES,
        }
    }

    fn clean(&mut self, node: &Value) -> Value {
        self.nodes_left = self.nodes_left.saturating_sub(1);
        match node {
            Value::Object(map) => {
                if let Some(Value::String(reference)) = map.get("$ref") {
                    return self.inline_reference(reference, map);
                }
                let mut out = Map::with_capacity(map.len());
                for (key, value) in map {
                    if DROPPED_KEYS.contains(&key.as_str()) || is_rust_number_format(key, value) {
                        continue;
                    }
                    let cleaned = match (key.as_str(), value) {
                        ("description", Value::String(text)) => Value::String(unwrap_lines(text)),
                        // Property names are data, not schema keywords: never strip them.
                        ("properties", Value::Object(properties)) => Value::Object(
                            properties
                                .iter()
                                .map(|(name, schema)| (name.clone(), self.clean(schema)))
                                .collect(),
                        ),
                        _ => self.clean(value),
                    };
                    out.insert(key.clone(), cleaned);
                }
                Value::Object(out)
            }
            Value::Array(items) => {
                Value::Array(items.iter().map(|item| self.clean(item)).collect())
            }
            other => other.clone(),
        }
    }

    fn inline_reference(&mut self, reference: &str, node: &Map<String, Value>) -> Value {
        let target = self.definitions.get_key_value(reference);
        let mut merged = match target {
            Some((name, target))
                if self.nodes_left > 0 && !self.expanding.contains(&name.as_str()) =>
            {
                self.expanding.push(name);
                let inlined = self.clean(target);
                self.expanding.pop();
                match inlined {
                    Value::Object(inlined) => inlined,
                    _ => Map::new(),
                }
            }
            // Unknown, recursive, or over budget: an open schema accepts whatever is sent.
            _ => Map::new(),
        };
        // Siblings of `$ref` (usually a field's description or default) win.
        for (key, value) in node {
            if key != "$ref" && !DROPPED_KEYS.contains(&key.as_str()) {
                let cleaned = match (key.as_str(), value) {
                    ("description", Value::String(text)) => Value::String(unwrap_lines(text)),
                    _ => self.clean(value),
                };
                merged.insert(key.clone(), cleaned);
            }
        }
        Value::Object(merged)
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
    fn recursive_refs_are_expanded_once() {
        let raw = json!({
            "type": "object",
            "properties": {"node": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}}}}
        });
        let cleaned = clean_parameters(&raw, Strictness::Closed);
        assert_eq!(
            cleaned["properties"]["node"],
            json!({"type": "object", "properties": {"child": {}}})
        );
    }

    #[test]
    fn exponential_schemas_stay_bounded() {
        // Each definition refers to the next three times: 3^16 nodes if fully inlined, and a
        // filter type referring to itself three times (and/or/not) grows the same way.
        let mut defs = serde_json::Map::new();
        for level in 0..16 {
            let next = json!({"$ref": format!("#/$defs/D{}", level + 1)});
            defs.insert(
                format!("D{level}"),
                json!({"type": "object", "properties": {"a": next, "b": next, "c": next}}),
            );
        }
        defs.insert("D16".into(), json!({"type": "string"}));
        defs.insert(
            "Filter".into(),
            json!({"type": "object", "properties": {
                "and": {"type": "array", "items": {"$ref": "#/$defs/Filter"}},
                "or": {"type": "array", "items": {"$ref": "#/$defs/Filter"}},
                "not": {"$ref": "#/$defs/Filter"}
            }}),
        );
        let raw = json!({
            "type": "object",
            "properties": {"deep": {"$ref": "#/$defs/D0"}, "filter": {"$ref": "#/$defs/Filter"}},
            "$defs": defs
        });
        let started = std::time::Instant::now();
        let cleaned = clean_parameters(&raw, Strictness::Closed);
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
        let size = cleaned.to_string().len();
        assert!(size < 2_000_000, "cleaned schema is {size} bytes");

        // Alone, the self-referring filter is expanded once with its inner references open.
        let raw = json!({
            "type": "object",
            "properties": {"filter": {"$ref": "#/$defs/Filter"}},
            "$defs": {"Filter": raw["$defs"]["Filter"].clone()}
        });
        let cleaned = clean_parameters(&raw, Strictness::Closed);
        let filter = &cleaned["properties"]["filter"]["properties"];
        assert_eq!(filter["not"], json!({}));
        assert_eq!(filter["and"], json!({"type": "array", "items": {}}));
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
