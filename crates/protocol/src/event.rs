//! `ProviderEvent`: everything a provider connection publishes.

use crate::{
    Capability, ProviderCatalog, ProviderCommand, ProviderConfigState, ProviderError,
    ProviderNotice, ProviderPermissionRequest, ProviderPersistence, ProviderSessionSummary,
    ProviderUsage, TimelineItem,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type")]
pub enum ProviderEvent {
    #[serde(rename = "catalog", rename_all = "camelCase")]
    Catalog {
        request_id: String,
        catalog: ProviderCatalog,
    },
    #[serde(rename = "sessions", rename_all = "camelCase")]
    Sessions {
        request_id: String,
        sessions: Vec<ProviderSessionSummary>,
    },
    #[serde(rename = "request.completed", rename_all = "camelCase")]
    RequestCompleted { request_id: String },
    #[serde(rename = "request.failed", rename_all = "camelCase")]
    RequestFailed {
        request_id: String,
        error: ProviderError,
    },
    #[serde(rename = "session.opened", rename_all = "camelCase")]
    SessionOpened {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request_id: Option<String>,
        session_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_session_id: Option<String>,
        capabilities: Vec<Capability>,
        restoration: Restoration,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        persistence: Option<ProviderPersistence>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        cwd: String,
    },
    #[serde(rename = "session.ready", rename_all = "camelCase")]
    SessionReady {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request_id: Option<String>,
        session_id: String,
    },
    #[serde(rename = "session.closed", rename_all = "camelCase")]
    SessionClosed {
        session_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<ProviderError>,
    },
    #[serde(rename = "session.runtime_failed", rename_all = "camelCase")]
    SessionRuntimeFailed {
        session_id: String,
        error: ProviderError,
    },
    #[serde(rename = "session.persistence", rename_all = "camelCase")]
    SessionPersistence {
        session_id: String,
        persistence: ProviderPersistence,
    },
    #[serde(rename = "session.prompt_result", rename_all = "camelCase")]
    SessionPromptResult {
        session_id: String,
        client_message_id: String,
        result: PromptResult,
    },
    #[serde(rename = "session.turn", rename_all = "camelCase")]
    SessionTurn {
        session_id: String,
        turn_id: String,
        state: TurnState,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<ProviderError>,
    },
    #[serde(rename = "session.usage", rename_all = "camelCase")]
    SessionUsage {
        session_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        turn_id: Option<String>,
        usage: ProviderUsage,
    },
    #[serde(rename = "session.config", rename_all = "camelCase")]
    SessionConfig {
        session_id: String,
        config: ProviderConfigState,
    },
    #[serde(rename = "session.commands", rename_all = "camelCase")]
    SessionCommands {
        session_id: String,
        commands: Vec<ProviderCommand>,
    },
    #[serde(rename = "session.permission", rename_all = "camelCase")]
    SessionPermission {
        session_id: String,
        request: ProviderPermissionRequest,
    },
    #[serde(rename = "session.permission_resolved", rename_all = "camelCase")]
    SessionPermissionResolved {
        session_id: String,
        permission_id: String,
    },
    #[serde(rename = "session.notice", rename_all = "camelCase")]
    SessionNotice {
        session_id: String,
        notice: ProviderNotice,
    },
    #[serde(rename = "timeline.item", rename_all = "camelCase")]
    TimelineItem {
        session_id: String,
        item: TimelineItem,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timestamp: Option<String>,
    },
    #[serde(rename = "session.can_stop_runtime", rename_all = "camelCase")]
    SessionCanStopRuntime {
        request_id: String,
        session_id: String,
        can_stop: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Restoration {
    Core,
    Parent,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TurnState {
    Started,
    Completed,
    Failed,
    Canceled,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum PromptResult {
    #[serde(rename_all = "camelCase")]
    Turn {
        turn_id: String,
    },
    #[serde(rename_all = "camelCase")]
    Steer {
        turn_id: String,
    },
    Completed,
    Failed {
        error: ProviderError,
    },
}

impl ProviderEvent {
    /// The session this event belongs to, if any.
    pub fn session_id(&self) -> Option<&str> {
        match self {
            ProviderEvent::Catalog { .. }
            | ProviderEvent::Sessions { .. }
            | ProviderEvent::RequestCompleted { .. }
            | ProviderEvent::RequestFailed { .. } => None,
            ProviderEvent::SessionOpened { session_id, .. }
            | ProviderEvent::SessionReady { session_id, .. }
            | ProviderEvent::SessionClosed { session_id, .. }
            | ProviderEvent::SessionRuntimeFailed { session_id, .. }
            | ProviderEvent::SessionPersistence { session_id, .. }
            | ProviderEvent::SessionPromptResult { session_id, .. }
            | ProviderEvent::SessionTurn { session_id, .. }
            | ProviderEvent::SessionUsage { session_id, .. }
            | ProviderEvent::SessionConfig { session_id, .. }
            | ProviderEvent::SessionCommands { session_id, .. }
            | ProviderEvent::SessionPermission { session_id, .. }
            | ProviderEvent::SessionPermissionResolved { session_id, .. }
            | ProviderEvent::SessionNotice { session_id, .. }
            | ProviderEvent::TimelineItem { session_id, .. }
            | ProviderEvent::SessionCanStopRuntime { session_id, .. } => Some(session_id),
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            ProviderEvent::Catalog { .. } => "catalog",
            ProviderEvent::Sessions { .. } => "sessions",
            ProviderEvent::RequestCompleted { .. } => "request.completed",
            ProviderEvent::RequestFailed { .. } => "request.failed",
            ProviderEvent::SessionOpened { .. } => "session.opened",
            ProviderEvent::SessionReady { .. } => "session.ready",
            ProviderEvent::SessionClosed { .. } => "session.closed",
            ProviderEvent::SessionRuntimeFailed { .. } => "session.runtime_failed",
            ProviderEvent::SessionPersistence { .. } => "session.persistence",
            ProviderEvent::SessionPromptResult { .. } => "session.prompt_result",
            ProviderEvent::SessionTurn { .. } => "session.turn",
            ProviderEvent::SessionUsage { .. } => "session.usage",
            ProviderEvent::SessionConfig { .. } => "session.config",
            ProviderEvent::SessionCommands { .. } => "session.commands",
            ProviderEvent::SessionPermission { .. } => "session.permission",
            ProviderEvent::SessionPermissionResolved { .. } => "session.permission_resolved",
            ProviderEvent::SessionNotice { .. } => "session.notice",
            ProviderEvent::TimelineItem { .. } => "timeline.item",
            ProviderEvent::SessionCanStopRuntime { .. } => "session.can_stop_runtime",
        }
    }
}
