use super::*;
use pretty_assertions::assert_eq;

fn renderer() -> Renderer<Vec<u8>> {
    Renderer::new(Vec::new(), Style::plain(), Spinner::disabled())
}

fn text(r: Renderer<Vec<u8>>) -> String {
    String::from_utf8(r.into_inner()).expect("utf-8")
}

fn assistant(id: &str, text: &str) -> TimelineItem {
    TimelineItem::new(
        id,
        ItemBody::AssistantMessage {
            text: text.into(),
            message_id: None,
        },
    )
}

fn shell(status: ToolStatus, output: Option<&str>, exit: Option<i64>) -> TimelineItem {
    let mut call = ToolCall::running(
        "t1",
        "shell",
        ToolCallDetail::Shell {
            command: "echo hi".into(),
            cwd: None,
            output: output.map(str::to_string),
            exit_code: exit.map(Some),
        },
    );
    match status {
        ToolStatus::Running => {}
        ToolStatus::Completed => call.complete(),
        ToolStatus::Failed => call.fail(serde_json::json!({ "message": "exited with code 1" })),
        ToolStatus::Canceled => call.cancel(),
    }
    TimelineItem::new("t1", ItemBody::ToolCall(call))
}

#[test]
fn delta_finds_the_new_suffix() {
    assert_eq!(delta("", "Hello"), Delta::Append("Hello"));
    assert_eq!(delta("Hello", "Hello world"), Delta::Append(" world"));
    assert_eq!(delta("Hello", "Hello"), Delta::Unchanged);
    assert_eq!(delta("Hello", "Help"), Delta::Rewrite("Help"));
    assert_eq!(delta("héllo", "héllo wörld"), Delta::Append(" wörld"));
}

#[test]
fn growing_snapshots_print_only_suffixes() {
    let mut r = renderer();
    r.item(&assistant("a", "Hello "));
    r.item(&assistant("a", "Hello from "));
    r.item(&assistant("a", "Hello from "));
    r.item(&assistant("a", "Hello from demo!"));
    r.end(&TurnEnd::Completed);
    assert_eq!(text(r), "Hello from demo!\n── turn completed\n");
}

#[test]
fn a_rewritten_snapshot_is_printed_again_on_its_own_line() {
    let mut r = renderer();
    r.item(&assistant("a", "Hello wrld"));
    r.item(&assistant("a", "Hello world"));
    assert_eq!(text(r), "Hello wrld\n↺ Hello world");
}

#[test]
fn a_second_stream_starts_on_a_new_line() {
    let mut r = renderer();
    r.item(&assistant("a", "one"));
    r.item(&assistant("b", "two"));
    r.item(&assistant("b", "two three"));
    assert_eq!(text(r), "one\ntwo three");
}

#[test]
fn tool_calls_show_status_changes_and_output_once() {
    let mut r = renderer();
    r.item(&assistant("a", "Running it"));
    r.item(&shell(ToolStatus::Running, None, None));
    r.item(&shell(ToolStatus::Running, None, None));
    r.item(&shell(ToolStatus::Completed, Some("hi\n"), Some(0)));
    assert_eq!(
        text(r),
        "Running it\n• shell $ echo hi (running)\n✓ shell $ echo hi (exit 0)\n  │ hi\n"
    );
}

#[test]
fn failed_and_canceled_tools_say_so() {
    let mut r = renderer();
    r.item(&shell(ToolStatus::Failed, Some("oops"), Some(1)));
    let out = text(r);
    assert!(
        out.starts_with("✗ shell $ echo hi failed: exited with code 1\n"),
        "{out}"
    );
    assert!(out.contains("│ oops"));
    let mut r = renderer();
    r.item(&shell(ToolStatus::Canceled, None, None));
    assert_eq!(text(r), "⊘ shell $ echo hi canceled\n");
}

#[test]
fn long_output_is_cut() {
    let output: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    let mut r = renderer();
    r.item(&shell(ToolStatus::Completed, Some(&output), Some(0)));
    let out = text(r);
    assert!(out.contains("│ line 6\n"));
    assert!(!out.contains("line 7\n"));
    assert!(out.contains("… 14 more lines"));
}

#[test]
fn usage_and_outcome_close_the_turn() {
    let mut r = renderer();
    r.item(&assistant("a", "done"));
    r.set_usage(ProviderUsage {
        input_tokens: Some(20),
        cached_input_tokens: Some(0),
        output_tokens: Some(9),
        context_window_used_tokens: Some(30),
        context_window_max_tokens: Some(32_000),
        total_cost_usd: Some(0.0),
    });
    r.end(&TurnEnd::Failed("boom".into()));
    assert_eq!(
        text(r),
        "done\nusage: 20 input tokens, 9 output tokens, context 30/32000\n── turn failed: boom\n"
    );
}

#[test]
fn colors_only_when_enabled() {
    let mut r = Renderer::new(Vec::new(), Style { enabled: true }, Spinner::disabled());
    r.end(&TurnEnd::Completed);
    assert!(text(r).contains("\x1b[32m"));
}

#[test]
fn error_text_prefers_the_message() {
    assert_eq!(error_text(&serde_json::json!({"message": "no"})), "no");
    assert_eq!(error_text(&serde_json::json!("plain")), "plain");
    assert_eq!(error_text(&serde_json::json!({"code": 2})), r#"{"code":2}"#);
}
