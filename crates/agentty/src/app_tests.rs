use super::*;
use crate::wire::UiEvent;
use agent_bridge_protocol::{
    ItemBody, PermissionKind, PromptResult, ProviderConfigState, ProviderEvent, ProviderMode,
    ProviderModel, ProviderPermissionRequest, ProviderPermissionResponse, TimelineItem, TurnState,
};
use pretty_assertions::assert_eq;

fn demo_app() -> App {
    let mut demo = Agent::new(
        "demo",
        "Demo agent",
        vec![
            Capability::PromptMessage,
            Capability::Permission,
            Capability::SessionPersistence,
        ],
    );
    demo.demo = true;
    let claude = Agent::new(
        "claude-bridge",
        "Claude Code",
        vec![Capability::PromptMessage],
    );
    let mut app = App::new(vec![demo, claude], Store::default());
    app.context.workspace_cwd = Some("/work/api".into());
    app
}

fn click(element: &str) -> UiEvent {
    UiEvent {
        element: element.into(),
        event: "click".into(),
        ..Default::default()
    }
}

fn inputs(effects: &[Effect]) -> Vec<&'static str> {
    effects
        .iter()
        .map(|e| match e {
            Effect::Bridge { input, .. } => input.kind(),
            Effect::Host { method, .. } => method,
            Effect::Reply { .. } => "reply",
        })
        .collect()
}

fn event(app: &mut App, event: ProviderEvent) -> Vec<Effect> {
    app.on_bridge_event(event)
}

#[test]
fn the_demo_is_picked_only_once_no_other_agent_can_be() {
    let mut app = demo_app();
    assert!(app
        .on_availability("demo", Availability::Available)
        .is_empty());
    assert_eq!(app.selected, None, "Claude Code is still being checked");
    let effects = app.on_availability(
        "claude-bridge",
        Availability::Unavailable("not installed".into()),
    );
    assert_eq!(app.selected.as_deref(), Some("demo"));
    assert_eq!(inputs(&effects), ["catalog"]);
}

