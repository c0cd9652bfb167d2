//! Built-in Claude Code tools -> typed tool-call details, before and after their result.

use agent_bridge_protocol::{
    FetchDetail, PlainTextIcon, SearchDetail, SearchMode, SearchToolName, TodoEntry, TodoStatus,
    ToolCallDetail, WebResult,
};
use serde_json::{Map, Value};

/// What kind of row a tool becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    /// A regular `tool_call` row.
    Call,
    /// `TodoWrite`: a `todo` row updated in place.
    Todo,
    /// `Task` / `Agent`: a `sub_agent` tool call with a child session.
    SubAgent,
}

pub fn tool_kind(name: &str) -> ToolKind {
    match name {
        "TodoWrite" => ToolKind::Todo,
        "Task" | "Agent" => ToolKind::SubAgent,
        _ => ToolKind::Call,
    }
}

fn s(input: &Value, key: &str) -> Option<String> {
    input.get(key).and_then(Value::as_str).map(str::to_string)
}

fn u(input: &Value, key: &str) -> Option<u64> {
    input.get(key).and_then(Value::as_u64)
}

/// `mcp__<server>__<tool>` -> (server, tool).
pub fn mcp_parts(name: &str) -> Option<(String, String)> {
    let rest = name.strip_prefix("mcp__")?;
    let (server, tool) = rest.split_once("__")?;
    Some((server.to_string(), tool.to_string()))
}

/// Extra metadata of a tool call (MCP server/tool names).
pub fn metadata_for(name: &str) -> Option<Map<String, Value>> {
    let (server, tool) = mcp_parts(name)?;
    let mut m = Map::new();
    m.insert("mcpServer".into(), Value::String(server));
    m.insert("mcpTool".into(), Value::String(tool));
    Some(m)
}

/// The detail of a tool call from its (possibly partial) input.
pub fn detail_for(name: &str, input: &Value) -> ToolCallDetail {
    match name {
        "Bash" => ToolCallDetail::Shell {
            command: s(input, "command").unwrap_or_default(),
            cwd: None,
            output: None,
            exit_code: None,
        },
        "Read" => ToolCallDetail::Read {
            file_path: s(input, "file_path").unwrap_or_default(),
            content: None,
            offset: u(input, "offset"),
            limit: u(input, "limit"),
        },
        "Write" => ToolCallDetail::Write {
            file_path: s(input, "file_path").unwrap_or_default(),
            content: s(input, "content"),
        },
        "Edit" => ToolCallDetail::Edit {
            file_path: s(input, "file_path").unwrap_or_default(),
            old_string: s(input, "old_string"),
            new_string: s(input, "new_string"),
            unified_diff: None,
        },
        "MultiEdit" => {
            let path = s(input, "file_path").unwrap_or_default();
            ToolCallDetail::Edit {
                unified_diff: Some(multi_edit_diff(&path, input)),
                file_path: path,
                old_string: None,
                new_string: None,
            }
        }
        "NotebookEdit" => ToolCallDetail::Edit {
            file_path: s(input, "notebook_path").unwrap_or_default(),
            old_string: None,
            new_string: s(input, "new_source"),
            unified_diff: None,
        },
        "Grep" => ToolCallDetail::Search(SearchDetail {
            query: s(input, "pattern").unwrap_or_default(),
            tool_name: Some(SearchToolName::Grep),
            mode: match input.get("output_mode").and_then(Value::as_str) {
                Some("content") => Some(SearchMode::Content),
                Some("count") => Some(SearchMode::Count),
                Some("files_with_matches") => Some(SearchMode::FilesWithMatches),
                _ => None,
            },
            ..SearchDetail::default()
        }),
        "Glob" => ToolCallDetail::Search(SearchDetail {
            query: s(input, "pattern").unwrap_or_default(),
            tool_name: Some(SearchToolName::Glob),
            ..SearchDetail::default()
        }),
        "WebSearch" => ToolCallDetail::Search(SearchDetail {
            query: s(input, "query").unwrap_or_default(),
            tool_name: Some(SearchToolName::WebSearch),
            ..SearchDetail::default()
        }),
        "WebFetch" => ToolCallDetail::Fetch(FetchDetail {
            url: s(input, "url").unwrap_or_default(),
            prompt: s(input, "prompt"),
            ..FetchDetail::default()
        }),
        "Task" | "Agent" => ToolCallDetail::SubAgent {
            sub_agent_type: s(input, "subagent_type"),
            description: s(input, "description"),
            child_session_id: None,
            log: String::new(),
            actions: None,
        },
        "ExitPlanMode" => ToolCallDetail::Plan {
            text: s(input, "plan").unwrap_or_default(),
        },
        "Skill" => ToolCallDetail::PlainText {
            label: s(input, "skill"),
            text: None,
            icon: Some(PlainTextIcon::Sparkles),
        },
        _ => ToolCallDetail::Unknown {
            input: input.clone(),
            output: Value::Null,
        },
    }
}

