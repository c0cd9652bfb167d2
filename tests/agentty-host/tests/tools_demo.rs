//! The plugin's tools (`tools/call`, API 4) called as an agent in an Agentty pane calls them,
//! against the demo agent: `list_agents`, `ask_agent` with its account of the tools the agent
//! ran, a conversation continued by its session id, a turn past the answer deadline collected
//! later, the 9th waiting call refused, and a permission that no one can answer.

mod support;

use agentty_host::tools::{ToolAnswer, ToolHost, MAX_PENDING};
use agentty_host::AgenttyHost;
use serde_json::{json, Value};
use support::*;

/// The plugin with the demo agent, its answer deadline set to `answer_ms` when given.
fn start(setup: &Setup, answer_ms: Option<u64>) -> AgenttyHost {
    let mut options = setup.options(None);
    if let Some(ms) = answer_ms {
        options
            .env
            .insert("AGENT_BRIDGE_TOOL_ANSWER_MS".into(), ms.to_string());
    }
    let host = AgenttyHost::start(options).expect("plugin starts");
    host.initialize();
    wait_agent(&host, "demo");
    host
}

/// `status` and `session` of an `ask_agent` answer's first line.
fn status(answer: &ToolAnswer) -> (String, String) {
    (answer.field("status"), answer.field("session"))
}

fn timing(agent: &str, tool: &str, answer: &ToolAnswer) {
    answer.report(agent, tool);
}

#[test]
fn list_agents_then_ask_agent_with_its_tools_then_continue_the_session() {
    let setup = Setup::new(|_| {});
    let host = start(&setup, None);
    let tools = ToolHost::new(&host);
    let declared: Vec<(&str, bool)> = tools
        .tools()
        .iter()
        .map(|t| (t.name.as_str(), t.read_only))
        .collect();
    assert_eq!(declared, [("list_agents", true), ("ask_agent", false)]);

    let listed = tools.call("list_agents", json!({}));
    timing("demo", "list_agents", &listed);
    assert!(!listed.is_error(), "{}", listed.text());
    let v: Value = serde_json::from_str(listed.text()).expect("JSON");
    let demo = v["agents"]
        .as_array()
        .and_then(|a| a.iter().find(|a| a["id"] == "demo"))
        .cloned()
        .expect("the demo is listed");
    assert_eq!(demo["available"], true);
    assert_eq!(demo["askAgentMode"], "ask");
    let models: Vec<&str> = demo["models"]
        .as_array()
        .expect("models")
        .iter()
        .filter_map(|m| m["id"].as_str())
        .collect();
    assert_eq!(models, ["demo-fast", "demo-smart"]);
    let claude = v["agents"]
        .as_array()
        .and_then(|a| a.iter().find(|a| a["id"] == "claude-bridge"))
        .cloned()
        .expect("Claude Code is listed");
    assert_eq!(claude["available"], false, "no CLI on this PATH");

    let asked = tools.call(
        "ask_agent",
        json!({"agent": "demo", "prompt": "run `echo tool-driven`", "mode": "auto"}),
    );
    timing("demo", "ask_agent", &asked);
    let (state, session) = status(&asked);
    assert_eq!(state, "completed", "{}", asked.text());
    assert!(session.starts_with("ab-"), "{}", asked.text());
    assert!(
        asked
            .text()
            .contains("Command exited with code 0: tool-driven"),
        "{}",
        asked.text()
    );
    assert!(
        asked
            .text()
            .contains("Tools it ran (1):\n- echo tool-driven (done)"),
        "{}",
        asked.text()
    );
    // The panel lists it with its own sessions.
    host.wait_row("sessions", "the tool's session", STEP, |r| {
        r["id"] == session.as_str()
            && r["title"]
                .as_str()
                .is_some_and(|t| t.starts_with("From a pane's agent: run `echo tool-driven`"))
    });

    let again = tools.call(
        "ask_agent",
        json!({"session": session, "prompt": "and once more"}),
    );
    timing("demo", "ask_agent (continued)", &again);
    assert_eq!(status(&again), ("completed".into(), session.clone()));
    assert!(
        again.text().contains("You said: and once more"),
        "{}",
        again.text()
    );
    assert!(
        again.text().contains("Tools it ran: none."),
        "{}",
        again.text()
    );
    host.assert_clean();
    stop(&host);
}

