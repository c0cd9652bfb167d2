//! Codex approvals <-> Paseo permissions.
//!
//! `item/commandExecution/requestApproval` and `item/fileChange/requestApproval` become
//! `session.permission` requests with three actions (allow once, allow for this session, deny);
//! the answer goes back as the request's result: `accept`, `acceptForSession`, `decline`, or
//! `cancel` when the denial also stops the turn. The agent's own questions
//! (`item/tool/requestUserInput`) are permissions too, answered as `questions` says, and so
//! are MCP servers' questions (`mcpServer/elicitation/request`, see
//! `agent_bridge_core::elicitation`).

use crate::normalize::items::display_command;
use crate::questions;
use crate::wire::notify::{
    CommandApproval, FileChangeApproval, McpElicitationRequest, UserInputQuestion,
};
use agent_bridge_core::elicitation::{self, Elicitation};
use agent_bridge_protocol::{
    ActionVariant, JsonMap, PermissionBehavior, PermissionKind, ProviderPermissionAction,
    ProviderPermissionRequest, ProviderPermissionResponse, ToolCall, ToolCallDetail,
};
use serde_json::{json, Value};

pub const ALLOW_ONCE: &str = "allow_once";
pub const ALLOW_SESSION: &str = "allow_session";
pub const DENY: &str = "deny";

/// A Codex approval waiting for the user.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingApproval {
    /// The JSON-RPC id of Codex's request (answered with the decision).
    pub rpc_id: Value,
    pub item_id: String,
    pub asked: Asked,
}

/// What Codex asked, which decides the shape of the answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Asked {
    /// A command or file-change approval: `{decision}`.
    Approval,
    /// The agent's questions: `{answers}`.
    Questions(Vec<UserInputQuestion>),
    /// An MCP server's question: `{action, content}`.
    Elicitation(Elicitation),
    /// Codex asking to run an MCP tool (an elicitation marked `mcp_tool_call`):
    /// `{action, content: {}}`, with `_meta.persist: "session"` for "allow for this session".
    McpToolApproval,
}

impl Asked {
    /// A question (not an approval): a denial with `interrupt` must also stop the turn.
    pub fn is_question(&self) -> bool {
        matches!(self, Asked::Questions(_) | Asked::Elicitation(_))
    }
}

/// Codex's own MCP tool-call approval, when the elicitation is one: a tool permission named
/// `mcp__<server>__<tool>` with the call's arguments; "allow for this session" is offered when
/// Codex can remember it (`persist` lists `session`).
pub fn mcp_tool_approval(
    p: &McpElicitationRequest,
    id: String,
) -> Option<ProviderPermissionRequest> {
    let meta = p.meta.as_ref()?;
    if meta["codex_approval_kind"] != "mcp_tool_call" {
        return None;
    }
    let tool = meta["tool_name"]
        .as_str()
        .or(meta["tool_title"].as_str())
        .unwrap_or("tool");
    let params = match &meta["tool_params"] {
        Value::Object(m) => m.clone(),
        _ => JsonMap::new(),
    };
    let persist = &meta["persist"];
    let session = persist == "session"
        || persist
            .as_array()
            .is_some_and(|a| a.iter().any(|v| v == "session"));
    let mut offered = actions();
    if !session {
        offered.retain(|a| a.id != ALLOW_SESSION);
    }
    Some(ProviderPermissionRequest {
        id,
        name: format!("mcp__{}__{tool}", p.server_name),
        kind: PermissionKind::Tool,
        title: Some(p.message.clone()),
        description: meta["tool_description"].as_str().map(str::to_string),
        input: Some(params.clone()),
        detail: Some(ToolCallDetail::Unknown {
            input: Value::Object(params),
            output: Value::Null,
        }),
        suggestions: None,
        actions: Some(offered),
        metadata: Some(object(json!({
            "server": p.server_name,
            "tool": tool,
            "threadId": p.thread_id,
            "turnId": p.turn_id,
        }))),
    })
}

