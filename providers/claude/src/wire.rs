//! The Claude Code stream-json wire: what the CLI prints on stdout (parsed tolerantly: every
//! enum has a catch-all arm, every field is optional unless the CLI always sends it) and the
//! lines the bridge writes to its stdin.

use serde::Deserialize;
use serde_json::{json, Map, Value};

/// One stdout line of `claude -p --output-format stream-json`.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum CliMessage {
    /// Boxed: the largest variant, and system lines are rare.
    System(Box<SystemMessage>),
    Assistant(AssistantMessage),
    User(UserMessage),
    StreamEvent(StreamEventMessage),
    Result(ResultMessage),
    ControlRequest(ControlRequest),
    ControlResponse(ControlResponseEnvelope),
    ControlCancelRequest {
        request_id: String,
    },
    /// `keep_alive`, `rate_limit_event`, `tool_progress`, and anything a newer CLI adds.
    #[serde(other)]
    Other,
}

impl CliMessage {
    /// Parses one line; `None` for a line that is not a JSON object this module understands.
    pub fn parse(line: &str) -> Result<CliMessage, serde_json::Error> {
        serde_json::from_str(line)
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct SystemMessage {
    #[serde(default)]
    pub subtype: String,
    #[serde(default)]
    pub session_id: Option<String>,
    // init
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default, rename = "permissionMode")]
    pub permission_mode: Option<String>,
    #[serde(default)]
    pub slash_commands: Option<Vec<String>>,
    #[serde(default)]
    pub claude_code_version: Option<String>,
    // commands_changed: the whole list, `{name, description, argumentHint}` objects
    #[serde(default)]
    pub commands: Option<Vec<Value>>,
    // status
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub compact_result: Option<String>,
    #[serde(default)]
    pub compact_error: Option<String>,
    // compact_boundary
    #[serde(default)]
    pub compact_metadata: Option<CompactMetadata>,
    // task_*
    #[serde(default)]
    pub task_id: Option<String>,
    #[serde(default)]
    pub tool_use_id: Option<String>,
    #[serde(default)]
    pub task_type: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub summary: Option<String>,
    #[serde(default)]
    pub patch: Option<Map<String, Value>>,
    #[serde(default)]
    pub usage: Option<TaskUsage>,
    // api_retry
    #[serde(default)]
    pub attempt: Option<u64>,
    #[serde(default)]
    pub max_retries: Option<u64>,
    #[serde(default)]
    pub retry_delay_ms: Option<f64>,
    #[serde(default)]
    pub error_status: Option<u64>,
    #[serde(default)]
    pub error: Option<Value>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct CompactMetadata {
    #[serde(default)]
    pub trigger: Option<String>,
    #[serde(default)]
    pub pre_tokens: Option<u64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct TaskUsage {
    #[serde(default)]
    pub total_tokens: Option<u64>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct AssistantMessage {
    pub message: ApiMessage,
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    #[serde(default)]
    pub uuid: Option<String>,
}

/// An Anthropic message as the CLI embeds it (assistant or user).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ApiMessage {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub role: Option<String>,
    #[serde(default)]
    pub content: MessageContent,
    #[serde(default)]
    pub usage: Option<ApiUsage>,
}

/// A message's content: a plain string or content blocks.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum MessageContent {
    Text(String),
    Blocks(Vec<ContentBlock>),
    Other(Value),
}

impl Default for MessageContent {
    fn default() -> Self {
        MessageContent::Blocks(Vec::new())
    }
}

impl MessageContent {
    pub fn blocks(&self) -> Vec<ContentBlock> {
        match self {
            MessageContent::Text(t) => vec![ContentBlock::Text { text: t.clone() }],
            MessageContent::Blocks(b) => b.clone(),
            MessageContent::Other(_) => Vec::new(),
        }
    }

