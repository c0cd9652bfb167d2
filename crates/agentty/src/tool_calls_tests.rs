use super::*;
use crate::app::Agent;
use crate::store::Store;
use agent_bridge_protocol::{
    Capability, ItemBody, PermissionKind, ProviderCatalog, ProviderEvent, ProviderInput,
    ProviderMode, ProviderPermissionRequest, ProviderPermissionResponse, TimelineItem, ToolCall,
    ToolCallDetail, TurnState,
};
use pretty_assertions::assert_eq;
use serde_json::json;

fn catalog() -> ProviderCatalog {
    let mode = |id: &str, unattended| ProviderMode {
        id: id.into(),
        label: id.into(),
        description: None,
        icon: None,
        color_tier: None,
        is_unattended: unattended,
    };
    ProviderCatalog {
        modes: vec![mode("ask", None), mode("auto", Some(true))],
        default_mode: Some("auto".into()),
        ..Default::default()
    }
}

/// The demo, checked, with its catalog read.
fn app() -> App {
    let demo = Agent::new(
        "demo",
        "Demo agent",
        vec![Capability::PromptMessage, Capability::Permission],
    );
    let mut app = App::new(vec![demo], Store::default());
    app.context.workspace_cwd = Some("/work/api".into());
    app.on_availability("demo", Availability::Available);
    app.on_bridge_event(ProviderEvent::Catalog {
        request_id: "catalog:demo".into(),
        catalog: catalog(),
    });
    app
}

fn ask(app: &mut App, id: u64, arguments: Value, now: Instant) -> Vec<Effect> {
    let params = json!({"name": "ask_agent", "arguments": arguments, "context": {}});
    app.on_tool_call(json!(id), &params, now)
}

fn replies(effects: &[Effect]) -> Vec<(Value, String)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Reply { id, result: Ok(v) } => Some((
                id.clone(),
                v["content"][0]["text"].as_str().unwrap_or("").to_string(),
            )),
            _ => None,
        })
        .collect()
}

fn opened_mode(effects: &[Effect]) -> Option<String> {
    effects.iter().find_map(|e| match e {
        Effect::Bridge {
            input: ProviderInput::SessionOpen { config, .. },
            ..
        } => config.mode.clone(),
        _ => None,
    })
}

/// Opens the tool's session and starts its turn; the bridge session id.
fn started(app: &mut App) -> String {
    let s = app.sessions.last().expect("a session");
    let id = s.id.clone();
    let sent = app.on_bridge_event(ProviderEvent::SessionReady {
        request_id: None,
        session_id: id.clone(),
    });
    assert!(
        sent.iter().any(|e| matches!(
            e,
            Effect::Bridge {
                input: ProviderInput::SessionPrompt { .. },
                ..
            }
        )),
        "the prompt goes once the session is ready"
    );
    app.on_bridge_event(ProviderEvent::SessionTurn {
        session_id: id.clone(),
        turn_id: "t1".into(),
        state: TurnState::Started,
        error: None,
    });
    id
}

fn item(app: &mut App, session: &str, item: TimelineItem) {
    app.on_bridge_event(ProviderEvent::TimelineItem {
        session_id: session.into(),
        item,
        timestamp: None,
    });
}

fn end(app: &mut App, session: &str) {
    app.on_bridge_event(ProviderEvent::SessionTurn {
        session_id: session.into(),
        turn_id: "t1".into(),
        state: TurnState::Completed,
        error: None,
    });
}

fn permission(app: &mut App, session: &str) -> Vec<Effect> {
    app.on_bridge_event(ProviderEvent::SessionPermission {
        session_id: session.into(),
        request: ProviderPermissionRequest {
            id: "p1".into(),
            name: "shell".into(),
            kind: PermissionKind::Tool,
            title: Some("Run `rm -rf build`?".into()),
            description: None,
            input: None,
            detail: None,
            suggestions: None,
            actions: None,
            metadata: None,
        },
    })
}