#[test]
fn a_turn_past_the_deadline_answers_in_time_and_the_rest_is_collected() {
    let setup = Setup::new(|_| {});
    // The demo's SLOW reply takes 10 s; the answer deadline is 1.5 s here (100 s in use).
    let host = start(&setup, Some(1_500));
    let tools = ToolHost::new(&host);
    let first = tools.call(
        "ask_agent",
        json!({"agent": "demo", "prompt": "take your time SLOW", "mode": "auto"}),
    );
    timing("demo", "ask_agent (over the limit)", &first);
    eprintln!("TOOLS-REPORT over-limit answer:\n{}", first.text());
    let (state, session) = status(&first);
    assert_eq!(state, "running", "{}", first.text());
    assert!(
        first.text().contains("Collect the rest with ask_agent"),
        "{}",
        first.text()
    );
    // The turn goes on in the panel's session; collecting waits for it, a deadline at a time.
    let mut collected = None;
    for _ in 0..30 {
        let next = tools.call("ask_agent", json!({"session": session}));
        timing("demo", "ask_agent (collect)", &next);
        match status(&next).0.as_str() {
            "running" => continue,
            _ => {
                collected = Some(next);
                break;
            }
        }
    }
    let collected = collected.expect("the turn ends");
    assert_eq!(status(&collected).0, "completed", "{}", collected.text());
    assert!(
        collected.text().contains("word50"),
        "the whole reply: {}",
        collected.text()
    );
    host.assert_clean();
    stop(&host);
}

#[test]
fn at_most_eight_calls_wait_and_a_shutdown_answers_them() {
    let setup = Setup::new(|_| {});
    let host = start(&setup, Some(60_000));
    let tools = ToolHost::new(&host);
    let calls: Vec<_> = (0..MAX_PENDING)
        .map(|n| {
            tools
                .send(
                    "ask_agent",
                    json!({"agent": "demo", "prompt": format!("job {n} SLOW"), "mode": "auto"}),
                )
                .expect("sent")
        })
        .collect();
    // Agentty refuses the 9th itself...
    let refused = tools
        .send("ask_agent", json!({"agent": "demo", "prompt": "one more"}))
        .expect_err("the host refuses a 9th");
    assert!(refused.contains("busy with 8 earlier calls"), "{refused}");
    // ...and the plugin does too, should a host send it.
    let id = host.request(
        "tools/call",
        json!({"name": "ask_agent", "arguments": {"agent": "demo", "prompt": "x"},
               "context": {}}),
    );
    let ninth = host.wait_for("the 9th call's answer", STEP, |s| {
        s.answers.get(&id).cloned()
    });
    let ninth = agentty_host::tools::agent_view(&ninth["result"]);
    assert!(
        ninth.is_error && ninth.text.contains("busy with 8 earlier calls"),
        "{ninth:?}"
    );
    // The badge counts the eight running turns of the panel's sessions.
    host.wait_for("eight turns running", STEP, |s| {
        (s.badge == "8").then_some(())
    });
    // Stopping answers every waiting call and leaves no process behind.
    stop(&host);
    for call in calls {
        let answer = tools.wait(call);
        assert!(answer.is_error(), "{}", answer.text());
        assert!(
            answer.text().contains("Agent Bridge is stopping"),
            "{}",
            answer.text()
        );
    }
}

#[test]
fn a_permission_fails_the_call_while_the_panel_is_closed_and_waits_in_it_while_open() {
    let setup = Setup::new(|_| {});
    let host = start(&setup, Some(60_000));
    let tools = ToolHost::new(&host);
    host.close_panel();
    // The demo's default (`ask`) asks before it runs a command.
    let failed = tools.call(
        "ask_agent",
        json!({"agent": "demo", "prompt": "run `echo never-ran`"}),
    );
    timing("demo", "ask_agent (permission, panel closed)", &failed);
    eprintln!("TOOLS-REPORT demo permission answer:\n{}", failed.text());
    assert!(failed.is_error(), "{}", failed.text());
    assert_eq!(status(&failed).0, "failed", "{}", failed.text());
    assert!(
        failed.text().contains("the Agent Bridge panel is closed"),
        "{}",
        failed.text()
    );
    assert!(
        !failed.text().contains("(done)"),
        "the command never ran: {}",
        failed.text()
    );

    host.open_panel();
    let call = tools
        .send(
            "ask_agent",
            json!({"agent": "demo", "prompt": "run `echo allowed-in-panel`"}),
        )
        .expect("sent");
    let row = host.wait_row("timeline", "the permission in the panel", STEP, |r| {
        r["id"].as_str().is_some_and(|id| id.starts_with("perm:"))
    });
    host.act("timeline", row["id"].as_str().expect("id"), "allow");
    let answer = tools.wait(call);
    assert_eq!(status(&answer).0, "completed", "{}", answer.text());
    assert!(
        answer.text().contains("allowed-in-panel (done)"),
        "{}",
        answer.text()
    );
    host.assert_clean();
    stop(&host);
}
