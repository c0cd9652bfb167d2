//! An ACP tool-call snapshot (the merged `tool_call` + `tool_call_update` fields) as a Paseo
//! `tool_call`: a typed detail by `kind` and content, and the status.

use crate::wire::acp::{Diff, ToolCallContent, ToolCallStatus, ToolCallUpdateFields, ToolKind};
use crate::wire::tool_call::{self, content_text, ToolSnapshot};
use agent_bridge_protocol::{
    FetchDetail, JsonMap, PlainTextIcon, SearchDetail, ToolCall, ToolCallDetail, ToolStatus,
};
use serde_json::{json, Value};

/// The Paseo tool call of a snapshot.
pub fn tool_call(snapshot: &ToolSnapshot) -> ToolCall {
    let f = &snapshot.fields;
    let kind = f.kind.as_ref().map_or("other", tool_call::kind_name);
    let name = f
        .kind
        .as_ref()
        .map(|k| tool_call::kind_name(k).to_string())
        .or_else(|| f.title.clone())
        .unwrap_or_else(|| "tool".into());
    let mut metadata = JsonMap::new();
    metadata.insert("kind".into(), json!(kind));
    if let Some(title) = &f.title {
        metadata.insert("title".into(), json!(title));
    }
    let mut call = ToolCall::running(tool_call::id(snapshot), name, detail(snapshot));
    call.metadata = Some(metadata);
    match f.status {
        Some(ToolCallStatus::Completed) => call.complete(),
        Some(ToolCallStatus::Failed) => call.fail(Value::String(error_text(f))),
        // pending, in_progress, absent, or a status of a newer schema.
        _ => call.status = ToolStatus::Running,
    }
    call
}

/// The text blocks of the content (`{type: "content", content: {type: "text"}}`).
fn text_content(f: &ToolCallUpdateFields) -> Option<String> {
    let texts: Vec<String> = f
        .content
        .iter()
        .flatten()
        .filter_map(|c| match c {
            ToolCallContent::Content(c) => Some(content_text(&c.content)),
            _ => None,
        })
        .filter(|t| !t.is_empty())
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

fn diff_content(f: &ToolCallUpdateFields) -> Option<&Diff> {
    f.content.iter().flatten().find_map(|c| match c {
        ToolCallContent::Diff(d) => Some(d),
        _ => None,
    })
}

fn input_str(f: &ToolCallUpdateFields, keys: &[&str]) -> Option<String> {
    let input = f.raw_input.as_ref()?;
    keys.iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .map(str::to_string)
}

fn location(f: &ToolCallUpdateFields) -> Option<String> {
    f.locations
        .iter()
        .flatten()
        .next()
        .map(|l| l.path.to_string_lossy().to_string())
}

fn file_path(f: &ToolCallUpdateFields) -> String {
    location(f)
        .or_else(|| input_str(f, &["path", "file_path", "filePath", "abs_path", "file"]))
        .unwrap_or_default()
}

/// Cline's report of one command: `{"query": cmd, "result": output, "success": bool}`.
fn cline_result(v: &Value) -> Option<String> {
    v.get("query")?;
    v.get("result")?.as_str().map(str::to_string)
}

/// A raw output as text: a string, or the usual output fields of an object; Cline's list of
/// command reports (live) or one report as a JSON string (replayed).
fn output_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(
            serde_json::from_str::<Value>(s)
                .ok()
                .as_ref()
                .and_then(cline_result)
                .unwrap_or_else(|| s.clone()),
        ),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().filter_map(cline_result).collect();
            (!parts.is_empty()).then(|| parts.concat())
        }
        Value::Object(m) => [
            "output",
            "formatted_output",
            "aggregated_output",
            "stdout",
            "content",
        ]
        .iter()
        .find_map(|k| m.get(*k).and_then(Value::as_str))
        .map(str::to_string),
        _ => None,
    }
}

fn error_text(f: &ToolCallUpdateFields) -> String {
    f.raw_output
        .as_ref()
        .and_then(|o| {
            o.get("error")
                .and_then(Value::as_str)
                .map(str::to_string)
                .or_else(|| output_text(o))
        })
        .or_else(|| text_content(f))
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| "the tool failed".into())
}

