//! An agent whose unattended switch is a process flag (profile `processModes`, Deep Agents
//! Code's `--yolo`): a session runs on a process of its mode, so the unattended mode holds on
//! every path a session opens by only if no path mixes the modes' processes. Each scenario
//! tells the processes apart by the flag on their command line: sessions of one mode share a
//! process, never one of the other mode; a spare is taken only by an open of its mode; a
//! restart starts the session's own mode again; a mode change moves the session to a process of
//! the new mode with its history, is refused while a turn runs, and leaves the session usable in
//! its old mode when the new process cannot take it.
//! (A fresh process after the catalog and a reopen are [`super::unattended`]'s, unchanged.)

use super::unattended::{asked, catalog, kill_9, runs_unasked, spare};
use super::{mode_patch, Case};
use agent_bridge_conformance::agent_groups::{agent_groups, group_id};
use agent_bridge_conformance::kill::{assert_gone, restarting_turn};
use agent_bridge_conformance::{AgentRig, ProcInfo};
use serde_json::{json, Value};

/// The agent process groups whose command line has the unattended mode's `flag` (`true`) or
/// has not (`false`).
fn groups(rig: &AgentRig, flag: &str, flagged: bool) -> Vec<Vec<ProcInfo>> {
    agent_groups(rig, rig.spec.cli)
        .into_iter()
        .filter(|g| g.iter().any(|p| p.cmdline.contains(flag)) == flagged)
        .collect()
}

fn the_one(mut found: Vec<Vec<ProcInfo>>, what: &str) -> Vec<ProcInfo> {
    assert_eq!(found.len(), 1, "one {what} process: {found:#?}");
    found.remove(0)
}

/// Two unattended sessions share the unattended mode's process; an asking session opened
/// between them runs on a process of its own mode and still asks.
pub async fn holds_on_a_shared_process_of_its_mode(rig: &AgentRig, case: Case, flag: &str) {
    catalog(rig).await;
    rig.open("pm-yolo-1", json!({ "mode": case.unattended_mode }))
        .await;
    rig.open("pm-ask", mode_patch(case.ask_mode)).await;
    rig.open("pm-yolo-2", json!({ "mode": case.unattended_mode }))
        .await;
    let unattended = the_one(groups(rig, flag, true), "unattended");
    let asking = the_one(groups(rig, flag, false), "asking");
    runs_unasked(rig, "pm-yolo-1", "shared-1.txt").await;
    runs_unasked(rig, "pm-yolo-2", "shared-2.txt").await;
    super::denied_touch(rig, "pm-ask", "asked.txt").await;
    assert_eq!(
        group_id(&the_one(groups(rig, flag, true), "unattended")),
        group_id(&unattended),
        "the unattended sessions share one process"
    );
    assert_eq!(
        group_id(&the_one(groups(rig, flag, false), "asking")),
        group_id(&asking)
    );
    for sid in ["pm-yolo-1", "pm-ask", "pm-yolo-2"] {
        rig.finish(sid).await;
    }
}

/// The rig keeps spares. An unattended session closes: its process stays as the spare of the
/// unattended launch. An asking open does not take it (and asks); after the catalog, an
/// unattended open takes it and runs unasked.
pub async fn holds_on_a_spare_of_its_mode(rig: &AgentRig, case: Case, flag: &str) {
    rig.open("pm-first", json!({ "mode": case.unattended_mode }))
        .await;
    let first = the_one(groups(rig, flag, true), "unattended");
    rig.finish("pm-first").await;
    let spare = spare(rig, &first).await;
    assert!(
        spare.iter().any(|p| p.cmdline.contains(flag)),
        "the spare is of the unattended launch: {spare:#?}"
    );
    rig.open("pm-asking", mode_patch(case.ask_mode)).await;
    super::denied_touch(rig, "pm-asking", "spare-asked.txt").await;
    catalog(rig).await;
    rig.open("pm-spare", json!({ "mode": case.unattended_mode }))
        .await;
    assert_eq!(
        group_id(&the_one(groups(rig, flag, true), "unattended")),
        group_id(&spare),
        "the unattended open took the spare"
    );
    runs_unasked(rig, "pm-spare", "spare.txt").await;
    rig.finish("pm-spare").await;
    rig.finish("pm-asking").await;
}

