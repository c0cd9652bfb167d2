//! Permission requests and responses.

use crate::{Json, JsonMap, ToolCallDetail};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PermissionKind {
    Tool,
    Plan,
    Question,
    Mode,
    Other,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProviderPermissionRequest {
    pub id: String,
    pub name: String,
    pub kind: PermissionKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<JsonMap>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<ToolCallDetail>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestions: Option<Vec<JsonMap>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actions: Option<Vec<ProviderPermissionAction>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonMap>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PermissionBehavior {
    Allow,
    Deny,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ActionVariant {
    Primary,
    Secondary,
    Danger,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ActionIntent {
    Implement,
    ImplementResume,
    Dismiss,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProviderPermissionAction {
    pub id: String,
    pub label: String,
    pub behavior: PermissionBehavior,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<ActionVariant>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intent: Option<ActionIntent>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "behavior", rename_all = "lowercase")]
pub enum ProviderPermissionResponse {
    #[serde(rename_all = "camelCase")]
    Allow {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        selected_action_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        updated_input: Option<JsonMap>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        updated_permissions: Option<Vec<Json>>,
    },
    #[serde(rename_all = "camelCase")]
    Deny {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        selected_action_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        interrupt: Option<bool>,
    },
}

impl ProviderPermissionResponse {
    pub fn deny(message: impl Into<String>) -> Self {
        ProviderPermissionResponse::Deny {
            selected_action_id: None,
            message: Some(message.into()),
            interrupt: None,
        }
    }

    pub fn is_allow(&self) -> bool {
        matches!(self, ProviderPermissionResponse::Allow { .. })
    }

    pub fn selected_action_id(&self) -> Option<&str> {
        match self {
            ProviderPermissionResponse::Allow {
                selected_action_id, ..
            }
            | ProviderPermissionResponse::Deny {
                selected_action_id, ..
            } => selected_action_id.as_deref(),
        }
    }
}
