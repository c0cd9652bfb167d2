//! The demo agent driven through the panel under the emulated Agentty host: a turn, a tool
//! permission allowed and one denied, an interrupt, and a flood of timeline items kept inside
//! Agentty's limits.

mod support;

use agentty_host::AgenttyHost;
use std::time::Duration;
use support::*;

#[test]
fn a_demo_turn_streams_into_the_timeline_and_clears_the_prompt() {
    let setup = Setup::new(|_| {});
    let host = setup.start(None);
    send(&host, "hello agentty");
    let user = row_with(&host, "message-square", "hello agentty");
    assert_eq!(user["subtitle"], "You");
    let reply = row_with(&host, "bot", "You said: hello agentty");
    assert_eq!(reply["subtitle"], "Demo agent");
    wait_idle(&host);
    // The field is cleared once the prompt is sent (the tree echoes it once, then "").
    host.wait_for("the prompt cleared", STEP, |s| {
        let f = s.fields.get("prompt")?;
        (f.shown.is_empty() && f.from_plugin.is_empty()).then_some(())
    });
    host.wait_for("the badge cleared", STEP, |s| {
        s.badge.is_empty().then_some(())
    });
    // The session is listed for this workspace.
    let sessions = host.with(|s| s.rows("sessions"));
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    assert_eq!(sessions[0]["title"], "hello agentty");
    host.assert_clean();
    let s = stop(&host);
    report("demo turn", host.stats(), &s);
}

fn permission_row(host: &AgenttyHost) -> serde_json::Value {
    host.wait_row("timeline", "a permission row", STEP, |r| {
        r["id"].as_str().is_some_and(|id| id.starts_with("perm:"))
    })
}

#[test]
fn a_tool_permission_allowed_runs_and_one_denied_does_not() {
    let setup = Setup::new(|_| {});
    let host = setup.start(None);
    // The demo's default mode asks first.
    host.wait_panel("mode `ask`", STEP, |s| {
        s.find("mode").is_some_and(|m| m["value"] == "ask")
    });
    send(&host, "run `echo agentty-allowed`");
    let row = permission_row(&host);
    let actions: Vec<&str> = row["actions"]
        .as_array()
        .expect("actions")
        .iter()
        .filter_map(|a| a["id"].as_str())
        .collect();
    assert_eq!(actions, ["allow", "deny"], "the demo offers no `always`");
    assert_eq!(row["tone"], "warning");
    // Nothing runs until the user answers.
    std::thread::sleep(Duration::from_millis(300));
    let tool = row_with(&host, "square-terminal", "echo agentty-allowed");
    assert_eq!(tool["tone"], "info", "still waiting: {tool}");
    host.act("timeline", row["id"].as_str().expect("id"), "allow");
    let tool = host.wait_row("timeline", "the tool's output", STEP, |r| {
        r["title"] == "echo agentty-allowed" && r["tone"] == "success"
    });
    assert!(tool["detail"]
        .as_str()
        .is_some_and(|d| d.contains("agentty-allowed")));
    row_with(&host, "bot", "Command exited with code 0: agentty-allowed");
    wait_idle(&host);

    send(&host, "run `echo agentty-denied`");
    let row = permission_row(&host);
    host.act("timeline", row["id"].as_str().expect("id"), "deny");
    let tool = host.wait_row("timeline", "the denied tool", STEP, |r| {
        r["title"] == "echo agentty-denied" && r["tone"] == "error"
    });
    assert_eq!(tool["detail"], "Denied in the Agentty panel");
    row_with(&host, "bot", "The command was denied.");
    wait_idle(&host);
    assert!(
        host.with(|s| s.rows("timeline"))
            .iter()
            .all(|r| r["id"].as_str().is_some_and(|id| !id.starts_with("perm:"))),
        "no permission is left on the panel"
    );
    host.assert_clean();
    let s = stop(&host);
    report("demo permissions", host.stats(), &s);
}

#[test]
fn interrupt_ends_a_streaming_turn() {
    let setup = Setup::new(|_| {});
    let host = setup.start(None);
    send(&host, "SLOW please");
    row_with(&host, "bot", "word3");
    host.wait_panel("interrupt enabled", STEP, |s| {
        AgenttyHost::enabled(s, "interrupt")
    });
    host.click("interrupt");
    let row = host.wait_row("timeline", "the interrupted turn", STEP, |r| {
        r["title"] == "Interrupted"
    });
    assert_eq!(row["tone"], "warning");
    wait_idle(&host);
    let reply = row_with(&host, "bot", "word");
    assert!(
        !reply["title"].as_str().unwrap_or("").contains("word50"),
        "the reply stopped early"
    );
    // The badge counted the running turn, then went away.
    host.wait_for("the badge cleared", STEP, |s| {
        s.badge.is_empty().then_some(())
    });
    let badges: Vec<String> = host.with(|s| {
        s.sent("ui/setBadge")
            .iter()
            .map(|m| m["params"]["text"].as_str().unwrap_or("?").to_string())
            .collect()
    });
    assert_eq!(badges, ["1", ""], "{badges:?}");
    host.assert_clean();
    let s = stop(&host);
    report("demo interrupt", host.stats(), &s);
}

#[test]
fn a_flood_of_timeline_items_stays_inside_agenttys_limits() {
    let setup = Setup::new(|_| {});
    let host = setup.start(None);
    send(&host, "BENCH 3000");
    // The prompt and 3,000 items: the newest rows, the older ones summed up in one.
    host.wait_row(
        "timeline",
        "the older rows summed up",
        Duration::from_secs(60),
        |r| {
            let n = r["title"]
                .as_str()
                .and_then(|t| t.split(' ').next()?.parse::<u32>().ok());
            r["id"] == "earlier" && n.is_some_and(|n| n >= 2_880)
        },
    );
    row_with(&host, "bot", "t=");
    wait_idle(&host);
    let rows = host.with(|s| s.rows("timeline"));
    assert!(rows.len() <= 121, "{}", rows.len());
    send(&host, "SLOW again");
    row_with(&host, "bot", "word50");
    wait_idle(&host);
    let stats = host.stats();
    assert!(stats.max_window <= 240, "{stats:?}");
    assert!(stats.max_rate <= 240, "{stats:?}");
    assert!(
        stats.max_elements <= 2_000 && stats.max_depth <= 12,
        "{stats:?}"
    );
    host.assert_clean();
    let s = stop(&host);
    report("demo streaming (BENCH 3000 + SLOW)", stats, &s);
}
