//! Parameters of the client requests the bridge sends (camelCase on the wire; unset fields are
//! omitted so the app-server applies `config.toml`).

use serde::Serialize;
use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadStartParams {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `untrusted | on-request | never`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval_policy: Option<String>,
    /// `read-only | workspace-write | danger-full-access`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub developer_instructions: Option<String>,
    /// `config.toml` overrides (`mcp_servers`, `model_reasoning_effort`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config: Option<Map<String, Value>>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadResumeParams {
    pub thread_id: String,
    #[serde(flatten)]
    pub overrides: ThreadStartParams,
    /// History is paged with `thread/turns/list` instead of hydrated in the answer.
    pub exclude_turns: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum InputItem {
    Text {
        text: String,
    },
    /// An image by URL; the bridge sends `data:` URLs.
    Image {
        url: String,
    },
    /// A skill the text mentions (`$name`), by its `SKILL.md`.
    Skill {
        name: String,
        path: String,
    },
}

/// `SandboxPolicy` as `turn/start` takes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum SandboxPolicy {
    ReadOnly {
        #[serde(rename = "networkAccess")]
        network_access: bool,
    },
    WorkspaceWrite {
        #[serde(rename = "networkAccess")]
        network_access: bool,
    },
    DangerFullAccess,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnStartParams {
    pub thread_id: String,
    pub input: Vec<InputItem>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effort: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval_policy: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox_policy: Option<SandboxPolicy>,
    /// `auto | concise | detailed | none` (the reasoning summary).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnSteerParams {
    pub thread_id: String,
    pub input: Vec<InputItem>,
    pub expected_turn_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnInterruptParams {
    pub thread_id: String,
    pub turn_id: String,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadListParams {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search_term: Option<String>,
    /// Empty = every model provider (not only the current one).
    pub model_providers: Vec<String>,
    /// Threads from the TUI, IDEs, `codex exec` and app-server clients alike.
    pub source_kinds: Vec<String>,
    pub sort_key: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnsListParams {
    pub thread_id: String,
    pub items_view: String,
    pub sort_direction: String,
    pub limit: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn turn_start_omits_what_is_unset() {
        let p = TurnStartParams {
            thread_id: "t".into(),
            input: vec![InputItem::Text { text: "hi".into() }],
            sandbox_policy: Some(SandboxPolicy::WorkspaceWrite {
                network_access: true,
            }),
            approval_policy: Some("on-request".into()),
            summary: Some("concise".into()),
            ..Default::default()
        };
        assert_eq!(
            serde_json::to_value(&p).unwrap(),
            json!({
                "threadId": "t",
                "input": [{"type": "text", "text": "hi"}],
                "approvalPolicy": "on-request",
                "sandboxPolicy": {"type": "workspaceWrite", "networkAccess": true},
                "summary": "concise"
            })
        );
    }

    #[test]
    fn resume_flattens_the_overrides() {
        let p = ThreadResumeParams {
            thread_id: "t".into(),
            overrides: ThreadStartParams {
                cwd: Some("/w".into()),
                ..Default::default()
            },
            exclude_turns: true,
        };
        assert_eq!(
            serde_json::to_value(&p).unwrap(),
            json!({"threadId": "t", "cwd": "/w", "excludeTurns": true})
        );
    }
}
