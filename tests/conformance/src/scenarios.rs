//! Provider-agnostic scenarios: the same steps and checks over any provider behind a connected
//! [`Bridge`] (the demo, and the real pinned CLIs against the mock model server). They rely on
//! one convention shared by the demo and mock-llm: a prompt containing `SLOW` streams its
//! reply slowly (seconds), so an interrupt or a close lands inside a running turn.
//!
//! Every event of a scenario is checked on arrival by both schemas and the invariant checker;
//! each scenario ends with [`BridgeHost::assert_invariants`](crate::BridgeHost). "Processes"
//! are every live descendant of the bridge: a scenario expects a bridge whose only processes
//! are its sessions' (for claude-bridge, spares off).

use crate::procs::{self, ProcInfo};
use crate::rig::{of_type, Bridge, STEP};
use crate::{input, Event};
use serde_json::json;
use std::path::Path;
use std::time::{Duration, Instant};

/// A prompt whose reply streams slowly on every provider of the suite.
pub const SLOW_PROMPT: &str = "SLOW please tell a long story";

/// How long `provider/close` may take with a turn running: the stop path of docs/wire.md
/// (stdin closed, SIGTERM after 1.5 s, SIGKILL after 1.5 s more) and some slack.
pub const CLOSE_LIMIT: Duration = Duration::from_millis(4500);

/// A probe the bridge runs for a provider's installation, not for a session: Codex's
/// `codex sandbox -- true`, started once per installation while a first session opens and
/// ending by itself within its 15 s limit (on a loaded machine it can outlast a short session).
fn is_installation_probe(p: &ProcInfo) -> bool {
    p.cmdline.ends_with(" sandbox -- true")
}

/// Longest an installation probe runs (its limit, and some slack).
const PROBE_LIMIT: Duration = Duration::from_secs(17);

