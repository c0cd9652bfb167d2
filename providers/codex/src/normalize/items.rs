//! One Codex `ThreadItem` -> one Paseo timeline item (a complete snapshot), for live
//! notifications and for replayed history alike.

use crate::wire::items::{
    CollabAgentToolCall, CommandAction, CommandExecution, FileChange, FileUpdateChange, ItemStatus,
    McpToolCall, PatchChangeKind, ThreadItem, UserInput,
};
use agent_bridge_protocol::{
    CompactionStatus, ItemBody, JsonMap, SearchDetail, SearchToolName, Severity, TimelineItem,
    ToolCall, ToolCallDetail,
};
use serde_json::{json, Value};

/// Where an item comes from: live items skip the user's own message (the core already shows
/// it); history shows everything. Items without a status of their own (web search, image view,
/// plan, compaction) are running when started and completed otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Started,
    Completed,
    History,
}

impl Source {
    fn done(self) -> bool {
        !matches!(self, Source::Started)
    }
}

/// Maps an item, or `None` for items that render nothing (empty text, unknown types).
/// `child_session` names the child session a sub-agent call spawned, when known.
pub fn to_timeline(
    item: &ThreadItem,
    source: Source,
    child_session: &dyn Fn(&str) -> Option<String>,
) -> Option<TimelineItem> {
    let body = match item {
        ThreadItem::UserMessage { content, .. } => match source {
            Source::Started | Source::Completed => return None,
            Source::History => ItemBody::UserMessage {
                text: user_text(content),
                message_id: None,
                client_message_id: None,
            },
        },
        ThreadItem::AgentMessage { text, .. } => {
            if text.is_empty() {
                return None;
            }
            ItemBody::AssistantMessage {
                text: text.clone(),
                message_id: None,
            }
        }
        ThreadItem::Reasoning {
            summary, content, ..
        } => {
            let text = reasoning_text(summary, content);
            if text.is_empty() {
                return None;
            }
            ItemBody::Reasoning { text }
        }
        ThreadItem::Plan { id, text } => {
            let mut call =
                ToolCall::running(id, "plan", ToolCallDetail::Plan { text: text.clone() });
            if source.done() {
                call.complete();
            }
            ItemBody::ToolCall(call)
        }
        ThreadItem::CommandExecution(c) => ItemBody::ToolCall(shell_call(c)),
        ThreadItem::FileChange(c) => ItemBody::ToolCall(file_change_call(c)),
        ThreadItem::McpToolCall(c) => ItemBody::ToolCall(mcp_call(c)),
        ThreadItem::DynamicToolCall(c) => {
            let mut call = ToolCall::running(
                &c.id,
                &c.tool,
                ToolCallDetail::Unknown {
                    input: c.arguments.clone(),
                    output: c.content_items.clone().unwrap_or(Value::Null),
                },
            );
            settle(&mut call, c.status, || "the tool call failed".into());
            if c.success == Some(false) && call.status != agent_bridge_protocol::ToolStatus::Running
            {
                call.fail("the tool reported failure");
            }
            ItemBody::ToolCall(call)
        }
        ThreadItem::CollabAgentToolCall(c) => ItemBody::ToolCall(sub_agent_call(c, child_session)),
        ThreadItem::WebSearch { id, query, action } => {
            let mut call = ToolCall::running(
                id,
                "web_search",
                ToolCallDetail::Search(SearchDetail {
                    query: query.clone(),
                    tool_name: Some(SearchToolName::WebSearch),
                    ..Default::default()
                }),
            );
            if let Some(action) = action {
                call.metadata = Some(map(json!({ "action": action })));
            }
            if source.done() {
                call.complete();
            }
            ItemBody::ToolCall(call)
        }
        ThreadItem::ImageView { id, path } => {
            let mut call = ToolCall::running(
                id,
                "view_image",
                ToolCallDetail::Read {
                    file_path: path.clone(),
                    content: None,
                    offset: None,
                    limit: None,
                },
            );
            if source.done() {
                call.complete();
            }
            ItemBody::ToolCall(call)
        }
        ThreadItem::ContextCompaction { .. } => ItemBody::Compaction {
            status: if source.done() {
                CompactionStatus::Completed
            } else {
                CompactionStatus::Loading
            },
            trigger: None,
            pre_tokens: None,
        },
        ThreadItem::EnteredReviewMode { review, .. } => ItemBody::Notification {
            level: Severity::Info,
            message: format!("Review started: {review}"),
        },
        ThreadItem::ExitedReviewMode { review, .. } => ItemBody::Notification {
            level: Severity::Info,
            message: format!("Review finished: {review}"),
        },
        ThreadItem::Other => return None,
    };
    Some(TimelineItem::new(item.id()?, body))
}

