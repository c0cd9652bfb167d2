//! Hand-written serde types for the parts of the Agent Client Protocol (v1) the bridge uses,
//! from the ACP schema (`agentclientprotocol/agent-client-protocol`, schema v1) and checked
//! against what the pinned agents send (`tests/fixtures/*-acp-*.jsonl`). Every field the bridge
//! does not need is ignored; unknown enum values and update kinds deserialize to an `Other` arm
//! instead of failing.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Agent-side method names.
pub mod method {
    pub const INITIALIZE: &str = "initialize";
    pub const SESSION_NEW: &str = "session/new";
    pub const SESSION_LOAD: &str = "session/load";
    pub const SESSION_RESUME: &str = "session/resume";
    pub const SESSION_LIST: &str = "session/list";
    pub const SESSION_CLOSE: &str = "session/close";
    pub const SESSION_PROMPT: &str = "session/prompt";
    pub const SESSION_CANCEL: &str = "session/cancel";
    pub const SESSION_SET_MODE: &str = "session/set_mode";
    pub const SESSION_SET_MODEL: &str = "session/set_model";
    pub const SESSION_SET_CONFIG_OPTION: &str = "session/set_config_option";
    /// Client-side (agent -> bridge).
    pub const SESSION_UPDATE: &str = "session/update";
    pub const REQUEST_PERMISSION: &str = "session/request_permission";
    pub const FS_READ: &str = "fs/read_text_file";
    pub const FS_WRITE: &str = "fs/write_text_file";
}

/// The protocol version the bridge speaks.
pub const PROTOCOL_VERSION: u64 = 1;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    #[serde(default)]
    pub protocol_version: Option<u64>,
    #[serde(default)]
    pub agent_capabilities: AgentCapabilities,
    #[serde(default)]
    pub auth_methods: Vec<AuthMethod>,
    #[serde(default)]
    pub agent_info: Option<AgentInfo>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCapabilities {
    #[serde(default)]
    pub load_session: bool,
    #[serde(default)]
    pub prompt_capabilities: PromptCapabilities,
    #[serde(default)]
    pub mcp_capabilities: McpCapabilities,
    /// `list`, `resume`, `close`, `fork`...: present (an object, often `{}`) when supported.
    #[serde(default)]
    pub session_capabilities: serde_json::Map<String, Value>,
}

impl AgentCapabilities {
    /// True when `sessionCapabilities.<name>` is advertised (present and not `false`/`null`).
    pub fn session(&self, name: &str) -> bool {
        self.session_capabilities
            .get(name)
            .is_some_and(|v| !v.is_null() && v != &Value::Bool(false))
    }

    /// Takes back an advertised session method known not to work (a profile's
    /// `unusableMethods`): `session/load` or a `sessionCapabilities` method.
    pub fn withdraw(&mut self, session_method: &str) -> Result<(), UnknownSessionMethod> {
        match session_method {
            method::SESSION_LOAD => self.load_session = false,
            _ => {
                let name = session_method
                    .strip_prefix("session/")
                    .filter(|n| SESSION_CAPABILITIES.contains(n))
                    .ok_or_else(|| UnknownSessionMethod(session_method.to_string()))?;
                self.session_capabilities.remove(name);
            }
        }
        Ok(())
    }
}

/// The `sessionCapabilities` the bridge gates calls on.
const SESSION_CAPABILITIES: &[&str] = &["resume", "list", "close", "fork"];

