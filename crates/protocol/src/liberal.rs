//! Liberal parsing of what a host sends: an unknown field is ignored (and reported, so the
//! caller can log it), a known field of the wrong type is still an error, one that names the
//! field.
//!
//! A value parses when serde takes it *and* it fits the JSON Schema schemars derives from the
//! same type: serde alone takes a struct written as a sequence (`options: []`), which the wire
//! does not allow. The value comes from serde alone. serde cannot
//! tell which fields it skipped nor where a tagged or untagged enum failed (it buffers their
//! content), so the JSON Schema that schemars derives from the same types is walked next to the
//! value: on success to list the fields no schema property names, on failure to find the first
//! place the value leaves the schema. A walk that finds nothing leaves serde's own message.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// What [`parse`] takes: a type serde reads and schemars describes.
pub trait Liberal: DeserializeOwned + JsonSchema + 'static {}

impl<T: DeserializeOwned + JsonSchema + 'static> Liberal for T {}

/// A value parsed liberally, with the paths of the fields it ignored (`input.config.future`,
/// `input.prompt.input.content[0].note`).
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed<T> {
    pub value: T,
    pub ignored: Vec<String>,
}

/// Why a value did not parse: where (empty for the value itself) and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct ParseError {
    pub path: String,
    pub message: String,
}

impl ParseError {
    fn describe(&self) -> String {
        if self.path.is_empty() {
            self.message.clone()
        } else {
            format!("{}: {}", self.path, self.message)
        }
    }
}

/// Parses `value` as `T`, ignoring fields `T` does not know.
pub fn parse<T: Liberal>(value: Value) -> Result<Parsed<T>, ParseError> {
    let schema = schema_of::<T>();
    let walker = Walker { root: &schema };
    match serde_json::from_value::<T>(value.clone()) {
        Ok(parsed) => {
            let mut ignored = Vec::new();
            // serde takes more than the wire allows (a struct written as a sequence, `null` for
            // a field that is absent or a value): the schema has the last word.
            walker.check(&schema, &value, &mut String::new(), &mut ignored)?;
            // Sorted: the walk follows the objects' key order, which is the input's order
            // when serde_json's `preserve_order` is on (see clippy.toml), else sorted.
            ignored.sort();
            Ok(Parsed {
                value: parsed,
                ignored,
            })
        }
        Err(serde_error) => {
            let mut ignored = Vec::new();
            match walker.check(&schema, &value, &mut String::new(), &mut ignored) {
                Err(mismatch) => Err(mismatch),
                Ok(()) => Err(ParseError {
                    path: String::new(),
                    message: serde_error.to_string(),
                }),
            }
        }
    }
}

/// The schema of `T`, derived once per type.
fn schema_of<T: JsonSchema + 'static>() -> Arc<Value> {
    static CACHE: OnceLock<Mutex<HashMap<TypeId, Arc<Value>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut map = match cache.lock() {
        Ok(map) => map,
        Err(poisoned) => poisoned.into_inner(),
    };
    map.entry(TypeId::of::<T>())
        .or_insert_with(|| {
            Arc::new(serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Bool(true)))
        })
        .clone()
}

/// The longest stretch of a host's value quoted in a message.
const QUOTE_MAX: usize = 60;

struct Walker<'a> {
    root: &'a Value,
}

