//! MCP elicitation: an MCP server's `elicitation/create`, as a CLI forwards it (Claude's control
//! request `elicitation`, Codex's server request `mcpServer/elicitation/request`), becomes a
//! Paseo permission of kind `question`; the user's answer becomes the MCP `ElicitResult`
//! (`{action, content}`) the CLI hands back to the server.
//!
//! - **Form mode**: each property of `requestedSchema` is one question, shaped as the agents'
//!   own questions are (`input.questions`: `[{id, header, question, options, isOther,
//!   isSecret}]`): `id` is the property key, `header` its title (else the key), `question` its
//!   description (else the title, else the server's message). Enumerations (plain `enum` with
//!   optional `enumNames`, titled `oneOf`/`anyOf` of `const`, and multi-select `items`) and
//!   booleans (`Yes`/`No`) have options; text and numbers are free answers (`isOther`).
//! - **URL mode**: one question that carries the URL; answering it means "done".
//! - **The answer**: `allow` with `updatedInput.answers`, keyed by a question's `id`, `header`
//!   or text, values a string, a list of strings or `{answers: [...]}` (JSON numbers and
//!   booleans are taken as they are), is `accept` with `content` typed by the schema (an
//!   option's label or value gives its value, numbers and booleans are parsed, a field left
//!   unanswered gets its `default`, else a required enumeration its first option). `deny` is
//!   `decline`; `deny` with `interrupt`, or a turn that ends first, is `cancel`.

use agent_bridge_protocol::{
    JsonMap, PermissionKind, PlainTextIcon, ProviderPermissionRequest, ProviderPermissionResponse,
    ToolCallDetail,
};
use serde_json::{json, Map, Value};

/// The permission's `name` (and the tool Paseo shows).
pub const NAME: &str = "mcp_elicitation";

/// One elicitation a CLI is waiting on.
#[derive(Debug, Clone, PartialEq)]
pub struct Elicitation {
    /// The MCP server that asks.
    pub server: String,
    pub message: String,
    pub form: Form,
}

/// What is asked.
#[derive(Debug, Clone, PartialEq)]
pub enum Form {
    /// Form mode: one field per property of the requested schema.
    Fields(Vec<Field>),
    /// URL mode: the user opens `url` (e.g. to sign in) and says when done.
    Url { url: String, id: Option<String> },
}

/// One property of a form.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub key: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub kind: FieldKind,
    pub required: bool,
    pub default: Option<Value>,
}

/// The type of a field's value.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    Text,
    Number {
        integer: bool,
    },
    Boolean,
    /// `(value, label)` pairs; `multi`: a list of them.
    Choice {
        options: Vec<(String, String)>,
        multi: bool,
    },
}

fn text_of(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// `(value, label)` pairs of an enumeration schema, or `None` when it is not one.
fn options_of(schema: &Value) -> Option<Vec<(String, String)>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let names = schema.get("enumNames").and_then(Value::as_array);
        let pairs = values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                let value = v.as_str()?.to_string();
                let label = names
                    .and_then(|n| n.get(i))
                    .and_then(Value::as_str)
                    .map_or_else(|| value.clone(), str::to_string);
                Some((value, label))
            })
            .collect();
        return Some(pairs);
    }
    let titled = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array)?;
    Some(
        titled
            .iter()
            .filter_map(|o| {
                let value = o.get("const")?.as_str()?.to_string();
                let label = text_of(o, "title").unwrap_or_else(|| value.clone());
                Some((value, label))
            })
            .collect(),
    )
}

fn field(key: &str, schema: &Value, required: bool) -> Field {
    let kind = match schema.get("type").and_then(Value::as_str) {
        Some("array") => FieldKind::Choice {
            options: schema.get("items").and_then(options_of).unwrap_or_default(),
            multi: true,
        },
        Some("boolean") => FieldKind::Boolean,
        Some("number") => FieldKind::Number { integer: false },
        Some("integer") => FieldKind::Number { integer: true },
        _ => match options_of(schema) {
            Some(options) => FieldKind::Choice {
                options,
                multi: false,
            },
            None => FieldKind::Text,
        },
    };
    Field {
        key: key.to_string(),
        title: text_of(schema, "title"),
        description: text_of(schema, "description"),
        kind,
        required,
        default: schema.get("default").filter(|d| !d.is_null()).cloned(),
    }
}

