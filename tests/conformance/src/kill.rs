//! `kill -9` of a session's agent, for every provider family (claude, codex, the ACP agents):
//! the turn fails with the exit status, nothing of the agent is left, and the session goes on
//! with a restarted agent. A provider's test file calls these with its [`KillCase`].

use crate::{AgentRig, Event, ProcInfo};
use serde_json::{json, Value};
use std::time::Duration;

/// What differs per agent in the kill scenarios.
#[derive(Debug, Clone, Copy)]
pub struct KillCase {
    /// The mode that asks before a file-writing command (`None`: the default mode does).
    pub ask_mode: Option<&'static str>,
    /// The mode that runs tools without asking.
    pub unattended_mode: &'static str,
    /// A restarted agent resumes (or loads) its native session; else it starts a new one.
    pub keeps_context_on_restart: bool,
    /// The provider publishes the session's handle only once a turn is saved (Claude Code):
    /// the mid-turn kill waits for that `session.persistence`, so the conversation it kills
    /// is one the agent can resume.
    pub saved_after_turn: bool,
    /// The agent streams a reply's text as the model sends it. An agent that sends it whole
    /// once the model is done (Droid, OpenHands) is killed while the slow model request is
    /// in flight instead: waiting for its text would race the turn's end.
    pub streams_text: bool,
    /// The agent keeps an action that waited for the user in its saved conversation, and a
    /// restarted agent asks about it again (OpenHands): the first turn after the restart in
    /// [`kill_9_with_a_pending_permission`] asks about the killed turn's command, is denied,
    /// and the command never runs.
    pub asks_again_after_restart: bool,
}

impl KillCase {
    /// The same case for an agent that sends a reply's text whole ([`KillCase::streams_text`]).
    pub const fn unstreamed(self) -> KillCase {
        KillCase {
            streams_text: false,
            ..self
        }
    }

    /// The same case for an agent that asks again about an action a kill left unanswered
    /// ([`KillCase::asks_again_after_restart`]).
    pub const fn asking_again_after_restart(self) -> KillCase {
        KillCase {
            asks_again_after_restart: true,
            ..self
        }
    }
}

fn mode_patch(mode: Option<&str>) -> Value {
    match mode {
        Some(m) => json!({ "mode": m }),
        None => json!({}),
    }
}

/// The session's processes started since `before` (a snapshot of the bridge's descendants):
/// all of them, and the agent's own (a node or native process started from the pinned CLI,
/// not the bridge's guard). A process started since under a process of `before` is another
/// session's (OpenHands' tmux server comes some seconds after its agent, under its guard).
fn new_agent_procs(rig: &AgentRig, before: &[ProcInfo]) -> (Vec<ProcInfo>, Vec<ProcInfo>) {
    let now = rig.host.descendants();
    let old = |pid: i32| before.iter().any(|b| b.pid == pid);
    let under_an_old_one = |p: &ProcInfo| {
        let mut parent = p.ppid;
        // Bounded walk up the snapshot (a pid cycle cannot happen, a stale snapshot might).
        for _ in 0..64 {
            if old(parent) {
                return true;
            }
            match now.iter().find(|q| q.pid == parent) {
                Some(q) => parent = q.ppid,
                None => return false,
            }
        }
        false
    };
    let all: Vec<_> = rig.procs_where(|p| !old(p.pid) && !under_an_old_one(p));
    let agent: Vec<_> = all
        .iter()
        .filter(|p| p.cmdline.contains(rig.spec.cli) && !p.cmdline.contains("agent-bridge"))
        .cloned()
        .collect();
    assert!(
        !agent.is_empty(),
        "the session's agent process among {all:#?}"
    );
    (all, agent)
}

fn kill_9(proc: &ProcInfo) {
    // SAFETY: kill(2) on a pid just read from /proc.
    unsafe {
        libc::kill(proc.pid, libc::SIGKILL);
    }
}

/// Waits (bounded) until none of `procs` lives.
pub async fn assert_gone(procs: &[ProcInfo]) {
    let left = crate::procs::wait_gone(procs, Duration::from_secs(10)).await;
    assert!(left.is_empty(), "orphans: {left:?}");
}

/// A turn killed with its agent failed with the exit status, and the session was not given up.
fn assert_failed_by_the_kill(rig: &AgentRig, sid: &str, end: &Event) {
    assert_eq!(end.turn_state(), Some("failed"), "{end}");
    // The guard between the bridge and the agent reports a SIGKILL as exit status 137.
    let message = end.string_at("/error/message");
    assert!(
        message.contains("exited unexpectedly")
            && (message.contains("signal: 9") || message.contains("exit status: 137")),
        "the failure carries the exit status: {end}"
    );
    let failed: Vec<Event> = rig
        .host
        .session_events(sid)
        .into_iter()
        .filter(|e| e.is("session.runtime_failed"))
        .collect();
    assert!(failed.is_empty(), "the session was given up: {failed:?}");
}