/// An unattended session and an asking one, each on its mode's process: the unattended process
/// is killed; the next prompt restarts it with the flag and runs unasked; the asking session,
/// untouched, still asks.
pub async fn holds_after_a_restart_of_its_process(rig: &AgentRig, case: Case, flag: &str) {
    catalog(rig).await;
    rig.open("pm-other", mode_patch(case.ask_mode)).await;
    let sid = "pm-restart";
    rig.open(sid, json!({ "mode": case.unattended_mode })).await;
    let run = rig.run_turn(sid, "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let asking = the_one(groups(rig, flag, false), "asking");
    let unattended = the_one(groups(rig, flag, true), "unattended");
    kill_9(&unattended);
    assert_gone(&unattended).await;
    let end = restarting_turn(rig, sid, "please run `touch restarted.txt`").await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    assert!(rig.cwd().join("restarted.txt").exists(), "the command ran");
    assert!(!asked(rig, sid), "the restarted session asked");
    the_one(groups(rig, flag, true), "restarted unattended");
    assert_eq!(
        group_id(&the_one(groups(rig, flag, false), "asking")),
        group_id(&asking)
    );
    super::denied_touch(rig, "pm-other", "other-asked.txt").await;
    rig.finish(sid).await;
    rig.finish("pm-other").await;
}

/// The words of the first turn, found in a model request only when the moved session kept
/// its history.
const REMEMBER: &str = "MANGO-MOVED-5";

fn mode_of(rig: &AgentRig, sid: &str) -> Option<Value> {
    rig.committed_config(sid).at("/config/mode").cloned()
}

/// A session opened asking runs a turn; a change to the unattended mode moves it to a process
/// started with the flag (the asking one goes), where the next command runs unasked and the
/// model sees the earlier turn; no earlier timeline item comes again. A change back asks again.
pub async fn a_mode_change_moves_the_session(rig: &AgentRig, case: Case, flag: &str) {
    let sid = "pm-move";
    rig.open(sid, mode_patch(case.ask_mode)).await;
    let run = rig
        .run_turn(sid, &format!("remember the word {REMEMBER}"))
        .await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let asking = the_one(groups(rig, flag, false), "asking");
    let items_before = rig.timeline(sid).len();
    let answer = rig
        .configure(sid, json!({ "mode": case.unattended_mode }))
        .await;
    assert!(answer.is("request.completed"), "{answer}");
    assert_eq!(mode_of(rig, sid), Some(json!(case.unattended_mode)));
    assert_gone(&asking).await;
    let unattended = the_one(groups(rig, flag, true), "unattended");
    assert_eq!(
        rig.timeline(sid).len(),
        items_before,
        "the reload's replay is not shown again"
    );
    let before = rig.mock.model_requests().len();
    runs_unasked(rig, sid, "moved.txt").await;
    let kept = rig.mock.model_requests()[before..]
        .iter()
        .any(|r| r.body.to_string().contains(REMEMBER));
    assert!(
        kept,
        "the moved session's model request has the earlier turn"
    );
    let back = rig.configure(sid, mode_patch(case.ask_mode)).await;
    assert!(back.is("request.completed"), "{back}");
    assert_gone(&unattended).await;
    super::denied_touch(rig, sid, "moved-back.txt").await;
    rig.finish(sid).await;
}

/// A mode change while a turn runs is refused (`turn_active`) and changes nothing: the turn
/// completes on its process and the session keeps its mode.
pub async fn a_mode_change_during_a_turn_is_refused(rig: &AgentRig, case: Case, flag: &str) {
    let sid = "pm-busy";
    rig.open(sid, mode_patch(case.ask_mode)).await;
    let mode_before = mode_of(rig, sid);
    let asking = the_one(groups(rig, flag, false), "asking");
    let (_, turn) = rig.start_turn(sid, "SLOW please").await;
    rig.wait_streaming(sid).await;
    let refused = rig
        .configure(sid, json!({ "mode": case.unattended_mode }))
        .await;
    assert!(refused.is("request.failed"), "{refused}");
    assert_eq!(
        refused.at("/error/code"),
        Some(&json!("turn_active")),
        "{refused}"
    );
    let end = rig.turn_end(sid, &turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    assert_eq!(mode_of(rig, sid), mode_before);
    assert!(groups(rig, flag, true).is_empty(), "no unattended process");
    assert_eq!(
        group_id(&the_one(groups(rig, flag, false), "asking")),
        group_id(&asking)
    );
    rig.finish(sid).await;
}

/// Two asking sessions share a process; one changes to the unattended mode. An agent that holds
/// a session as long as the process that opened it lives (Deep Agents Code: "Thread … is open
/// elsewhere") cannot take it on the new process: the change fails, the session is back on the
/// asking process in its old mode with its history, and still asks.
pub async fn a_mode_change_off_a_shared_process_fails_cleanly(
    rig: &AgentRig,
    case: Case,
    flag: &str,
) {
    rig.open("pm-stay", mode_patch(case.ask_mode)).await;
    let sid = "pm-held";
    rig.open(sid, mode_patch(case.ask_mode)).await;
    let run = rig
        .run_turn(sid, &format!("remember the word {REMEMBER}"))
        .await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let asking = the_one(groups(rig, flag, false), "asking");
    let mode_before = mode_of(rig, sid);
    let refused = rig
        .configure(sid, json!({ "mode": case.unattended_mode }))
        .await;
    assert!(refused.is("request.failed"), "{refused}");
    assert!(
        refused
            .at("/error/message")
            .and_then(Value::as_str)
            .is_some_and(|m| m.contains("it stays in mode")),
        "the failure says where the session is: {refused}"
    );
    assert_eq!(mode_of(rig, sid), mode_before);
    assert_eq!(
        group_id(&the_one(groups(rig, flag, false), "asking")),
        group_id(&asking),
        "back on the asking process"
    );
    let before = rig.mock.model_requests().len();
    super::denied_touch(rig, sid, "held.txt").await;
    let kept = rig.mock.model_requests()[before..]
        .iter()
        .any(|r| r.body.to_string().contains(REMEMBER));
    assert!(kept, "the session kept its history");
    rig.finish(sid).await;
    rig.finish("pm-stay").await;
}
