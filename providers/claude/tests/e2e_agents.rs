//! End-to-end sub-agents and plan approval (real bridge, real pinned `claude`, mock model).

mod common;

use common::*;
use mock_llm::ScriptReply;
use serde_json::{json, Value};

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sub_agent_gets_a_child_session_live_and_after_resume() {
    let Some(rig) = rig().await else { return };
    rig.open("s-sub", json!({"mode": "bypassPermissions"}))
        .await;
    rig.mock.push_steps([ScriptReply::ToolCall {
        name: "Agent".into(),
        arguments: json!({"description": "Greet", "prompt": "please run `echo sub`", "subagent_type": "general-purpose"}),
    }]);
    let run = rig.run_turn("s-sub", "delegate this").await;
    assert_eq!(run.state(), "completed");
    let child = rig
        .host
        .events()
        .into_iter()
        .find(|e| e.is("session.opened") && e.at("/parentSessionId") == Some(&json!("s-sub")))
        .expect("child session opened");
    assert_eq!(child.at("/restoration"), Some(&json!("parent")));
    assert_eq!(child.at("/title"), Some(&json!("Greet")));
    let child_id = child.session_id().unwrap_or_default().to_string();

    let parent = rig.timeline("s-sub");
    let agent = of_type(&parent, "tool_call")
        .into_iter()
        .find(|t| t["detail"]["type"] == "sub_agent")
        .cloned()
        .expect("sub_agent row");
    assert_eq!(agent["status"], "completed");
    assert_eq!(agent["detail"]["childSessionId"], child_id.as_str());
    assert_eq!(agent["detail"]["log"], "[Bash] echo sub");
    assert_eq!(agent["detail"]["subAgentType"], "general-purpose");
    let kids = rig.timeline(&child_id);
    let kinds: Vec<&str> = kids.iter().filter_map(|i| i["type"].as_str()).collect();
    assert_eq!(
        kinds,
        vec!["user_message", "tool_call", "assistant_message"],
        "{kids:#?}"
    );
    assert_eq!(kids[1]["detail"]["output"], "sub");
    // The sub-agent's rows stay out of the parent's timeline.
    assert!(!parent.iter().any(|i| i["detail"]["command"] == "echo sub"));
    let persistence = rig
        .wait("s-sub", "session.persistence", |_| true)
        .await
        .at("/persistence")
        .cloned()
        .unwrap_or_default();
    rig.finish("s-sub").await;

    // Resumed in a fresh bridge: the child is recreated with its replayed rows.
    let again = rig.reconnect().await;
    again
        .resume("s-sub2", json!({"mode": "bypassPermissions"}), persistence)
        .await;
    let host = &again.host;
    let child = host
        .events()
        .into_iter()
        .find(|e| e.is("session.opened") && e.at("/parentSessionId") == Some(&json!("s-sub2")))
        .expect("child recreated");
    let replayed = host.timeline(child.session_id().unwrap_or_default());
    let kinds: Vec<&str> = replayed.iter().filter_map(|i| i["type"].as_str()).collect();
    assert_eq!(
        kinds,
        vec!["user_message", "tool_call", "assistant_message"],
        "{replayed:#?}"
    );
    let ready = host
        .events()
        .into_iter()
        .find(|e| e.is_for("session.ready", "s-sub2"))
        .expect("ready");
    assert!(
        child.seq < ready.seq,
        "children are restored before the parent is ready"
    );
    again.finish("s-sub2").await;
    rig.report("sub-agent");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_approval_is_a_plan_permission_that_switches_mode() {
    let Some(rig) = rig().await else { return };
    rig.open("s-plan", json!({"mode": "plan"})).await;
    rig.mock.push_steps([ScriptReply::ToolCall {
        name: "ExitPlanMode".into(),
        arguments: json!({"plan": "1. Write the file\n2. Test it"}),
    }]);
    let (_, turn) = rig.start_turn("s-plan", "make a plan").await;
    let (ask, pid) = rig.wait_permission("s-plan", None).await;
    assert_eq!(ask.at("/request/kind"), Some(&json!("plan")));
    assert_eq!(
        ask.at("/request/detail"),
        Some(&json!({"type": "plan", "text": "1. Write the file\n2. Test it"}))
    );
    let actions: Vec<Value> = ask
        .at("/request/actions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    assert!(
        actions
            .iter()
            .any(|a| a["id"] == "implement" && a["behavior"] == "allow"),
        "{actions:?}"
    );
    rig.answer_permission(
        "s-plan",
        &pid,
        json!({"behavior": "allow", "selectedActionId": "implement"}),
    )
    .await;
    let end = rig.turn_end("s-plan", &turn).await;
    assert_eq!(end.turn_state(), Some("completed"));
    rig.wait("s-plan", "session.config", |e| {
        e.at("/config/mode") == Some(&json!("acceptEdits"))
    })
    .await;
    let plan = of_type(&rig.timeline("s-plan"), "tool_call")
        .into_iter()
        .find(|t| t["detail"]["type"] == "plan")
        .cloned();
    assert_eq!(plan.map(|p| p["status"].clone()), Some(json!("completed")));
    rig.finish("s-plan").await;
    rig.report("plan-approval");
}
