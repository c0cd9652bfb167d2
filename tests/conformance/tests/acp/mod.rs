//! The ACP provider family end to end: the real bridge, a real pinned ACP agent and the mock
//! model server. Each `agnostic_<agent>.rs` describes its agent in an [`Case`] and expands
//! [`acp_suite!`], which runs the provider-agnostic scenarios and the ACP ones below.
//!
//! Conventions of the mock: a prompt with run `CMD` makes the model call the agent's shell
//! tool; `SLOW` streams a long reply. In their asking modes the agents ask before a command
//! that writes a file (`touch`), so "the command did not run" is "the file does not exist".
#![allow(dead_code)]

pub mod daemons;
pub mod opencode_server;
pub mod process_modes;
pub mod server_password;
pub mod sessions;
pub mod shared;
pub mod unattended;
pub mod unstreamed;
pub mod warmup;

// Not every agent's suite runs both.
#[allow(unused_imports)]
pub use sessions::{reopen_in_a_fresh_bridge_replays, session_list_has_our_session};

use agent_bridge_conformance::rig::of_type;
use agent_bridge_conformance::{input, AgentRig, Event, HostOptions, RigSpec};
use serde_json::{json, Value};
use std::time::Duration;

/// The rig of an ACP suite: Node agents (Qwen, Gemini) and OpenCode take seconds to
/// initialize on a loaded machine, so requests may wait longer than the default 10 s.
pub async fn rig(spec: RigSpec) -> Option<AgentRig> {
    let options = HostOptions {
        request_timeout: Duration::from_secs(40),
        ..HostOptions::default()
    };
    AgentRig::start_in(spec, options, |cli, env| spec.launch(cli, env)).await
}

/// [`rig`] whose bridge keeps a spare `idle` seconds (`AGENT_BRIDGE_SPARE_IDLE_SECS`).
pub async fn spare_rig(spec: RigSpec, idle: &str) -> Option<AgentRig> {
    let options = HostOptions {
        request_timeout: Duration::from_secs(40),
        ..HostOptions::default()
    }
    .env(agent_bridge_core::spares::IDLE_ENV, idle);
    AgentRig::start_in(spec, options, |cli, env| spec.launch(cli, env)).await
}

/// What differs per agent in the scenarios.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    /// The mode that asks before a file-writing command (`None`: the default mode does).
    pub ask_mode: Option<&'static str>,
    /// The mode that runs tools without asking.
    pub unattended_mode: &'static str,
    /// A model to switch to (one the agent offers).
    pub other_model: Option<&'static str>,
    /// The mode a configure test opens in (`None`: the agent's default).
    pub start_mode: Option<&'static str>,
    /// A restarted agent resumes (or loads) its native session; else it starts a new one.
    pub keeps_context_on_restart: bool,
}

impl Case {
    /// The same agent for the kill scenarios ([`agent_bridge_conformance::kill`]).
    pub fn kill(self) -> agent_bridge_conformance::kill::KillCase {
        agent_bridge_conformance::kill::KillCase {
            ask_mode: self.ask_mode,
            unattended_mode: self.unattended_mode,
            keeps_context_on_restart: self.keeps_context_on_restart,
            saved_after_turn: false,
            streams_text: true,
            asks_again_after_restart: false,
        }
    }
}

fn mode_patch(mode: Option<&str>) -> Value {
    match mode {
        Some(m) => json!({ "mode": m }),
        None => json!({}),
    }
}

pub(crate) fn opened_persistence(events: &[Event]) -> Value {
    events
        .iter()
        .find(|e| e.is("session.opened"))
        .and_then(|e| e.at("/persistence").cloned())
        .expect("persistence at open")
}