/// Waits until the slow reply to `prompt` (a `SLOW` one, which the mock sends for seconds) is
/// under way: its first text is shown when the agent streams text, else its model request is
/// in flight (a model call with tools, the prompt in it, not answered yet). A kill or an
/// interrupt made then lands mid-turn whether or not the agent streams.
pub async fn slow_reply_under_way(rig: &AgentRig, sid: &str, prompt: &str, streams_text: bool) {
    if streams_text {
        rig.wait(sid, "timeline.item", |e| {
            e.item_type() == Some("assistant_message")
                && e.string_at("/item/text").contains("slow chunk")
        })
        .await;
        return;
    }
    let in_flight = rig
        .mock
        .wait_for(Duration::from_secs(60), |log| {
            log.iter().any(|r| {
                r.is_model_call()
                    && r.done_unix_us.is_none()
                    && r.body["tools"].as_array().is_some_and(|t| !t.is_empty())
                    && r.body.to_string().contains(prompt)
            })
        })
        .await;
    assert!(
        in_flight,
        "no slow model request in flight: {:#?}",
        rig.mock.requests()
    );
}

/// Longest the prompt that restarts the agent waits for its result: the core's bound on a
/// restart (`OPEN_TIMEOUT`). Starting OpenCode alone takes seconds, tens on a loaded machine.
pub const RESTART_LIMIT: Duration = Duration::from_secs(90);

/// Sends a prompt to a session whose agent died (it restarts the agent first) and returns
/// the end of its turn.
pub async fn restarting_turn(rig: &AgentRig, sid: &str, text: &str) -> Event {
    let cmid = rig
        .host
        .prompt(&rig.conn, sid, text)
        .await
        .expect("prompt admitted");
    restarted_turn_end(rig, sid, &cmid).await
}

/// The end of the turn of the prompt `cmid`, sent to a session whose agent restarts first.
async fn restarted_turn_end(rig: &AgentRig, sid: &str, cmid: &str) -> Event {
    let result = rig
        .host
        .prompt_result(sid, cmid, RESTART_LIMIT)
        .await
        .unwrap_or_else(|e| panic!("the restarting prompt's result: {e:#}"));
    assert_eq!(result["type"], "turn", "{result}");
    rig.turn_end(sid, result["turnId"].as_str().unwrap_or_default())
        .await
}

/// The first prompt after a restart of an agent that asks again about the action the kill
/// left unanswered ([`KillCase::asks_again_after_restart`]): the restarted agent asks about
/// `command` again (a new permission, not `old`), the denial is answered, and the turn ends.
async fn asked_again_and_denied(
    rig: &AgentRig,
    sid: &str,
    old: &str,
    command: &str,
) -> (Event, String) {
    let cmid = rig
        .host
        .prompt(&rig.conn, sid, "say hi")
        .await
        .expect("prompt admitted");
    let (ask, again) = rig.wait_permission(sid, Some(old)).await;
    assert_eq!(ask.string_at("/request/detail/command"), command, "{ask}");
    rig.answer_permission(sid, &again, json!({"behavior": "deny"}))
        .await;
    rig.wait_resolved(sid, &again).await;
    (restarted_turn_end(rig, sid, &cmid).await, again)
}

/// Marks the first turn of [`kill_9_mid_turn`]: found in a model request only when the
/// restarted agent kept the conversation.
const REMEMBER: &str = "KIWI-RESTART-7";

