//! The panel as a user of the real Agentty meets it: Enter in `prompt` sends the prompt (a
//! one-line field: in a text area Enter only adds a line), a paste with line breaks is sent as
//! one line, consent is asked before the first start, and a second opinion asked on a shell pane
//! says why there is nothing to read.

mod support;

use agentty_host::{pane_session, shell_context, AgenttyHost, Consent};
use serde_json::json;
use support::*;

#[test]
fn enter_in_the_prompt_sends_it() {
    let setup = Setup::new(|_| {});
    let host = setup.start(None);
    let field = host.element("prompt", "input");
    assert!(
        field["rows"].as_u64().unwrap_or(0) <= 1,
        "a one-line field, the only kind Enter submits: {field}"
    );
    host.type_text("prompt", "what is in this folder?");
    host.submit("prompt");
    row_with(&host, "message-square", "what is in this folder?");
    row_with(&host, "bot", "You said: what is in this folder?");
    wait_idle(&host);
    host.wait_for("the prompt cleared", STEP, |s| {
        s.fields
            .get("prompt")
            .filter(|f| f.shown.is_empty())
            .map(|_| ())
    });
    // Pressed with nothing typed, Enter sends nothing.
    let before = host.with(|s| s.rows("timeline").len());
    host.submit("prompt");
    host.type_text("prompt", "second");
    host.submit("prompt");
    row_with(&host, "bot", "You said: second");
    let prompts = host.with(|s| {
        s.rows("timeline")
            .iter()
            .filter(|r| r["icon"] == "message-square")
            .count()
    });
    assert_eq!(prompts, 2, "{before} rows before");
    wait_idle(&host);
    host.assert_clean();
    let s = stop(&host);
    report("demo enter sends", host.stats(), &s);
}

#[test]
fn a_paste_with_line_breaks_is_sent_as_one_line() {
    let setup = Setup::new(|_| {});
    let host = setup.start(None);
    host.paste("prompt", "first line\nsecond line\r\nthird");
    assert_eq!(
        host.field("prompt"),
        "first line second line\r third",
        "Agentty joins the lines of a paste into a one-line field"
    );
    host.submit("prompt");
    row_with(&host, "bot", "You said: first line second line third");
    wait_idle(&host);
    host.assert_clean();
    stop(&host);
}

#[test]
fn consent_is_asked_before_the_first_start_and_again_for_more() {
    let setup = Setup::new(|_| {});
    let mut options = setup.options(None);
    options.consent = Consent::Refuse;
    let err = AgenttyHost::start(options.clone())
        .err()
        .expect("refused: not started");
    assert!(
        err.contains("session.read, prompt.inject, workspace.read, mcp.tools"),
        "{err}"
    );
    assert!(
        !setup.data_dir.exists(),
        "nothing ran: not even the data folder was made"
    );

    options.consent = Consent::Allow;
    let first = AgenttyHost::start(options.clone()).expect("allowed");
    assert_eq!(
        first.consent_asked.as_deref(),
        Some(
            &[
                "session.read".into(),
                "prompt.inject".into(),
                "workspace.read".into(),
                "mcp.tools".into()
            ][..]
        )
    );
    first.initialize();
    stop(&first);
    drop(first);

    // Allowed once, not asked again: a refusal now would not matter.
    options.consent = Consent::Refuse;
    let again = AgenttyHost::start(options.clone()).expect("granted already");
    assert_eq!(again.consent_asked, None);
    again.initialize();
    stop(&again);
    drop(again);

    // An update asking for more asks for the new set.
    let manifest = setup.plugin_dir.join("agentty-plugin.json");
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).expect("read")).expect("json");
    m["permissions"] = json!([
        "session.read",
        "prompt.inject",
        "workspace.read",
        "mcp.tools",
        "net.request"
    ]);
    std::fs::write(&manifest, m.to_string()).expect("write");
    assert!(
        AgenttyHost::start(options.clone()).is_err(),
        "asked, refused"
    );
    options.consent = Consent::Allow;
    let updated = AgenttyHost::start(options).expect("allowed");
    assert_eq!(updated.consent_asked.as_ref().map(Vec::len), Some(5));
    updated.initialize();
    stop(&updated);
}

#[test]
fn a_second_opinion_on_a_shell_pane_says_there_is_no_conversation() {
    let setup = Setup::new(|_| {});
    let mut options = setup.options(Some(pane_session(
        &setup.workspace,
        &[("user", "never read")],
    )));
    options.context = shell_context(&setup.workspace);
    let host = AgenttyHost::start(options).expect("starts");
    host.initialize();
    wait_agent(&host, "demo");
    host.click("second_opinion");
    host.wait_panel("why there is nothing to read", STEP, |s| {
        serde_json::to_string(&s.panel)
            .unwrap_or_default()
            .contains(
                "Cannot read the pane's conversation: the pane is not running Claude Code or Codex",
            )
    });
    let asked = host.with(|s| s.sent("session/get"));
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0]["params"]["paneId"], 8, "the shell pane was named");
    assert!(
        host.with(|s| s.rows("timeline")).is_empty(),
        "no session was started"
    );
    host.assert_clean();
    stop(&host);
}