impl Elicitation {
    /// A form-mode elicitation; a schema without properties asks nothing but a yes or no.
    pub fn form(server: &str, message: &str, schema: &Value) -> Elicitation {
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let fields = schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|props| {
                props
                    .iter()
                    .map(|(key, s)| field(key, s, required.contains(&key.as_str())))
                    .collect()
            })
            .unwrap_or_default();
        Elicitation {
            server: server.to_string(),
            message: message.to_string(),
            form: Form::Fields(fields),
        }
    }

    /// The elicitation of an `elicitation/create` as a CLI forwards it: URL mode when `mode` is
    /// `url` and a URL is given, else form mode over `schema` (missing: nothing but a yes or no).
    pub fn of_request(
        server: &str,
        message: &str,
        mode: Option<&str>,
        url: Option<&str>,
        id: Option<&str>,
        schema: Option<&Value>,
    ) -> Elicitation {
        match (mode, url) {
            (Some("url"), Some(url)) => Elicitation::url(server, message, url, id),
            _ => Elicitation::form(server, message, schema.unwrap_or(&Value::Null)),
        }
    }

    /// A URL-mode elicitation.
    pub fn url(server: &str, message: &str, url: &str, id: Option<&str>) -> Elicitation {
        Elicitation {
            server: server.to_string(),
            message: message.to_string(),
            form: Form::Url {
                url: url.to_string(),
                id: id.map(str::to_string),
            },
        }
    }

    fn questions(&self) -> Vec<Value> {
        match &self.form {
            Form::Url { url, .. } => vec![json!({
                "id": "url",
                "header": self.server,
                "question": format!("{}\n{url}", self.message),
                "options": [{"label": "Done", "description": "I finished at this address"}],
                "isOther": false,
                "isSecret": false,
            })],
            Form::Fields(fields) => fields
                .iter()
                .map(|f| {
                    let options: Vec<Value> = match &f.kind {
                        FieldKind::Choice { options, .. } => options
                            .iter()
                            .map(|(_, label)| json!({"label": label, "description": ""}))
                            .collect(),
                        FieldKind::Boolean => vec![
                            json!({"label": "Yes", "description": ""}),
                            json!({"label": "No", "description": ""}),
                        ],
                        FieldKind::Text | FieldKind::Number { .. } => Vec::new(),
                    };
                    let header = f.title.clone().unwrap_or_else(|| f.key.clone());
                    let question = f
                        .description
                        .clone()
                        .or_else(|| f.title.clone())
                        .unwrap_or_else(|| self.message.clone());
                    let mut q = json!({
                        "id": f.key,
                        "header": header,
                        "question": question,
                        "options": options,
                        "isOther": matches!(f.kind, FieldKind::Text | FieldKind::Number { .. }),
                        "isSecret": false,
                    });
                    if matches!(f.kind, FieldKind::Choice { multi: true, .. }) {
                        q["multiSelect"] = Value::Bool(true);
                    }
                    q
                })
                .collect(),
        }
    }

    /// The Paseo permission that asks the user.
    pub fn permission(&self, id: String) -> ProviderPermissionRequest {
        let questions = self.questions();
        let mut text = vec![format!("{} asks: {}", self.server, self.message)];
        text.extend(questions.iter().map(|q| {
            let labels: Vec<&str> = q["options"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|o| o["label"].as_str())
                .collect();
            let line = format!(
                "{}: {}",
                q["header"].as_str().unwrap_or(""),
                q["question"].as_str().unwrap_or("")
            );
            if labels.is_empty() {
                line
            } else {
                format!("{line}\nOptions: {}", labels.join(", "))
            }
        }));
        let mut metadata = Map::new();
        metadata.insert("server".into(), json!(self.server));
        match &self.form {
            Form::Url { url, id } => {
                metadata.insert("mode".into(), json!("url"));
                metadata.insert("url".into(), json!(url));
                if let Some(id) = id {
                    metadata.insert("elicitationId".into(), json!(id));
                }
            }
            Form::Fields(_) => {
                metadata.insert("mode".into(), json!("form"));
            }
        }
        let mut input = JsonMap::new();
        input.insert("questions".into(), Value::Array(questions));
        input.insert("server".into(), json!(self.server));
        input.insert("message".into(), json!(self.message));
        ProviderPermissionRequest {
            id,
            name: NAME.into(),
            kind: PermissionKind::Question,
            title: Some(self.message.clone()),
            description: Some(format!("The MCP server `{}` asks for input", self.server)),
            input: Some(input),
            detail: Some(ToolCallDetail::PlainText {
                label: Some(self.server.clone()),
                text: Some(text.join("\n\n")),
                icon: Some(PlainTextIcon::Wrench),
            }),
            suggestions: None,
            actions: None,
            metadata: Some(metadata),
        }
    }

    /// The `ElicitResult` for the host's answer.
    pub fn result(&self, response: &ProviderPermissionResponse) -> Value {
        match response {
            ProviderPermissionResponse::Deny { interrupt, .. } => {
                if interrupt.unwrap_or(false) {
                    cancelled()
                } else {
                    json!({"action": "decline"})
                }
            }
            ProviderPermissionResponse::Allow { updated_input, .. } => {
                let Form::Fields(fields) = &self.form else {
                    return json!({"action": "accept"});
                };
                let given = updated_input
                    .as_ref()
                    .and_then(|i| i.get("answers"))
                    .and_then(Value::as_object);
                let mut content = Map::new();
                for f in fields {
                    let keys = [Some(&f.key), f.title.as_ref(), f.description.as_ref()];
                    let found = given
                        .and_then(|g| keys.into_iter().flatten().find_map(|k| g.get(k.as_str())));
                    let value = found
                        .and_then(|v| typed(&f.kind, v))
                        .or_else(|| f.default.clone())
                        .or_else(|| match &f.kind {
                            FieldKind::Choice {
                                options,
                                multi: false,
                            } if f.required => options.first().map(|(v, _)| json!(v)),
                            _ => None,
                        });
                    if let Some(value) = value {
                        content.insert(f.key.clone(), value);
                    }
                }
                json!({"action": "accept", "content": content})
            }
        }
    }
}

