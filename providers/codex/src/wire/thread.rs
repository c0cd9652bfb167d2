//! Threads, turns, token usage and the responses of the thread/turn/model methods.

use super::items::ThreadItem;
use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Thread {
    pub id: String,
    #[serde(default)]
    pub preview: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub created_at: Option<i64>,
    #[serde(default)]
    pub updated_at: Option<i64>,
    #[serde(default)]
    pub parent_thread_id: Option<String>,
    #[serde(default)]
    pub turns: Vec<Turn>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Turn {
    pub id: String,
    #[serde(default, deserialize_with = "lenient_items")]
    pub items: Vec<ThreadItem>,
    #[serde(default)]
    pub status: TurnStatus,
    #[serde(default)]
    pub error: Option<TurnError>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TurnStatus {
    Completed,
    Interrupted,
    Failed,
    #[default]
    InProgress,
    #[serde(other)]
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnError {
    #[serde(default)]
    pub message: String,
    /// A string (`"unauthorized"`) or an object (`{"httpConnectionFailed": {...}}`).
    #[serde(default)]
    pub codex_error_info: Option<Value>,
    #[serde(default)]
    pub additional_details: Option<String>,
}

impl TurnError {
    /// The `codexErrorInfo` kind as a short code (`unauthorized`, `httpConnectionFailed`).
    pub fn code(&self) -> Option<String> {
        match &self.codex_error_info {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Object(o)) => o.keys().next().cloned(),
            _ => None,
        }
    }
}

/// Items of a turn, one by one: an item this version cannot read is dropped, not the turn.
fn lenient_items<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<ThreadItem>, D::Error> {
    let raw: Vec<Value> = Vec::deserialize(d)?;
    Ok(raw
        .into_iter()
        .filter_map(|v| match serde_json::from_value::<ThreadItem>(v) {
            Ok(item) => Some(item),
            Err(e) => {
                tracing::warn!("unreadable codex thread item skipped: {e}");
                None
            }
        })
        .collect())
}

#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsageBreakdown {
    #[serde(default)]
    pub total_tokens: u64,
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub cached_input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    #[serde(default)]
    pub reasoning_output_tokens: u64,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadTokenUsage {
    #[serde(default)]
    pub total: TokenUsageBreakdown,
    #[serde(default)]
    pub last: TokenUsageBreakdown,
    #[serde(default)]
    pub model_context_window: Option<u64>,
}

/// `thread/start` and `thread/resume` answer with the thread and its effective settings.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadOpened {
    pub thread: Thread,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub reasoning_effort: Option<String>,
    /// `"untrusted" | "on-request" | "never"` or `{granular: ...}`.
    #[serde(default)]
    pub approval_policy: Value,
    /// `{type: "dangerFullAccess" | "readOnly" | "workspaceWrite" | "externalSandbox"}`.
    #[serde(default)]
    pub sandbox: Value,
    #[serde(default)]
    pub cwd: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct TurnStarted {
    pub turn: Turn,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Page<T> {
    #[serde(default = "Vec::new")]
    pub data: Vec<T>,
    #[serde(default)]
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Model {
    pub id: String,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub display_name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub hidden: bool,
    #[serde(default)]
    pub is_default: bool,
    #[serde(default)]
    pub default_reasoning_effort: Option<String>,
    #[serde(default)]
    pub supported_reasoning_efforts: Vec<ReasoningEffortOption>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReasoningEffortOption {
    pub reasoning_effort: String,
    #[serde(default)]
    pub description: Option<String>,
}
