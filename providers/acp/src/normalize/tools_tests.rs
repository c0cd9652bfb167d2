//! The tool-call normalizer ([`super::tools`]) on single updates.

use super::*;
use pretty_assertions::assert_eq;

fn fields(v: Value) -> ToolSnapshot {
    serde_json::from_value(v).expect("fields")
}

#[test]
fn a_diff_of_a_changed_line_keeps_context() {
    let d = unified_diff("a.txt", "1\n2\n3\n4\n5\n", "1\n2\nthree\n4\n5\n");
    assert_eq!(
        d,
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,5 +1,5 @@\n 1\n 2\n-3\n+three\n 4\n 5\n"
    );
    let added = unified_diff("b", "", "x\n");
    assert_eq!(added, "--- a/b\n+++ b/b\n@@ -0,0 +1,1 @@\n+x\n");
}

#[test]
fn a_diff_without_old_text_is_a_new_file() {
    let f = fields(
        json!({"toolCallId": "t", "kind": "edit", "status": "completed",
        "content": [{"type": "diff", "path": "/w/new.txt", "oldText": null, "newText": "hi\n"}]}),
    );
    assert_eq!(
        detail(&f),
        ToolCallDetail::Write {
            file_path: "/w/new.txt".into(),
            content: Some("hi\n".into())
        }
    );
}

#[test]
fn an_edit_takes_the_reported_diff_and_a_written_file_is_a_write() {
    let real =
        "Index: /w/a.txt\n====\n--- /w/a.txt\n+++ /w/a.txt\n@@ -7,2 +7,2 @@\n x\n-two\n+three\n";
    let f = fields(
        json!({"toolCallId": "t", "kind": "edit", "status": "completed",
        "content": [{"type": "diff", "path": "/w/a.txt", "oldText": "two", "newText": "three"}],
        "rawOutput": {"output": "ok", "metadata": {"diff": real}}}),
    );
    let ToolCallDetail::Edit {
        unified_diff: real_diff,
        ..
    } = detail(&f)
    else {
        panic!("an edit")
    };
    assert_eq!(
        real_diff.as_deref(),
        Some("--- /w/a.txt\n+++ /w/a.txt\n@@ -7,2 +7,2 @@\n x\n-two\n+three\n")
    );
    let no_hunk = fields(json!({"toolCallId": "t", "kind": "edit",
        "content": [{"type": "diff", "path": "/w/a.txt", "oldText": "two", "newText": "three"}],
        "rawOutput": {"metadata": {"diff": "nothing changed"}}}));
    let ToolCallDetail::Edit {
        unified_diff: got, ..
    } = detail(&no_hunk)
    else {
        panic!("an edit")
    };
    assert_eq!(got, Some(unified_diff("/w/a.txt", "two", "three")));
    let write = fields(
        json!({"toolCallId": "t", "kind": "edit", "status": "completed",
        "rawInput": {"filePath": "/w/n.txt", "content": "one\n"},
        "content": [{"type": "content", "content": {"type": "text", "text": "Wrote file successfully."}}]}),
    );
    assert_eq!(
        detail(&write),
        ToolCallDetail::Write {
            file_path: "/w/n.txt".into(),
            content: Some("one\n".into())
        }
    );
}

#[test]
fn a_failed_call_carries_its_error() {
    let f = fields(
        json!({"toolCallId": "t", "kind": "execute", "status": "failed",
        "rawInput": {"command": ["touch", "x"]}, "rawOutput": {"error": "denied by policy"}}),
    );
    let call = tool_call(&f);
    assert_eq!(call.status, ToolStatus::Failed);
    assert_eq!(call.error, json!("denied by policy"));
    assert!(
        matches!(call.detail, ToolCallDetail::Shell { ref command, .. } if command == "touch x")
    );
}

#[test]
fn clines_run_commands_shows_its_command_and_output_live_and_replayed() {
    let live = fields(
        json!({"toolCallId": "t", "kind": "execute", "status": "completed",
        "rawInput": {"commands": ["echo hi"]},
        "rawOutput": [{"query": "echo hi", "result": "hi\n", "success": true}]}),
    );
    let replayed = fields(
        json!({"toolCallId": "t", "kind": "execute", "status": "completed",
        "rawInput": {"commands": ["echo hi"]},
        "rawOutput": "{\"query\":\"echo hi\",\"result\":\"hi\\n\",\"success\":true}"}),
    );
    for f in [live, replayed] {
        match detail(&f) {
            ToolCallDetail::Shell {
                command, output, ..
            } => assert_eq!(
                (command.as_str(), output.as_deref()),
                ("echo hi", Some("hi\n"))
            ),
            other => panic!("not a shell call: {other:?}"),
        }
    }
}

#[test]
fn other_kinds_are_unknown_with_raw_input_and_output() {
    let f = fields(
        json!({"toolCallId": "t", "kind": "other", "title": "mcp thing",
        "rawInput": {"a": 1}, "rawOutput": {"b": 2}, "status": "in_progress"}),
    );
    let call = tool_call(&f);
    assert_eq!(call.status, ToolStatus::Running);
    assert_eq!(
        call.detail,
        ToolCallDetail::Unknown {
            input: json!({"a": 1}),
            output: json!({"b": 2})
        }
    );
}

/// OpenHands: the announced call's content is its action's description, not output; the
/// finished call's output and exit code come from its observation (`rawOutput`), not from the
/// report in its content.
#[test]
fn an_openhands_terminal_call_shows_its_observation() {
    let announced = fields(json!({"toolCallId": "call_1", "kind": "execute",
        "status": "in_progress", "title": "touch a.txt",
        "content": [{"type": "content", "content": {"type": "text",
            "text": "Predicted Security Risk: LOW\n\n$ touch a.txt"}}],
        "rawInput": {"command": "touch a.txt", "is_input": false, "kind": "TerminalAction"}}));
    let ToolCallDetail::Shell {
        output, exit_code, ..
    } = detail(&announced)
    else {
        panic!("a shell call")
    };
    assert_eq!((output, exit_code), (None, None));
    let mut done = announced.clone();
    done.fields.status = Some(crate::wire::acp::ToolCallStatus::Completed);
    done.fields.content = serde_json::from_value(json!([{"type": "content", "content": {
        "type": "text", "text": "Tool: terminal\nResult:\nSHOWN\n\n✅ Exit code: 0"}}]))
    .ok();
    done.fields.raw_output = Some(json!({"observation": {"kind": "TerminalObservation",
        "content": [{"type": "text", "text": "SHOWN"}], "exit_code": 0}}));
    let ToolCallDetail::Shell {
        output,
        exit_code,
        command,
        ..
    } = detail(&done)
    else {
        panic!("a shell call")
    };
    assert_eq!(command, "touch a.txt");
    assert_eq!(
        (output.as_deref(), exit_code),
        (Some("SHOWN"), Some(Some(0)))
    );
}