/// The elicitation Codex forwards.
pub fn elicitation(p: &McpElicitationRequest) -> Elicitation {
    Elicitation::of_request(
        &p.server_name,
        &p.message,
        p.mode.as_deref(),
        p.url.as_deref(),
        p.elicitation_id.as_deref(),
        p.requested_schema.as_ref(),
    )
}

impl PendingApproval {
    /// The result Codex gets for the host's answer.
    pub fn result(&self, response: &ProviderPermissionResponse) -> Value {
        match &self.asked {
            Asked::Approval => json!({ "decision": decision(response) }),
            Asked::Questions(q) => questions::response(q, response),
            Asked::Elicitation(e) => e.result(response),
            Asked::McpToolApproval => match decision(response) {
                "accept" => json!({"action": "accept", "content": {}}),
                "acceptForSession" => {
                    json!({"action": "accept", "content": {}, "_meta": {"persist": "session"}})
                }
                "cancel" => elicitation::cancelled(),
                _ => json!({"action": "decline"}),
            },
        }
    }

    /// The result of a request cancelled with its turn.
    pub fn cancelled(&self) -> Value {
        match &self.asked {
            Asked::Approval => json!({ "decision": "cancel" }),
            Asked::Questions(_) => questions::cancel(),
            Asked::Elicitation(_) | Asked::McpToolApproval => elicitation::cancelled(),
        }
    }
}

/// The permission id for a Codex request id. Codex numbers its requests afresh in each
/// process, so the id also names the session's app-server: `runtime` is 0 for the one started
/// at open and counts the restarts (`codex-approval-3`, then `codex-approval-r1-3`).
pub fn permission_id(runtime: u32, rpc_id: &Value) -> String {
    let rpc = match rpc_id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    match runtime {
        0 => format!("codex-approval-{rpc}"),
        n => format!("codex-approval-r{n}-{rpc}"),
    }
}

fn actions() -> Vec<ProviderPermissionAction> {
    vec![
        ProviderPermissionAction {
            id: ALLOW_ONCE.into(),
            label: "Allow once".into(),
            behavior: PermissionBehavior::Allow,
            variant: Some(ActionVariant::Primary),
            intent: None,
        },
        ProviderPermissionAction {
            id: ALLOW_SESSION.into(),
            label: "Allow for this session".into(),
            behavior: PermissionBehavior::Allow,
            variant: Some(ActionVariant::Secondary),
            intent: None,
        },
        ProviderPermissionAction {
            id: DENY.into(),
            label: "Deny".into(),
            behavior: PermissionBehavior::Deny,
            variant: Some(ActionVariant::Danger),
            intent: None,
        },
    ]
}

fn object(v: Value) -> JsonMap {
    match v {
        Value::Object(m) => m,
        _ => JsonMap::new(),
    }
}

pub fn command_request(p: &CommandApproval, id: String) -> ProviderPermissionRequest {
    let raw = p.command.clone().unwrap_or_default();
    let command = display_command(&raw, p.command_actions.as_deref());
    ProviderPermissionRequest {
        id,
        name: "CodexBash".into(),
        kind: PermissionKind::Tool,
        title: Some(if command.is_empty() {
            "Run a command".into()
        } else {
            format!("Run command: {command}")
        }),
        description: p.reason.clone(),
        input: Some(object(json!({ "command": command, "cwd": p.cwd }))),
        detail: Some(ToolCallDetail::Shell {
            command,
            cwd: p.cwd.clone(),
            output: None,
            exit_code: None,
        }),
        suggestions: None,
        actions: Some(actions()),
        metadata: Some(object(json!({
            "itemId": p.item_id,
            "turnId": p.turn_id,
            "rawCommand": raw,
            "availableDecisions": p.available_decisions,
        }))),
    }
}

