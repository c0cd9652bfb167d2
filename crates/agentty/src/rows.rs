//! A session's timeline as panel rows: every timeline item, usage report and notice of the bridge
//! becomes one list row with a stable id, cut to what a 360 px panel can show.

use crate::limits::{cut, tail, DETAIL_CHARS, MESSAGE_CHARS, SUBTITLE_CHARS, TITLE_CHARS};
use crate::ui::{ListItem, Tone};
use agent_bridge_protocol::{
    CompactionStatus, ItemBody, ProviderNotice, ProviderUsage, Severity, TimelineItem, ToolCall,
    ToolCallDetail, ToolStatus,
};

/// What a row is, for the summary of rows older than the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RowKind {
    Prompt,
    Reply,
    Reasoning,
    Tool,
    Todo,
    Error,
    Note,
    Usage,
    Permission,
}

impl RowKind {
    /// "1 prompt", "3 replies", ... for the summary row.
    pub fn count(self, n: usize) -> String {
        let one = match self {
            RowKind::Prompt => "prompt",
            RowKind::Reply => "reply",
            RowKind::Reasoning => "reasoning",
            RowKind::Tool => "tool call",
            RowKind::Todo => "todo list",
            RowKind::Error => "error",
            RowKind::Note => "note",
            RowKind::Usage => "usage report",
            RowKind::Permission => "question",
        };
        if n == 1 {
            format!("1 {one}")
        } else {
            format!("{n} {}", self.plural())
        }
    }

    fn plural(self) -> &'static str {
        match self {
            RowKind::Prompt => "prompts",
            RowKind::Reply => "replies",
            RowKind::Reasoning => "reasoning",
            RowKind::Tool => "tool calls",
            RowKind::Todo => "todo lists",
            RowKind::Error => "errors",
            RowKind::Note => "notes",
            RowKind::Usage => "usage reports",
            RowKind::Permission => "questions",
        }
    }
}

fn row(id: String, title: String, icon: &str) -> ListItem {
    ListItem {
        id,
        title,
        icon: Some(icon.into()),
        ..Default::default()
    }
}

fn some_cut(text: &str, max: usize) -> Option<String> {
    let t = text.trim();
    (!t.is_empty()).then(|| cut(t, max))
}

/// The row of one timeline item (`agent` names the assistant).
pub fn timeline(item: &TimelineItem, agent: &str) -> (RowKind, ListItem) {
    let id = format!("item:{}", item.id);
    match &item.body {
        ItemBody::UserMessage { text, .. } => {
            let mut r = row(id, cut(text.trim(), MESSAGE_CHARS), "message-square");
            r.subtitle = Some("You".into());
            (RowKind::Prompt, r)
        }
        ItemBody::AssistantMessage { text, .. } => {
            let mut r = row(id, cut(text.trim(), MESSAGE_CHARS), "bot");
            r.subtitle = Some(agent.to_string());
            (RowKind::Reply, r)
        }
        ItemBody::Reasoning { text } => {
            let mut r = row(id, cut(text.trim(), MESSAGE_CHARS), "brain");
            r.subtitle = Some("Reasoning".into());
            (RowKind::Reasoning, r)
        }
        ItemBody::ToolCall(call) => (RowKind::Tool, tool(id, call)),
        ItemBody::Todo { items } => {
            let done = items.iter().filter(|t| t.completed).count();
            let mut r = row(id, format!("Todos: {done} of {} done", items.len()), "list");
            let list: Vec<String> = items
                .iter()
                .map(|t| format!("{} {}", if t.completed { "✓" } else { "○" }, t.text))
                .collect();
            r.subtitle = some_cut(&list.join(" · "), SUBTITLE_CHARS);
            (RowKind::Todo, r)
        }
        ItemBody::Error { message } => {
            let mut r = row(id, cut(message.trim(), MESSAGE_CHARS), "circle-x");
            r.tone = Some(Tone::Error);
            (RowKind::Error, r)
        }
        ItemBody::Notification { level, message } => {
            let mut r = row(id, cut(message.trim(), TITLE_CHARS), "info");
            r.tone = Some(severity(*level));
            (RowKind::Note, r)
        }
        ItemBody::Compaction { status, .. } => {
            let (title, tone) = match status {
                CompactionStatus::Loading => ("Compacting the conversation…", Tone::Info),
                CompactionStatus::Completed => ("Conversation compacted", Tone::Success),
            };
            let mut r = row(id, title.into(), "minimize-2");
            r.tone = Some(tone);
            (RowKind::Note, r)
        }
        ItemBody::Plugin { kind, .. } => (RowKind::Note, row(id, cut(kind, TITLE_CHARS), "puzzle")),
    }
}

