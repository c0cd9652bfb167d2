//! Sub-agents end to end: the mock model calls Codex's namespaced `multi_agent_v1.spawn_agent`
//! tool (an OpenAI Responses `function_call` with `namespace`), the real pinned `codex
//! app-server` spawns a sub-agent thread, and the bridge shows it as a child session.

mod common;

use common::*;
use mock_llm::ScriptReply;
use serde_json::{json, Value};

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spawned_sub_agent_is_a_child_session_with_its_own_items() {
    let Some(rig) = rig().await else { return };
    rig.open("s-sub", json!({})).await;
    rig.mock.push_steps([ScriptReply::NamespacedToolCall {
        namespace: "multi_agent_v1".into(),
        name: "spawn_agent".into(),
        arguments: json!({"message": "say hi from the sub-agent"}),
    }]);
    let run = rig.run_turn("s-sub", "delegate this").await;
    assert_eq!(
        run.state(),
        "completed",
        "{:?}\n{}",
        run.end,
        rig.host.stderr()
    );

    // The child session: opened by the provider, restored with its parent.
    let opened = rig
        .host
        .events()
        .into_iter()
        .find(|e| e.is("session.opened") && e.at("/parentSessionId") == Some(&json!("s-sub")))
        .unwrap_or_else(|| panic!("child session opened\n{}", rig.host.stderr()));
    assert_eq!(
        opened.at("/restoration"),
        Some(&json!("parent")),
        "{opened}"
    );
    assert_eq!(
        opened.at("/title"),
        Some(&json!("say hi from the sub-agent")),
        "{opened}"
    );
    let child = opened.session_id().unwrap_or_default().to_string();
    assert!(child.starts_with("s-sub:codex-agent:"), "{child}");

    // Its own items: the sub-agent's reply lands on the child, not on the parent.
    rig.wait(&child, "timeline.item", |e| {
        e.at("/item/type") == Some(&json!("assistant_message"))
            && e.at("/item/text")
                .and_then(Value::as_str)
                .is_some_and(|t| t.starts_with("hi! (mock reply"))
    })
    .await;
    let parent = rig.timeline("s-sub");
    assert!(
        !last_assistant_text(&parent).starts_with("hi!"),
        "the child's reply stays off the parent: {parent:#?}"
    );

    // The parent's sub_agent tool call links the child.
    let calls = of_type(&parent, "tool_call");
    let spawn = calls
        .iter()
        .find(|c| c["detail"]["type"] == "sub_agent")
        .unwrap_or_else(|| panic!("sub_agent tool call in {parent:#?}"));
    assert_eq!(spawn["detail"]["childSessionId"], json!(child), "{spawn}");
    assert_eq!(spawn["status"], "completed", "{spawn}");
    assert_eq!(
        spawn["detail"]["description"], "say hi from the sub-agent",
        "{spawn}"
    );

    // The model saw the spawn's result, and the sub-agent asked the model with its task.
    let requests = rig.mock.model_requests();
    assert!(
        requests
            .iter()
            .any(|r| r.body["input"].to_string().contains(r#"\"agent_id\":"#)),
        "the spawn_agent output reached the parent's next request"
    );
    assert!(
        requests.iter().any(|r| r.body["input"]
            .as_array()
            .and_then(|items| items.last())
            .is_some_and(|last| last.to_string().contains("say hi from the sub-agent"))),
        "the sub-agent's own request"
    );
    rig.finish("s-sub").await;
    rig.report("sub-agent");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_sub_agent_closes_its_child_session() {
    let Some(rig) = rig().await else { return };
    rig.open("s-close", json!({})).await;
    rig.mock.push_steps([ScriptReply::NamespacedToolCall {
        namespace: "multi_agent_v1".into(),
        name: "spawn_agent".into(),
        arguments: json!({"message": "say hi from the sub-agent"}),
    }]);
    let run = rig.run_turn("s-close", "delegate this").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let opened = rig
        .host
        .wait_event(
            |e| e.is("session.opened") && e.at("/parentSessionId") == Some(&json!("s-close")),
            STEP,
        )
        .await
        .expect("the child session opened");
    let child = opened.session_id().unwrap_or_default().to_string();
    // Its own turn ends first: a finished sub-agent can still be sent more work.
    rig.wait(&child, "timeline.item", |e| {
        e.at("/item/type") == Some(&json!("assistant_message"))
    })
    .await;
    assert!(
        !rig.host
            .events()
            .iter()
            .any(|e| e.is("session.closed") && e.session_id() == Some(child.as_str())),
        "open until the parent closes it"
    );

    // The parent closes the sub-agent: its child session is closed.
    let thread = child.rsplit(':').next().unwrap_or_default().to_string();
    rig.mock.push_steps([ScriptReply::NamespacedToolCall {
        namespace: "multi_agent_v1".into(),
        name: "close_agent".into(),
        arguments: json!({"target": thread}),
    }]);
    let run = rig.run_turn("s-close", "close it").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let closed = rig.wait(&child, "session.closed", |_| true).await;
    assert_eq!(closed.at("/error"), None, "{closed}");
    let closes = rig
        .host
        .events()
        .iter()
        .filter(|e| e.is("session.closed") && e.session_id() == Some(child.as_str()))
        .count();
    assert_eq!(closes, 1, "closed once");
    // The parent goes on.
    let run = rig.run_turn("s-close", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish("s-close").await;
    rig.report("sub-agent-closed");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_sub_agent_is_restored_with_its_parent() {
    let Some(rig) = rig().await else { return };
    let opened = rig.open("s-par", json!({})).await;
    let persistence = opened
        .iter()
        .find(|e| e.is("session.opened"))
        .and_then(|e| e.at("/persistence").cloned())
        .expect("persistence");
    rig.mock.push_steps([ScriptReply::NamespacedToolCall {
        namespace: "multi_agent_v1".into(),
        name: "spawn_agent".into(),
        arguments: json!({"message": "say hi from the sub-agent"}),
    }]);
    let run = rig.run_turn("s-par", "delegate this").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let first = rig
        .host
        .wait_event(
            |e| e.is("session.opened") && e.at("/parentSessionId") == Some(&json!("s-par")),
            STEP,
        )
        .await
        .expect("the child session opened");
    let thread = first
        .session_id()
        .and_then(|c| c.rsplit(':').next())
        .unwrap_or_default()
        .to_string();
    rig.wait(
        first.session_id().unwrap_or_default(),
        "timeline.item",
        |e| e.at("/item/type") == Some(&json!("assistant_message")),
    )
    .await;
    rig.finish("s-par").await;

    // A new bridge process resumes the parent: the child comes back with its history.
    let again = rig.reconnect().await;
    let events = again.resume("s-back", json!({}), persistence.clone()).await;
    let child = format!("s-back:codex-agent:{thread}");
    let restored = again
        .host
        .events()
        .into_iter()
        .find(|e| e.is("session.opened") && e.session_id() == Some(child.as_str()))
        .unwrap_or_else(|| panic!("child {child} restored: {:#?}", again.host.events()));
    assert_eq!(restored.at("/parentSessionId"), Some(&json!("s-back")));
    assert_eq!(
        restored.at("/restoration"),
        Some(&json!("parent")),
        "{restored}"
    );
    assert_eq!(
        restored.at("/title"),
        Some(&json!("say hi from the sub-agent"))
    );
    let child_rows = again.timeline(&child);
    assert!(
        child_rows.iter().any(|i| i["type"] == "assistant_message"
            && i["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("hi! (mock reply"))),
        "{child_rows:#?}"
    );
    let spawn = events
        .iter()
        .filter_map(|e| e.item())
        .find(|i| i["type"] == "tool_call" && i["detail"]["type"] == "sub_agent")
        .cloned()
        .expect("the replayed spawn");
    assert_eq!(spawn["detail"]["childSessionId"], json!(child), "{spawn}");

    // The restored child is the live one: closing the sub-agent closes it.
    rig.mock.push_steps([ScriptReply::NamespacedToolCall {
        namespace: "multi_agent_v1".into(),
        name: "close_agent".into(),
        arguments: json!({"target": thread}),
    }]);
    let run = again.run_turn("s-back", "close it").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    again.wait(&child, "session.closed", |_| true).await;
    again.finish("s-back").await;
    rig.report("sub-agent-restored");
}
