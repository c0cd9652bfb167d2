//! `deniedTools` end to end with the real pinned `codex app-server`: what Codex can switch off is
//! gone from the tool list the model is offered (the mock model records each request), and what
//! it cannot is named in a warning notice at open.

mod common;

use common::mcp::{last_turn_request, offered_tools, stdio};
use common::*;
use mock_llm::ScriptReply;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};

const UNENFORCED: &str = "codex-denied-tools-unenforced";

fn servers() -> Value {
    json!({"sess": stdio(&["echo", "ping"], None, json!({}))})
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn denied_tools_are_gone_from_the_model_request_and_the_rest_are_named_in_a_notice() {
    let Some(rig) = rig().await else { return };

    // Without deniedTools the model is offered all of them (the test is not vacuous).
    rig.open("s-all", json!({"mcpServers": servers()})).await;
    let run = rig.run_turn("s-all", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let all = offered_tools(&last_turn_request(&rig.mock));
    for tool in ["exec_command", "write_stdin", "web_search", "view_image"] {
        assert!(all.contains_key(tool), "{tool} offered: {all:#?}");
    }
    assert_eq!(
        all.get("mcp__sess"),
        Some(&vec!["echo".into(), "ping".into()])
    );
    rig.finish("s-all").await;

    let denied = [
        "Bash",
        "WebSearch",
        "view_image",
        "mcp__sess__echo",
        "Edit",
        "Read",
    ];
    rig.open(
        "s-deny",
        json!({"mcpServers": servers(), "deniedTools": denied}),
    )
    .await;
    let notice = rig
        .wait("s-deny", "session.notice", |e| {
            e.at("/notice/id") == Some(&json!(UNENFORCED))
        })
        .await;
    assert_eq!(
        notice.at("/notice/severity"),
        Some(&json!("warning")),
        "{notice}"
    );
    let text = notice
        .at("/notice/description")
        .and_then(Value::as_str)
        .unwrap_or_default();
    assert!(
        text.ends_with(": `Edit`, `Read`."),
        "exactly the unenforced names: {text}"
    );

    let run = rig.run_turn("s-deny", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let offered = offered_tools(&last_turn_request(&rig.mock));
    for tool in [
        "exec_command",
        "write_stdin",
        "shell",
        "web_search",
        "view_image",
    ] {
        assert!(!offered.contains_key(tool), "{tool} denied: {offered:#?}");
    }
    assert_eq!(offered.get("mcp__sess"), Some(&vec!["ping".into()]));
    // What was not denied stays.
    assert!(offered.contains_key("multi_agent_v1"), "{offered:#?}");
    rig.finish("s-deny").await;

    let notices: Vec<_> = rig
        .host
        .events()
        .into_iter()
        .filter(|e| e.is("session.notice"))
        .collect();
    assert_eq!(
        notices.len(),
        1,
        "only the denying session has a notice: {notices:#?}"
    );
    rig.report("denied-tools");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_denial_that_codex_fully_enforces_opens_without_a_notice_and_binds_sub_agents() {
    let Some(rig) = rig().await else { return };
    rig.open("s-sub", json!({"deniedTools": ["Bash"]})).await;
    rig.mock.push_steps([ScriptReply::NamespacedToolCall {
        namespace: "multi_agent_v1".into(),
        name: "spawn_agent".into(),
        arguments: json!({"message": "say hi from the sub-agent"}),
    }]);
    let run = rig.run_turn("s-sub", "delegate this").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);

    // The sub-agent runs on its own: its request may reach the mock after the parent's turn.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let sub = loop {
        let found = rig.mock.model_requests().into_iter().find(|r| {
            r.body["input"]
                .as_array()
                .and_then(|items| items.last())
                .is_some_and(|last| last.to_string().contains("say hi from the sub-agent"))
        });
        match found {
            Some(r) => break r,
            None if std::time::Instant::now() < deadline => {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await
            }
            None => panic!("the sub-agent's own request never reached the model"),
        }
    };
    let sub = &sub;
    let offered = offered_tools(sub);
    assert!(!offered.is_empty(), "the sub-agent is offered tools");
    assert!(
        !offered.contains_key("exec_command"),
        "the sub-agent has no shell either: {offered:#?}"
    );
    assert!(
        !rig.host.events().iter().any(|e| e.is("session.notice")),
        "nothing to warn about"
    );
    rig.finish("s-sub").await;
    rig.report("denied-tools-sub-agent");
}
