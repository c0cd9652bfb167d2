//! Timeline items (`ProviderTimelineItem`) and tool-call details (`ProviderToolCallDetail`).

use crate::{Json, JsonMap};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A complete snapshot of one timeline row. Re-emitting the same `id` replaces the row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TimelineItem {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revert_token: Option<Json>,
    #[serde(flatten)]
    pub body: ItemBody,
}

impl TimelineItem {
    pub fn new(id: impl Into<String>, body: ItemBody) -> Self {
        Self {
            id: id.into(),
            revert_token: None,
            body,
        }
    }

    /// Enforces the tool-call invariant Paseo's schema checks: `error` is `null` unless the
    /// status is `failed`, and then it is present.
    pub fn normalize(&mut self) {
        if let ItemBody::ToolCall(call) = &mut self.body {
            call.normalize();
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
// Wire values are parsed once and moved rarely; boxing would only complicate matching.
#[allow(clippy::large_enum_variant)]
pub enum ItemBody {
    #[serde(rename_all = "camelCase")]
    UserMessage {
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client_message_id: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    AssistantMessage {
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message_id: Option<String>,
    },
    Reasoning {
        text: String,
    },
    ToolCall(ToolCall),
    Todo {
        items: Vec<TodoEntry>,
    },
    Error {
        message: String,
    },
    Notification {
        level: crate::Severity,
        message: String,
    },
    #[serde(rename_all = "camelCase")]
    Compaction {
        status: CompactionStatus,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        trigger: Option<CompactionTrigger>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pre_tokens: Option<u64>,
    },
    #[serde(rename_all = "camelCase")]
    Plugin {
        plugin_id: String,
        kind: String,
        version: u32,
        data: Json,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    pub call_id: String,
    pub name: String,
    pub detail: ToolCallDetail,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonMap>,
    pub status: ToolStatus,
    /// `null` unless `status` is `failed`; then required.
    pub error: Json,
}

impl ToolCall {
    pub fn running(
        call_id: impl Into<String>,
        name: impl Into<String>,
        detail: ToolCallDetail,
    ) -> Self {
        Self {
            call_id: call_id.into(),
            name: name.into(),
            detail,
            metadata: None,
            status: ToolStatus::Running,
            error: Json::Null,
        }
    }

    pub fn complete(&mut self) {
        self.status = ToolStatus::Completed;
        self.error = Json::Null;
    }

    pub fn fail(&mut self, error: impl Into<Json>) {
        self.status = ToolStatus::Failed;
        self.error = error.into();
        self.normalize();
    }

    pub fn cancel(&mut self) {
        self.status = ToolStatus::Canceled;
        self.error = Json::Null;
    }

    pub fn normalize(&mut self) {
        match self.status {
            ToolStatus::Failed => {
                if self.error.is_null() {
                    self.error = Json::String("failed".into());
                }
            }
            ToolStatus::Running | ToolStatus::Completed | ToolStatus::Canceled => {
                self.error = Json::Null
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ToolStatus {
    Running,
    Completed,
    Failed,
    Canceled,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CompactionStatus {
    Loading,
    Completed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CompactionTrigger {
    Auto,
    Manual,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TodoEntry {
    pub text: String,
    pub completed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<TodoStatus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_form: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolCallDetail {
    #[serde(rename_all = "camelCase")]
    Shell {
        command: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        output: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exit_code: Option<Option<i64>>,
    },
    #[serde(rename_all = "camelCase")]
    Read {
        file_path: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        offset: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<u64>,
    },
    #[serde(rename_all = "camelCase")]
    Edit {
        file_path: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        old_string: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        new_string: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        unified_diff: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    Write {
        file_path: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<String>,
    },
    Search(SearchDetail),
    Fetch(FetchDetail),
    #[serde(rename_all = "camelCase")]
    WorktreeSetup {
        worktree_path: String,
        branch_name: String,
        log: String,
        commands: Vec<Json>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        truncated: Option<bool>,
    },
    #[serde(rename_all = "camelCase")]
    SubAgent {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sub_agent_type: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        child_session_id: Option<String>,
        log: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        actions: Option<Vec<SubAgentAction>>,
    },
    PlainText {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        label: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        icon: Option<PlainTextIcon>,
    },
    Plan {
        text: String,
    },
    Unknown {
        input: Json,
        output: Json,
    },
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchDetail {
    pub query: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<SearchToolName>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_paths: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub web_results: Option<Vec<WebResult>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Vec<Json>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_files: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_matches: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_seconds: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<SearchMode>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SearchToolName {
    Search,
    Grep,
    Glob,
    WebSearch,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SearchMode {
    Content,
    FilesWithMatches,
    Count,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WebResult {
    pub title: String,
    pub url: String,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FetchDetail {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubAgentAction {
    pub index: u32,
    pub tool_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlainTextIcon {
    Wrench,
    SquareTerminal,
    Eye,
    Pencil,
    Search,
    Bot,
    Sparkles,
    Brain,
    MicVocal,
}