impl Walker<'_> {
    /// Checks `value` against `schema` at `path`; records fields no property names.
    fn check(
        &self,
        schema: &Value,
        value: &Value,
        path: &mut String,
        ignored: &mut Vec<String>,
    ) -> Result<(), ParseError> {
        let Some(schema) = schema.as_object() else {
            // `true` takes anything; `false` nothing (schemars does not emit it for inputs).
            return match schema {
                Value::Bool(false) => Err(mismatch(path, "no value is allowed here")),
                _ => Ok(()),
            };
        };
        if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
            let resolved = self.resolve(target);
            self.check(resolved, value, path, ignored)?;
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(branches) = schema.get(key).and_then(Value::as_array) {
                self.one_of(branches, value, path, ignored)?;
            }
        }
        if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
            for part in all {
                self.check(part, value, path, ignored)?;
            }
        }
        check_type(schema, value, path)?;
        check_literals(schema, value, path)?;
        check_integer_range(schema, value, path)?;
        // A union or a reference described the fields already; only a schema that lists its own
        // properties judges them.
        let describes_fields = ["properties", "additionalProperties", "required"]
            .iter()
            .any(|key| schema.contains_key(*key));
        match value {
            Value::Object(fields) if describes_fields => {
                self.check_object(schema, fields, path, ignored)
            }
            Value::Object(_) => Ok(()),
            Value::Array(items) => match schema.get("items") {
                Some(item_schema) => {
                    for (index, item) in items.iter().enumerate() {
                        let len = path.len();
                        path.push_str(&format!("[{index}]"));
                        let result = self.check(item_schema, item, path, ignored);
                        path.truncate(len);
                        result?;
                    }
                    Ok(())
                }
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }

    fn check_object(
        &self,
        schema: &Map<String, Value>,
        fields: &Map<String, Value>,
        path: &mut String,
        ignored: &mut Vec<String>,
    ) -> Result<(), ParseError> {
        let properties = schema.get("properties").and_then(Value::as_object);
        for required in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !fields.contains_key(required) {
                return Err(mismatch(path, &format!("missing field `{required}`")));
            }
        }
        let extra = schema.get("additionalProperties");
        for (name, field) in fields {
            let len = path.len();
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(name);
            let result = match properties.and_then(|p| p.get(name)) {
                Some(field_schema) => self.check(field_schema, field, path, ignored),
                None => match extra {
                    Some(Value::Bool(true)) => Ok(()),
                    Some(extra @ Value::Object(_)) => self.check(extra, field, path, ignored),
                    // No property names it and none may be added: serde skips it.
                    _ => {
                        ignored.push(path.clone());
                        Ok(())
                    }
                },
            };
            path.truncate(len);
            result?;
        }
        Ok(())
    }

    /// The branch of a union the value takes: the first whose discriminators (`const`
    /// properties) match and that accepts the value, as serde picks a variant. When none
    /// accepts it, the error of the first branch whose discriminators matched.
    fn one_of(
        &self,
        branches: &[Value],
        value: &Value,
        path: &mut String,
        ignored: &mut Vec<String>,
    ) -> Result<(), ParseError> {
        let mut first_error = None;
        let mut discriminators: Vec<(String, Value)> = Vec::new();
        for branch in branches {
            let branch = self.deref(branch);
            if let Some((name, wanted)) = self.discriminator_mismatch(branch, value) {
                discriminators.push((name, wanted));
                continue;
            }
            let mut branch_ignored = Vec::new();
            match self.check(branch, value, path, &mut branch_ignored) {
                Ok(()) => {
                    ignored.append(&mut branch_ignored);
                    return Ok(());
                }
                Err(e) => {
                    if first_error.is_none() && !is_null_schema(branch) {
                        first_error = Some(e);
                    }
                }
            }
        }
        if let Some(e) = first_error {
            return Err(e);
        }
        // No branch has this discriminator value: name the field and what it may be.
        let Some((name, _)) = discriminators.first() else {
            return Err(mismatch(path, "the value matches none of its forms"));
        };
        let mut allowed: Vec<String> = discriminators
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| {
                format!(
                    "`{}`",
                    v.as_str().map_or_else(|| v.to_string(), String::from)
                )
            })
            .collect();
        allowed.dedup();
        let mut at = path.clone();
        if !at.is_empty() {
            at.push('.');
        }
        at.push_str(name);
        let found = value.get(name).map_or_else(|| "none".into(), describe);
        Err(ParseError {
            path: at,
            message: format!(
                "unknown variant {found}, expected one of {}",
                allowed.join(", ")
            ),
        })
    }

    /// The first `const` property of `branch` the (object) value does not have: its name and
    /// the wanted value. `None` when every discriminator matches or the value is no object.
    fn discriminator_mismatch(&self, branch: &Value, value: &Value) -> Option<(String, Value)> {
        let fields = value.as_object()?;
        let properties = branch.get("properties")?.as_object()?;
        for (name, property) in properties {
            let Some(wanted) = single_value(self.deref(property)) else {
                continue;
            };
            if fields.get(name) != Some(wanted) {
                return Some((name.clone(), wanted.clone()));
            }
        }
        None
    }

    fn deref<'s>(&'s self, schema: &'s Value) -> &'s Value {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(target) => self.resolve(target),
            None => schema,
        }
    }

    fn resolve(&self, target: &str) -> &Value {
        let pointer = target.strip_prefix('#').unwrap_or(target);
        self.root.pointer(pointer).unwrap_or(&Value::Bool(true))
    }
}