/// `kill -9` of the agent mid-turn: the turn fails with the exit status, no process of the
/// agent survives, a session on another process is untouched, and the session goes on: its next prompt
/// restarts the agent (a warning notice says so), in the session's mode, and completes,
/// without any earlier timeline item again. An agent that resumes its native session sends
/// the earlier conversation to the model; one that cannot says that it lost it.
pub async fn kill_9_mid_turn(rig: &AgentRig, case: KillCase) {
    let sid = "kill-mid";
    // Another environment: another agent process (sessions with the same launch may share
    // one, and then a kill of it is every one's; see the shared scenarios).
    rig.open(
        "kill-other",
        json!({"env": {"AGENT_BRIDGE_TEST_OTHER": "1"}}),
    )
    .await;
    let before = rig.host.descendants();
    rig.open(sid, json!({ "mode": case.unattended_mode })).await;
    let first = rig
        .run_turn(sid, &format!("say hi, and remember the word {REMEMBER}"))
        .await;
    assert_eq!(first.state(), "completed", "{:?}", first.end);
    if case.saved_after_turn {
        rig.wait(sid, "session.persistence", |_| true).await;
    }
    let prompt = "SLOW please write a long text";
    let (_, turn) = rig.start_turn(sid, prompt).await;
    slow_reply_under_way(rig, sid, prompt, case.streams_text).await;
    let (all_mine, mine) = new_agent_procs(rig, &before);
    kill_9(&mine[0]);
    let end = rig.turn_end(sid, &turn).await;
    assert_failed_by_the_kill(rig, sid, &end);
    assert_gone(&all_mine).await;
    let run = rig.run_turn("kill-other", "say hi").await;
    assert_eq!(
        run.state(),
        "completed",
        "the other session is untouched: {:?}",
        run.end
    );

    let shown = rig.host.session_events(sid);
    let requests = rig.mock.model_requests().len();
    let sent = std::time::Instant::now();
    let again = restarting_turn(rig, sid, "please run `touch restarted.txt`").await;
    assert_eq!(again.turn_state(), Some("completed"), "{again}");
    assert!(
        rig.cwd().join("restarted.txt").exists(),
        "the restarted agent ran the command in the session's mode"
    );
    let events = rig.host.session_events(sid);
    let never_given_up = !events.iter().any(|e| e.is("session.runtime_failed"));
    assert!(never_given_up, "{events:#?}");
    let after = &events[shown.len()..];
    let notice = |prefix: &str| {
        after
            .iter()
            .find(|e| e.is("session.notice") && e.string_at("/notice/id").starts_with(prefix))
            .cloned()
    };
    // One notice: the agent restarted with its conversation, or lost it (then the session's
    // own text is carried over to the model with the prompt).
    let kind = if case.keeps_context_on_restart {
        "agent-restarted"
    } else {
        "agent-conversation-lost"
    };
    let restarted = notice(kind).unwrap_or_else(|| panic!("a notice {kind}: {after:#?}"));
    let notices = after.iter().filter(|e| e.is("session.notice")).count();
    assert_eq!(notices, 1, "{after:#?}");
    assert_eq!(restarted.at("/notice/severity"), Some(&json!("warning")));
    let logged = rig.host.stderr();
    eprintln!(
        "{} {}: restart notice {} ms after the prompt; bridge: {}",
        rig.spec.cli,
        rig.version,
        restarted.at.saturating_duration_since(sent).as_millis(),
        logged
            .lines()
            .rfind(|l| l.contains("restarted"))
            .unwrap_or("(no restart logged)")
    );
    // Resumed or carried over, the earlier conversation reaches the model.
    let remembered = rig.mock.model_requests()[requests..]
        .iter()
        .any(|r| r.body.to_string().contains(REMEMBER));
    assert!(remembered, "the earlier conversation reaches the model");
    assert!(
        !after.iter().any(|e| e.is("session.permission")),
        "the session's mode was set again: nothing asked"
    );
    // Nothing shown before the restart comes again: no earlier id, no replayed message.
    let earlier: std::collections::HashSet<&str> =
        shown.iter().filter_map(Event::item_id).collect();
    for e in after.iter().filter(|e| e.is("timeline.item")) {
        let id = e.item_id().unwrap_or_default();
        assert!(!earlier.contains(id), "an earlier item again: {e}");
        assert!(
            !e.string_at("/item/text").contains(REMEMBER)
                && !e.string_at("/item/text").contains("slow chunk"),
            "the history replayed into the timeline: {e}"
        );
    }
    // Each prompt is in the timeline once.
    let prompts: Vec<String> = crate::rig::of_type(&rig.timeline(sid), "user_message")
        .into_iter()
        .map(|i| i["text"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        prompts,
        [
            format!("say hi, and remember the word {REMEMBER}"),
            "SLOW please write a long text".to_string(),
            "please run `touch restarted.txt`".to_string(),
        ],
        "each prompt once"
    );
    // The restarted agent belongs to the session: its close ends it.
    let (restarted_procs, _) = new_agent_procs(rig, &before);
    rig.finish(sid).await;
    assert_gone(&restarted_procs).await;
    rig.finish("kill-other").await;
}

/// Marks the turn of [`kill_9_after_a_completed_turn`].
const REMEMBER_LAST: &str = "PLUM-AFTER-9";

/// `kill -9` of the agent the moment a turn completed (before it may have saved that turn):
/// the next prompt restarts it; whether the agent brings its session back (resume or load) or
/// not (a new one, the session's text carried over), the earlier turn reaches the model and
/// the session is never given up. Prints which it was (the audit of issue 25).
pub async fn kill_9_after_a_completed_turn(rig: &AgentRig, case: KillCase) {
    let sid = "kill-after";
    let before = rig.host.descendants();
    rig.open(sid, json!({ "mode": case.unattended_mode })).await;
    // Found before the turn, so the kill follows the turn's end at once.
    let (all_mine, mine) = new_agent_procs(rig, &before);
    let first = rig
        .run_turn(
            sid,
            &format!("say hi, and remember the word {REMEMBER_LAST}"),
        )
        .await;
    assert_eq!(first.state(), "completed", "{:?}", first.end);
    kill_9(&mine[0]);
    assert_gone(&all_mine).await;
    let shown = rig.host.session_events(sid).len();
    let requests = rig.mock.model_requests().len();
    let again = restarting_turn(rig, sid, "which word did I ask you to remember").await;
    assert_eq!(again.turn_state(), Some("completed"), "{again}");
    let events = rig.host.session_events(sid);
    assert!(
        !events.iter().any(|e| e.is("session.runtime_failed")),
        "{events:#?}"
    );
    let notices: Vec<String> = events[shown..]
        .iter()
        .filter(|e| e.is("session.notice"))
        .map(|e| e.string_at("/notice/id"))
        .collect();
    assert_eq!(notices.len(), 1, "one restart notice: {notices:?}");
    let resumed = notices[0].starts_with("agent-restarted");
    assert!(
        resumed || notices[0].starts_with("agent-conversation-lost"),
        "{notices:?}"
    );
    if case.keeps_context_on_restart && !resumed {
        eprintln!(
            "AUDIT: {} {} lost a session killed right after a completed turn: {}",
            rig.spec.cli,
            rig.version,
            rig.host
                .stderr()
                .lines()
                .rfind(|l| l.contains("lost the conversation"))
                .unwrap_or("")
        );
    }
    eprintln!(
        "AUDIT: {} {} killed right after a completed turn: {}",
        rig.spec.cli,
        rig.version,
        if resumed {
            "resumed"
        } else {
            "new conversation, context carried over"
        }
    );
    let remembered = rig.mock.model_requests()[requests..]
        .iter()
        .any(|r| r.body.to_string().contains(REMEMBER_LAST));
    assert!(remembered, "the earlier turn reaches the model");
    rig.finish(sid).await;
}

/// `kill -9` of the agent while it waits for a permission: the permission is resolved, the
/// turn fails, the command never runs, and the next prompt restarts the agent and completes.
pub async fn kill_9_with_a_pending_permission(rig: &AgentRig, case: KillCase) {
    let sid = "kill-perm";
    let before = rig.host.descendants();
    rig.open(sid, mode_patch(case.ask_mode)).await;
    let file = rig.cwd().join("killed.txt");
    let (_, turn) = rig.start_turn(sid, "please run `touch killed.txt`").await;
    let (_, pid) = rig.wait_permission(sid, None).await;
    let (all_mine, mine) = new_agent_procs(rig, &before);
    kill_9(&mine[0]);
    rig.wait_resolved(sid, &pid).await;
    let end = rig.turn_end(sid, &turn).await;
    assert_failed_by_the_kill(rig, sid, &end);
    assert_gone(&all_mine).await;
    assert!(!file.exists(), "the command of the dead turn ran");
    let (run, asked) = if case.asks_again_after_restart {
        let (run, again) = asked_again_and_denied(rig, sid, &pid, "touch killed.txt").await;
        (run, vec![pid.clone(), again])
    } else {
        (restarting_turn(rig, sid, "say hi").await, vec![pid.clone()])
    };
    assert!(
        !file.exists(),
        "the command of the dead turn ran after the restart"
    );
    assert_eq!(run.turn_state(), Some("completed"), "{run}");
    let events = rig.host.session_events(sid);
    assert!(
        events.iter().any(|e| e.is("session.notice")),
        "a notice says the agent restarted: {events:#?}"
    );
    assert!(
        !events.iter().any(|e| e.is("session.runtime_failed")),
        "{events:#?}"
    );
    // The restarted agent runs in the session's asking mode: it asks again, and the command
    // runs once allowed.
    let (_, turn) = rig.start_turn(sid, "please run `touch allowed.txt`").await;
    let again = rig
        .wait(sid, "session.permission", |e| {
            !asked.contains(&e.string_at("/request/id"))
        })
        .await
        .string_at("/request/id");
    rig.answer_permission(sid, &again, json!({"behavior": "allow"}))
        .await;
    rig.wait_resolved(sid, &again).await;
    let end = rig.turn_end(sid, &turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    assert!(
        rig.cwd().join("allowed.txt").exists(),
        "the allowed command ran"
    );
    rig.finish(sid).await;
}
