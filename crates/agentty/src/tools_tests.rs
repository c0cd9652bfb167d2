use super::*;
use agent_bridge_protocol::ProviderMode;
use pretty_assertions::assert_eq;

fn mode(id: &str, unattended: bool) -> ProviderMode {
    ProviderMode {
        id: id.into(),
        label: id.into(),
        description: None,
        icon: None,
        color_tier: None,
        is_unattended: unattended.then_some(true),
    }
}

fn catalog(modes: &[(&str, bool)], default: &str) -> ProviderCatalog {
    ProviderCatalog {
        modes: modes.iter().map(|(id, u)| mode(id, *u)).collect(),
        default_mode: Some(default.into()),
        ..Default::default()
    }
}

#[test]
fn a_tool_driven_session_starts_in_a_mode_that_cannot_write() {
    let claude = catalog(
        &[
            ("default", false),
            ("acceptEdits", false),
            ("plan", false),
            ("bypassPermissions", true),
        ],
        "default",
    );
    assert_eq!(read_only_mode(&claude).as_deref(), Some("plan"));
    let codex = catalog(
        &[("read-only", false), ("auto", false), ("full-access", true)],
        "auto",
    );
    assert_eq!(read_only_mode(&codex).as_deref(), Some("read-only"));
    // No read-only mode: the default when it asks first, else the first that asks.
    let demo = catalog(&[("ask", false), ("auto", true)], "ask");
    assert_eq!(read_only_mode(&demo).as_deref(), Some("ask"));
    let yolo_default = catalog(&[("yolo", true), ("careful", false)], "yolo");
    assert_eq!(read_only_mode(&yolo_default).as_deref(), Some("careful"));
}

#[test]
fn ask_agent_needs_an_agent_and_a_prompt_or_a_session() {
    let args = AskArgs::parse(&json!({"agent": "codex", "prompt": " review ", "extra": 1}))
        .expect("valid");
    assert_eq!(args.prompt.as_deref(), Some("review"));
    assert!(AskArgs::parse(&json!({"session": "ab-1"})).is_ok());
    assert!(AskArgs::parse(&json!({"agent": "codex"})).is_err());
    assert!(AskArgs::parse(&json!({"agent": 3, "prompt": "x"})).is_err());
    assert!(AskArgs::parse(&Value::Null).is_err());
}

#[test]
fn the_answer_gives_the_text_the_tools_and_how_to_go_on() {
    let mut turn = ToolTurn::new();
    turn.text("a1", "Looking.");
    turn.tool(ToolRun {
        id: "t1".into(),
        title: "run `ls`".into(),
        status: ToolStatus::Completed,
    });
    turn.text("a2", "All good.");
    let who = Who {
        label: "Codex",
        session: "ab-1",
    };
    let running = turn_answer(&who, &turn, Duration::from_secs(100));
    let text = running["content"][0]["text"].as_str().expect("text");
    assert!(
        text.starts_with("status: running · session: ab-1"),
        "{text}"
    );
    assert!(text.contains("ask_agent {\"session\": \"ab-1\"}"), "{text}");
    assert_eq!(running["isError"], false);
    turn.ended(TurnState::Completed, None);
    let done = turn_answer(&who, &turn, Duration::from_secs(1));
    let text = done["content"][0]["text"].as_str().expect("text");
    assert!(
        text.starts_with("status: completed · session: ab-1"),
        "{text}"
    );
    assert!(text.contains("Its answer:\nAll good."), "{text}");
    assert!(
        text.contains("Tools it ran (1):\n- run `ls` (done)"),
        "{text}"
    );
    // The first end wins.
    turn.ended(TurnState::Failed, Some("late".into()));
    assert_eq!(
        turn.end.as_ref().map(|e| e.state),
        Some(TurnState::Completed)
    );
}

#[test]
fn a_long_reply_is_cut_under_agenttys_limit() {
    let mut turn = ToolTurn::new();
    turn.text("a", &"x".repeat(300_000));
    turn.ended(TurnState::Completed, None);
    let who = Who {
        label: "Codex",
        session: "ab-1",
    };
    let v = turn_answer(&who, &turn, Duration::from_secs(1));
    let text = v["content"][0]["text"].as_str().expect("text");
    assert!(text.chars().count() <= 100_000, "{}", text.chars().count());
    assert!(text.contains("[… cut"), "the cut says so");
    assert!(
        text.contains("Continue this conversation"),
        "the end is kept"
    );
}
