//! The server notifications and server requests the bridge acts on. Anything else is logged
//! and ignored ([`Notification::Other`], [`ServerRequest::Other`]).

use super::items::{CommandAction, FileUpdateChange, ThreadItem};
use super::thread::{ThreadTokenUsage, Turn, TurnError};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

/// Method names, as spelled by the 0.171.0 schema (`schema/methods.json` keeps the list for the
/// drift test).
pub mod method {
    pub const INITIALIZE: &str = "initialize";
    pub const INITIALIZED: &str = "initialized";
    pub const THREAD_START: &str = "thread/start";
    pub const THREAD_RESUME: &str = "thread/resume";
    pub const THREAD_UNSUBSCRIBE: &str = "thread/unsubscribe";
    pub const THREAD_LIST: &str = "thread/list";
    pub const THREAD_READ: &str = "thread/read";
    pub const THREAD_TURNS_LIST: &str = "thread/turns/list";
    pub const TURN_START: &str = "turn/start";
    pub const TURN_STEER: &str = "turn/steer";
    pub const TURN_INTERRUPT: &str = "turn/interrupt";
    pub const MODEL_LIST: &str = "model/list";
    pub const CONFIG_READ: &str = "config/read";
    pub const THREAD_ARCHIVE: &str = "thread/archive";
    pub const THREAD_UNARCHIVE: &str = "thread/unarchive";
    pub const THREAD_REVERT: &str = "thread/revert";
    pub const ACCOUNT_READ: &str = "account/read";
    pub const SKILLS_LIST: &str = "skills/list";
    pub const SKILLS_CHANGED: &str = "skills/changed";

    pub const CLIENT_METHODS: &[&str] = &[
        INITIALIZE,
        THREAD_START,
        THREAD_RESUME,
        THREAD_UNSUBSCRIBE,
        THREAD_LIST,
        THREAD_READ,
        THREAD_TURNS_LIST,
        TURN_START,
        TURN_STEER,
        TURN_INTERRUPT,
        MODEL_LIST,
        CONFIG_READ,
        THREAD_ARCHIVE,
        THREAD_UNARCHIVE,
        THREAD_REVERT,
        ACCOUNT_READ,
        SKILLS_LIST,
    ];

    pub const COMMAND_APPROVAL: &str = "item/commandExecution/requestApproval";
    pub const FILE_CHANGE_APPROVAL: &str = "item/fileChange/requestApproval";
    pub const USER_INPUT: &str = "item/tool/requestUserInput";
    pub const MCP_ELICITATION: &str = "mcpServer/elicitation/request";
    pub const SERVER_REQUESTS: &[&str] = &[
        COMMAND_APPROVAL,
        FILE_CHANGE_APPROVAL,
        USER_INPUT,
        MCP_ELICITATION,
    ];