fn command(f: &ToolCallUpdateFields) -> String {
    let from_input = f.raw_input.as_ref().and_then(|i| {
        let cmd = match i.get("command").or_else(|| i.get("commands")) {
            Some(Value::String(s)) => Some(s.clone()),
            // Cline's `run_commands`: command lines.
            Some(Value::Array(lines)) if i.get("command").is_none() => Some(
                lines
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            Some(Value::Array(parts)) => Some(
                parts
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            _ => None,
        }?;
        let args: Vec<&str> = i
            .get("args")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        Some(if args.is_empty() {
            cmd
        } else {
            format!("{cmd} {}", args.join(" "))
        })
    });
    from_input.or_else(|| f.title.clone()).unwrap_or_default()
}

/// `_meta` terminal output (claude-agent-acp, codex-acp): `terminal_output.data`,
/// `terminal_exit.exit_code`.
fn meta_terminal(snapshot: &ToolSnapshot) -> (Option<String>, Option<i64>) {
    let Some(meta) = &snapshot.meta else {
        return (None, None);
    };
    let at = |key: &str, field: &str| meta.get(key).and_then(|v| v.get(field));
    let output = at("terminal_output", "data")
        .and_then(Value::as_str)
        .map(str::to_string);
    let exit = at("terminal_exit", "exit_code").and_then(Value::as_i64);
    (output, exit)
}

fn shell(snapshot: &ToolSnapshot) -> ToolCallDetail {
    let (meta_output, meta_exit) = meta_terminal(snapshot);
    let f = &snapshot.fields;
    let raw = f.raw_output.as_ref();
    let exit = raw
        .and_then(|o| {
            ["exitCode", "exit_code", "exit"]
                .iter()
                .find_map(|k| o.get(*k).and_then(Value::as_i64))
        })
        .or(meta_exit);
    // OpenHands announces a call with its action's description as content ("Predicted Security
    // Risk: LOW", "$ touch a.txt"), its input the action (`"kind": "TerminalAction"`): no
    // output before its observation comes.
    let described = raw.is_none()
        && f.raw_input
            .as_ref()
            .and_then(|i| i.get("kind"))
            .and_then(Value::as_str)
            .is_some_and(|k| k.ends_with("Action"));
    // OpenHands' observation holds the output itself; anything else is reduced from its text.
    let (output, reported_exit) = match raw.and_then(super::shell_output::observation) {
        Some((observed, exit)) => (Some(observed), exit),
        None => match meta_output
            .or_else(|| text_content(f).filter(|_| !described))
            .or_else(|| raw.and_then(output_text))
        {
            Some(text) => {
                let (clean, exit) = super::shell_output::clean(&text);
                (Some(clean), exit)
            }
            None => (None, None),
        },
    };
    ToolCallDetail::Shell {
        command: command(f),
        cwd: input_str(f, &["cwd", "workdir", "directory"]),
        output,
        exit_code: exit.or(reported_exit).map(Some),
    }
}

/// The unified diff the agent reported in `rawOutput.metadata.diff` (OpenCode's edit: the
/// file's real hunks, line numbers and context), from its `--- ` line on (an `Index:` preamble
/// dropped).
fn reported_diff(f: &ToolCallUpdateFields) -> Option<String> {
    let diff = f
        .raw_output
        .as_ref()?
        .get("metadata")?
        .get("diff")?
        .as_str()?;
    let start = if diff.starts_with("--- ") {
        0
    } else {
        diff.find("\n--- ")? + 1
    };
    let diff = &diff[start..];
    diff.contains("\n@@ ").then(|| diff.to_string())
}

fn edit(f: &ToolCallUpdateFields) -> ToolCallDetail {
    if let Some(diff) = diff_content(f) {
        let path = Some(diff.path.to_string_lossy().to_string())
            .filter(|p| !p.is_empty())
            .unwrap_or_else(|| file_path(f));
        let new = diff.new_text.clone();
        return match diff.old_text.as_deref() {
            None => ToolCallDetail::Write {
                file_path: path,
                content: Some(new),
            },
            Some(old) => ToolCallDetail::Edit {
                unified_diff: Some(
                    reported_diff(f).unwrap_or_else(|| unified_diff(&path, old, &new)),
                ),
                file_path: path,
                old_string: Some(old.to_string()),
                new_string: Some(new),
            },
        };
    }
    let old_string = input_str(f, &["old_string", "oldText", "oldString"]);
    let content = input_str(f, &["content"]);
    if let (None, Some(content)) = (&old_string, content) {
        // A whole file written (OpenCode's `write`: `filePath` and `content`, no diff block).
        return ToolCallDetail::Write {
            file_path: file_path(f),
            content: Some(content),
        };
    }
    ToolCallDetail::Edit {
        file_path: file_path(f),
        old_string,
        new_string: input_str(f, &["new_string", "newText", "newString"]),
        unified_diff: reported_diff(f).or_else(|| text_content(f)),
    }
}

/// The detail of a snapshot, by kind.
pub fn detail(snapshot: &ToolSnapshot) -> ToolCallDetail {
    let f = &snapshot.fields;
    match f.kind {
        Some(ToolKind::Execute) => shell(snapshot),
        Some(ToolKind::Read) => ToolCallDetail::Read {
            file_path: file_path(f),
            content: text_content(f),
            offset: f
                .raw_input
                .as_ref()
                .and_then(|i| i.get("offset"))
                .and_then(Value::as_u64),
            limit: f
                .raw_input
                .as_ref()
                .and_then(|i| i.get("limit"))
                .and_then(Value::as_u64),
        },
        Some(ToolKind::Edit | ToolKind::Delete) => edit(f),
        Some(ToolKind::Search) => ToolCallDetail::Search(SearchDetail {
            query: input_str(f, &["query", "pattern"])
                .or_else(|| f.title.clone())
                .unwrap_or_default(),
            content: text_content(f),
            file_paths: f.locations.as_ref().map(|ls| {
                ls.iter()
                    .map(|l| l.path.to_string_lossy().to_string())
                    .collect()
            }),
            ..SearchDetail::default()
        }),
        Some(ToolKind::Fetch) => ToolCallDetail::Fetch(FetchDetail {
            url: input_str(f, &["url"])
                .or_else(|| f.title.clone())
                .unwrap_or_default(),
            prompt: input_str(f, &["prompt"]),
            result: text_content(f),
            ..FetchDetail::default()
        }),
        Some(ToolKind::Think) => ToolCallDetail::PlainText {
            label: f.title.clone(),
            text: text_content(f),
            icon: Some(PlainTextIcon::Brain),
        },
        Some(ToolKind::SwitchMode) => ToolCallDetail::PlainText {
            label: f.title.clone(),
            text: text_content(f),
            icon: Some(PlainTextIcon::Sparkles),
        },
        _ => ToolCallDetail::Unknown {
            input: f
                .raw_input
                .clone()
                .unwrap_or_else(|| json!({ "title": f.title })),
            output: f
                .raw_output
                .clone()
                .or_else(|| text_content(f).map(Value::String))
                .unwrap_or(Value::Null),
        },
    }
}

/// A unified diff of one file: the common leading and trailing lines as context (at most 3),
/// the changed middle as one hunk.
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let max_suffix = a.len().min(b.len()) - prefix;
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(max_suffix)
        .take_while(|(x, y)| x == y)
        .count();
    let ctx_before = prefix.min(3);
    let ctx_after = suffix.min(3);
    let start = prefix - ctx_before;
    let a_end = a.len() - suffix + ctx_after;
    let b_end = b.len() - suffix + ctx_after;
    let mut out = format!("--- a/{path}\n+++ b/{path}\n");
    let count = |n: usize| n.to_string();
    let line_no = |len: usize| if len == 0 { start } else { start + 1 };
    out.push_str(&format!(
        "@@ -{},{} +{},{} @@\n",
        line_no(a_end - start),
        count(a_end - start),
        line_no(b_end - start),
        count(b_end - start)
    ));
    for l in &a[start..prefix] {
        out.push_str(&format!(" {l}\n"));
    }
    for l in &a[prefix..a.len() - suffix] {
        out.push_str(&format!("-{l}\n"));
    }
    for l in &b[prefix..b.len() - suffix] {
        out.push_str(&format!("+{l}\n"));
    }
    for l in &a[a.len() - suffix..a_end] {
        out.push_str(&format!(" {l}\n"));
    }
    out
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;