/// A `touch` through the asking mode: the permission comes first, the file does not exist
/// until it is allowed, then the command runs and the turn completes.
pub async fn permission_allowed(rig: &AgentRig, case: Case) {
    let sid = "acp-allow";
    rig.open(sid, mode_patch(case.ask_mode)).await;
    let file = rig.cwd().join("allowed.txt");
    let (_, turn) = rig.start_turn(sid, "please run `touch allowed.txt`").await;
    let (ask, pid) = rig.wait_permission(sid, None).await;
    let actions = ask.at("/request/actions").cloned().unwrap_or_default();
    assert!(
        actions.as_array().is_some_and(|a| a.len() >= 2),
        "the agent's own options as actions: {ask}"
    );
    assert_eq!(
        ask.at("/request/detail/type"),
        Some(&json!("shell")),
        "{ask}"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!file.exists(), "the command ran before it was allowed");
    rig.answer_permission(sid, &pid, json!({"behavior": "allow"}))
        .await;
    let end = rig.turn_end(sid, &turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    assert!(file.exists(), "the allowed command ran");
    let timeline = rig.timeline(sid);
    let tools = of_type(&timeline, "tool_call");
    assert!(
        tools
            .iter()
            .any(|t| t["detail"]["type"] == "shell" && t["status"] == "completed"),
        "a completed shell call: {timeline:#?}"
    );
    rig.finish(sid).await;
}

/// The same command denied: it never runs and the turn ends.
pub async fn permission_denied(rig: &AgentRig, case: Case) {
    let sid = "acp-deny";
    rig.open(sid, mode_patch(case.ask_mode)).await;
    denied_touch(rig, sid, "denied.txt").await;
}

/// A `touch FILE` turn in `sid` asks; the permission is denied, the turn ends and the file is
/// never written.
pub async fn denied_touch(rig: &AgentRig, sid: &str, file: &str) {
    let (_, turn) = rig
        .start_turn(sid, &format!("please run `touch {file}`"))
        .await;
    let (_, pid) = rig.wait_permission(sid, None).await;
    rig.answer_permission(sid, &pid, json!({"behavior": "deny", "message": "no"}))
        .await;
    let end = rig.turn_end(sid, &turn).await;
    assert!(
        matches!(end.turn_state(), Some("completed" | "canceled")),
        "{end}"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!rig.cwd().join(file).exists(), "the denied command ran");
}

/// An interrupt while a permission is pending answers it `cancelled` and cancels the turn;
/// the command never runs and the next turn works.
pub async fn interrupt_with_a_pending_permission(rig: &AgentRig, case: Case) {
    let sid = "acp-int-perm";
    rig.open(sid, mode_patch(case.ask_mode)).await;
    let file = rig.cwd().join("interrupted.txt");
    let (_, turn) = rig
        .start_turn(sid, "please run `touch interrupted.txt`")
        .await;
    let (_, pid) = rig.wait_permission(sid, None).await;
    let answer = rig.interrupt(sid).await;
    assert!(answer.is("request.completed"), "{answer}");
    rig.wait_resolved(sid, &pid).await;
    let end = rig.turn_end(sid, &turn).await;
    assert_eq!(end.turn_state(), Some("canceled"), "{end}");
    assert!(!file.exists(), "the command of a cancelled permission ran");
    let run = rig.run_turn(sid, "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish(sid).await;
}

/// The unattended mode runs the command without asking.
pub async fn unattended_mode_runs_without_asking(rig: &AgentRig, case: Case) {
    let sid = "acp-yolo";
    rig.open(sid, json!({ "mode": case.unattended_mode })).await;
    let run = rig.run_turn(sid, "please run `touch unattended.txt`").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    assert!(rig.cwd().join("unattended.txt").exists(), "the command ran");
    let asked = rig
        .host
        .session_events(sid)
        .into_iter()
        .any(|e| e.is("session.permission"));
    assert!(!asked, "the unattended mode asked");
    // A completed command shows its output.
    let run = rig.run_turn(sid, "please run `echo SHOWN-OUTPUT-7`").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let outputs: Vec<String> = of_type(&rig.timeline(sid), "tool_call")
        .into_iter()
        .filter(|t| {
            t["detail"]["command"]
                .as_str()
                .unwrap_or("")
                .contains("SHOWN-OUTPUT-7")
        })
        .map(|t| t["detail"]["output"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(
        outputs.iter().any(|o| o.trim() == "SHOWN-OUTPUT-7"),
        "the command's output, and only it, is shown: {outputs:?}"
    );
    rig.finish(sid).await;
}

/// A mode and a model change through `session.configure`; an unknown value is refused and
/// changes nothing.
pub async fn mode_and_model_change(rig: &AgentRig, case: Case) {
    let sid = "acp-cfg";
    let opened = rig.open(sid, mode_patch(case.start_mode)).await;
    let config = opened
        .iter()
        .find(|e| e.is("session.config"))
        .and_then(|e| e.at("/config").cloned())
        .expect("config at open");
    let mode_before = config["mode"].clone();
    let refused = rig
        .configure(
            sid,
            json!({"mode": case.unattended_mode, "model": "no-such-model"}),
        )
        .await;
    assert!(refused.is("request.failed"), "{refused}");
    let mut changes = json!({ "mode": case.unattended_mode });
    if let Some(model) = case.other_model {
        changes["model"] = json!(model);
    }
    let answer = rig.configure(sid, changes).await;
    assert!(answer.is("request.completed"), "{answer}");
    let committed = rig.committed_config(sid);
    assert_ne!(committed.at("/config/mode"), Some(&mode_before));
    assert_eq!(
        committed.at("/config/mode"),
        Some(&json!(case.unattended_mode))
    );
    if let Some(model) = case.other_model {
        assert_eq!(committed.at("/config/model"), Some(&json!(model)));
    }
    let run = rig.run_turn(sid, "please run `touch configured.txt`").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    assert!(
        rig.cwd().join("configured.txt").exists(),
        "the new mode ran it unasked"
    );
    rig.finish(sid).await;
}

/// A model change alone, for agents with one mode (Grok Build, Pi): an unknown model is refused,
/// `model` is committed, and the next turn's model request names `wire_model`.
pub async fn model_change(rig: &AgentRig, model: &str, wire_model: &str) {
    let sid = "acp-model";
    rig.open(sid, json!({})).await;
    let refused = rig.configure(sid, json!({"model": "no-such-model"})).await;
    assert!(refused.is("request.failed"), "{refused}");
    let answer = rig.configure(sid, json!({ "model": model })).await;
    assert!(answer.is("request.completed"), "{answer}");
    let committed = rig.committed_config(sid);
    assert_eq!(committed.at("/config/model"), Some(&json!(model)));
    let before = rig.mock.model_requests().len();
    let run = rig.run_turn(sid, "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let asked: Vec<Value> = rig.mock.model_requests()[before..]
        .iter()
        .filter_map(|r| r.body.get("model").cloned())
        .collect();
    assert!(
        asked.contains(&json!(wire_model)),
        "the turn asks the new model: {asked:?}"
    );
    rig.finish(sid).await;
}

/// Offline: a session with a tool turn, closed, sends nothing past the mock (no request reached
/// its proxy trap, which every proxy variable of the recipe points at).
pub async fn nothing_goes_past_the_mock(rig: &AgentRig) {
    nothing_goes_past_the_mock_in(rig, json!({})).await;
}

/// [`nothing_goes_past_the_mock`] in the mode of `patch` (one that runs `echo` unasked).
pub async fn nothing_goes_past_the_mock_in(rig: &AgentRig, patch: Value) {
    let sid = "acp-offline";
    rig.open(sid, patch).await;
    let run = rig.run_turn(sid, "please run `echo offline`").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish(sid).await;
    let outbound: Vec<String> = rig
        .mock
        .proxy_refused()
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect();
    assert!(outbound.is_empty(), "requests past the mock: {outbound:?}");
}

/// A command the agent advertised (`session.commands`) runs as a turn that completes.
pub async fn command_runs_as_a_turn(rig: &AgentRig, name: &str) {
    let sid = "acp-cmd";
    rig.open(sid, json!({})).await;
    // Some agents advertise their commands only once a turn ran.
    let listed = |rig: &AgentRig| {
        rig.host.session_events(sid).into_iter().any(|e| {
            e.is("session.commands")
                && e.at("/commands")
                    .and_then(Value::as_array)
                    .is_some_and(|c| c.iter().any(|c| c["name"] == name))
        })
    };
    if !listed(rig) {
        let run = rig.run_turn(sid, "say hi").await;
        assert_eq!(run.state(), "completed", "{:?}", run.end);
    }
    rig.wait(sid, "session.commands", |e| {
        e.at("/commands")
            .and_then(Value::as_array)
            .is_some_and(|c| c.iter().any(|c| c["name"] == name))
    })
    .await;
    let before = rig.mock.model_requests().len();
    let cmid = rig.host.unique("cmd");
    rig.send(input::command(sid, &cmid, name, "")).await;
    let result = rig.prompt_result(sid, &cmid).await;
    assert_eq!(result["type"], "turn", "{result}");
    let turn = result["turnId"].as_str().unwrap_or_default().to_string();
    let end = rig.turn_end(sid, &turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    assert!(
        rig.mock.model_requests().len() > before,
        "the command reached the model"
    );
    rig.finish(sid).await;
}

/// The catalog (from a probe `session/new`) lists the agent's modes, the unattended one
/// marked, and the model to switch to.
pub async fn catalog_lists_models_and_modes(rig: &AgentRig, case: Case) {
    let answer = rig
        .ask("cat", |rid| json!({"type": "catalog", "requestId": rid, "cwd": rig.cwd().display().to_string()}))
        .await;
    assert!(answer.is("catalog"), "{answer}");
    let catalog = answer.at("/catalog").cloned().unwrap_or_default();
    let modes = catalog["modes"].as_array().cloned().unwrap_or_default();
    let unattended = modes
        .iter()
        .find(|m| m["id"] == case.unattended_mode)
        .unwrap_or_else(|| panic!("the unattended mode is offered: {catalog:#}"));
    assert!(catalog["defaultMode"].is_string(), "{catalog:#}");
    if let Some(model) = case.other_model {
        assert!(
            catalog["models"]
                .as_array()
                .is_some_and(|m| m.iter().any(|m| m["id"] == model)),
            "the model `{model}` is offered: {catalog:#}"
        );
    }
    // The profile's unattended modes are marked (OpenCode and Kilo have none of their own:
    // their `yolo` is the test's agent).
    let expected = !matches!(rig.spec.cli, "opencode" | "kilo");
    assert_eq!(unattended["isUnattended"], json!(expected), "{unattended}");
    rig.host.assert_invariants();
}

/// A session opened and prompted: every process carrying the agent's HOME is in the agent's
/// process group (the group a close stops; Cline without its local session backend starts a
/// hub daemon in a session of its own, which a graceful exit of the agent leaves behind, parent
/// 1); once closed, none is left.
pub async fn no_process_is_left_behind(rig: &AgentRig) {
    let sid = "acp-leftover";
    rig.open(sid, json!({})).await;
    let run = rig.run_turn(sid, "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let group = rig
        .cli_procs()
        .first()
        .map(|p| p.pgid)
        .expect("the agent's process");
    let outside: Vec<String> = ours(rig)
        .into_iter()
        .filter(|p| p.pgid != group)
        .map(|p| {
            format!(
                "{} (group {}, parent {}): {}",
                p.pid, p.pgid, p.ppid, p.cmdline
            )
        })
        .collect();
    assert!(
        outside.is_empty(),
        "processes of the agent outside its process group {group}: {outside:#?}"
    );
    rig.finish(sid).await;
    nothing_left(rig, "its close").await;
}

/// Every process whose environment has the rig's HOME (the agent, its daemons, their children).
pub fn ours(rig: &AgentRig) -> Vec<agent_bridge_conformance::ProcInfo> {
    let home = format!("HOME={}", rig.env.home.display());
    agent_bridge_conformance::procs::all_procs()
        .into_iter()
        .filter(|p| {
            std::fs::read(format!("/proc/{}/environ", p.pid))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|var| var == home.as_bytes()))
        })
        .collect()
}

/// Waits (10 s at most) until no process of [`ours`] is left; `after` names what should have
/// ended them.
pub async fn nothing_left(rig: &AgentRig, after: &str) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let mut left = ours(rig);
    while !left.is_empty() && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
        left = ours(rig);
    }
    let left: Vec<String> = left
        .iter()
        .map(|p| {
            format!(
                "{} (group {}, parent {}): {}",
                p.pid, p.pgid, p.ppid, p.cmdline
            )
        })
        .collect();
    assert!(
        left.is_empty(),
        "processes of the agent outlived {after}: {left:#?}"
    );
}

/// A 1x1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// An image prompt (the agent advertises `promptCapabilities.image`): the image reaches the
/// model and the turn completes.
pub async fn image_prompt_reaches_the_model(rig: &AgentRig) {
    let sid = "acp-image";
    rig.open(sid, json!({})).await;
    let cmid = rig.host.unique("img");
    let content = json!([
        {"type": "text", "text": "what is in this picture?"},
        {"type": "image", "data": PNG, "mimeType": "image/png"}
    ]);
    rig.send(json!({
        "type": "session.prompt", "sessionId": sid,
        "prompt": {"clientMessageId": cmid, "delivery": "auto",
                   "input": {"type": "message", "content": content}},
    }))
    .await;
    let result = rig.prompt_result(sid, &cmid).await;
    assert_eq!(result["type"], "turn", "{result}");
    let turn = result["turnId"].as_str().unwrap_or_default().to_string();
    let end = rig.turn_end(sid, &turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    let sent = rig
        .mock
        .model_requests()
        .iter()
        .any(|r| r.body.to_string().contains(&PNG[..40]));
    assert!(sent, "the image reached the model");
    rig.finish(sid).await;
}

/// Appends the ACP traffic the bridge logged for this test ("ACP traffic seen: ..." at each
/// session close) to the file named by `AGENT_BRIDGE_ACP_TRAFFIC`, if set: the record of which
/// methods and update kinds each pinned agent really sent.
pub fn record_traffic(rig: &AgentRig, scenario: &str) {
    record_stderr(rig, &rig.host.stderr(), scenario);
}

/// [`record_traffic`] of one bridge's stderr.
pub(crate) fn record_stderr(rig: &AgentRig, stderr: &str, scenario: &str) {
    let Ok(path) = std::env::var("AGENT_BRIDGE_ACP_TRAFFIC") else {
        return;
    };
    let mut lines = String::new();
    for line in stderr.lines().filter(|l| l.contains("ACP traffic seen")) {
        lines.push_str(&format!(
            "{} {} {scenario}: {line}\n",
            rig.spec.cli, rig.version
        ));
    }
    use std::io::Write;
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = f.write_all(lines.as_bytes());
    }
}

/// One `#[ignore]`d test per scenario; `$rig` is an async fn returning `Option<AgentRig>`.
#[macro_export]
macro_rules! acp_tests {
    ($rig:ident; $($name:ident => |$r:ident| $body:expr;)*) => {$(
        #[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $name() {
            let Some($r) = $rig().await else { return };
            $body.await;
            $r.report(stringify!($name));
            acp::record_traffic(&$r, stringify!($name));
        }
    )*};
}
