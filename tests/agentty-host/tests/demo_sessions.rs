//! Sessions across restarts of the plugin, the second opinion on the focused pane, what the
//! panel says while it is closed, and how the plugin stops (stdin closed, a tool still running).

mod support;

use agentty_host::{pane_session, AgenttyHost};
use serde_json::Value;
use std::time::Duration;
use support::*;

#[test]
fn a_session_resumes_from_the_list_after_a_restart_of_the_plugin() {
    let setup = Setup::new(|_| {});
    let first = setup.start(None);
    send(&first, "remember the word kiwi");
    row_with(&first, "bot", "You said: remember the word kiwi");
    wait_idle(&first);
    first.assert_clean();
    stop(&first);
    drop(first);

    let second = setup.start(None);
    let listed = second.wait_row("sessions", "the earlier session", STEP, |r| {
        r["title"] == "remember the word kiwi"
    });
    assert_eq!(
        second.with(|s| s.rows("timeline")).len(),
        0,
        "a new session shows"
    );
    second.select_row("sessions", listed["id"].as_str().expect("id"));
    // The demo replays its history into the timeline.
    row_with(&second, "message-square", "remember the word kiwi");
    row_with(&second, "bot", "You said: remember the word kiwi");
    send(&second, "and now?");
    row_with(&second, "bot", "You said: and now?");
    wait_idle(&second);
    // Still one session in the list: the resumed one.
    let sessions = second.with(|s| s.rows("sessions"));
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    second.assert_clean();
    let s = stop(&second);
    report("demo resume after restart", second.stats(), &s);
}

const PANE: &[(&str, &str)] = &[
    ("user", "The test flaky_io fails one run in ten. Fix it."),
    (
        "assistant",
        "I wrapped the read in a retry loop of three attempts.",
    ),
];

#[test]
fn a_second_opinion_reads_the_pane_and_its_reply_can_go_back_to_it() {
    let setup = Setup::new(|_| {});
    let host = setup.start(Some(pane_session(&setup.workspace, PANE)));
    host.type_text("prompt", "Is a retry the right fix?");
    let button = host.element("second_opinion", "button");
    assert_eq!(button["label"], "Ask Demo agent about this pane");
    host.click("second_opinion");
    // A new session: the question first, the pane's conversation as context.
    let asked = row_with(&host, "message-square", "Is a retry the right fix?");
    let text = asked["title"].as_str().unwrap_or("");
    assert!(
        text.contains("flaky_io") && text.contains("retry loop"),
        "{text}"
    );
    let reply = row_with(&host, "bot", "You said: Is a retry the right fix?");
    wait_idle(&host);
    host.wait_for("the prompt cleared", STEP, |s| {
        s.fields
            .get("prompt")
            .filter(|f| f.shown.is_empty())
            .map(|_| ())
    });
    let reply = host.wait_row("timeline", "the reply's `send_to_pane`", STEP, |r| {
        r["id"] == reply["id"] && has_action(r, "send_to_pane")
    });
    host.act(
        "timeline",
        reply["id"].as_str().expect("id"),
        "send_to_pane",
    );
    let injected = host.wait_for("prompt/inject", STEP, |s| s.injected.first().cloned());
    assert_eq!(injected["target"], "ask", "the user confirms where it goes");
    assert_eq!(injected["agent"], "claude");
    assert!(injected["text"]
        .as_str()
        .is_some_and(|t| t.starts_with("Hello from demo!")));
    host.wait_panel("the status of the inject", STEP, |s| {
        panel_text(s).contains("Agentty asks where the reply goes")
    });
    // The session/get request named the focused pane.
    let asked = host.with(|s| s.sent("session/get"));
    assert_eq!(asked[0]["params"]["paneId"], 7);
    host.assert_clean();
    let s = stop(&host);
    report("demo second opinion", host.stats(), &s);
}

#[test]
fn without_session_read_the_second_opinion_says_which_permission_is_missing() {
    let setup = Setup::new(|m| {
        // `mcp.tools` stays: Agentty refuses tools without it.
        m["permissions"] = serde_json::json!(["workspace.read", "mcp.tools"]);
    });
    let host = setup.start(Some(pane_session(&setup.workspace, PANE)));
    // From the palette this time: the command also brings the panel up.
    host.command("agent-bridge.secondOpinion");
    host.wait_panel("the missing permission named", STEP, |s| {
        panel_text(s).contains("needs the \\\"session.read\\\" permission")
    });
    host.wait_for("ui/showPanel", STEP, |s| s.shown.then_some(()));
    assert!(
        host.with(|s| s.rows("timeline")).is_empty(),
        "no session was started"
    );
    host.assert_clean();
    stop(&host);
}