#[test]
fn ask_agent_answers_with_the_final_text_and_the_tools_it_ran() {
    let mut app = app();
    let now = Instant::now();
    let before = app.current;
    let effects = ask(
        &mut app,
        1,
        json!({"agent": "Demo agent", "prompt": "review"}),
        now,
    );
    assert_eq!(
        opened_mode(&effects).as_deref(),
        Some("ask"),
        "not the default `auto`"
    );
    let s = app.sessions.last().expect("session");
    assert!(
        s.title.starts_with("From a pane's agent: review"),
        "{}",
        s.title
    );
    assert_eq!(app.current, before, "the user's view is left alone");
    assert_ne!(app.current, Some(app.sessions.len() - 1));
    let key = s.key.clone();
    let id = started(&mut app);
    let mut call = ToolCall::running(
        "c1",
        "shell",
        ToolCallDetail::Shell {
            command: "ls".into(),
            cwd: None,
            output: None,
            exit_code: None,
        },
    );
    call.complete();
    item(
        &mut app,
        &id,
        TimelineItem::new("c1", ItemBody::ToolCall(call)),
    );
    item(
        &mut app,
        &id,
        TimelineItem::new(
            "a1",
            ItemBody::AssistantMessage {
                text: "Looks right.".into(),
                message_id: None,
            },
        ),
    );
    assert!(
        replies(&app.tool_tick(now)).is_empty(),
        "the turn still runs"
    );
    end(&mut app, &id);
    let answered = replies(&app.tool_tick(now));
    assert_eq!(answered.len(), 1);
    let (rid, text) = &answered[0];
    assert_eq!(rid, &json!(1));
    assert!(
        text.starts_with(&format!("status: completed · session: {key}")),
        "{text}"
    );
    assert!(text.contains("Its answer:\nLooks right."), "{text}");
    assert!(text.contains("Tools it ran (1):"), "{text}");
    assert!(app.tools.waiting.is_empty());
}

#[test]
fn a_turn_past_the_deadline_answers_what_is_done_and_a_later_call_collects_it() {
    let mut app = app();
    let t0 = Instant::now();
    ask(
        &mut app,
        1,
        json!({"agent": "demo", "prompt": "long job", "mode": "auto"}),
        t0,
    );
    let key = app.sessions.last().expect("session").key.clone();
    let id = started(&mut app);
    item(
        &mut app,
        &id,
        TimelineItem::new(
            "a1",
            ItemBody::AssistantMessage {
                text: "Halfway.".into(),
                message_id: None,
            },
        ),
    );
    let late = t0 + app.tools.answer_within;
    let partial = replies(&app.tool_tick(late));
    assert_eq!(partial.len(), 1);
    assert!(
        partial[0].1.starts_with("status: running"),
        "{}",
        partial[0].1
    );
    assert!(partial[0].1.contains("Halfway."), "{}", partial[0].1);
    assert!(
        app.sessions.last().expect("s").is_running(),
        "the turn goes on"
    );
    // A prompt to a session still working is refused; a collect waits for the end.
    let busy = replies(&ask(
        &mut app,
        2,
        json!({"session": key, "prompt": "more"}),
        late,
    ));
    assert!(
        busy[0].1.contains("collect that turn first"),
        "{}",
        busy[0].1
    );
    assert!(replies(&ask(&mut app, 3, json!({"session": key}), late)).is_empty());
    end(&mut app, &id);
    let rest = replies(&app.tool_tick(late));
    assert_eq!(rest[0].0, json!(3));
    assert!(rest[0].1.starts_with("status: completed"), "{}", rest[0].1);
    // Then the session takes the next prompt.
    let next = ask(
        &mut app,
        4,
        json!({"session": key, "prompt": "and now?"}),
        late,
    );
    assert!(next.iter().any(|e| matches!(
        e,
        Effect::Bridge {
            input: ProviderInput::SessionPrompt { .. },
            ..
        }
    )));
}

#[test]
fn a_ninth_waiting_call_is_refused() {
    let mut app = app();
    let now = Instant::now();
    for n in 0..MAX_WAITING as u64 {
        ask(
            &mut app,
            n,
            json!({"agent": "demo", "prompt": format!("job {n}")}),
            now,
        );
    }
    let refused = replies(&ask(
        &mut app,
        99,
        json!({"agent": "demo", "prompt": "one more"}),
        now,
    ));
    assert_eq!(refused.len(), 1);
    assert!(
        refused[0].1.contains("busy with 8 earlier calls"),
        "{}",
        refused[0].1
    );
}