fn severity(level: Severity) -> Tone {
    match level {
        Severity::Info => Tone::Info,
        Severity::Warning => Tone::Warning,
        Severity::Error => Tone::Error,
    }
}

fn status_tone(status: ToolStatus) -> (Tone, &'static str) {
    match status {
        ToolStatus::Running => (Tone::Info, "running"),
        ToolStatus::Completed => (Tone::Success, "done"),
        ToolStatus::Failed => (Tone::Error, "failed"),
        ToolStatus::Canceled => (Tone::Warning, "canceled"),
    }
}

/// What a tool call is about (the command, the file, the query), its icon, and its output.
pub fn tool_parts(call: &ToolCall) -> (String, &'static str, Option<String>) {
    match &call.detail {
        ToolCallDetail::Shell {
            command,
            output,
            exit_code,
            ..
        } => {
            let mut out = output.clone().unwrap_or_default();
            if let Some(Some(code)) = exit_code {
                if *code != 0 {
                    out = format!("exit {code}: {out}");
                }
            }
            (command.clone(), "square-terminal", Some(out))
        }
        ToolCallDetail::Read {
            file_path, content, ..
        } => (file_path.clone(), "file-text", content.clone()),
        ToolCallDetail::Edit {
            file_path,
            unified_diff,
            new_string,
            ..
        } => (
            file_path.clone(),
            "pencil",
            unified_diff.clone().or_else(|| new_string.clone()),
        ),
        ToolCallDetail::Write { file_path, content } => {
            (file_path.clone(), "file-plus", content.clone())
        }
        ToolCallDetail::Search(s) => (s.query.clone(), "search", s.content.clone()),
        ToolCallDetail::Fetch(f) => (f.url.clone(), "globe", f.result.clone()),
        ToolCallDetail::WorktreeSetup {
            worktree_path, log, ..
        } => (worktree_path.clone(), "git-branch", Some(log.clone())),
        ToolCallDetail::SubAgent {
            description, log, ..
        } => (
            description.clone().unwrap_or_else(|| call.name.clone()),
            "users",
            Some(log.clone()),
        ),
        ToolCallDetail::PlainText { label, text, .. } => (
            label.clone().unwrap_or_else(|| call.name.clone()),
            "wrench",
            text.clone(),
        ),
        ToolCallDetail::Plan { text } => ("Plan".into(), "list-tree", Some(text.clone())),
        ToolCallDetail::Unknown { input, output } => {
            let output = match output {
                serde_json::Value::Null => None,
                serde_json::Value::String(s) => Some(s.clone()),
                other => Some(other.to_string()),
            };
            (format!("{} {input}", call.name), "wrench", output)
        }
    }
}