/// The one value a schema allows (`const`, or an `enum` of one), a union's discriminator.
fn single_value(schema: &Value) -> Option<&Value> {
    if let Some(value) = schema.get("const") {
        return Some(value);
    }
    match schema
        .get("enum")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
    {
        Some([only]) => Some(only),
        _ => None,
    }
}

fn is_null_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

fn mismatch(path: &str, message: &str) -> ParseError {
    ParseError {
        path: path.to_string(),
        message: message.to_string(),
    }
}

/// `type`: one JSON type or a list of them.
fn check_type(schema: &Map<String, Value>, value: &Value, path: &str) -> Result<(), ParseError> {
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => return Ok(()),
    };
    if types.iter().any(|t| type_matches(t, value)) {
        return Ok(());
    }
    let expected: Vec<&str> = types.iter().map(|t| expected_name(t)).collect();
    Err(mismatch(
        path,
        &format!(
            "invalid type: {}, expected {}",
            describe(value),
            expected.join(" or ")
        ),
    ))
}

fn type_matches(kind: &str, value: &Value) -> bool {
    match kind {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "integer" => value.is_u64() || value.is_i64(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        _ => true,
    }
}

fn expected_name(kind: &str) -> &'static str {
    match kind {
        "object" => "a map",
        "array" => "a sequence",
        "string" => "a string",
        "integer" => "an integer",
        "number" => "a number",
        "boolean" => "a boolean",
        "null" => "null",
        _ => "a value",
    }
}

/// `const` and `enum`.
fn check_literals(
    schema: &Map<String, Value>,
    value: &Value,
    path: &str,
) -> Result<(), ParseError> {
    if let Some(wanted) = schema.get("const") {
        if wanted != value {
            return Err(mismatch(
                path,
                &format!("invalid value: {}, expected {}", describe(value), wanted),
            ));
        }
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array) {
        if !allowed.contains(value) {
            let names: Vec<String> = allowed
                .iter()
                .map(|v| {
                    format!(
                        "`{}`",
                        v.as_str().map_or_else(|| v.to_string(), String::from)
                    )
                })
                .collect();
            return Err(mismatch(
                path,
                &format!(
                    "unknown variant {}, expected one of {}",
                    describe(value),
                    names.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// The range of an integer: `minimum` / `maximum` and the width its `format` names.
fn check_integer_range(
    schema: &Map<String, Value>,
    value: &Value,
    path: &str,
) -> Result<(), ParseError> {
    let Some(n) = value
        .as_i64()
        .map(i128::from)
        .or(value.as_u64().map(i128::from))
    else {
        return Ok(());
    };
    let (mut low, mut high) = match schema.get("format").and_then(Value::as_str) {
        Some("uint8") => (0, i128::from(u8::MAX)),
        Some("uint16") => (0, i128::from(u16::MAX)),
        Some("uint32") => (0, i128::from(u32::MAX)),
        Some("uint64" | "uint") => (0, i128::from(u64::MAX)),
        Some("int32") => (i128::from(i32::MIN), i128::from(i32::MAX)),
        _ => (i128::MIN, i128::MAX),
    };
    if let Some(min) = schema.get("minimum").and_then(Value::as_f64) {
        low = low.max(min.ceil() as i128);
    }
    if let Some(max) = schema.get("maximum").and_then(Value::as_f64) {
        high = high.min(max.floor() as i128);
    }
    if n < low || n > high {
        return Err(mismatch(
            path,
            &format!("invalid value: integer `{n}`, expected an integer from {low} to {high}"),
        ));
    }
    Ok(())
}

/// A value as serde's messages name it, quoted briefly.
fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("boolean `{b}`"),
        Value::Number(n) if n.is_f64() => format!("floating point `{n}`"),
        Value::Number(n) => format!("integer `{n}`"),
        Value::String(s) => format!("string {:?}", crate::jsonrpc::clip(s, QUOTE_MAX)),
        Value::Array(_) => "sequence".into(),
        Value::Object(_) => "map".into(),
    }
}

#[cfg(test)]
#[path = "liberal_tests.rs"]
mod tests;