#[test]
fn a_permission_with_the_panel_closed_fails_the_call_and_stops_the_turn() {
    let mut app = app();
    let now = Instant::now();
    ask(
        &mut app,
        1,
        json!({"agent": "demo", "prompt": "clean up"}),
        now,
    );
    let id = started(&mut app);
    let effects = permission(&mut app, &id);
    let denied = effects.iter().any(|e| {
        matches!(
            e,
            Effect::Bridge {
                input: ProviderInput::SessionPermission {
                    response: ProviderPermissionResponse::Deny {
                        interrupt: Some(true),
                        ..
                    },
                    ..
                },
                ..
            }
        )
    });
    assert!(denied, "{effects:?}");
    assert!(
        app.due_notice(now).is_none(),
        "no notification for a request already answered"
    );
    let answered = app.tool_tick(now);
    let (_, text) = &replies(&answered)[0];
    assert!(text.starts_with("status: failed"), "{text}");
    assert!(text.contains("the Agent Bridge panel is closed"), "{text}");
    assert!(matches!(&answered[0], Effect::Reply { result: Ok(v), .. } if v["isError"] == true));
}

#[test]
fn a_permission_with_the_panel_open_is_shown_and_the_call_waits() {
    let mut app = app();
    app.on_panel(true);
    let now = Instant::now();
    ask(
        &mut app,
        1,
        json!({"agent": "demo", "prompt": "clean up"}),
        now,
    );
    let id = started(&mut app);
    assert!(permission(&mut app, &id).is_empty(), "the user answers it");
    let index = app.sessions.len() - 1;
    assert_eq!(app.current, Some(index), "shown in the panel");
    assert!(replies(&app.tool_tick(now)).is_empty());
    let partial = replies(&app.tool_tick(now + app.tools.answer_within));
    assert!(
        partial[0].1.contains("waits for the user's answer"),
        "{}",
        partial[0].1
    );
}

#[test]
fn list_agents_waits_for_the_checks_then_lists_modes_and_models() {
    let demo = Agent::new("demo", "Demo agent", vec![Capability::PromptMessage]);
    let codex = Agent::new("codex-bridge", "Codex", vec![Capability::PromptMessage]);
    let mut app = App::new(vec![demo, codex], Store::default());
    let now = Instant::now();
    let params = json!({"name": "list_agents", "arguments": {}, "context": {}});
    assert!(app.on_tool_call(json!(1), &params, now).is_empty());
    app.on_availability(
        "codex-bridge",
        Availability::Unavailable("not installed".into()),
    );
    let asked = app.on_availability("demo", Availability::Available);
    assert!(asked.iter().any(|e| matches!(
        e,
        Effect::Bridge {
            input: ProviderInput::Catalog { .. },
            ..
        }
    )));
    assert!(
        replies(&app.tool_tick(now)).is_empty(),
        "the demo's catalog is not in yet"
    );
    app.on_bridge_event(ProviderEvent::Catalog {
        request_id: "catalog:demo".into(),
        catalog: catalog(),
    });
    let (_, text) = replies(&app.tool_tick(now)).remove(0);
    let v: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(v["agents"][0]["askAgentMode"], "ask");
    assert_eq!(
        v["agents"][0]["modes"][1],
        json!({"id": "auto", "label": "auto", "unattended": true})
    );
    assert_eq!(
        v["agents"][1],
        json!({"id": "codex-bridge", "name": "Codex", "available": false,
        "why": "not installed"})
    );
}

#[test]
fn a_session_opens_once_its_agent_is_checked_and_a_wrong_mode_fails_the_call() {
    let demo = Agent::new("demo", "Demo agent", vec![Capability::PromptMessage]);
    let mut app = App::new(vec![demo], Store::default());
    let t0 = Instant::now();
    let within = app.tools.answer_within;
    // The agent is still being checked: the session exists (its id is the answer's), unopened.
    assert!(ask(&mut app, 1, json!({"agent": "demo", "prompt": "hi"}), t0).is_empty());
    let later = t0 + within / 2;
    let bad = json!({"agent": "demo", "prompt": "hi", "mode": "nope"});
    assert!(ask(&mut app, 2, bad, later).is_empty());
    let partial = replies(&app.tool_tick(t0 + within));
    assert_eq!(partial.len(), 1, "only the first call is due");
    assert!(
        partial[0].1.contains("It has not started yet"),
        "{}",
        partial[0].1
    );
    app.on_availability("demo", Availability::Available);
    app.on_bridge_event(ProviderEvent::Catalog {
        request_id: "catalog:demo".into(),
        catalog: catalog(),
    });
    let effects = app.tool_tick(t0 + within);
    assert_eq!(opened_mode(&effects).as_deref(), Some("ask"));
    let (id, text) = replies(&effects).remove(0);
    assert_eq!(id, json!(2));
    assert!(
        text.contains("Demo agent has no mode \"nope\"; its modes: ask, auto"),
        "{text}"
    );
}
