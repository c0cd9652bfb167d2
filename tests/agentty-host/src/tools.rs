//! Agentty's side of a plugin's tools (API 4), as the agent in a pane meets them through
//! `agentty mcp-plugins`: what the manifest may declare (`contributes.tools` with `mcp.tools`,
//! Agentty's `crates/agentty-bridge/src/plugins/manifest.rs`), and `tools/call` as
//! `crates/agentty-app/src/plugins/mcp.rs` sends it — `{name, arguments, context}`, a tool the
//! manifest does not declare or arguments that are not an object or over 256 KB refused before
//! the plugin sees them, at most 8 calls waiting on the plugin (the 9th refused by the host),
//! no answer within 120 s an error. What the plugin answers reaches the agent as
//! `docs/plugins/protocol.md` says: a string, any JSON, or MCP content (`text` and `image`
//! parts, others dropped), text cut at 100,000 characters; a JSON-RPC error is an error.

use crate::host::AgenttyHost;
use crate::manifest::Manifest;
use serde_json::{json, Value};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long Agentty waits for a plugin's answer (`CALL_TIMEOUT`).
pub const CALL_TIMEOUT: Duration = Duration::from_secs(120);
/// Tool calls one plugin may have waiting (`MAX_PENDING`).
pub const MAX_PENDING: usize = 8;
/// Largest arguments passed on (`MAX_ARGUMENT_BYTES`).
pub const MAX_ARGUMENT_BYTES: usize = 256 * 1024;
/// Text handed to the agent is cut here.
pub const MAX_TEXT_CHARS: usize = 100_000;

/// A tool the manifest offers.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDecl {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
    pub read_only: bool,
}

/// The tools a manifest declares; [`crate::manifest::parse`] checked them as the host's
/// `Manifest::validate` does, so this only reads them (a missing `inputSchema` is an empty
/// object schema, a missing `readOnly` false).
pub fn declared(manifest: &Manifest) -> Vec<ToolDecl> {
    manifest
        .tools
        .iter()
        .map(|t| ToolDecl {
            name: t["name"].as_str().unwrap_or_default().into(),
            description: t["description"].as_str().unwrap_or_default().into(),
            input_schema: t
                .get("inputSchema")
                .filter(|s| !s.is_null())
                .cloned()
                .unwrap_or_else(|| json!({"type": "object", "properties": {}})),
            read_only: t.get("readOnly").and_then(Value::as_bool).unwrap_or(false),
        })
        .collect()
}

/// What the agent got back from one call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The text parts, joined, as the agent reads them (cut at 100,000 characters).
    pub text: String,
    pub is_error: bool,
    pub images: usize,
    /// The plugin's text was longer than Agentty passes on.
    pub cut: bool,
}

/// One call's outcome and how long the plugin took.
#[derive(Debug, Clone)]
pub struct ToolAnswer {
    pub elapsed: Duration,
    /// `Err`: Agentty refused the call or the plugin did not answer (the agent reads an error).
    pub result: Result<ToolResult, String>,
}

impl ToolAnswer {
    /// The answer's text, whatever it was.
    pub fn text(&self) -> &str {
        match &self.result {
            Ok(r) => &r.text,
            Err(e) => e,
        }
    }

    /// `name: value` from the answer's first line, its fields separated by ` · ` (the
    /// bridge's `status: … · session: … · agent: …`).
    pub fn field(&self, name: &str) -> String {
        let first = self.text().lines().next().unwrap_or("");
        first
            .split(" · ")
            .find_map(|p| p.strip_prefix(name)?.strip_prefix(": "))
            .unwrap_or("")
            .to_string()
    }

    /// One line for the report: how long the call took and what its first line said.
    pub fn report(&self, agent: &str, tool: &str) {
        eprintln!(
            "TOOLS-REPORT {agent} {tool}: answered in {} ms ({})",
            self.elapsed.as_millis(),
            self.text().lines().next().unwrap_or("")
        );
    }

    pub fn is_error(&self) -> bool {
        !matches!(&self.result, Ok(r) if !r.is_error)
    }
}

/// A call sent to the plugin.
#[derive(Debug, Clone, Copy)]
pub struct SentCall {
    pub id: u64,
    pub sent: Instant,
}

/// The MCP side of Agentty for one plugin: sends `tools/call` and waits for its answers under
/// Agentty's rules.
pub struct ToolHost<'a> {
    host: &'a AgenttyHost,
    tools: Vec<ToolDecl>,
    pending: Mutex<Vec<u64>>,
}

fn cut_chars(text: &str) -> (String, bool) {
    match text.char_indices().nth(MAX_TEXT_CHARS) {
        Some((at, _)) => (text[..at].to_string(), true),
        None => (text.to_string(), false),
    }
}

/// What the agent reads of a plugin's result.
pub fn agent_view(result: &Value) -> ToolResult {
    let mcp = result.get("content").and_then(Value::as_array);
    let (text, is_error, images) = match (result, mcp) {
        (Value::String(s), _) => (s.clone(), false, 0),
        (_, Some(parts)) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            let images = parts
                .iter()
                .filter(|p| p.get("type").and_then(Value::as_str) == Some("image"))
                .count();
            let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
            (texts.join("\n"), is_error, images)
        }
        (other, None) => (other.to_string(), false, 0),
    };
    let (text, cut) = cut_chars(&text);
    ToolResult {
        text,
        is_error,
        images,
        cut,
    }
}