    /// The text parts joined by newlines.
    pub fn text(&self) -> String {
        let parts: Vec<String> = self
            .blocks()
            .into_iter()
            .filter_map(|b| match b {
                ContentBlock::Text { text } => Some(text),
                _ => None,
            })
            .collect();
        parts.join("\n")
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    Text {
        #[serde(default)]
        text: String,
    },
    Thinking {
        #[serde(default)]
        thinking: String,
    },
    ToolUse {
        id: String,
        name: String,
        #[serde(default)]
        input: Value,
    },
    ServerToolUse {
        id: String,
        name: String,
        #[serde(default)]
        input: Value,
    },
    McpToolUse {
        id: String,
        name: String,
        #[serde(default)]
        server_name: Option<String>,
        #[serde(default)]
        input: Value,
    },
    ToolResult {
        tool_use_id: String,
        #[serde(default)]
        content: Value,
        #[serde(default)]
        is_error: Option<bool>,
    },
    WebSearchToolResult {
        tool_use_id: String,
        #[serde(default)]
        content: Value,
    },
    /// `redacted_thinking`, `image`, `document`, and future block types.
    #[serde(other)]
    Other,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct ApiUsage {
    #[serde(default)]
    pub input_tokens: Option<u64>,
    #[serde(default)]
    pub output_tokens: Option<u64>,
    #[serde(default)]
    pub cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    pub cache_read_input_tokens: Option<u64>,
}

impl ApiUsage {
    /// Tokens of the prompt as sent (fresh + cache reads + cache writes).
    pub fn prompt_tokens(&self) -> u64 {
        self.input_tokens.unwrap_or(0)
            + self.cache_creation_input_tokens.unwrap_or(0)
            + self.cache_read_input_tokens.unwrap_or(0)
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct UserMessage {
    #[serde(default)]
    pub message: ApiMessage,
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    #[serde(default)]
    pub uuid: Option<String>,
    /// Echo of a message the bridge wrote (`--replay-user-messages`).
    #[serde(default, rename = "isReplay")]
    pub is_replay: Option<bool>,
    #[serde(default, rename = "isSynthetic")]
    pub is_synthetic: Option<bool>,
    #[serde(default, rename = "isMeta")]
    pub is_meta: Option<bool>,
    #[serde(default, rename = "isCompactSummary")]
    pub is_compact_summary: Option<bool>,
    /// Structured tool result (`tool_use_result` on stdout, `toolUseResult` in transcripts).
    #[serde(default, alias = "toolUseResult")]
    pub tool_use_result: Option<Value>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct StreamEventMessage {
    pub event: StreamEvent,
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    MessageStart {
        message: ApiMessage,
    },
    ContentBlockStart {
        index: u64,
        content_block: ContentBlock,
    },
    ContentBlockDelta {
        index: u64,
        delta: Delta,
    },
    ContentBlockStop {
        index: u64,
    },
    MessageDelta {
        #[serde(default)]
        usage: Option<ApiUsage>,
    },
    MessageStop,
    #[serde(other)]
    Other,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Delta {
    TextDelta {
        #[serde(default)]
        text: String,
    },
    ThinkingDelta {
        #[serde(default)]
        thinking: String,
    },
    InputJsonDelta {
        #[serde(default)]
        partial_json: String,
    },
    #[serde(other)]
    Other,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct ResultMessage {
    #[serde(default)]
    pub subtype: String,
    #[serde(default)]
    pub is_error: Option<bool>,
    #[serde(default)]
    pub result: Option<String>,
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub total_cost_usd: Option<f64>,
    #[serde(default)]
    pub usage: Option<ApiUsage>,
    #[serde(default, rename = "modelUsage")]
    pub model_usage: Option<Map<String, Value>>,
    #[serde(default)]
    pub errors: Option<Vec<Value>>,
    #[serde(default)]
    pub terminal_reason: Option<String>,
    #[serde(default)]
    pub api_error_status: Option<Value>,
    /// With `--json-schema`: the answer the model gave through the CLI's `StructuredOutput`
    /// tool (absent, or null, when it never called it).
    #[serde(default)]
    pub structured_output: Option<Value>,
    #[serde(default)]
    pub uuid: Option<String>,
}

impl ResultMessage {
    /// The largest `contextWindow` any model of the run reported.
    pub fn context_window(&self) -> Option<u64> {
        self.model_usage
            .as_ref()?
            .values()
            .filter_map(|m| m.get("contextWindow").and_then(Value::as_u64))
            .max()
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct ControlRequest {
    pub request_id: String,
    pub request: Map<String, Value>,
}

impl ControlRequest {
    pub fn subtype(&self) -> &str {
        self.request
            .get("subtype")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    pub fn str_field(&self, key: &str) -> Option<&str> {
        self.request.get(key).and_then(Value::as_str)
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct ControlResponseEnvelope {
    pub response: ControlResponseBody,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ControlResponseBody {
    #[serde(default)]
    pub subtype: String,
    #[serde(default)]
    pub request_id: String,
    #[serde(default)]
    pub response: Option<Value>,
    #[serde(default)]
    pub error: Option<String>,
}

// ---- stdin (bridge -> CLI) -------------------------------------------------------------

/// A `user` line carrying a prompt. `uuid` lets the bridge match the CLI's replay echo.
pub fn user_line(content: Vec<Value>, uuid: &str) -> String {
    json!({
        "type": "user",
        "message": {"role": "user", "content": content},
        "parent_tool_use_id": null,
        "session_id": "",
        "uuid": uuid,
    })
    .to_string()
}

/// A `control_request` line.
pub fn control_request_line(request_id: &str, request: Value) -> String {
    json!({"type": "control_request", "request_id": request_id, "request": request}).to_string()
}

/// A successful `control_response` to a request the CLI sent.
pub fn control_success_line(request_id: &str, response: Value) -> String {
    json!({
        "type": "control_response",
        "response": {"subtype": "success", "request_id": request_id, "response": response},
    })
    .to_string()
}

/// An error `control_response` to a request the CLI sent.
pub fn control_error_line(request_id: &str, error: &str) -> String {
    json!({
        "type": "control_response",
        "response": {"subtype": "error", "request_id": request_id, "error": error},
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fixture_line_parses_and_unknown_types_degrade() {
        for name in [
            "claude-say-hi",
            "claude-tool-bypass",
            "claude-tool-permission-prompt",
            "claude-interrupt",
            "claude-resume",
        ] {
            let text = crate::normalize::tests_support::fixture(name);
            for line in text.lines() {
                let parsed = CliMessage::parse(line);
                assert!(parsed.is_ok(), "{name}: {line:.200}: {parsed:?}");
            }
        }
        assert!(matches!(
            CliMessage::parse(r#"{"type":"brand_new","x":1}"#),
            Ok(CliMessage::Other)
        ));
        let block: ContentBlock = serde_json::from_str(r#"{"type":"future_block","a":1}"#).unwrap();
        assert!(matches!(block, ContentBlock::Other));
    }
}