fn tool(id: String, call: &ToolCall) -> ListItem {
    let (what, icon, output) = tool_parts(call);
    let (tone, status) = status_tone(call.status);
    let title = if what.trim().is_empty() {
        call.name.clone()
    } else {
        what
    };
    let mut r = row(id, cut(title.trim(), TITLE_CHARS), icon);
    r.tone = Some(tone);
    r.subtitle = Some(format!("{} · {status}", call.name));
    let failure = match (&call.status, &call.error) {
        (ToolStatus::Failed, serde_json::Value::String(s)) => Some(s.clone()),
        (ToolStatus::Failed, e) => match e.get("message").and_then(serde_json::Value::as_str) {
            Some(m) => Some(m.to_string()),
            None => Some(e.to_string()),
        },
        _ => None,
    };
    let output = output.filter(|o| !o.trim().is_empty()).or(failure);
    r.detail = output.map(|o| tail(o.trim(), DETAIL_CHARS));
    r
}

/// The usage row of a turn.
pub fn usage(id: String, usage: &ProviderUsage) -> ListItem {
    let n = |v: u64| {
        let s = v.to_string();
        let mut out = String::new();
        for (i, c) in s.chars().enumerate() {
            if i > 0 && (s.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    };
    let mut parts = Vec::new();
    if let Some(v) = usage.input_tokens {
        parts.push(format!("{} in", n(v)));
    }
    if let Some(v) = usage.output_tokens {
        parts.push(format!("{} out", n(v)));
    }
    if let Some(v) = usage.cached_input_tokens.filter(|v| *v > 0) {
        parts.push(format!("{} cached", n(v)));
    }
    if let Some(cost) = usage.total_cost_usd {
        parts.push(format!("${cost:.4}"));
    }
    let title = if parts.is_empty() {
        "Usage".to_string()
    } else {
        format!("Usage: {}", parts.join(" · "))
    };
    let mut r = row(id, title, "chart-column");
    if let (Some(used), Some(max)) = (
        usage.context_window_used_tokens,
        usage.context_window_max_tokens.filter(|m| *m > 0),
    ) {
        r.subtitle = Some(format!("{}% of the context window", used * 100 / max));
    }
    r
}

/// The row of a session notice.
pub fn notice(notice: &ProviderNotice) -> ListItem {
    let mut r = row(
        format!("notice:{}", notice.id),
        cut(&notice.title, TITLE_CHARS),
        "bell",
    );
    r.tone = Some(severity(notice.severity));
    r.subtitle = notice
        .description
        .as_deref()
        .and_then(|d| some_cut(d, SUBTITLE_CHARS));
    r
}

/// An error row (a failed turn, an open that did not work).
pub fn error(id: String, message: &str) -> ListItem {
    let mut r = row(id, cut(message.trim(), MESSAGE_CHARS), "circle-x");
    r.tone = Some(Tone::Error);
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_tool_row_shows_the_command_its_status_and_the_end_of_its_output() {
        let mut call = ToolCall::running(
            "c1",
            "shell",
            ToolCallDetail::Shell {
                command: "cargo test".into(),
                cwd: None,
                output: Some(format!("{}\nok", "x".repeat(1000))),
                exit_code: Some(Some(0)),
            },
        );
        call.complete();
        let item = TimelineItem::new("t1", ItemBody::ToolCall(call));
        let (kind, r) = timeline(&item, "Demo");
        assert_eq!(kind, RowKind::Tool);
        assert_eq!(
            (r.id.as_str(), r.title.as_str(), r.tone),
            ("item:t1", "cargo test", Some(Tone::Success))
        );
        assert_eq!(r.subtitle.as_deref(), Some("shell · done"));
        let detail = r.detail.expect("output");
        assert!(detail.ends_with("\nok") && detail.chars().count() <= DETAIL_CHARS + 1);
    }

    #[test]
    fn usage_reads_like_a_sentence() {
        let u = ProviderUsage {
            input_tokens: Some(12_345),
            output_tokens: Some(67),
            total_cost_usd: Some(0.0123),
            context_window_used_tokens: Some(50_000),
            context_window_max_tokens: Some(200_000),
            ..Default::default()
        };
        let r = usage("usage:t".into(), &u);
        assert_eq!(r.title, "Usage: 12,345 in · 67 out · $0.0123");
        assert_eq!(r.subtitle.as_deref(), Some("25% of the context window"));
    }
}