impl<'a> ToolHost<'a> {
    /// The plugin's tools as its manifest declares them (checked when it was loaded).
    pub fn new(host: &'a AgenttyHost) -> ToolHost<'a> {
        let tools = declared(&host.manifest);
        ToolHost {
            host,
            tools,
            pending: Mutex::new(Vec::new()),
        }
    }

    pub fn tools(&self) -> &[ToolDecl] {
        &self.tools
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, Vec<u64>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends `tools/call` as Agentty does, or refuses it as Agentty would before the plugin
    /// sees it.
    pub fn send(&self, name: &str, arguments: Value) -> Result<SentCall, String> {
        let plugin = &self.host.manifest.name;
        if !self.tools.iter().any(|t| t.name == name) {
            return Err(format!(
                "{plugin} has no tool \"{name}\" (see plugins_list)"
            ));
        }
        let arguments = match arguments {
            Value::Null => json!({}),
            Value::Object(_) => arguments,
            _ => return Err("arguments must be an object".into()),
        };
        if arguments.to_string().len() > MAX_ARGUMENT_BYTES {
            return Err(format!(
                "arguments are larger than {MAX_ARGUMENT_BYTES} bytes"
            ));
        }
        let answered: Vec<u64> = self
            .host
            .with(|s| s.answers.keys().copied().collect::<Vec<_>>());
        let mut pending = self.pending();
        pending.retain(|id| !answered.contains(id));
        if pending.len() >= MAX_PENDING {
            return Err(format!(
                "{plugin} is still busy with {MAX_PENDING} earlier calls"
            ));
        }
        let context = self.host.with(|s| s.context.clone());
        let sent = Instant::now();
        let id = self.host.request(
            "tools/call",
            json!({"name": name, "arguments": arguments, "context": context}),
        );
        pending.push(id);
        Ok(SentCall { id, sent })
    }

    /// Waits for the answer to `call` (at most Agentty's 120 s).
    pub fn wait(&self, call: SentCall) -> ToolAnswer {
        let deadline = call.sent + CALL_TIMEOUT;
        let answer = loop {
            let got = self.host.with(|s| s.answers.get(&call.id).cloned());
            if let Some(a) = got {
                break Some(a);
            }
            if Instant::now() >= deadline {
                break None;
            }
            self.host.wait_for("a change", CALL_TIMEOUT, |s| {
                (s.answers.contains_key(&call.id) || Instant::now() >= deadline).then_some(())
            });
        };
        let elapsed = call.sent.elapsed();
        self.pending().retain(|id| *id != call.id);
        let result = match answer {
            None => {
                self.host.with_mut(|s| {
                    s.violation(format!(
                        "tools/call {} got no answer in {} s",
                        call.id,
                        CALL_TIMEOUT.as_secs()
                    ))
                });
                Err(format!(
                    "the plugin did not answer in {}s",
                    CALL_TIMEOUT.as_secs()
                ))
            }
            Some(a) => match (a.get("error"), a.get("result")) {
                (Some(e), _) => Err(e
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("error")
                    .to_string()),
                (None, Some(r)) => {
                    let view = agent_view(r);
                    if view.cut {
                        self.host.with_mut(|s| {
                            s.violation(format!(
                                "tools/call {}: text over {MAX_TEXT_CHARS} characters is cut by Agentty",
                                call.id
                            ))
                        });
                    }
                    Ok(view)
                }
                (None, None) => Ok(agent_view(&Value::Null)),
            },
        };
        ToolAnswer { elapsed, result }
    }

    /// A call, start to answer.
    pub fn call(&self, name: &str, arguments: Value) -> ToolAnswer {
        let start = Instant::now();
        match self.send(name, arguments) {
            Ok(call) => self.wait(call),
            Err(e) => ToolAnswer {
                elapsed: start.elapsed(),
                result: Err(e),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_reach_the_agent_as_agentty_passes_them() {
        assert_eq!(agent_view(&json!("hi")).text, "hi");
        assert_eq!(agent_view(&json!({"a": 1})).text, r#"{"a":1}"#);
        let mcp = json!({"content": [{"type": "text", "text": "a"}, {"type": "audio"},
            {"type": "image", "data": "", "mimeType": "image/png"}], "isError": true});
        let v = agent_view(&mcp);
        assert_eq!((v.text.as_str(), v.is_error, v.images), ("a", true, 1));
        let long = agent_view(&json!("x".repeat(MAX_TEXT_CHARS + 1)));
        assert!(long.cut && long.text.chars().count() == MAX_TEXT_CHARS);
    }

    #[test]
    fn declared_tools_read_the_checked_manifest() {
        let manifest = crate::manifest::parse(
            json!({"id": "tool-plugin", "name": "P", "version": "0.1.0", "runtime": "executable",
            "apiVersion": 4, "main": "run.sh", "permissions": ["mcp.tools"],
            "contributes": {"tools": [
                {"name": "list_items", "description": "Lists.", "readOnly": true},
                {"name": "ask", "description": "Asks.", "inputSchema": {"type": "object",
                    "properties": {"q": {"type": "string"}}}}]}}),
        )
        .expect("a valid manifest");
        let tools = declared(&manifest);
        assert_eq!(
            tools
                .iter()
                .map(|t| (
                    t.name.as_str(),
                    t.read_only,
                    t.input_schema["properties"].as_object().map(|p| p.len())
                ))
                .collect::<Vec<_>>(),
            vec![("list_items", true, Some(0)), ("ask", false, Some(1))]
        );
    }
}