fn multi_edit_diff(path: &str, input: &Value) -> String {
    let mut out = format!("--- a/{path}\n+++ b/{path}\n");
    for edit in input
        .get("edits")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        out.push_str("@@\n");
        for line in edit
            .get("old_string")
            .and_then(Value::as_str)
            .unwrap_or("")
            .lines()
        {
            out.push_str(&format!("-{line}\n"));
        }
        for line in edit
            .get("new_string")
            .and_then(Value::as_str)
            .unwrap_or("")
            .lines()
        {
            out.push_str(&format!("+{line}\n"));
        }
    }
    out
}

/// The text of a `tool_result` content (a string or text blocks).
pub fn result_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// `Exit code N` at the start of a failed Bash result.
fn exit_code_of(text: &str) -> Option<i64> {
    let rest = text.trim_start().strip_prefix("Exit code ")?;
    rest.split(|c: char| !c.is_ascii_digit() && c != '-')
        .next()?
        .parse()
        .ok()
}

/// The detail once the tool's result is known.
pub fn with_result(
    detail: ToolCallDetail,
    content: &Value,
    structured: Option<&Value>,
    is_error: bool,
) -> ToolCallDetail {
    let text = result_text(content);
    let st = structured.filter(|v| v.is_object());
    match detail {
        ToolCallDetail::Shell { command, cwd, .. } => {
            let output = match st {
                Some(v) if !is_error => {
                    let out = v.get("stdout").and_then(Value::as_str).unwrap_or("");
                    let err = v.get("stderr").and_then(Value::as_str).unwrap_or("");
                    match (out.is_empty(), err.is_empty()) {
                        (_, true) => out.to_string(),
                        (true, false) => err.to_string(),
                        (false, false) => format!("{out}\n{err}"),
                    }
                }
                _ => text.clone(),
            };
            let exit_code = if is_error {
                exit_code_of(&text).map(Some)
            } else {
                Some(Some(0))
            };
            ToolCallDetail::Shell {
                command,
                cwd,
                output: Some(output),
                exit_code,
            }
        }
        ToolCallDetail::Read {
            file_path,
            offset,
            limit,
            ..
        } => {
            let content = st
                .and_then(|v| v.get("file"))
                .and_then(|f| f.get("content"))
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or(text);
            ToolCallDetail::Read {
                file_path,
                content: Some(content),
                offset,
                limit,
            }
        }
        ToolCallDetail::Search(mut d) => {
            if let Some(v) = st {
                if let Some(files) = v.get("filenames").and_then(Value::as_array) {
                    d.file_paths = Some(
                        files
                            .iter()
                            .filter_map(Value::as_str)
                            .map(str::to_string)
                            .collect(),
                    );
                }
                d.num_files = v.get("numFiles").and_then(Value::as_u64);
                d.num_matches = v
                    .get("numMatches")
                    .or_else(|| v.get("numLines"))
                    .and_then(Value::as_u64);
                d.duration_ms = v.get("durationMs").and_then(Value::as_u64);
                d.duration_seconds = v.get("durationSeconds").and_then(Value::as_f64);
                d.truncated = v.get("truncated").and_then(Value::as_bool);
                if let Some(results) = v.get("results").and_then(Value::as_array) {
                    let web: Vec<WebResult> = results
                        .iter()
                        .flat_map(|r| {
                            r.get("content")
                                .and_then(Value::as_array)
                                .cloned()
                                .unwrap_or_default()
                        })
                        .filter_map(|r| {
                            Some(WebResult {
                                title: r.get("title")?.as_str()?.to_string(),
                                url: r.get("url")?.as_str()?.to_string(),
                            })
                        })
                        .collect();
                    if !web.is_empty() {
                        d.web_results = Some(web);
                    }
                }
            }
            d.content = Some(text);
            ToolCallDetail::Search(d)
        }
        ToolCallDetail::Fetch(mut d) => {
            if let Some(v) = st {
                d.code = v.get("code").and_then(Value::as_i64);
                d.code_text = v
                    .get("codeText")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                d.bytes = v.get("bytes").and_then(Value::as_u64);
                d.duration_ms = v.get("durationMs").and_then(Value::as_u64);
                d.result = v.get("result").and_then(Value::as_str).map(str::to_string);
            }
            if d.result.is_none() {
                d.result = Some(text);
            }
            ToolCallDetail::Fetch(d)
        }
        ToolCallDetail::PlainText { label, icon, .. } => ToolCallDetail::PlainText {
            label,
            text: Some(text),
            icon,
        },
        ToolCallDetail::Unknown { input, .. } => {
            let output = structured.cloned().unwrap_or_else(|| content.clone());
            ToolCallDetail::Unknown { input, output }
        }
        // Write/Edit/Plan/SubAgent keep what their input said.
        other => other,
    }
}