/// A method that is neither `session/load` nor a `sessionCapabilities` method.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is no session method an agent advertises")]
pub struct UnknownSessionMethod(pub String);

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptCapabilities {
    #[serde(default)]
    pub image: bool,
    #[serde(default)]
    pub embedded_context: bool,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct McpCapabilities {
    #[serde(default)]
    pub http: bool,
    #[serde(default)]
    pub sse: bool,
}

#[derive(Debug, Clone, Deserialize)]
pub struct AuthMethod {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct AgentInfo {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub version: Option<String>,
}

/// The answer of `session/new`, `session/load` and `session/resume`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionAnswer {
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub modes: Option<ModeState>,
    #[serde(default)]
    pub models: Option<ModelState>,
    #[serde(default)]
    pub config_options: Option<Vec<ConfigOption>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModeState {
    #[serde(default)]
    pub current_mode_id: Option<String>,
    #[serde(default)]
    pub available_modes: Vec<Mode>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Mode {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelState {
    #[serde(default)]
    pub current_model_id: Option<String>,
    #[serde(default)]
    pub available_models: Vec<Model>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Model {
    pub model_id: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
}

/// A session config option (`type: select` is the only kind the bridge maps).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigOption {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub category: Option<String>,
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    #[serde(default)]
    pub current_value: Option<Value>,
    /// A flat list of `{value, name, description}` or a list of groups with `options`.
    #[serde(default)]
    pub options: Vec<Value>,
}

/// One choice of a select config option.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigChoice {
    pub value: String,
    pub name: String,
    pub description: Option<String>,
}

impl ConfigOption {
    /// The current value as a string (selects hold strings).
    pub fn current(&self) -> Option<String> {
        self.current_value.as_ref().and_then(|v| match v {
            Value::String(s) => Some(s.clone()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        })
    }

    /// The choices, groups flattened.
    pub fn choices(&self) -> Vec<ConfigChoice> {
        let mut out = Vec::new();
        for o in &self.options {
            if let Some(group) = o.get("options").and_then(Value::as_array) {
                out.extend(group.iter().filter_map(choice));
            } else if let Some(c) = choice(o) {
                out.push(c);
            }
        }
        out
    }
}

fn choice(v: &Value) -> Option<ConfigChoice> {
    let value = v.get("value")?.as_str()?.to_string();
    let name = v
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or(&value)
        .to_string();
    Some(ConfigChoice {
        value,
        name,
        description: v
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_string),
    })
}

/// `session/update` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateParams {
    #[serde(default)]
    pub session_id: Option<String>,
    pub update: Value,
}

/// One `session/update` payload, by its `sessionUpdate` tag.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "sessionUpdate", rename_all = "snake_case")]
pub enum Update {
    UserMessageChunk(Chunk),
    AgentMessageChunk(Chunk),
    AgentThoughtChunk(Chunk),
    ToolCall(ToolCallFields),
    ToolCallUpdate(ToolCallFields),
    Plan(Plan),
    #[serde(rename_all = "camelCase")]
    AvailableCommandsUpdate {
        #[serde(default)]
        available_commands: Vec<Command>,
    },
    #[serde(rename_all = "camelCase")]
    CurrentModeUpdate {
        current_mode_id: String,
    },
    #[serde(rename_all = "camelCase")]
    ConfigOptionUpdate {
        #[serde(default)]
        config_options: Vec<ConfigOption>,
    },
    SessionInfoUpdate(SessionInfo),
    UsageUpdate(UsageUpdate),
    #[serde(other)]
    Other,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Chunk {
    #[serde(default)]
    pub content: Value,
    #[serde(default)]
    pub message_id: Option<String>,
    #[serde(default, rename = "_meta")]
    pub meta: Option<Value>,
}

impl Chunk {
    /// The text of the content block (text blocks, and the text of embedded resources).
    pub fn text(&self) -> String {
        content_text(&self.content)
    }
}

/// The text of one ContentBlock.
pub fn content_text(block: &Value) -> String {
    match block.get("type").and_then(Value::as_str) {
        Some("text") => block["text"].as_str().unwrap_or_default().to_string(),
        Some("resource") => block["resource"]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        Some("resource_link") => block["uri"].as_str().unwrap_or_default().to_string(),
        _ => String::new(),
    }
}

/// The fields of `tool_call` and `tool_call_update` (an update carries a subset).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallFields {
    pub tool_call_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locations: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_input: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_output: Option<Value>,
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
}

impl ToolCallFields {
    /// Merges a `tool_call_update` into this snapshot: given fields replace (content and
    /// locations wholesale), absent ones stay.
    pub fn merge(&mut self, update: ToolCallFields) {
        macro_rules! take {
            ($($f:ident),*) => { $( if update.$f.is_some() { self.$f = update.$f; } )* };
        }
        take!(title, kind, status, content, locations, raw_input, raw_output);
        if let Some(meta) = update.meta {
            match (&mut self.meta, meta) {
                (Some(Value::Object(mine)), Value::Object(theirs)) => mine.extend(theirs),
                (slot, meta) => *slot = Some(meta),
            }
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct Plan {
    #[serde(default)]
    pub entries: Vec<PlanEntry>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PlanEntry {
    #[serde(default)]
    pub content: String,
    #[serde(default)]
    pub status: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Command {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub input: Option<Value>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub updated_at: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct UsageUpdate {
    #[serde(default)]
    pub used: Option<u64>,
    #[serde(default)]
    pub size: Option<u64>,
    #[serde(default)]
    pub cost: Option<Cost>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Cost {
    #[serde(default)]
    pub amount: Option<f64>,
    #[serde(default)]
    pub currency: Option<String>,
}

/// `session/request_permission` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionParams {
    #[serde(default)]
    pub session_id: Option<String>,
    pub tool_call: ToolCallFields,
    #[serde(default)]
    pub options: Vec<PermissionOption>,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PermissionOption {
    pub option_id: String,
    #[serde(default)]
    pub name: String,
    /// `allow_once`, `allow_always`, `reject_once`, `reject_always` (others kept verbatim).
    #[serde(default)]
    pub kind: String,
}

/// The `session/prompt` answer.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptResult {
    #[serde(default)]
    pub stop_reason: Option<String>,
    #[serde(default)]
    pub usage: Option<Value>,
    #[serde(default, rename = "_meta")]
    pub meta: Option<Value>,
}

/// `session/list` answer.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionList {
    #[serde(default)]
    pub sessions: Vec<ListedSession>,
    #[serde(default)]
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListedSession {
    pub session_id: String,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub updated_at: Option<String>,
}
