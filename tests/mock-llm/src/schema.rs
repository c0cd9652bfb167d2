//! Builds JSON values from JSON schemas: answers to structured-output helper calls (Gemini's
//! router expects `{"complexity_reasoning": str, "complexity_score": int >= 1}`) and the
//! arguments of shell-tool calls.

use serde_json::{json, Map, Value};

/// Recursion limit for nested schemas.
const MAX_DEPTH: usize = 12;

/// A value that satisfies the common constraints of `schema`: `const`, `enum`, `type`
/// (also Gemini's upper-case OpenAPI types), `properties`, `items` + `minItems`,
/// `minimum`/`maximum`/`exclusiveMinimum`, `minLength`, `anyOf`/`oneOf`/`allOf` (first branch).
pub fn synthesize(schema: &Value) -> Value {
    synth(schema, 0)
}

fn synth(schema: &Value, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    let Some(obj) = schema.as_object() else {
        return Value::Null;
    };
    if let Some(c) = obj.get("const") {
        return c.clone();
    }
    if let Some(first) = obj
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(branches) = obj.get(key).and_then(Value::as_array) {
            let pick = branches
                .iter()
                .find(|b| schema_type(b).as_deref() != Some("null"))
                .or_else(|| branches.first());
            if let Some(branch) = pick {
                return synth(branch, depth + 1);
            }
        }
    }
    let ty = schema_type(schema).unwrap_or_else(|| {
        if obj.contains_key("properties") {
            "object".into()
        } else if obj.contains_key("items") {
            "array".into()
        } else {
            "string".into()
        }
    });
    match ty.as_str() {
        "object" => {
            let mut out = Map::new();
            if let Some(props) = obj.get("properties").and_then(Value::as_object) {
                for (name, prop) in props {
                    out.insert(name.clone(), synth(prop, depth + 1));
                }
            }
            Value::Object(out)
        }
        "array" => {
            let n = obj.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            let item = obj.get("items").cloned().unwrap_or(Value::Null);
            Value::Array((0..n).map(|_| synth(&item, depth + 1)).collect())
        }
        "integer" => json!(number(obj).ceil() as i64),
        "number" => json!(number(obj)),
        "boolean" => Value::Bool(false),
        "null" => Value::Null,
        _ => {
            let min_len = obj.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
            let mut s = String::from("mock");
            while s.len() < min_len {
                s.push('x');
            }
            Value::String(s)
        }
    }
}

/// Why OpenAI's strict structured outputs would refuse `schema`, in its words: every object
/// must set `additionalProperties: false` and list every property in `required`. `None`: the
/// schema is fine.
pub fn strict_problem(schema: &Value) -> Option<String> {
    strict_at(schema, "()", 0)
}

fn strict_at(schema: &Value, context: &str, depth: usize) -> Option<String> {
    let obj = schema.as_object()?;
    if depth > MAX_DEPTH {
        return None;
    }
    if schema_type(schema).as_deref() == Some("object") {
        if obj.get("additionalProperties") != Some(&Value::Bool(false)) {
            return Some(format!(
                "In context={context}, 'additionalProperties' is required to be supplied and to be false."
            ));
        }
        let props = obj.get("properties").and_then(Value::as_object);
        let required: Vec<&str> = obj
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (name, prop) in props.into_iter().flatten() {
            if !required.contains(&name.as_str()) {
                return Some(format!(
                    "In context={context}, 'required' is required to be supplied and to be an array including every key in properties. Missing '{name}'."
                ));
            }
            let inner = format!("('properties', '{name}')");
            if let Some(problem) = strict_at(prop, &inner, depth + 1) {
                return Some(problem);
            }
        }
    }
    if let Some(items) = obj.get("items") {
        return strict_at(items, &format!("{context}, 'items'"), depth + 1);
    }
    None
}

/// The schema's type, lower-cased; for a list of types the first that is not `null`.
fn schema_type(schema: &Value) -> Option<String> {
    match schema.get("type")? {
        Value::String(s) => Some(s.to_ascii_lowercase()),
        Value::Array(types) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| !t.eq_ignore_ascii_case("null"))
            .or_else(|| types.first().and_then(Value::as_str))
            .map(str::to_ascii_lowercase),
        _ => None,
    }
}

/// 1, moved into `[minimum, maximum]` (an exclusive minimum counts as `min + 1`).
fn number(obj: &Map<String, Value>) -> f64 {
    let min = obj.get("minimum").and_then(Value::as_f64).or_else(|| {
        obj.get("exclusiveMinimum")
            .and_then(Value::as_f64)
            .map(|m| m + 1.0)
    });
    let max = obj.get("maximum").and_then(Value::as_f64).or_else(|| {
        obj.get("exclusiveMaximum")
            .and_then(Value::as_f64)
            .map(|m| m - 1.0)
    });
    let mut v = 1.0;
    if let Some(min) = min {
        v = min;
    }
    if let Some(max) = max {
        if v > max {
            v = max;
        }
    }
    v
}