/// `TodoWrite` input -> todo entries.
pub fn todo_entries(input: &Value) -> Vec<TodoEntry> {
    input
        .get("todos")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|t| {
            let status = match t.get("status").and_then(Value::as_str) {
                Some("completed") => Some(TodoStatus::Completed),
                Some("in_progress") => Some(TodoStatus::InProgress),
                Some("pending") => Some(TodoStatus::Pending),
                _ => None,
            };
            TodoEntry {
                text: s(t, "content").unwrap_or_default(),
                completed: status == Some(TodoStatus::Completed),
                id: s(t, "id"),
                status,
                active_form: s(t, "activeForm"),
            }
        })
        .collect()
}

/// A one-line summary of a tool input, for sub-agent logs and permission titles.
pub fn summary(name: &str, input: &Value) -> String {
    let key = match name {
        "Bash" => "command",
        "Read" | "Write" | "Edit" | "MultiEdit" => "file_path",
        "NotebookEdit" => "notebook_path",
        "Grep" | "Glob" => "pattern",
        "WebSearch" => "query",
        "WebFetch" => "url",
        "Task" | "Agent" => "description",
        "Skill" => "skill",
        _ => "",
    };
    let text = s(input, key).unwrap_or_default();
    let one_line = text.lines().next().unwrap_or("").to_string();
    if one_line.chars().count() > 120 {
        let mut cut: String = one_line.chars().take(119).collect();
        cut.push('…');
        cut
    } else {
        one_line
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn failed_bash_keeps_the_exit_code() {
        let d = detail_for("Bash", &json!({"command": "false"}));
        let d = with_result(d, &json!("Exit code 1\nboom"), None, true);
        assert_eq!(
            d,
            ToolCallDetail::Shell {
                command: "false".into(),
                cwd: None,
                output: Some("Exit code 1\nboom".into()),
                exit_code: Some(Some(1))
            }
        );
    }

    #[test]
    fn mcp_tools_are_unknown_with_server_metadata() {
        let d = detail_for("mcp__github__create_issue", &json!({"title": "x"}));
        assert!(matches!(d, ToolCallDetail::Unknown { .. }));
        let m = metadata_for("mcp__github__create_issue").unwrap();
        assert_eq!(m.get("mcpServer"), Some(&json!("github")));
        assert_eq!(m.get("mcpTool"), Some(&json!("create_issue")));
    }

    #[test]
    fn grep_and_glob_are_typed_searches() {
        let d = detail_for(
            "Grep",
            &json!({"pattern": "fn main", "output_mode": "content"}),
        );
        let ToolCallDetail::Search(s) = d else {
            panic!("not a search")
        };
        assert_eq!(s.tool_name, Some(SearchToolName::Grep));
        assert_eq!(s.mode, Some(SearchMode::Content));
        let d = with_result(
            detail_for("Glob", &json!({"pattern": "*.rs"})),
            &json!("a.rs\nb.rs"),
            Some(&json!({"filenames": ["a.rs", "b.rs"], "numFiles": 2})),
            false,
        );
        let ToolCallDetail::Search(s) = d else {
            panic!("not a search")
        };
        assert_eq!(
            s.file_paths,
            Some(vec!["a.rs".to_string(), "b.rs".to_string()])
        );
        assert_eq!(s.num_files, Some(2));
    }
}
