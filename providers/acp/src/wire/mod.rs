//! The Agent Client Protocol (v1) as the bridge speaks it, client side.
//!
//! The wire types are the ecosystem's own `agent-client-protocol-schema` crate (the types Zed
//! and the ACP SDK use; [`acp`] here): method names, `session/update` payloads, tool calls,
//! content blocks, permission requests and answers, and the requests the bridge sends.
//! Vendor agents run ahead of the crate, so a thin tolerant layer stands between the line and
//! the crate's types: [`update::read`] picks a `session/update` by its `sessionUpdate`
//! discriminator first (a kind the bridge does not map is logged and ignored, a payload the
//! crate refuses is logged and skipped, never the session), and [`permission::read`] maps an
//! unknown permission option kind to the nearest known one. The crate itself already turns an
//! unknown tool kind into `other`, an unknown tool status into "not given", and skips a tool
//! content item or plan entry it cannot read.
//!
//! The answers of `initialize`, `session/new|load|resume`, `session/prompt` and
//! `session/list` are still read by the lax views below (every field optional).

#[cfg(test)]
mod drift;
pub mod permission;
pub mod requests;
pub mod tool_call;
pub mod update;

use serde::Deserialize;
use serde_json::Value;

use acp::{AGENT_METHOD_NAMES as AGENT, CLIENT_METHOD_NAMES as CLIENT};
pub use agent_client_protocol_schema::v1 as acp;

/// Method names: the crate's, but `session/set_model`, which ACP v1 has not adopted (agents
/// still serve it).
pub mod method {
    use super::{AGENT, CLIENT};

    pub const INITIALIZE: &str = AGENT.initialize;
    pub const SESSION_NEW: &str = AGENT.session_new;
    pub const SESSION_LOAD: &str = AGENT.session_load;
    pub const SESSION_RESUME: &str = AGENT.session_resume;
    pub const SESSION_LIST: &str = AGENT.session_list;
    pub const SESSION_CLOSE: &str = AGENT.session_close;
    pub const SESSION_PROMPT: &str = AGENT.session_prompt;
    pub const SESSION_CANCEL: &str = AGENT.session_cancel;
    pub const SESSION_SET_MODE: &str = AGENT.session_set_mode;
    /// Not in ACP v1 (the crate's unstable model selection); served by Gemini, Qwen, OpenCode.
    pub const SESSION_SET_MODEL: &str = "session/set_model";
    pub const SESSION_SET_CONFIG_OPTION: &str = AGENT.session_set_config_option;
    /// Client-side (agent -> bridge).
    pub const SESSION_UPDATE: &str = CLIENT.session_update;
    pub const REQUEST_PERMISSION: &str = CLIENT.session_request_permission;
    pub const FS_READ: &str = CLIENT.fs_read_text_file;
    pub const FS_WRITE: &str = CLIENT.fs_write_text_file;
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
    /// The lax view of one of the crate's config options (a `config_option_update`): the same
    /// wire shape, read again.
    pub fn from_acp(option: &acp::SessionConfigOption) -> Option<ConfigOption> {
        serde_json::to_value(option)
            .and_then(serde_json::from_value)
            .map_err(|e| tracing::warn!("config option not read: {e}"))
            .ok()
    }

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
