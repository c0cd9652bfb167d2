//! Todo lists: an ACP `plan` update, and a todo-writing tool call (OpenCode's `todowrite`:
//! `rawInput.todos` / `rawOutput.metadata.todos`, entries `{content, status, priority}`), both
//! a Paseo `todo` item.

use crate::wire::acp::PlanEntryStatus;
use crate::wire::tool_call::ToolSnapshot;
use agent_bridge_protocol::{TodoEntry, TodoStatus};
use serde_json::Value;

/// One entry of a plan or a todo list.
pub fn entry(content: &str, status: Option<&str>) -> TodoEntry {
    let status = match status {
        Some("completed") => TodoStatus::Completed,
        Some("in_progress") => TodoStatus::InProgress,
        // pending, cancelled, absent, or a status of a newer schema.
        _ => TodoStatus::Pending,
    };
    TodoEntry {
        text: content.to_string(),
        completed: status == TodoStatus::Completed,
        id: None,
        status: Some(status),
        active_form: None,
    }
}

/// The wire name of a plan entry's status (`pending` for one the crate adds later).
pub fn plan_status(status: &PlanEntryStatus) -> &'static str {
    match status {
        PlanEntryStatus::InProgress => "in_progress",
        PlanEntryStatus::Completed => "completed",
        _ => "pending",
    }
}

/// Whether a tool's title names a todo-writing tool (`todowrite`, `TodoWrite`, `todo_write`):
/// known before its input arrives (OpenCode announces the call with an empty input).
pub fn names_todo_tool(title: Option<&str>) -> bool {
    title.is_some_and(|t| {
        let name: String = t
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        name == "todowrite"
    })
}

/// The todo list a tool call carries, by shape: a `todos` array of objects with a string
/// `content` (and `status`), in the output's metadata (the list as written) or else the input.
pub fn list(f: &ToolSnapshot) -> Option<Vec<TodoEntry>> {
    let f = &f.fields;
    let from_output = f
        .raw_output
        .as_ref()
        .and_then(|o| o.get("metadata"))
        .and_then(|m| m.get("todos"));
    let from_input = f.raw_input.as_ref().and_then(|i| i.get("todos"));
    from_output
        .and_then(entries)
        .or_else(|| from_input.and_then(entries))
}

fn entries(todos: &Value) -> Option<Vec<TodoEntry>> {
    todos
        .as_array()?
        .iter()
        .map(|t| {
            let content = t.get("content")?.as_str()?;
            Some(entry(content, t.get("status").and_then(Value::as_str)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn fields(v: Value) -> ToolSnapshot {
        serde_json::from_value(v).expect("fields")
    }

    #[test]
    fn the_written_list_wins_over_the_input_and_other_shapes_are_not_todos() {
        let f = fields(json!({"toolCallId": "t",
            "rawInput": {"todos": [{"content": "a", "status": "pending"}]},
            "rawOutput": {"metadata": {"todos": [{"content": "a", "status": "completed"}]}}}));
        assert_eq!(list(&f), Some(vec![entry("a", Some("completed"))]));
        let input_only = fields(json!({"toolCallId": "t",
            "rawInput": {"todos": [{"content": "b", "status": "in_progress", "priority": "low"}]}}));
        assert_eq!(
            list(&input_only),
            Some(vec![entry("b", Some("in_progress"))])
        );
        for not_todos in [
            json!({"toolCallId": "t", "rawInput": {}}),
            json!({"toolCallId": "t", "rawInput": {"todos": "a, b"}}),
            json!({"toolCallId": "t", "rawInput": {"todos": [{"title": "a"}]}}),
        ] {
            assert_eq!(list(&fields(not_todos)), None);
        }
        assert!(names_todo_tool(Some("todowrite")) && names_todo_tool(Some("TodoWrite")));
        assert!(names_todo_tool(Some("todo_write")) && !names_todo_tool(Some("todoread")));
    }
}
