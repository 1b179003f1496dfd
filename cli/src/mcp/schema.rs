//! Tool schemas every MCP client takes. schemars writes an optional argument as
//! `"type": ["integer", "null"]` with `"default": null` (MCP Inspector then sends it as a
//! string) and Rust's integer widths as `format` (`uint32`, `int64`), which ajv's strict
//! mode refuses. An optional argument is one left out of `required`, so the null is
//! dropped; only JSON Schema's own formats are kept.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool};
use serde_json::Value;

/// The formats JSON Schema 2020-12 defines.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Makes a tool's input and output schemas portable.
pub fn portable(tool: &mut Tool) {
    tool.input_schema = Arc::new(clean_object(&tool.input_schema));
    if let Some(output) = &tool.output_schema {
        tool.output_schema = Some(Arc::new(clean_object(output)));
    }
}

/// How deep references are written out; the tools' types do not refer to themselves.
const INLINE_DEPTH: usize = 8;

fn clean_object(schema: &JsonObject) -> JsonObject {
    let mut value = Value::Object(schema.clone());
    if let Some(Value::Object(defs)) = value.as_object_mut().and_then(|o| o.remove("$defs")) {
        inline(&mut value, &defs, INLINE_DEPTH);
    }
    clean(&mut value);
    match value {
        Value::Object(object) => object,
        _ => schema.clone(),
    }
}

/// Replaces each `{"$ref": "#/$defs/X", ...}` by X's schema with the reference's own
/// keywords (its description) on top.
fn inline(value: &mut Value, defs: &JsonObject, depth: usize) {
    match value {
        Value::Object(object) => {
            let target = match object.get("$ref") {
                Some(Value::String(r)) => r.strip_prefix("#/$defs/").and_then(|n| defs.get(n)),
                _ => None,
            };
            if let (Some(Value::Object(def)), true) = (target, depth > 0) {
                object.remove("$ref");
                for (k, v) in def {
                    object.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
            for child in object.values_mut() {
                inline(child, defs, depth.saturating_sub(1));
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| inline(v, defs, depth.saturating_sub(1))),
        _ => {}
    }
}

/// Cleans a schema and every schema under it.
fn clean(value: &mut Value) {
    match value {
        Value::Object(object) => {
            if let Some(Value::Array(types)) = object.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    object.insert("type".into(), only);
                }
            }
            if object.get("default") == Some(&Value::Null) {
                object.remove("default");
            }
            object.remove("nullable");
            if let Some(Value::String(format)) = object.get("format")
                && !STANDARD_FORMATS.contains(&format.as_str())
            {
                object.remove("format");
            }
            for key in ["anyOf", "oneOf"] {
                let Some(Value::Array(branches)) = object.get_mut(key) else {
                    continue;
                };
                branches.retain(|b| b.get("type") != Some(&Value::String("null".into())));
                if branches.len() == 1 {
                    let Some(Value::Object(only)) = branches.pop() else {
                        continue;
                    };
                    object.remove(key);
                    for (k, v) in only {
                        object.entry(k).or_insert(v);
                    }
                }
            }
            for child in object.values_mut() {
                clean(child);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(clean),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{clean, clean_object};

    #[test]
    fn references_are_written_out_with_their_own_description_on_top() {
        let schema = json!({
            "$defs": {"Kind": {"description": "A kind.", "type": "string", "enum": ["a", "b"]}},
            "type": "object",
            "properties": {
                "kind": {"$ref": "#/$defs/Kind", "description": "Which kind."},
                "kinds": {"type": "array", "items": {"$ref": "#/$defs/Kind"}},
            },
        });
        let object = clean_object(schema.as_object().unwrap());
        assert_eq!(
            serde_json::Value::Object(object),
            json!({
                "type": "object",
                "properties": {
                    "kind": {"description": "Which kind.", "type": "string", "enum": ["a", "b"]},
                    "kinds": {"type": "array", "items":
                        {"description": "A kind.", "type": "string", "enum": ["a", "b"]}},
                },
            })
        );
    }

    #[test]
    fn optional_integers_are_plain_integers_without_rust_formats() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "limit": {"type": ["integer", "null"], "format": "uint32", "minimum": 0, "default": null},
                "number": {"type": "integer", "format": "uint64"},
                "at": {"type": "string", "format": "date-time"},
                "kind": {"anyOf": [{"$ref": "#/$defs/Kind"}, {"type": "null"}]},
            },
            "required": ["number"],
        });
        clean(&mut schema);
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "limit": {"type": "integer", "minimum": 0},
                    "number": {"type": "integer"},
                    "at": {"type": "string", "format": "date-time"},
                    "kind": {"$ref": "#/$defs/Kind"},
                },
                "required": ["number"],
            })
        );
    }
}