/// Panics unless the bridge has no live descendant and none of `recorded` survives (an
/// installation probe still running, and nothing else, is waited for first).
async fn assert_no_processes(b: &Bridge, recorded: &[ProcInfo], what: &str) {
    let deadline = Instant::now() + PROBE_LIMIT;
    let (alive, survivors) = loop {
        let alive = b.host.descendants();
        let survivors = procs::survivors(recorded);
        let probing = alive.iter().chain(&survivors).any(is_installation_probe)
            && alive.iter().chain(&survivors).all(is_installation_probe);
        if !probing || Instant::now() >= deadline {
            break (alive, survivors);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        alive.is_empty() && survivors.is_empty(),
        "{what}: processes left under the bridge {alive:#?}, survivors {survivors:#?}\nstderr:\n{}",
        b.host.stderr()
    );
}

/// The `session.closed` of `sid`, which must come after its turn `turn` ended (if any).
async fn closed_after_turn(b: &Bridge, sid: &str, turn: Option<&str>) -> Event {
    let closed = b.wait(sid, "session.closed", |_| true).await;
    if let Some(turn) = turn {
        let end = b.turn_end(sid, turn).await;
        assert!(
            end.seq < closed.seq,
            "the turn's terminal state comes before session.closed: {end} / {closed}"
        );
    }
    closed
}

/// open -> prompt -> turn completed with assistant text -> close (answered, processes gone).
pub async fn open_prompt_completes(b: &Bridge) {
    let sid = "agn-turn";
    let opened = b.open(sid, json!({})).await;
    assert!(opened.iter().any(|e| e.is("session.ready")), "{opened:?}");
    let run = b.run_turn(sid, "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let timeline = b.timeline(sid);
    assert!(
        of_type(&timeline, "assistant_message")
            .iter()
            .any(|i| i["text"].as_str().is_some_and(|t| !t.is_empty())),
        "assistant text in the timeline: {timeline:#?}"
    );
    let recorded = b.host.descendants();
    b.finish(sid).await;
    closed_after_turn(b, sid, None).await;
    assert_no_processes(b, &recorded, "after session.close").await;
    b.host.assert_invariants();
}

/// An interrupt of a streaming turn is answered and cancels exactly that turn; the session
/// then completes another turn.
pub async fn interrupt_cancels_a_running_turn(b: &Bridge) {
    let sid = "agn-int";
    b.open(sid, json!({})).await;
    let (_, turn) = b.start_turn(sid, SLOW_PROMPT).await;
    b.wait_streaming(sid).await;
    let answer = b.interrupt(sid).await;
    assert!(answer.is("request.completed"), "{answer}");
    let end = b.turn_end(sid, &turn).await;
    assert_eq!(end.turn_state(), Some("canceled"), "{end}");
    let run = b.run_turn(sid, "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    assert_ne!(run.turn_id, turn, "a new turn");
    b.finish(sid).await;
}

/// `session.close` while a turn streams: answered with `request.completed`, the turn ends
/// before `session.closed`, nothing follows it, and no process is left when the answer comes.
pub async fn close_during_a_turn(b: &Bridge) {
    let sid = "agn-close";
    b.open(sid, json!({})).await;
    let (_, turn) = b.start_turn(sid, SLOW_PROMPT).await;
    b.wait_streaming(sid).await;
    let recorded = b.host.descendants();
    let answer = b.ask("close", |rid| input::close(rid, sid)).await;
    assert!(answer.is("request.completed"), "{answer}");
    assert_no_processes(b, &recorded, "when session.close is answered").await;
    closed_after_turn(b, sid, Some(&turn)).await;
    b.host.assert_invariants();
}

/// `provider/close` while a turn streams: answered in time, no process left, the connection
/// refuses further input, every started turn ended.
pub async fn provider_close_during_a_turn(b: &Bridge) {
    let sid = "agn-pclose";
    b.open(sid, json!({})).await;
    let (_, turn) = b.start_turn(sid, SLOW_PROMPT).await;
    b.wait_streaming(sid).await;
    let recorded = b.host.descendants();
    let started = Instant::now();
    if let Err(e) = b.host.close_connection(&b.conn).await {
        panic!("provider/close: {e:?}\nstderr:\n{}", b.host.stderr());
    }
    assert!(
        started.elapsed() < CLOSE_LIMIT,
        "provider/close took {:?}",
        started.elapsed()
    );
    assert_no_processes(b, &recorded, "when provider/close is answered").await;
    let refused = b.host.send(&b.conn, input::catalog("after-close")).await;
    assert_eq!(
        refused.as_ref().map_err(|e| e.code),
        Err(-32002),
        "input on a closed connection: {refused:?}"
    );
    let end = b.host.wait_turn_end(sid, &turn, Duration::ZERO).await;
    assert!(
        end.is_ok(),
        "the running turn ended before provider/close answered"
    );
    b.host.assert_invariants();
}

/// `session.close` right after `session.open`, before `session.ready`: the close is answered
/// with `request.completed` once no process is left; the open gets exactly one answer —
/// `request.failed` (canceled: no event announces the session), or `session.ready` then
/// `session.closed` when the bridge finished it first — and nothing for the session follows. With `cli`, the close is sent once a process of that
/// CLI runs under the bridge (the open is under way); without, at once.
pub async fn close_during_open(b: &Bridge, cli: Option<&Path>) {
    let sid = "agn-open-close";
    let open_rid = b.host.unique("open");
    let config = input::session_config(&b.cwd(), json!({}));
    b.send(input::open(&open_rid, sid, config)).await;
    let mut recorded = Vec::new();
    if let Some(cli) = cli {
        recorded = wait_for_cli(b, cli).await;
    }
    let ready_first = b
        .host
        .events()
        .iter()
        .any(|e| e.is_for("session.ready", sid));
    assert!(
        !ready_first,
        "the open finished before the close could be sent: the scenario did not happen"
    );
    let close_rid = b.host.unique("close");
    b.send(input::close(&close_rid, sid)).await;
    let answer = match b.host.wait_answer(&close_rid, STEP).await {
        Ok(answer) => answer,
        Err(e) => panic!("the close is answered: {e:#}\nstderr:\n{}", b.host.stderr()),
    };
    assert_no_processes(b, &recorded, "when the close during open is answered").await;
    assert!(answer.is("request.completed"), "{answer}");
    let open_answer = match b.host.wait_answer(&open_rid, STEP).await {
        Ok(answer) => answer,
        Err(e) => panic!("the open is answered: {e:#}\nstderr:\n{}", b.host.stderr()),
    };
    // Either the close canceled the open (it fails; the session was never announced, so no
    // session.closed), or the bridge had finished it before it read the close (ready, then
    // closed).
    let last = if open_answer.is("request.failed") {
        let opened = b.host.session_events(sid);
        assert!(
            opened.is_empty(),
            "a canceled open announced its session: {opened:?}"
        );
        answer.seq
    } else {
        assert!(open_answer.is("session.ready"), "{open_answer}");
        let closed = b.wait(sid, "session.closed", |_| true).await;
        assert!(open_answer.seq < closed.seq, "{open_answer} / {closed}");
        closed.seq
    };
    // Nothing late: no event of the session after that, no process started again.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let late: Vec<Event> = b
        .host
        .session_events(sid)
        .into_iter()
        .filter(|e| e.seq > last)
        .collect();
    assert!(late.is_empty(), "events after the close: {late:?}");
    assert_no_processes(b, &recorded, "after the close during open").await;
    b.host.assert_invariants();
}

/// Waits until a process started from `cli` runs under the bridge (or the open is already
/// answered); returns every descendant seen then.
async fn wait_for_cli(b: &Bridge, cli: &Path) -> Vec<ProcInfo> {
    let cli = cli.display().to_string();
    let deadline = Instant::now() + STEP;
    loop {
        let found = b.host.descendants();
        let answered = b.host.events().iter().any(|e| e.is("session.ready"));
        if answered || found.iter().any(|p| p.cmdline.contains(&cli)) {
            return found;
        }
        assert!(
            Instant::now() < deadline,
            "no `{cli}` process under the bridge\nstderr:\n{}",
            b.host.stderr()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
