//! A timeline tool call (`ToolCallDetail`) as an ACP `tool_call`: kind, status, title,
//! locations, `diff` content for edits and writes, the command's output as text content.

use agent_bridge_protocol::{ToolCall as CoreToolCall, ToolCallDetail, ToolStatus};
use agent_client_protocol_schema::v1::{
    ContentBlock, Diff, TextContent, ToolCall, ToolCallContent, ToolCallLocation, ToolCallStatus,
    ToolCallUpdate, ToolCallUpdateFields, ToolKind,
};
use serde_json::{json, Value};

/// The ACP fields of one tool call snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolFields {
    pub kind: ToolKind,
    pub status: ToolCallStatus,
    pub title: String,
    pub locations: Vec<ToolCallLocation>,
    pub content: Vec<ToolCallContent>,
    pub raw_input: Option<Value>,
}

impl ToolFields {
    pub fn of(call: &CoreToolCall) -> ToolFields {
        let mut fields = detail_fields(&call.name, &call.detail);
        fields.status = status(call.status);
        if call.status == ToolStatus::Failed {
            let error = match &call.error {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            fields.content.push(text(format!("Failed: {error}")));
        }
        fields
    }

    /// The first report of a call.
    pub fn tool_call(&self, id: &str) -> ToolCall {
        ToolCall::new(id.to_string(), self.title.clone())
            .kind(self.kind)
            .status(self.status)
            .locations(self.locations.clone())
            .content(self.content.clone())
            .raw_input(self.raw_input.clone())
    }

    /// A later report: every field again (ACP replaces `content` and `locations` whole).
    pub fn update(&self, id: &str) -> ToolCallUpdate {
        ToolCallUpdate::new(id.to_string(), self.update_fields())
    }

    pub fn update_fields(&self) -> ToolCallUpdateFields {
        ToolCallUpdateFields::new()
            .kind(self.kind)
            .status(self.status)
            .title(self.title.clone())
            .locations(self.locations.clone())
            .content(self.content.clone())
            .raw_input(self.raw_input.clone())
    }
}

/// The ACP kind of a tool call detail.
pub fn kind_of(detail: &ToolCallDetail) -> ToolKind {
    detail_fields("", detail).kind
}

fn status(status: ToolStatus) -> ToolCallStatus {
    match status {
        ToolStatus::Running => ToolCallStatus::InProgress,
        ToolStatus::Completed => ToolCallStatus::Completed,
        // ACP has no "canceled" status: a canceled call did not complete.
        ToolStatus::Failed | ToolStatus::Canceled => ToolCallStatus::Failed,
    }
}

fn text(s: impl Into<String>) -> ToolCallContent {
    ToolCallContent::from(ContentBlock::Text(TextContent::new(s)))
}

fn location(path: &str) -> Vec<ToolCallLocation> {
    vec![ToolCallLocation::new(path)]
}

fn fields(kind: ToolKind, title: impl Into<String>) -> ToolFields {
    ToolFields {
        kind,
        status: ToolCallStatus::InProgress,
        title: title.into(),
        locations: vec![],
        content: vec![],
        raw_input: None,
    }
}

fn detail_fields(name: &str, detail: &ToolCallDetail) -> ToolFields {
    match detail {
        ToolCallDetail::Shell {
            command,
            cwd,
            output,
            exit_code,
        } => {
            let mut f = fields(ToolKind::Execute, command.clone());
            f.raw_input = Some(json!({"command": command, "cwd": cwd}));
            if let Some(out) = output.as_deref().filter(|o| !o.is_empty()) {
                f.content.push(text(format!("```\n{out}\n```")));
            }
            if let Some(Some(code)) = exit_code {
                if *code != 0 {
                    f.content.push(text(format!("exit code {code}")));
                }
            }
            f
        }
        ToolCallDetail::Read {
            file_path, offset, ..
        } => {
            let mut f = fields(ToolKind::Read, format!("Read {file_path}"));
            let line = offset.and_then(|o| u32::try_from(o).ok());
            f.locations = vec![ToolCallLocation::new(file_path.as_str()).line(line)];
            f
        }
        ToolCallDetail::Edit {
            file_path,
            old_string,
            new_string,
            unified_diff,
        } => {
            let mut f = fields(ToolKind::Edit, format!("Edit {file_path}"));
            f.locations = location(file_path);
            match (new_string, unified_diff) {
                (Some(new), _) => f.content.push(ToolCallContent::Diff(
                    Diff::new(file_path.as_str(), new.clone()).old_text(old_string.clone()),
                )),
                (None, Some(diff)) => f.content.push(text(format!("```diff\n{diff}\n```"))),
                (None, None) => {}
            }
            f
        }
        ToolCallDetail::Write { file_path, content } => {
            let mut f = fields(ToolKind::Edit, format!("Write {file_path}"));
            f.locations = location(file_path);
            if let Some(c) = content {
                f.content.push(ToolCallContent::Diff(Diff::new(
                    file_path.as_str(),
                    c.clone(),
                )));
            }
            f
        }
        ToolCallDetail::Search(s) => {
            let mut f = fields(ToolKind::Search, s.query.clone());
            if let Some(paths) = &s.file_paths {
                f.locations = paths.iter().map(ToolCallLocation::new).collect();
            }
            if let Some(c) = s.content.as_deref().filter(|c| !c.is_empty()) {
                f.content.push(text(c));
            }
            f
        }
        ToolCallDetail::Fetch(d) => {
            let mut f = fields(ToolKind::Fetch, d.url.clone());
            if let Some(r) = d.result.as_deref().filter(|r| !r.is_empty()) {
                f.content.push(text(r));
            }
            f
        }
        ToolCallDetail::SubAgent {
            sub_agent_type,
            description,
            log,
            ..
        } => {
            let title = description
                .clone()
                .or_else(|| sub_agent_type.clone())
                .unwrap_or_else(|| name.to_string());
            let mut f = fields(ToolKind::Think, title);
            if !log.is_empty() {
                f.content.push(text(log.clone()));
            }
            f
        }
        ToolCallDetail::WorktreeSetup {
            worktree_path, log, ..
        } => {
            let mut f = fields(ToolKind::Execute, format!("Set up {worktree_path}"));
            if !log.is_empty() {
                f.content.push(text(log.clone()));
            }
            f
        }
        ToolCallDetail::PlainText { label, text: t, .. } => {
            let mut f = fields(
                ToolKind::Other,
                label.clone().unwrap_or_else(|| name.into()),
            );
            if let Some(t) = t.as_deref().filter(|t| !t.is_empty()) {
                f.content.push(text(t));
            }
            f
        }
        ToolCallDetail::Plan { text: t } => {
            let mut f = fields(ToolKind::Think, name.to_string());
            f.content.push(text(t.clone()));
            f
        }
        ToolCallDetail::Unknown { input, output } => {
            let mut f = fields(ToolKind::Other, name.to_string());
            f.raw_input = (!input.is_null()).then(|| input.clone());
            match output {
                Value::Null => {}
                Value::String(s) => f.content.push(text(s.clone())),
                other => f.content.push(text(other.to_string())),
            }
            f
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_shell_call_is_execute_with_its_output() {
        let mut call = CoreToolCall::running(
            "c1",
            "shell",
            ToolCallDetail::Shell {
                command: "echo hi".into(),
                cwd: None,
                output: Some("hi".into()),
                exit_code: Some(Some(0)),
            },
        );
        call.complete();
        let json = serde_json::to_value(ToolFields::of(&call).tool_call("c1")).unwrap();
        assert_eq!(
            json,
            json!({"toolCallId": "c1", "title": "echo hi", "kind": "execute",
                "status": "completed", "rawInput": {"command": "echo hi", "cwd": null},
                "content": [{"type": "content", "content": {"type": "text", "text": "```\nhi\n```"}}]})
        );
    }

    #[test]
    fn an_edit_is_a_diff_at_its_file() {
        let call = CoreToolCall::running(
            "c2",
            "Edit",
            ToolCallDetail::Edit {
                file_path: "/w/a.rs".into(),
                old_string: Some("a".into()),
                new_string: Some("b".into()),
                unified_diff: None,
            },
        );
        let json = serde_json::to_value(ToolFields::of(&call).update("c2")).unwrap();
        assert_eq!(
            json,
            json!({"toolCallId": "c2", "title": "Edit /w/a.rs", "kind": "edit",
                "status": "in_progress", "locations": [{"path": "/w/a.rs"}],
                "content": [{"type": "diff", "path": "/w/a.rs", "oldText": "a", "newText": "b"}]})
        );
    }

    #[test]
    fn a_failed_call_says_why() {
        let mut call = CoreToolCall::running(
            "c3",
            "mcp",
            ToolCallDetail::Unknown {
                input: Value::Null,
                output: Value::Null,
            },
        );
        call.fail("boom");
        let f = ToolFields::of(&call);
        assert_eq!(f.status, ToolCallStatus::Failed);
        assert_eq!(f.content, vec![text("Failed: boom")]);
    }
}