/// Arguments for a shell tool, shaped by its schema: the command goes into `cmd` or
/// `command` (an argv array `["bash", "-lc", CMD]` when that property is an array), a
/// `description` property gets "Run CMD", a required `summary` string gets a sentence of 3 to
/// 8 words (Factory Droid's `Execute` refuses others), a required enum its lowest-risk value
/// (`low`/`LOW` when offered: Droid's `riskLevel`), and other required properties get
/// synthesized values.
pub fn shell_arguments(schema: &Value, command: &str) -> Value {
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let required: Vec<String> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let key = ["cmd", "command", "commands", "script"]
        .iter()
        .find(|k| props.contains_key(**k))
        .map(|k| k.to_string())
        .or_else(|| {
            required
                .iter()
                .find(|r| props.get(*r).and_then(schema_type).as_deref() == Some("string"))
                .cloned()
        })
        .unwrap_or_else(|| "command".to_string());
    let mut out = Map::new();
    let is_array = props.get(&key).and_then(schema_type).as_deref() == Some("array");
    let value = if is_array && key == "commands" {
        // A list of command lines (Cline's `run_commands`), not an argv.
        json!([command])
    } else if is_array {
        json!(["bash", "-lc", command])
    } else {
        json!(command)
    };
    out.insert(key, value);
    if props.contains_key("description") {
        out.insert("description".into(), json!(format!("Run {command}")));
    }
    for name in required {
        if out.contains_key(&name) {
            continue;
        }
        let prop = props.get(&name).cloned().unwrap_or(Value::Null);
        let value = if name == "summary" && schema_type(&prop).as_deref() == Some("string") {
            json!(summary(command))
        } else {
            low_choice(&prop).unwrap_or_else(|| synthesize(&prop))
        };
        out.insert(name, value);
    }
    Value::Object(out)
}

/// "Run CMD" as a sentence of 3 to 8 words.
fn summary(command: &str) -> String {
    let mut words: Vec<&str> = std::iter::once("Run")
        .chain(command.split_whitespace())
        .take(8)
        .collect();
    while words.len() < 3 {
        words.push("command");
    }
    words.join(" ")
}

/// The `low` value of an enum that offers one (any case).
fn low_choice(schema: &Value) -> Option<Value> {
    schema
        .get("enum")?
        .as_array()?
        .iter()
        .find(|v| v.as_str().is_some_and(|s| s.eq_ignore_ascii_case("low")))
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn gemini_router_schema_honours_minimum() {
        let schema = json!({
            "type": "object",
            "properties": {
                "complexity_reasoning": {"type": "string"},
                "complexity_score": {"type": "integer", "minimum": 1, "maximum": 100}
            },
            "required": ["complexity_reasoning", "complexity_score"]
        });
        assert_eq!(
            synthesize(&schema),
            json!({"complexity_reasoning": "mock", "complexity_score": 1})
        );
        let schema = json!({"type": "integer", "minimum": 5});
        assert_eq!(synthesize(&schema), json!(5));
        let schema = json!({"type": "number", "exclusiveMinimum": 0, "maximum": 0.5});
        assert_eq!(synthesize(&schema), json!(0.5));
    }

    #[test]
    fn upper_case_types_enums_arrays_and_unions() {
        let schema = json!({
            "type": "OBJECT",
            "properties": {
                "kind": {"type": "STRING", "enum": ["a", "b"]},
                "tags": {"type": "ARRAY", "items": {"type": "STRING"}, "minItems": 2},
                "flag": {"type": ["boolean", "null"]},
                "either": {"anyOf": [{"type": "null"}, {"type": "integer"}]},
                "fixed": {"const": 7}
            }
        });
        assert_eq!(
            synthesize(&schema),
            json!({"kind": "a", "tags": ["mock", "mock"], "flag": false, "either": 1, "fixed": 7})
        );
    }

    #[test]
    fn shell_arguments_follow_the_tool_schema() {
        let bash = json!({"type": "object", "properties": {"command": {"type": "string"},
            "description": {"type": "string"}, "timeout": {"type": "number"}}, "required": ["command"]});
        assert_eq!(
            shell_arguments(&bash, "echo hello"),
            json!({"command": "echo hello", "description": "Run echo hello"})
        );
        let exec = json!({"type": "object", "properties": {"cmd": {"type": "string"},
            "workdir": {"type": "string"}}, "required": ["cmd"]});
        assert_eq!(
            shell_arguments(&exec, "echo hello"),
            json!({"cmd": "echo hello"})
        );
        let argv = json!({"type": "object", "properties": {"command": {"type": "array",
            "items": {"type": "string"}}, "timeout_ms": {"type": "integer"}}, "required": ["command", "timeout_ms"]});
        assert_eq!(
            shell_arguments(&argv, "echo hello"),
            json!({"command": ["bash", "-lc", "echo hello"], "timeout_ms": 1})
        );
        assert_eq!(shell_arguments(&json!({}), "ls"), json!({"command": "ls"}));
        // Cline's run_commands: a list of command lines.
        let cline = json!({"properties": {"commands": {"type": "array", "items": {"type": "string"}}},
            "required": ["commands"]});
        assert_eq!(
            shell_arguments(&cline, "echo hi"),
            json!({"commands": ["echo hi"]})
        );
        // Droid's Execute: a short summary sentence and the low risk level.
        let droid = json!({"properties": {"command": {"type": "string"},
            "summary": {"type": "string"}, "riskLevel": {"type": "string", "enum": ["high", "medium", "low"]},
            "riskLevelReason": {"type": "string"}},
            "required": ["command", "summary", "riskLevel", "riskLevelReason"]});
        assert_eq!(
            shell_arguments(&droid, "ls"),
            json!({"command": "ls", "summary": "Run ls command", "riskLevel": "low", "riskLevelReason": "mock"})
        );
        assert_eq!(
            shell_arguments(&droid, "echo a b c d e f g h")["summary"],
            json!("Run echo a b c d e f")
        );
    }
}
