//! Reads a model request of any API family into the few facts the reply rules need: the
//! latest user prompt, a trailing tool result, the declared function tools and a requested
//! JSON schema.

use crate::record::Family;
use serde_json::Value;

/// A function tool the client declared.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDecl {
    pub name: String,
    /// The tool's JSON schema for its arguments (`{}` when none was given).
    pub schema: Value,
}

/// What the mock needs to know about a model request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Conversation {
    /// Text of the latest user message (`<system-reminder>` blocks removed).
    pub prompt: Option<String>,
    /// When the last non-system message is a tool result: its output text.
    pub tool_result: Option<String>,
    pub tools: Vec<ToolDecl>,
    /// A structured-output schema the request asks the answer to follow.
    pub json_schema: Option<Value>,
    /// The schema binds the turn's answer itself, tools or not (OpenAI Responses `text.format`
    /// with `strict`, as Codex sends a turn's `outputSchema`): its name.
    pub strict_schema: Option<String>,
    /// Every user text of the request, joined (trigger words a client's own follow-up
    /// messages must not hide, see [`crate::structured`]).
    pub user_history: String,
    /// When the last message is a tool result: the name of the tool called (Anthropic).
    pub tool_result_of: Option<String>,
    /// The request's `stream` flag (Gemini streaming is decided by the endpoint instead).
    pub stream: bool,
    pub model: Option<String>,
}

/// Extracts a [`Conversation`] from a request body of the given family. Unknown shapes give
/// an empty conversation rather than an error: the mock must tolerate every side call.
pub fn extract(family: Family, body: &Value) -> Conversation {
    let mut conv = match family {
        Family::Anthropic => anthropic(body),
        Family::OpenaiResponses => responses(body),
        Family::OpenaiChat => chat(body),
        Family::Gemini => gemini(body),
        Family::NpmRegistry | Family::ProxyRefused | Family::Unknown => Conversation::default(),
    };
    conv.stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    conv.model = body
        .get("model")
        .and_then(Value::as_str)
        .map(str::to_string);
    conv
}

/// The text of the last user message with any text (earlier ones when the last is empty),
/// without the earlier conversation agent-bridge carries over to a new one
/// (`<agent-bridge-context>…</agent-bridge-context>`): a model reads that as history, so it is
/// not what the mock answers (a "run `CMD`" in it is not a request to run CMD again).
fn last_user_text(items: &[&Value]) -> Option<String> {
    items
        .iter()
        .rev()
        .filter(|m| role(m) == "user")
        .find_map(|m| non_empty(without_carried_context(&content_text(m.get("content")))))
}

const CARRIED_OPEN: &str = "<agent-bridge-context>";
const CARRIED_CLOSE: &str = "</agent-bridge-context>";

/// `text` without its `<agent-bridge-context>` envelopes (an unclosed one runs to the end).
pub(crate) fn without_carried_context(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(CARRIED_OPEN) {
        out.push_str(&rest[..start]);
        rest = match rest[start..].find(CARRIED_CLOSE) {
            Some(end) => &rest[start + end + CARRIED_CLOSE.len()..],
            None => "",
        };
    }
    out.push_str(rest);
    out
}

fn anthropic(body: &Value) -> Conversation {
    let tools = array(body.get("tools"))
        .iter()
        .filter_map(|t| {
            Some(ToolDecl {
                name: t.get("name")?.as_str()?.to_string(),
                schema: t.get("input_schema")?.clone(),
            })
        })
        .collect();
    let messages = array(body.get("messages"));
    let conversational: Vec<&Value> = messages.iter().filter(|m| role(m) != "system").collect();
    let tool_result = conversational.last().and_then(|m| {
        array(m.get("content"))
            .iter()
            .rev()
            .find(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
            .map(|b| content_text(b.get("content")))
    });
    let tool_result_of = conversational.last().and_then(|m| {
        let id = array(m.get("content"))
            .iter()
            .rev()
            .find(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))?
            .get("tool_use_id")?
            .as_str()?;
        tool_use_name(&conversational, id)
    });
    let user_history = conversational
        .iter()
        .filter(|m| role(m) == "user")
        .map(|m| content_text(m.get("content")))
        .collect::<Vec<_>>()
        .join("\n");
    let prompt = last_user_text(&conversational);
    let json_schema = body
        .pointer("/output_format/schema")
        .or_else(|| body.pointer("/output_config/format/schema"))
        .cloned();
    Conversation {
        prompt,
        tool_result,
        tools,
        json_schema,
        user_history,
        tool_result_of,
        ..Conversation::default()
    }
}

/// The name of the Anthropic `tool_use` block `id` among `messages`.
fn tool_use_name(messages: &[&Value], id: &str) -> Option<String> {
    messages
        .iter()
        .flat_map(|m| array(m.get("content")))
        .find(|b| {
            b.get("type").and_then(Value::as_str) == Some("tool_use")
                && b.get("id").and_then(Value::as_str) == Some(id)
        })
        .and_then(|b| b.get("name")?.as_str().map(str::to_string))
}