#[test]
fn without_prompt_inject_sending_the_reply_back_says_which_permission_is_missing() {
    let setup = Setup::new(|m| {
        m["permissions"] = serde_json::json!(["session.read", "workspace.read", "mcp.tools"]);
    });
    let host = setup.start(Some(pane_session(&setup.workspace, PANE)));
    host.click("second_opinion");
    let reply = host.wait_row("timeline", "the reply's `send_to_pane`", STEP, |r| {
        r["icon"] == "bot" && has_action(r, "send_to_pane")
    });
    host.act(
        "timeline",
        reply["id"].as_str().expect("id"),
        "send_to_pane",
    );
    host.wait_panel("the missing permission named", STEP, |s| {
        panel_text(s).contains("needs the \\\"prompt.inject\\\" permission")
    });
    assert!(host.with(|s| s.injected.is_empty()), "Agentty refused it");
    host.assert_clean();
    stop(&host);
}

#[test]
fn sigterm_stops_the_plugin_and_its_sessions() {
    let setup = Setup::new(|_| {});
    let host = setup.start(None);
    host.choose("mode", "auto");
    host.wait_panel("mode auto", STEP, |s| {
        s.find("mode").is_some_and(|m| m["value"] == "auto")
    });
    send(&host, "run `sleep 30`");
    wait_for_process(&host, "sleep 30");
    let s = host.terminate();
    assert_eq!(s.signals, Vec::<&str>::new(), "SIGTERM alone was enough");
    assert!(s.elapsed < Duration::from_millis(1_500), "{:?}", s.elapsed);
    assert!(s.survivors.is_empty(), "left behind: {:?}", s.survivors);
    host.assert_clean();
}

#[test]
fn while_the_panel_is_closed_turn_ends_and_permissions_are_notified() {
    let setup = Setup::new(|_| {});
    let host = setup.start(None);
    send(&host, "run `echo notified`");
    host.close_panel();
    let asks = host.wait_for("a notification of the permission", STEP, |s| {
        s.notified.first().cloned()
    });
    assert_eq!(asks["kind"], "warning");
    assert!(asks["message"]
        .as_str()
        .is_some_and(|m| m.starts_with("Demo agent asks: Run")));
    let row = host.wait_row("timeline", "the permission", STEP, |r| {
        r["id"].as_str().is_some_and(|id| id.starts_with("perm:"))
    });
    host.act("timeline", row["id"].as_str().expect("id"), "allow");
    let done = host.wait_for("a notification of the turn's end", STEP, |s| {
        s.notified.get(1).cloned()
    });
    assert_eq!(done["kind"], "success");
    assert!(done["message"]
        .as_str()
        .is_some_and(|m| m.starts_with("Demo agent finished:")));
    // The palette command brings the panel back.
    host.command("agent-bridge.open");
    host.wait_for("ui/showPanel", STEP, |s| s.shown.then_some(()));
    host.assert_clean();
    stop(&host);
}

#[test]
fn a_running_tool_is_stopped_with_the_plugin_when_stdin_closes() {
    let setup = Setup::new(|_| {});
    let host = setup.start(None);
    host.choose("mode", "auto");
    host.wait_panel("mode auto", STEP, |s| {
        s.find("mode").is_some_and(|m| m["value"] == "auto")
    });
    send(&host, "run `sleep 30`");
    host.wait_row("timeline", "the running tool", STEP, |r| {
        r["title"] == "sleep 30" && r["tone"] == "info"
    });
    wait_for_process(&host, "sleep 30");
    let s = host.close_input();
    assert!(s.signals.is_empty(), "{:?}", s.signals);
    assert!(s.elapsed < Duration::from_millis(1_500), "{:?}", s.elapsed);
    assert!(
        s.recorded.iter().any(|p| p.cmdline.contains("sleep 30")),
        "{:?}",
        s.recorded
    );
    assert!(s.survivors.is_empty(), "left behind: {:?}", s.survivors);
    host.assert_clean();
    report("demo stdin closed during a tool", host.stats(), &s);
}

#[test]
fn when_agentty_quits_nothing_the_plugin_started_survives_it() {
    let setup = Setup::new(|_| {});
    let host = setup.start(None);
    host.choose("mode", "auto");
    host.wait_panel("mode auto", STEP, |s| {
        s.find("mode").is_some_and(|m| m["value"] == "auto")
    });
    send(&host, "run `sleep 30`");
    wait_for_process(&host, "sleep 30");
    // 150 ms is too short to close anything: the core's process guard sees its parent die.
    let s = host.quit();
    assert!(
        s.recorded.iter().any(|p| p.cmdline.contains("sleep 30")),
        "{:?}",
        s.recorded
    );
    assert!(s.survivors.is_empty(), "left behind: {:?}", s.survivors);
    host.assert_clean();
}

fn wait_for_process(host: &AgenttyHost, cmdline: &str) {
    let deadline = std::time::Instant::now() + STEP;
    while std::time::Instant::now() < deadline {
        let procs = agent_bridge_conformance::procs::descendants(host.pid);
        if procs.iter().any(|p| p.cmdline.contains(cmdline)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("no `{cmdline}` under the plugin");
}

fn has_action(row: &Value, action: &str) -> bool {
    row["actions"]
        .as_array()
        .is_some_and(|a| a.iter().any(|a| a["id"] == action))
}

fn panel_text(s: &agentty_host::State) -> String {
    serde_json::to_string(&s.panel).unwrap_or_default()
}
