//! The soak's single loop: reads the bridge's lines, routes answers and events to the ledger
//! and the sessions, fires the scheduled kills and interrupts, and gives up on a session that
//! does not answer in time. The sessions' own reactions are in `turns.rs`.

use super::host::Host;
use super::ledger::{Answer, Ledger};
use super::plan::Action;
use super::procs::{self, KillTarget, Recorder};
use super::profile::Profile;
use super::session::{Phase, Sess};
use crate::host::proc_tree::rss_bytes;
use anyhow::{anyhow, bail};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

/// What the driver needs to know about the run.
pub struct Setup {
    pub profile: Profile,
    pub cwd: String,
    pub turn_timeout: Duration,
    pub kill_target: KillTarget,
    /// Open a replacement when a session's runtime failed for good.
    pub reopen: bool,
    /// After how many finished turns the warm-up RSS is read.
    pub warmup: usize,
    /// Progress lines on stderr, every tenth of the `total` turns.
    pub progress: bool,
    pub total: usize,
    /// Every session has the same launch (`--shared`): one agent process for all where the
    /// provider shares processes.
    pub shared: bool,
}

impl Setup {
    /// The value of [`procs::SESSION_VAR`] session `id` runs with: its own, or the one all
    /// sessions share.
    pub fn session_mark(&self, id: &str) -> String {
        if self.shared {
            "shared".to_string()
        } else {
            id.to_string()
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TimerKind {
    Kill,
    Interrupt,
}

#[derive(Debug)]
pub(super) struct Timer {
    pub at: Instant,
    pub session: usize,
    pub generation: u32,
    pub turn: usize,
    pub kind: TimerKind,
}

pub struct Driver<'a> {
    pub(super) host: &'a mut Host,
    pub(super) ledger: &'a mut Ledger,
    pub(super) recorder: &'a Recorder,
    pub(super) setup: &'a Setup,
    pub(super) connection: String,
    pub(super) sessions: Vec<Sess>,
    /// Session id (every generation) -> index.
    pub(super) by_id: HashMap<String, usize>,
    /// requestId of an open, close or interrupt -> session index.
    pub(super) by_request: HashMap<String, usize>,
    /// JSON-RPC id of a session's `provider/send` -> session index and input type.
    pub(super) by_send: HashMap<i64, (usize, &'static str)>,
    pub(super) timers: Vec<Timer>,
    /// Answers to the host's own requests (initialize, connect, ...).
    answers: HashMap<i64, Answer>,
    pub(super) finished_turns: usize,
    pub rss_warmup: Option<u64>,
    /// The bridge's stdout ended.
    pub bridge_gone: bool,
    pub(super) counter: u64,
}

impl<'a> Driver<'a> {
    pub fn new(
        host: &'a mut Host,
        ledger: &'a mut Ledger,
        recorder: &'a Recorder,
        setup: &'a Setup,
    ) -> Driver<'a> {
        Driver {
            host,
            ledger,
            recorder,
            setup,
            connection: String::new(),
            sessions: Vec::new(),
            by_id: HashMap::new(),
            by_request: HashMap::new(),
            by_send: HashMap::new(),
            timers: Vec::new(),
            answers: HashMap::new(),
            finished_turns: 0,
            rss_warmup: None,
            bridge_gone: false,
            counter: 0,
        }
    }

    /// A request of the host's own, waited for; an error answer fails.
    pub fn call(&mut self, method: &str, params: Value, limit: Duration) -> anyhow::Result<Value> {
        let id = self.host.request(self.ledger, method, params)?;
        let deadline = Instant::now() + limit;
        loop {
            if let Some(answer) = self.answers.remove(&id) {
                return match answer {
                    Answer::Ok(v) => Ok(v),
                    Answer::Refused(e) => Err(anyhow!("`{method}` failed: {e}")),
                };
            }
            if self.bridge_gone {
                bail!("the bridge stopped while waiting for `{method}`");
            }
            if Instant::now() >= deadline {
                bail!("no answer to `{method}` within {limit:?}");
            }
            self.pump(Duration::from_millis(100));
        }
    }

    /// `provider/connect`; remembers the connection.
    pub fn connect(&mut self, provider: &str, launch: Option<&Value>) -> anyhow::Result<()> {
        let mut request =
            serde_json::json!({"versions": [1], "capabilities": ["prompt.message", "permission"]});
        if let Some(launch) = launch {
            request["launch"] = launch.clone();
        }
        let params = serde_json::json!({"providerId": provider, "request": request});
        let result = self.call(
            agent_bridge_protocol::wire::METHOD_CONNECT,
            params,
            Duration::from_secs(30),
        )?;
        let conn = result
            .get("connectionId")
            .and_then(Value::as_str)
            .ok_or_else(|| anyhow!("connect answered no connectionId: {result}"))?;
        self.connection = conn.to_string();
        self.ledger.on_connected(conn);
        Ok(())
    }

    /// Opens a session per plan and drives them all until each is settled.
    pub fn run(&mut self, plans: Vec<Vec<Action>>) -> anyhow::Result<()> {
        for (i, plan) in plans.into_iter().enumerate() {
            self.sessions.push(Sess::new(i, plan));
            self.open(i, false)?;
        }
        while !self.bridge_gone && !self.sessions.iter().all(Sess::settled) {
            self.pump(Duration::from_millis(200));
        }
        Ok(())
    }

    /// Closes every session still open and waits (at most `limit`) for the answers.
    pub fn close_all(&mut self, limit: Duration) -> anyhow::Result<()> {
        for i in 0..self.sessions.len() {
            let s = &self.sessions[i];
            if matches!(s.phase, Phase::Done | Phase::Stuck) && !s.closed {
                self.close(i, super::session::AfterClose::Finish)?;
            }
        }
        let deadline = Instant::now() + limit;
        let closing = |d: &Driver| {
            d.sessions
                .iter()
                .any(|s| matches!(s.phase, Phase::Closing { .. }))
        };
        while closing(self) && !self.bridge_gone && Instant::now() < deadline {
            self.pump(Duration::from_millis(100));
        }
        Ok(())
    }

    /// Reads what arrived (waiting at most `wait` for it), fires due timers, checks hangs.
    pub(super) fn pump(&mut self, wait: Duration) {
        let now = Instant::now();
        let wait = self
            .timers
            .iter()
            .map(|t| t.at.saturating_duration_since(now))
            .min()
            .map_or(wait, |t| t.min(wait));
        match self.host.lines.recv_timeout(wait) {
            Ok((_, line)) => {
                self.line(line);
                // Whatever else is queued, before timers and hang checks.
                for _ in 0..1000 {
                    match self.host.lines.try_recv() {
                        Ok((_, line)) => self.line(line),
                        Err(_) => break,
                    }
                }
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => self.bridge_gone = true,
        }
        if let Err(e) = self.fire_timers() {
            self.ledger.note(format!("the soak could not act: {e:#}"));
        }
        self.check_hangs();
    }

    fn line(&mut self, line: Result<Value, String>) {
        let v = match line {
            Ok(v) => v,
            Err(text) => {
                let text: String = text.chars().take(200).collect();
                return self.ledger.invalid_line(format!("not JSON: {text}"));
            }
        };
        if let Some(method) = v.get("method").and_then(Value::as_str) {
            if method != agent_bridge_protocol::wire::METHOD_EVENT {
                return self
                    .ledger
                    .invalid_line(format!("unexpected method `{method}`"));
            }
            let params = v.get("params").cloned().unwrap_or(Value::Null);
            if let Some(event) = self.ledger.on_event(&params) {
                if let Err(e) = self.on_event(&event) {
                    self.ledger.note(format!("the soak could not act: {e:#}"));
                }
            }
            return;
        }
        let Some(id) = v.get("id").and_then(Value::as_i64) else {
            return self
                .ledger
                .invalid_line(format!("neither event nor answer: {v}"));
        };
        let answer = match v.get("error") {
            Some(e) => Answer::Refused(
                e.get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("?")
                    .to_string(),
            ),
            None => Answer::Ok(v.get("result").cloned().unwrap_or(Value::Null)),
        };
        let Some((method, answer)) = self.ledger.on_answer(id, answer) else {
            return;
        };
        if method == agent_bridge_protocol::wire::METHOD_SEND
            && matches!(&answer, Answer::Ok(r) if !r.is_null())
        {
            self.ledger
                .problem(format!("provider/send answered {v} instead of null"));
        }
        match self.by_send.remove(&id) {
            Some((i, kind)) => {
                if let Err(e) = self.on_admission(i, kind, &answer) {
                    self.ledger.note(format!("the soak could not act: {e:#}"));
                }
            }
            None => {
                self.answers.insert(id, answer);
            }
        }
    }

    fn fire_timers(&mut self) -> anyhow::Result<()> {
        let now = Instant::now();
        let (due, later): (Vec<Timer>, Vec<Timer>) = std::mem::take(&mut self.timers)
            .into_iter()
            .partition(|t| t.at <= now);
        self.timers = later;
        for t in due {
            let s = &self.sessions[t.session];
            let live = s.generation == t.generation
                && matches!(&s.phase, Phase::InTurn(turn) if turn.k == t.turn && turn.outcome().is_none());
            if !live {
                continue;
            }
            match t.kind {
                TimerKind::Kill => self.kill(t.session),
                TimerKind::Interrupt => self.interrupt(t.session)?,
            }
        }
        Ok(())
    }

    fn kill(&mut self, i: usize) {
        self.recorder.snapshot();
        let mark = self.setup.session_mark(&self.sessions[i].id);
        let targets = procs::session_targets(self.host.pid, &mark, self.setup.kill_target);
        if procs::kill(&targets) > 0 {
            self.ledger.counts.kills += 1;
            if let Some(turn) = self.sessions[i].turn_mut() {
                turn.killed = true;
            }
            if self.setup.shared {
                // The process served every session: each running turn dies with it.
                for s in &mut self.sessions {
                    if let Some(turn) = s.turn_mut() {
                        turn.killed = true;
                    }
                }
            }
        }
    }

    /// Gives up on sessions whose turn, open or close outlived the turn timeout.
    fn check_hangs(&mut self) {
        let limit = self.setup.turn_timeout;
        for i in 0..self.sessions.len() {
            let s = &mut self.sessions[i];
            let (since, what) = match &s.phase {
                Phase::InTurn(t) => (t.sent, "turn"),
                Phase::Opening { since, .. } => (*since, "open"),
                Phase::Closing { since, .. } => (*since, "close"),
                _ => continue,
            };
            if since.elapsed() < limit {
                continue;
            }
            let id = s.id.clone();
            let not_run = s.plan.len().saturating_sub(s.next + 1);
            if let Phase::InTurn(t) = std::mem::replace(&mut s.phase, Phase::Stuck) {
                self.ledger.on_turn(t.action, "hung", t.probe, t.killed);
            } else {
                self.ledger.counts.hung += 1;
            }
            self.ledger.counts.turns_not_run += not_run;
            self.ledger.note(format!(
                "session `{id}`: the {what} got no answer within {limit:?}"
            ));
        }
    }

    /// Reads the bridge's RSS now.
    pub fn rss(&self) -> u64 {
        rss_bytes(self.host.pid).map_or(0, |(rss, _)| rss)
    }

    /// A fresh id for the host's inputs.
    pub(super) fn fresh(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("{prefix}-{}", self.counter)
    }
}