/// The result when nobody answered (the turn ended or was interrupted).
pub fn cancelled() -> Value {
    json!({"action": "cancel"})
}

/// The strings of an answer: a string, a list of strings, or `{answers: [...]}`.
fn strings(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) => vec![s.trim().to_string()],
        Value::Array(a) => a.iter().flat_map(strings).collect(),
        Value::Object(o) => o.get("answers").map(strings).unwrap_or_default(),
        Value::Number(n) => vec![n.to_string()],
        Value::Bool(b) => vec![b.to_string()],
        Value::Null => Vec::new(),
    }
    .into_iter()
    .filter(|s| !s.is_empty())
    .collect()
}

/// An answer as the field's type, or `None` when it does not fit.
fn typed(kind: &FieldKind, v: &Value) -> Option<Value> {
    let given = strings(v);
    match kind {
        FieldKind::Text => given.first().map(|s| json!(s)),
        FieldKind::Number { integer } => {
            let s = given.first()?;
            if *integer {
                s.parse::<i64>().ok().map(|n| json!(n))
            } else {
                s.parse::<f64>()
                    .ok()
                    .filter(|n| n.is_finite())
                    .map(|n| json!(n))
            }
        }
        FieldKind::Boolean => match given.first()?.to_ascii_lowercase().as_str() {
            "yes" | "true" | "on" | "1" => Some(Value::Bool(true)),
            "no" | "false" | "off" | "0" => Some(Value::Bool(false)),
            _ => None,
        },
        FieldKind::Choice { options, multi } => {
            let pick = |s: &String| {
                options
                    .iter()
                    .find(|(value, label)| value == s || label == s)
                    .map(|(value, _)| json!(value))
            };
            let picked: Vec<Value> = given.iter().filter_map(pick).collect();
            if *multi {
                Some(Value::Array(picked))
            } else {
                picked.into_iter().next()
            }
        }
    }
}

#[cfg(test)]
#[path = "elicitation_tests.rs"]
mod tests;