    pub const NOTIFICATIONS: &[&str] = &[
        "turn/started",
        "turn/completed",
        "item/started",
        "item/completed",
        "item/agentMessage/delta",
        "item/reasoning/summaryTextDelta",
        "item/reasoning/summaryPartAdded",
        "item/reasoning/textDelta",
        "item/commandExecution/outputDelta",
        "item/fileChange/patchUpdated",
        "item/plan/delta",
        "turn/plan/updated",
        "turn/diff/updated",
        "thread/tokenUsage/updated",
        "serverRequest/resolved",
        "error",
        "warning",
        "configWarning",
        "thread/status/changed",
        SKILLS_CHANGED,
    ];
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnNotification {
    pub thread_id: String,
    pub turn: Turn,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemNotification {
    pub thread_id: String,
    #[serde(default)]
    pub turn_id: Option<String>,
    pub item: ThreadItem,
}

/// `item/*/delta`-style notifications.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeltaNotification {
    pub thread_id: String,
    #[serde(default)]
    pub turn_id: Option<String>,
    pub item_id: String,
    #[serde(default)]
    pub delta: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PatchUpdated {
    pub thread_id: String,
    #[serde(default)]
    pub turn_id: Option<String>,
    pub item_id: String,
    #[serde(default)]
    pub changes: Vec<FileUpdateChange>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanStep {
    #[serde(default)]
    pub step: String,
    /// `pending | inProgress | completed`.
    #[serde(default)]
    pub status: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanUpdated {
    pub thread_id: String,
    pub turn_id: String,
    #[serde(default)]
    pub explanation: Option<String>,
    #[serde(default)]
    pub plan: Vec<PlanStep>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffUpdated {
    pub thread_id: String,
    pub turn_id: String,
    #[serde(default)]
    pub diff: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsageUpdated {
    pub thread_id: String,
    #[serde(default)]
    pub turn_id: Option<String>,
    pub token_usage: ThreadTokenUsage,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestResolved {
    #[serde(default)]
    pub thread_id: Option<String>,
    pub request_id: Value,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorNotification {
    #[serde(default)]
    pub thread_id: Option<String>,
    #[serde(default)]
    pub turn_id: Option<String>,
    pub error: TurnError,
    #[serde(default)]
    pub will_retry: bool,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WarningNotification {
    #[serde(default)]
    pub thread_id: Option<String>,
    #[serde(default)]
    pub message: String,
}

/// `thread/status/changed`: a thread became `active`, `idle`, `notLoaded`, ... (`status` is
/// `{type, ...}`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadStatusChanged {
    pub thread_id: String,
    #[serde(default)]
    pub status: Value,
}

/// A notification the bridge understands.
#[derive(Debug, Clone, PartialEq)]
pub enum Notification {
    TurnStarted(TurnNotification),
    TurnCompleted(TurnNotification),
    ItemStarted(ItemNotification),
    ItemCompleted(ItemNotification),
    AgentMessageDelta(DeltaNotification),
    CommandOutputDelta(DeltaNotification),
    PatchUpdated(PatchUpdated),
    PlanDelta(DeltaNotification),
    PlanUpdated(PlanUpdated),
    DiffUpdated(DiffUpdated),
    TokenUsage(TokenUsageUpdated),
    RequestResolved(RequestResolved),
    Error(ErrorNotification),
    Warning(WarningNotification),
    ThreadStatusChanged(ThreadStatusChanged),
    /// Known to exist, not acted on (or newer than this bridge).
    Other(String),
}

fn parse<T: DeserializeOwned>(method: &str, params: Value) -> Result<T, serde_json::Error> {
    serde_json::from_value(params).inspect_err(|e| {
        tracing::warn!("codex notification `{method}` has an unexpected shape: {e}");
    })
}

impl Notification {
    /// Reads a notification; a known method with an unreadable body becomes `Other`.
    pub fn parse(method: &str, params: Value) -> Notification {
        let parsed = match method {
            "turn/started" => parse(method, params).map(Notification::TurnStarted),
            "turn/completed" => parse(method, params).map(Notification::TurnCompleted),
            "item/started" => parse(method, params).map(Notification::ItemStarted),
            "item/completed" => parse(method, params).map(Notification::ItemCompleted),
            "item/agentMessage/delta" => parse(method, params).map(Notification::AgentMessageDelta),
            "item/commandExecution/outputDelta" => {
                parse(method, params).map(Notification::CommandOutputDelta)
            }
            "item/fileChange/patchUpdated" => parse(method, params).map(Notification::PatchUpdated),
            "item/plan/delta" => parse(method, params).map(Notification::PlanDelta),
            "turn/plan/updated" => parse(method, params).map(Notification::PlanUpdated),
            "turn/diff/updated" => parse(method, params).map(Notification::DiffUpdated),
            "thread/tokenUsage/updated" => parse(method, params).map(Notification::TokenUsage),
            "serverRequest/resolved" => parse(method, params).map(Notification::RequestResolved),
            "error" => parse(method, params).map(Notification::Error),
            "warning" | "configWarning" => parse(method, params).map(Notification::Warning),
            "thread/status/changed" => parse(method, params).map(Notification::ThreadStatusChanged),
            _ => return Notification::Other(method.to_string()),
        };
        parsed.unwrap_or_else(|_| Notification::Other(method.to_string()))
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandApproval {
    pub thread_id: String,
    pub turn_id: String,
    pub item_id: String,
    #[serde(default)]
    pub approval_id: Option<String>,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub command_actions: Option<Vec<CommandAction>>,
    /// Strings (`"accept"`) and objects (`{"acceptWithExecpolicyAmendment": ...}`).
    #[serde(default)]
    pub available_decisions: Option<Vec<Value>>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileChangeApproval {
    pub thread_id: String,
    pub turn_id: String,
    pub item_id: String,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub grant_root: Option<String>,
}

/// One question of `item/tool/requestUserInput` (the `request_user_input` tool).
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UserInputQuestion {
    pub id: String,
    #[serde(default)]
    pub header: String,
    #[serde(default)]
    pub question: String,
    #[serde(default)]
    pub options: Option<Vec<UserInputOption>>,
    /// Codex adds a free-form "other" answer to the options.
    #[serde(default)]
    pub is_other: bool,
    #[serde(default)]
    pub is_secret: bool,
}

#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
pub struct UserInputOption {
    pub label: String,
    #[serde(default)]
    pub description: String,
}

/// `item/tool/requestUserInput`: the model asks the user; answered with
/// `{answers: {questionId: {answers: [..]}}}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserInputRequest {
    pub thread_id: String,
    pub turn_id: String,
    pub item_id: String,
    #[serde(default)]
    pub questions: Vec<UserInputQuestion>,
}

/// `mcpServer/elicitation/request`: an MCP server asks the user (`elicitation/create`);
/// answered with `{action, content}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpElicitationRequest {
    pub thread_id: String,
    #[serde(default)]
    pub turn_id: Option<String>,
    pub server_name: String,
    #[serde(default)]
    pub message: String,
    /// `form`, `url` (or OpenAI's own form modes, read as forms).
    #[serde(default)]
    pub mode: Option<String>,
    #[serde(default)]
    pub requested_schema: Option<Value>,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub elicitation_id: Option<String>,
    /// Codex's own metadata: `codex_approval_kind: "mcp_tool_call"` marks Codex asking to run
    /// an MCP tool (with `tool_name`, `tool_params`, `persist`), not the server asking.
    #[serde(default, rename = "_meta")]
    pub meta: Option<Value>,
}

/// A server request the bridge answers.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerRequest {
    CommandApproval(CommandApproval),
    FileChangeApproval(FileChangeApproval),
    UserInput(UserInputRequest),
    McpElicitation(McpElicitationRequest),
    Other(String),
}

impl ServerRequest {
    pub fn parse(method: &str, params: Value) -> ServerRequest {
        let parsed = match method {
            method::COMMAND_APPROVAL => parse(method, params).map(ServerRequest::CommandApproval),
            method::FILE_CHANGE_APPROVAL => {
                parse(method, params).map(ServerRequest::FileChangeApproval)
            }
            method::USER_INPUT => parse(method, params).map(ServerRequest::UserInput),
            method::MCP_ELICITATION => parse(method, params).map(ServerRequest::McpElicitation),
            _ => return ServerRequest::Other(method.to_string()),
        };
        parsed.unwrap_or_else(|_| ServerRequest::Other(method.to_string()))
    }
}