pub fn file_change_request(
    p: &FileChangeApproval,
    id: String,
    snapshot: Option<&ToolCall>,
) -> ProviderPermissionRequest {
    let detail = snapshot
        .map(|t| t.detail.clone())
        .unwrap_or(ToolCallDetail::Unknown {
            input: json!({ "reason": p.reason, "grantRoot": p.grant_root }),
            output: Value::Null,
        });
    let title = match &detail {
        ToolCallDetail::Edit { file_path, .. } | ToolCallDetail::Write { file_path, .. }
            if !file_path.is_empty() =>
        {
            format!("Apply changes to {file_path}")
        }
        _ => "Apply file changes".into(),
    };
    ProviderPermissionRequest {
        id,
        name: "CodexFileChange".into(),
        kind: PermissionKind::Tool,
        title: Some(title),
        description: p.reason.clone(),
        input: Some(object(
            json!({ "reason": p.reason, "grantRoot": p.grant_root }),
        )),
        detail: Some(detail),
        suggestions: None,
        actions: Some(actions()),
        metadata: Some(object(json!({ "itemId": p.item_id, "turnId": p.turn_id }))),
    }
}

/// The decision Codex gets for a Paseo answer.
pub fn decision(response: &ProviderPermissionResponse) -> &'static str {
    match response {
        ProviderPermissionResponse::Allow {
            selected_action_id, ..
        } => match selected_action_id.as_deref() {
            Some(ALLOW_SESSION) => "acceptForSession",
            _ => "accept",
        },
        ProviderPermissionResponse::Deny {
            interrupt: Some(true),
            ..
        } => "cancel",
        ProviderPermissionResponse::Deny { .. } => "decline",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_bridge_core::rpc::{DecodeError, Dialect, Incoming, JsonRpc};

    fn parse_line(line: &str) -> Result<Incoming, DecodeError> {
        JsonRpc::bare().decode(line)
    }
    use crate::wire::notify::ServerRequest;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_recorded_command_approval_becomes_a_permission() {
        let transcript = crate::normalize::tests::fixture("tool-permission-prompt");
        let (id, params) = transcript
            .lines()
            .find_map(|l| match parse_line(l) {
                Ok(Incoming::Request { id, method, params })
                    if method == "item/commandExecution/requestApproval" =>
                {
                    Some((id, params))
                }
                _ => None,
            })
            .expect("the transcript has an approval request");
        let ServerRequest::CommandApproval(p) =
            ServerRequest::parse("item/commandExecution/requestApproval", params)
        else {
            panic!("not read as a command approval");
        };
        insta::with_settings!({sort_maps => true}, { insta::assert_json_snapshot!(
            "command_permission",
            command_request(&p, permission_id(0, &id))
        ); });
    }

    #[test]
    fn a_file_change_approval_shows_the_patch_being_approved() {
        let change = crate::wire::items::FileChange {
            id: "p1".into(),
            changes: vec![crate::wire::items::FileUpdateChange {
                path: "src/a.rs".into(),
                kind: Some(crate::wire::items::PatchChangeKind::Update { move_path: None }),
                diff: "@@ -1 +1 @@\n-a\n+b\n".into(),
            }],
            status: Default::default(),
        };
        let snapshot = crate::normalize::items::file_change_call(&change);
        let params: FileChangeApproval = serde_json::from_value(serde_json::json!({
            "threadId": "th", "turnId": "tu", "itemId": "p1", "startedAtMs": 1,
            "reason": "outside the workspace", "grantRoot": null
        }))
        .unwrap();
        let req = file_change_request(
            &params,
            permission_id(0, &serde_json::json!(7)),
            Some(&snapshot),
        );
        assert_eq!(req.id, "codex-approval-7");
        assert_eq!(req.name, "CodexFileChange");
        assert_eq!(req.title.as_deref(), Some("Apply changes to src/a.rs"));
        assert_eq!(req.description.as_deref(), Some("outside the workspace"));
        assert_eq!(req.detail, Some(snapshot.detail.clone()));
        // Without the item snapshot the reason is all there is.
        let bare = file_change_request(&params, permission_id(0, &serde_json::json!("x")), None);
        assert_eq!(bare.id, "codex-approval-x");
        assert_eq!(bare.title.as_deref(), Some("Apply file changes"));
    }

    #[test]
    fn a_restarted_app_server_numbering_its_requests_afresh_gets_new_permission_ids() {
        let first = permission_id(0, &serde_json::json!(0));
        let restarted = permission_id(1, &serde_json::json!(0));
        assert_eq!(first, "codex-approval-0");
        assert_eq!(restarted, "codex-approval-r1-0");
        assert_ne!(permission_id(2, &serde_json::json!(0)), restarted);
    }

    #[test]
    fn answers_map_to_codex_decisions() {
        let allow = |id: Option<&str>| ProviderPermissionResponse::Allow {
            selected_action_id: id.map(str::to_string),
            updated_input: None,
            updated_permissions: None,
        };
        let deny = |interrupt| ProviderPermissionResponse::Deny {
            selected_action_id: Some(DENY.into()),
            message: None,
            interrupt,
        };
        assert_eq!(decision(&allow(None)), "accept");
        assert_eq!(decision(&allow(Some(ALLOW_ONCE))), "accept");
        assert_eq!(decision(&allow(Some(ALLOW_SESSION))), "acceptForSession");
        assert_eq!(decision(&deny(None)), "decline");
        assert_eq!(decision(&deny(Some(false))), "decline");
        assert_eq!(decision(&deny(Some(true))), "cancel");
    }

    #[test]
    fn codex_asking_to_run_an_mcp_tool_is_a_tool_permission_not_a_question() {
        let params = json!({
            "threadId": "th", "turnId": "tu", "serverName": "srv", "mode": "form",
            "message": "Allow the srv MCP server to run tool \"pick\"?",
            "requestedSchema": {"type": "object", "properties": {}},
            "_meta": {"codex_approval_kind": "mcp_tool_call", "tool_name": "pick",
                      "tool_params": {"n": 1}, "persist": ["session", "always"]}
        });
        let ServerRequest::McpElicitation(p) =
            ServerRequest::parse("mcpServer/elicitation/request", params)
        else {
            panic!("not read as an elicitation");
        };
        let request = mcp_tool_approval(&p, "codex-approval-4".into()).expect("an approval");
        assert_eq!(request.kind, PermissionKind::Tool);
        assert_eq!(request.name, "mcp__srv__pick");
        assert_eq!(request.input, Some(object(json!({"n": 1}))));
        let pending = |asked| PendingApproval {
            rpc_id: json!(4),
            item_id: String::new(),
            asked,
        };
        let approval = pending(Asked::McpToolApproval);
        let allow = |id: &str| ProviderPermissionResponse::Allow {
            selected_action_id: Some(id.into()),
            updated_input: None,
            updated_permissions: None,
        };
        assert_eq!(
            approval.result(&allow(ALLOW_ONCE)),
            json!({"action": "accept", "content": {}})
        );
        assert_eq!(
            approval.result(&allow(ALLOW_SESSION)),
            json!({"action": "accept", "content": {}, "_meta": {"persist": "session"}})
        );
        assert_eq!(
            approval.result(&ProviderPermissionResponse::deny("no")),
            json!({"action": "decline"})
        );
        assert_eq!(approval.cancelled(), json!({"action": "cancel"}));

        // Without Codex's marker it is the server's own question.
        let mut plain = p.clone();
        plain.meta = None;
        assert!(mcp_tool_approval(&plain, "x".into()).is_none());
        let question = pending(Asked::Elicitation(elicitation(&plain)));
        assert_eq!(
            question.result(&ProviderPermissionResponse::deny("no")),
            json!({"action": "decline"})
        );
    }
}
