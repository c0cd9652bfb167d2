//! `ProviderInput`: everything a host sends to a provider connection. Unknown fields are
//! ignored (see [`crate::liberal`]).

use crate::{
    Capability, Json, JsonMap, ProviderConfigChanges, ProviderPermissionResponse,
    ProviderPersistence, ProviderPrompt, ProviderSessionConfig,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type")]
// Wire values are parsed once and moved rarely; boxing would only complicate matching.
#[allow(clippy::large_enum_variant)]
pub enum ProviderInput {
    #[serde(rename = "catalog", rename_all = "camelCase")]
    Catalog {
        request_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        provider_options: Option<JsonMap>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        settings: Option<JsonMap>,
    },
    #[serde(rename = "sessions", rename_all = "camelCase")]
    Sessions {
        request_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        query: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<std::num::NonZeroU32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        provider_options: Option<JsonMap>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        settings: Option<JsonMap>,
    },
    #[serde(rename = "session.open", rename_all = "camelCase")]
    SessionOpen {
        request_id: String,
        session_id: String,
        config: ProviderSessionConfig,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        persistence: Option<ProviderPersistence>,
        history: HistoryMode,
    },
    #[serde(rename = "session.prompt", rename_all = "camelCase")]
    SessionPrompt {
        session_id: String,
        prompt: ProviderPrompt,
    },
    #[serde(rename = "session.interrupt", rename_all = "camelCase")]
    SessionInterrupt {
        request_id: String,
        session_id: String,
    },
    #[serde(rename = "session.permission", rename_all = "camelCase")]
    SessionPermission {
        session_id: String,
        permission_id: String,
        response: ProviderPermissionResponse,
    },
    #[serde(rename = "session.configure", rename_all = "camelCase")]
    SessionConfigure {
        request_id: String,
        session_id: String,
        changes: ProviderConfigChanges,
    },
    #[serde(rename = "session.revert", rename_all = "camelCase")]
    SessionRevert {
        request_id: String,
        session_id: String,
        token: Json,
        scope: RevertScope,
    },
    #[serde(rename = "session.archive", rename_all = "camelCase")]
    SessionArchive {
        request_id: String,
        persistence: ProviderPersistence,
    },
    #[serde(rename = "session.unarchive", rename_all = "camelCase")]
    SessionUnarchive {
        request_id: String,
        persistence: ProviderPersistence,
    },
    #[serde(rename = "session.close", rename_all = "camelCase")]
    SessionClose {
        request_id: String,
        session_id: String,
    },
    #[serde(rename = "session.can_stop_runtime", rename_all = "camelCase")]
    SessionCanStopRuntime {
        request_id: String,
        session_id: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum HistoryMode {
    Replay,
    Skip,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RevertScope {
    Conversation,
    Files,
    Both,
}

impl ProviderInput {
    /// The method-like name of the input (`type` on the wire).
    pub fn kind(&self) -> &'static str {
        match self {
            ProviderInput::Catalog { .. } => "catalog",
            ProviderInput::Sessions { .. } => "sessions",
            ProviderInput::SessionOpen { .. } => "session.open",
            ProviderInput::SessionPrompt { .. } => "session.prompt",
            ProviderInput::SessionInterrupt { .. } => "session.interrupt",
            ProviderInput::SessionPermission { .. } => "session.permission",
            ProviderInput::SessionConfigure { .. } => "session.configure",
            ProviderInput::SessionRevert { .. } => "session.revert",
            ProviderInput::SessionArchive { .. } => "session.archive",
            ProviderInput::SessionUnarchive { .. } => "session.unarchive",
            ProviderInput::SessionClose { .. } => "session.close",
            ProviderInput::SessionCanStopRuntime { .. } => "session.can_stop_runtime",
        }
    }

    /// The session this input targets, if any.
    pub fn session_id(&self) -> Option<&str> {
        match self {
            ProviderInput::SessionOpen { session_id, .. }
            | ProviderInput::SessionPrompt { session_id, .. }
            | ProviderInput::SessionInterrupt { session_id, .. }
            | ProviderInput::SessionPermission { session_id, .. }
            | ProviderInput::SessionConfigure { session_id, .. }
            | ProviderInput::SessionRevert { session_id, .. }
            | ProviderInput::SessionClose { session_id, .. }
            | ProviderInput::SessionCanStopRuntime { session_id, .. } => Some(session_id),
            ProviderInput::Catalog { .. }
            | ProviderInput::Sessions { .. }
            | ProviderInput::SessionArchive { .. }
            | ProviderInput::SessionUnarchive { .. } => None,
        }
    }

    /// `requiredProviderCapabilities`: every capability the input needs, in Paseo's order.
    pub fn required_capabilities(&self) -> Vec<Capability> {
        match self {
            ProviderInput::Catalog { .. }
            | ProviderInput::SessionInterrupt { .. }
            | ProviderInput::SessionClose { .. } => vec![],
            ProviderInput::Sessions { .. } => vec![Capability::SessionList],
            ProviderInput::SessionOpen {
                config,
                persistence,
                ..
            } => {
                let mut caps = vec![];
                if persistence.is_some() {
                    caps.push(Capability::SessionPersistence);
                }
                if config.tool_policy.is_some() {
                    caps.push(Capability::PermissionToolPolicy);
                }
                caps
            }
            ProviderInput::SessionPrompt { prompt, .. } => {
                let mut caps = vec![];
                match &prompt.input {
                    crate::PromptInput::Message { .. } => caps.push(Capability::PromptMessage),
                    crate::PromptInput::Command { .. } => caps.push(Capability::PromptCommand),
                }
                if prompt.input.has_image() {
                    caps.push(Capability::PromptImage);
                }
                if prompt.output_schema.is_some() {
                    caps.push(Capability::PromptOutputSchema);
                }
                if prompt.delivery == crate::PromptDelivery::Steer {
                    caps.push(Capability::PromptSteer);
                }
                caps
            }
            ProviderInput::SessionPermission { .. } => vec![Capability::Permission],
            ProviderInput::SessionConfigure { .. } => vec![Capability::SessionConfigure],
            ProviderInput::SessionRevert { scope, .. } => vec![match scope {
                RevertScope::Conversation => Capability::SessionRevertConversation,
                RevertScope::Files => Capability::SessionRevertFiles,
                RevertScope::Both => Capability::SessionRevertBoth,
            }],
            ProviderInput::SessionArchive { .. } => vec![Capability::SessionArchive],
            ProviderInput::SessionUnarchive { .. } => vec![Capability::SessionUnarchive],
            ProviderInput::SessionCanStopRuntime { .. } => vec![Capability::SessionCanStopRuntime],
        }
    }
}