fn map(v: Value) -> JsonMap {
    match v {
        Value::Object(m) => m,
        _ => JsonMap::new(),
    }
}

pub fn user_text(content: &[UserInput]) -> String {
    let parts: Vec<String> = content
        .iter()
        .filter_map(|c| match c {
            UserInput::Text { text } => Some(text.clone()),
            UserInput::Image { .. } => Some("[image]".into()),
            UserInput::LocalImage { path } => Some(format!("[image: {path}]")),
            UserInput::Skill { name } => Some(format!("${name}")),
            UserInput::Mention { name, .. } => Some(format!("@{name}")),
            UserInput::Other => None,
        })
        .collect();
    parts.join("\n\n")
}

pub fn reasoning_text(summary: &[String], content: &[String]) -> String {
    let parts = if summary.iter().any(|s| !s.is_empty()) {
        summary
    } else {
        content
    };
    parts
        .iter()
        .filter(|s| !s.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Applies a Codex item status to a tool call.
fn settle(call: &mut ToolCall, status: ItemStatus, failure: impl FnOnce() -> String) {
    match status {
        ItemStatus::InProgress | ItemStatus::Unknown => {}
        ItemStatus::Completed => call.complete(),
        ItemStatus::Failed => call.fail(failure()),
        ItemStatus::Declined => {
            call.fail("declined by the user");
            call.metadata
                .get_or_insert_with(JsonMap::new)
                .insert("denied".into(), Value::Bool(true));
        }
        ItemStatus::Interrupted => call.cancel(),
    }
}

/// The command as the user would type it: Codex wraps it in `/bin/bash -lc '...'` and reports
/// the inner command in `commandActions` when there is exactly one.
pub fn display_command(command: &str, actions: Option<&[CommandAction]>) -> String {
    if let Some([only]) = actions {
        if let Some(inner) = only.command().filter(|c| !c.is_empty()) {
            return inner.to_string();
        }
    }
    command.to_string()
}

pub fn shell_call(c: &CommandExecution) -> ToolCall {
    let command = display_command(&c.command, c.command_actions.as_deref());
    let mut call = ToolCall::running(
        &c.id,
        "shell",
        ToolCallDetail::Shell {
            command: command.clone(),
            cwd: c.cwd.clone(),
            output: c.aggregated_output.clone(),
            exit_code: c.exit_code.map(Some),
        },
    );
    let mut meta = JsonMap::new();
    if command != c.command {
        meta.insert("rawCommand".into(), Value::String(c.command.clone()));
    }
    if let Some(d) = c.duration_ms {
        meta.insert("durationMs".into(), json!(d));
    }
    if !meta.is_empty() {
        call.metadata = Some(meta);
    }
    let exit = c.exit_code;
    settle(&mut call, c.status, || match exit {
        Some(code) => format!("the command exited with code {code}"),
        None => "the command failed".into(),
    });
    call
}

fn with_headers(change: &FileUpdateChange) -> String {
    if change.diff.starts_with("---") || change.diff.starts_with("diff ") {
        change.diff.clone()
    } else {
        format!("--- a/{0}\n+++ b/{0}\n{1}", change.path, change.diff)
    }
}

/// `fileChange` -> `edit` (updates, deletes, several files) or `write` (one added file).
pub fn file_change_detail(changes: &[FileUpdateChange]) -> ToolCallDetail {
    match changes {
        [] => ToolCallDetail::Unknown {
            input: Value::Null,
            output: Value::Null,
        },
        [one] => match &one.kind {
            Some(PatchChangeKind::Add) => ToolCallDetail::Write {
                file_path: one.path.clone(),
                content: Some(one.diff.clone()),
            },
            Some(PatchChangeKind::Delete) => ToolCallDetail::Edit {
                file_path: one.path.clone(),
                old_string: Some(one.diff.clone()),
                new_string: Some(String::new()),
                unified_diff: None,
            },
            _ => ToolCallDetail::Edit {
                file_path: one.path.clone(),
                old_string: None,
                new_string: None,
                unified_diff: Some(one.diff.clone()),
            },
        },
        many => ToolCallDetail::Edit {
            file_path: many[0].path.clone(),
            old_string: None,
            new_string: None,
            unified_diff: Some(many.iter().map(with_headers).collect::<Vec<_>>().join("\n")),
        },
    }
}

fn change_kind(kind: &Option<PatchChangeKind>) -> &'static str {
    match kind {
        Some(PatchChangeKind::Add) => "add",
        Some(PatchChangeKind::Delete) => "delete",
        Some(PatchChangeKind::Update { .. }) => "update",
        Some(PatchChangeKind::Other) | None => "unknown",
    }
}

pub fn file_change_call(c: &FileChange) -> ToolCall {
    let mut call = ToolCall::running(&c.id, "apply_patch", file_change_detail(&c.changes));
    let files: Vec<Value> = c
        .changes
        .iter()
        .map(|ch| json!({ "path": ch.path, "kind": change_kind(&ch.kind) }))
        .collect();
    call.metadata = Some(map(json!({ "files": files })));
    settle(&mut call, c.status, || "applying the patch failed".into());
    call
}

fn mcp_call(c: &McpToolCall) -> ToolCall {
    let output = match (&c.result, &c.error) {
        (_, Some(e)) => json!({ "error": e.message }),
        (Some(r), None) => r.clone(),
        (None, None) => Value::Null,
    };
    let mut call = ToolCall::running(
        &c.id,
        format!("{}.{}", c.server, c.tool),
        ToolCallDetail::Unknown {
            input: c.arguments.clone(),
            output,
        },
    );
    call.metadata = Some(map(json!({ "server": c.server, "tool": c.tool })));
    let message = c.error.as_ref().map(|e| e.message.clone());
    settle(&mut call, c.status, || {
        message.unwrap_or_else(|| "the MCP tool call failed".into())
    });
    call
}

fn sub_agent_call(
    c: &CollabAgentToolCall,
    child_session: &dyn Fn(&str) -> Option<String>,
) -> ToolCall {
    let child = c.receiver_thread_ids.iter().find_map(|t| child_session(t));
    let log = c
        .agents_states
        .as_ref()
        .map(|states| {
            states
                .iter()
                .map(|(thread, st)| {
                    let status = st
                        .get("status")
                        .and_then(Value::as_str)
                        .unwrap_or("unknown");
                    match st.get("message").and_then(Value::as_str) {
                        Some(m) if !m.is_empty() => format!("{thread}: {status} — {m}"),
                        _ => format!("{thread}: {status}"),
                    }
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default();
    let mut call = ToolCall::running(
        &c.id,
        "Sub-agent",
        ToolCallDetail::SubAgent {
            sub_agent_type: Some(c.tool.clone()),
            description: c.prompt.clone(),
            child_session_id: child,
            log,
            actions: None,
        },
    );
    call.metadata = Some(map(json!({
        "tool": c.tool,
        "receiverThreadIds": c.receiver_thread_ids,
        "model": c.model,
    })));
    settle(&mut call, c.status, || "the sub-agent call failed".into());
    call
}
