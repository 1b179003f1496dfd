//! Tagged unions as generated clients read them. utoipa writes a serde-tagged enum
//! (`#[serde(tag = "...")]`) as a `oneOf` of inline members, each pinning the tag to one
//! value (a newtype variant as an inline `allOf` of its type and the tag). Generators
//! such as openapi-python-client cannot name inline members, drop the `allOf` ones and
//! clash on their nested models. So each member becomes a component of its own,
//! `<Union><Tag>` (`PartToolCall`, `MonorepoListingHome`), and the union a `oneOf` of
//! their `$ref`s with a `discriminator` on the tag. The wire format is untouched: the
//! members' schemas are moved, not changed.

use serde_json::{Map, Value, json};

/// Names the members of every tagged union among the document's component schemas.
pub fn name_members(doc: &mut Value) {
    let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    let unions: Vec<String> = schemas
        .iter()
        .filter(|(_, s)| s.get("discriminator").is_none() && s.get("oneOf").is_some())
        .map(|(name, _)| name.clone())
        .collect();
    for union in unions {
        let Some(members) = schemas[&union]["oneOf"].as_array() else {
            continue;
        };
        let Some((tag, values)) = tags(members) else {
            continue;
        };
        let names: Vec<String> = values
            .iter()
            .map(|v| format!("{union}{}", pascal(v)))
            .collect();
        if names.iter().any(|n| schemas.contains_key(n)) {
            continue;
        }
        let members = std::mem::take(&mut schemas[&union]["oneOf"]);
        let mut refs = Vec::new();
        let mut mapping = Map::new();
        for ((member, name), value) in members
            .as_array()
            .into_iter()
            .flatten()
            .zip(&names)
            .zip(&values)
        {
            let reference = format!("#/components/schemas/{name}");
            refs.push(json!({ "$ref": reference }));
            mapping.insert(value.clone(), Value::String(reference));
            schemas.insert(name.clone(), member.clone());
        }
        let schema = &mut schemas[&union];
        schema["oneOf"] = Value::Array(refs);
        schema["discriminator"] = json!({ "propertyName": tag, "mapping": mapping });
    }
}

/// The tag property the members share and each member's value of it, if every member is
/// an inline schema that pins one required property to a single string.
fn tags(members: &[Value]) -> Option<(String, Vec<String>)> {
    let mut tag: Option<String> = None;
    let mut values = Vec::new();
    for member in members {
        let (name, value) = member_tag(member)?;
        if tag.get_or_insert_with(|| name.clone()) != &name || values.contains(&value) {
            return None;
        }
        values.push(value);
    }
    Some((tag?, values))
}

/// The pinned property of one member: in its own properties, or in one part of its
/// `allOf`.
fn member_tag(member: &Value) -> Option<(String, String)> {
    if member.get("$ref").is_some() {
        return None;
    }
    if let Some(parts) = member.get("allOf").and_then(Value::as_array) {
        return parts.iter().find_map(pinned);
    }
    pinned(member)
}

/// The one required property of an object schema whose `enum` holds a single string.
fn pinned(schema: &Value) -> Option<(String, String)> {
    let required = schema.get("required")?.as_array()?;
    let mut found = schema
        .get("properties")?
        .as_object()?
        .iter()
        .filter(|(name, _)| required.iter().any(|r| r.as_str() == Some(name.as_str())))
        .filter_map(|(name, p)| match p.get("enum")?.as_array()?.as_slice() {
            [Value::String(v)] => Some((name.clone(), v.clone())),
            _ => None,
        });
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// `tool-call`, `tool_result`, `home` → `ToolCall`, `ToolResult`, `Home`.
fn pascal(value: &str) -> String {
    value
        .split(['-', '_', '.', ' '])
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |c| {
                c.to_uppercase().chain(chars).collect::<String>()
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_become_components_with_a_discriminator() {
        let mut doc = json!({"components": {"schemas": {
            "Inner": {"type": "object"},
            "U": {"oneOf": [
                {"type": "object", "required": ["text", "type"], "properties": {
                    "text": {"type": "string"}, "type": {"type": "string", "enum": ["tool-call"]}}},
                {"allOf": [{"$ref": "#/components/schemas/Inner"},
                    {"type": "object", "required": ["type"], "properties": {
                        "type": {"type": "string", "enum": ["inner"]}}}]}
            ]},
            "Untagged": {"oneOf": [{"type": "string"}, {"type": "integer"}]}
        }}});
        name_members(&mut doc);
        let s = &doc["components"]["schemas"];
        assert_eq!(
            s["U"]["oneOf"],
            json!([{"$ref": "#/components/schemas/UToolCall"}, {"$ref": "#/components/schemas/UInner"}])
        );
        assert_eq!(s["U"]["discriminator"]["propertyName"], "type");
        assert_eq!(
            s["U"]["discriminator"]["mapping"]["inner"],
            "#/components/schemas/UInner"
        );
        assert_eq!(s["UToolCall"]["properties"]["text"]["type"], "string");
        assert_eq!(
            s["UInner"]["allOf"][0]["$ref"],
            "#/components/schemas/Inner"
        );
        assert!(s["Untagged"].get("discriminator").is_none());
    }
}