fn responses(body: &Value) -> Conversation {
    let tools = array(body.get("tools"))
        .iter()
        .filter(|t| t.get("type").and_then(Value::as_str) == Some("function"))
        .filter_map(|t| {
            Some(ToolDecl {
                name: t.get("name")?.as_str()?.to_string(),
                schema: t
                    .get("parameters")
                    .cloned()
                    .unwrap_or(Value::Object(Default::default())),
            })
        })
        .collect();
    let (prompt, tool_result) = match body.get("input") {
        Some(Value::String(s)) => (non_empty(strip_reminders(s)), None),
        other => {
            let items: Vec<&Value> = array(other)
                .iter()
                .filter(|i| !matches!(role(i), "system" | "developer"))
                .collect();
            let tool_result =
                items
                    .last()
                    .and_then(|i| match i.get("type").and_then(Value::as_str) {
                        Some("function_call_output" | "custom_tool_call_output") => {
                            Some(content_text(i.get("output")))
                        }
                        _ => None,
                    });
            let prompt = last_user_text(&items);
            (prompt, tool_result)
        }
    };
    let format = body
        .pointer("/text/format")
        .filter(|f| f.get("type").and_then(Value::as_str) == Some("json_schema"));
    let json_schema = format.and_then(|f| f.get("schema")).cloned();
    let strict_schema = format
        .filter(|f| f.get("strict").and_then(Value::as_bool) == Some(true))
        .map(|f| {
            f.get("name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        });
    Conversation {
        prompt,
        tool_result,
        tools,
        json_schema,
        strict_schema,
        ..Conversation::default()
    }
}

fn chat(body: &Value) -> Conversation {
    let tools = array(body.get("tools"))
        .iter()
        .filter_map(|t| {
            let f = t.get("function")?;
            Some(ToolDecl {
                name: f.get("name")?.as_str()?.to_string(),
                schema: f
                    .get("parameters")
                    .cloned()
                    .unwrap_or(Value::Object(Default::default())),
            })
        })
        .collect();
    // Kimi Code appends user messages holding only `<system-reminder>` text (date, permission
    // mode) after the prompt and after tool results: they are neither the prompt nor what
    // ends the conversation.
    let messages: Vec<&Value> = array(body.get("messages"))
        .iter()
        .filter(|m| !matches!(role(m), "system" | "developer"))
        .filter(|m| !is_reminder_only(m))
        .collect();
    let tool_result = messages
        .last()
        .filter(|m| role(m) == "tool")
        .map(|m| content_text(m.get("content")));
    let prompt = last_user_text(&messages);
    let json_schema = body.pointer("/response_format/json_schema/schema").cloned();
    Conversation {
        prompt,
        tool_result,
        tools,
        json_schema,
        ..Conversation::default()
    }
}

fn gemini(body: &Value) -> Conversation {
    let tools = array(body.get("tools"))
        .iter()
        .flat_map(|t| array(t.get("functionDeclarations")).iter())
        .filter_map(|d| {
            Some(ToolDecl {
                name: d.get("name")?.as_str()?.to_string(),
                schema: d
                    .get("parametersJsonSchema")
                    .or_else(|| d.get("parameters"))
                    .cloned()
                    .unwrap_or(Value::Object(Default::default())),
            })
        })
        .collect();
    let contents = array(body.get("contents"));
    let tool_result = contents.last().and_then(|c| {
        array(c.get("parts"))
            .iter()
            .rev()
            .find_map(|p| p.get("functionResponse"))
            .map(|fr| match fr.pointer("/response/output") {
                Some(Value::String(s)) => s.clone(),
                _ => fr.get("response").map(Value::to_string).unwrap_or_default(),
            })
    });
    let prompt = contents
        .iter()
        .rev()
        .filter(|c| matches!(role(c), "user" | ""))
        .find_map(|c| {
            let text: Vec<&str> = array(c.get("parts"))
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            non_empty(strip_reminders(&text.join("\n")))
        });
    let json_schema = body
        .pointer("/generationConfig/responseJsonSchema")
        .or_else(|| body.pointer("/generationConfig/responseSchema"))
        .cloned();
    Conversation {
        prompt,
        tool_result,
        tools,
        json_schema,
        ..Conversation::default()
    }
}

/// A user message whose text is `<system-reminder>` sections only.
fn is_reminder_only(m: &Value) -> bool {
    role(m) == "user"
        && m.get("content")
            .is_some_and(|c| c.to_string().contains("<system-reminder>"))
        && content_text(m.get("content")).trim().is_empty()
        && !array(m.get("content")).iter().any(|b| {
            b.get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| t != "text")
        })
}

fn array(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

fn role(v: &Value) -> &str {
    v.get("role").and_then(Value::as_str).unwrap_or("")
}

fn non_empty(s: String) -> Option<String> {
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// Text of a message content: a string, or the `text` of its text blocks (any of the
/// `text` / `input_text` / `output_text` kinds), joined with newlines.
pub fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => strip_reminders(s),
        Some(Value::Array(blocks)) => {
            let parts: Vec<String> = blocks
                .iter()
                .filter_map(|b| match b {
                    Value::String(s) => Some(s.clone()),
                    _ => b.get("text").and_then(Value::as_str).map(str::to_string),
                })
                .map(|s| strip_reminders(&s))
                .filter(|s| !s.trim().is_empty())
                .collect();
            parts.join("\n")
        }
        _ => String::new(),
    }
}

/// Removes `<system-reminder>...</system-reminder>` sections (Claude Code injects them into
/// user messages; they can contain backticked commands that are not the user's request).
pub fn strip_reminders(text: &str) -> String {
    const OPEN: &str = "<system-reminder>";
    const CLOSE: &str = "</system-reminder>";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        out.push_str(&rest[..start]);
        match rest[start..].find(CLOSE) {
            Some(end) => rest = &rest[start + end + CLOSE.len()..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
#[path = "conversation_tests.rs"]
mod tests;