#[test]
fn a_prompt_opens_the_session_then_goes_once_it_is_ready() {
    let mut app = demo_app();
    app.on_availability("claude-bridge", Availability::Unavailable("missing".into()));
    app.on_availability("demo", Availability::Available);
    app.draft = "hello".into();
    let effects = app.on_ui_event(&click("send"));
    assert_eq!(inputs(&effects), ["session.open"]);
    assert_eq!(app.clear_prompt.as_deref(), Some("hello"));
    assert_eq!(app.draft, "");
    let id = app.current().expect("session").id.clone();
    let ready = event(
        &mut app,
        ProviderEvent::SessionReady {
            request_id: None,
            session_id: id.clone(),
        },
    );
    assert_eq!(inputs(&ready), ["session.prompt"]);
    assert_eq!(app.running(), 1);
    // The tree echoes the sent text once, then clears the field.
    let first = serde_json::to_string(&app.render()).expect("json");
    assert!(first.contains(r#""value":"hello""#), "{first}");
    assert!(app.dirty);
    let second = serde_json::to_string(&app.render()).expect("json");
    assert!(second
        .contains(r#""id":"prompt","placeholder":"Ask Demo agent… (Enter sends)","value":"""#));
    event(
        &mut app,
        ProviderEvent::SessionPromptResult {
            session_id: id.clone(),
            client_message_id: "m".into(),
            result: PromptResult::Turn {
                turn_id: "t1".into(),
            },
        },
    );
    event(
        &mut app,
        ProviderEvent::SessionTurn {
            session_id: id,
            turn_id: "t1".into(),
            state: TurnState::Completed,
            error: None,
        },
    );
    assert_eq!(app.running(), 0);
}

#[test]
fn a_permission_is_answered_only_by_the_user_and_notified_when_the_panel_is_closed() {
    let mut app = demo_app();
    app.on_availability("claude-bridge", Availability::Unavailable("missing".into()));
    app.on_availability("demo", Availability::Available);
    app.draft = "run `ls`".into();
    app.on_ui_event(&click("send"));
    let id = app.current().expect("session").id.clone();
    event(
        &mut app,
        ProviderEvent::SessionReady {
            request_id: None,
            session_id: id.clone(),
        },
    );
    let asked = event(
        &mut app,
        ProviderEvent::SessionPermission {
            session_id: id.clone(),
            request: ProviderPermissionRequest {
                id: "p1".into(),
                name: "shell".into(),
                kind: PermissionKind::Tool,
                title: Some("Run `ls`?".into()),
                description: None,
                input: None,
                detail: None,
                suggestions: None,
                actions: None,
                metadata: None,
            },
        },
    );
    assert!(asked.is_empty(), "nothing is answered by the panel itself");
    let notice = app.due_notice(Instant::now()).expect("a notification");
    assert_eq!(notice["message"], "Demo agent asks: Run `ls`?");
    let answer = app.on_ui_event(&UiEvent {
        element: "timeline".into(),
        event: "action".into(),
        item: Some("perm:p1".into()),
        action: Some("deny".into()),
        ..Default::default()
    });
    match answer.as_slice() {
        [Effect::Bridge {
            input:
                ProviderInput::SessionPermission {
                    permission_id,
                    response,
                    ..
                },
            ..
        }] => {
            assert_eq!(permission_id, "p1");
            assert!(matches!(response, ProviderPermissionResponse::Deny { .. }));
        }
        other => panic!("{other:?}"),
    }
    assert!(app.current().expect("session").pending.is_empty());
}

#[test]
fn a_long_timeline_is_windowed_under_the_node_budget() {
    let mut app = demo_app();
    app.on_availability("claude-bridge", Availability::Unavailable("missing".into()));
    app.on_availability("demo", Availability::Available);
    app.new_session();
    let id = app.current().expect("session").id.clone();
    for i in 0..3_000 {
        event(
            &mut app,
            ProviderEvent::TimelineItem {
                session_id: id.clone(),
                item: TimelineItem::new(
                    format!("b{i}"),
                    ItemBody::AssistantMessage {
                        text: format!("t={i}"),
                        message_id: None,
                    },
                ),
                timestamp: None,
            },
        );
    }
    let tree = app.render();
    assert!(
        tree.weight() <= crate::limits::NODE_BUDGET,
        "{}",
        tree.weight()
    );
    assert!(tree.depth() < crate::limits::HOST_MAX_DEPTH);
    let text = crate::text_view::render(&tree);
    assert!(text.contains("2880 earlier rows not shown"), "{text}");
    assert!(text.contains("t=2999"));
}

/// The panel as Agentty draws it, in words (the docs carry this rendering).
#[test]
fn the_panel_reads_like_this() {
    let mut app = demo_app();
    app.on_availability(
        "claude-bridge",
        Availability::Unavailable("not installed".into()),
    );
    app.on_availability("demo", Availability::Available);
    app.draft = "run `cargo test`".into();
    app.on_ui_event(&click("send"));
    let id = app.current().expect("session").id.clone();
    let config = ProviderConfigState {
        mode: Some("ask".into()),
        model: Some("demo-fast".into()),
        modes: vec![
            ProviderMode {
                id: "ask".into(),
                label: "Ask".into(),
                ..Default::default()
            },
            ProviderMode {
                id: "auto".into(),
                label: "Auto".into(),
                ..Default::default()
            },
        ],
        models: vec![ProviderModel {
            id: "demo-fast".into(),
            label: "Demo Fast".into(),
            ..Default::default()
        }],
        ..Default::default()
    };
    for e in [
        ProviderEvent::SessionConfig {
            session_id: id.clone(),
            config,
        },
        ProviderEvent::SessionReady {
            request_id: None,
            session_id: id.clone(),
        },
        ProviderEvent::TimelineItem {
            session_id: id.clone(),
            item: TimelineItem::new(
                "u1",
                ItemBody::UserMessage {
                    text: "run `cargo test`".into(),
                    message_id: None,
                    client_message_id: None,
                },
            ),
            timestamp: None,
        },
        ProviderEvent::SessionPermission {
            session_id: id.clone(),
            request: ProviderPermissionRequest {
                id: "p1".into(),
                name: "shell".into(),
                kind: PermissionKind::Tool,
                title: Some("Run `cargo test`?".into()),
                description: Some("The demo agent wants to run a shell command".into()),
                input: None,
                detail: None,
                suggestions: None,
                actions: None,
                metadata: None,
            },
        },
    ] {
        event(&mut app, e);
    }
    app.render();
    let tree = app.render();
    insta::assert_snapshot!(crate::text_view::render(&tree));
}

#[test]
fn a_new_workspace_moves_an_unopened_session_and_its_list() {
    let mut app = demo_app();
    app.on_availability("claude-bridge", Availability::Unavailable("missing".into()));
    app.on_availability("demo", Availability::Available);
    app.new_session();
    assert_eq!(app.current().expect("session").cwd, "/work/api");
    let mut moved = app.context.clone();
    moved.workspace_cwd = Some("/work/web".into());
    app.on_context(moved);
    assert_eq!(app.current().expect("session").cwd, "/work/web");
    let effects = app.on_ui_event(&UiEvent {
        element: "prompt".into(),
        event: "submit".into(),
        value: Some(serde_json::json!("hi")),
        ..Default::default()
    });
    match effects.as_slice() {
        [Effect::Bridge {
            input: ProviderInput::SessionOpen { config, .. },
            ..
        }] => assert_eq!(config.cwd, "/work/web"),
        other => panic!("{other:?}"),
    }
}
