//! How a soak session reacts: opens (and reopens after its runtime failed for good), sends
//! each planned prompt when the previous turn ended, answers permissions, schedules its kill or
//! interrupt once the turn streams (or asks), and books every turn's end.

use super::driver::{Driver, Timer, TimerKind};
use super::ledger::Answer;
use super::plan::Action;
use super::procs::SESSION_VAR;
use super::session::{AfterClose, Phase, Turn};
use agent_bridge_protocol::{
    HistoryMode, PromptDelivery, PromptInput, ProviderContent, ProviderInput,
    ProviderPermissionResponse, ProviderPrompt, ProviderSessionConfig,
};
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

fn s<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

impl Driver<'_> {
    fn send_input(&mut self, i: usize, input: &ProviderInput) -> anyhow::Result<()> {
        let conn = self.connection.clone();
        let id = self
            .host
            .send(self.ledger, &conn, serde_json::to_value(input)?)?;
        self.by_send.insert(id, (i, input.kind()));
        Ok(())
    }

    /// Opens session `i` (`again`: a replacement under the next id).
    pub(super) fn open(&mut self, i: usize, again: bool) -> anyhow::Result<()> {
        let s = &mut self.sessions[i];
        if again {
            s.id = s.next_id();
            s.generation += 1;
            s.failed = false;
            s.closed = false;
            s.after_kill = false;
            self.ledger.counts.reopens += 1;
        }
        self.ledger.counts.opens += 1;
        let (id, request_id) = (s.id.clone(), format!("open-{}", s.id));
        let config = ProviderSessionConfig {
            cwd: self.setup.cwd.clone(),
            env: BTreeMap::from([(SESSION_VAR.to_string(), self.setup.session_mark(&id))]),
            mode: self.setup.profile.ask_mode.map(str::to_string),
            ..Default::default()
        };
        let input = ProviderInput::SessionOpen {
            request_id: request_id.clone(),
            session_id: id.clone(),
            config,
            persistence: None,
            history: HistoryMode::Skip,
        };
        self.sessions[i].phase = Phase::Opening {
            request_id: request_id.clone(),
            since: Instant::now(),
        };
        self.by_id.insert(id, i);
        self.by_request.insert(request_id, i);
        self.send_input(i, &input)
    }

    pub(super) fn close(&mut self, i: usize, then: AfterClose) -> anyhow::Result<()> {
        let request_id = self.fresh(&format!("close-{}", self.sessions[i].id));
        let input = ProviderInput::SessionClose {
            request_id: request_id.clone(),
            session_id: self.sessions[i].id.clone(),
        };
        self.sessions[i].phase = Phase::Closing {
            request_id: request_id.clone(),
            since: Instant::now(),
            then,
        };
        self.by_request.insert(request_id, i);
        self.send_input(i, &input)
    }

    pub(super) fn interrupt(&mut self, i: usize) -> anyhow::Result<()> {
        let request_id = self.fresh(&format!("interrupt-{}", self.sessions[i].id));
        let input = ProviderInput::SessionInterrupt {
            request_id: request_id.clone(),
            session_id: self.sessions[i].id.clone(),
        };
        self.ledger.counts.interrupts_sent += 1;
        self.by_request.insert(request_id, i);
        self.send_input(i, &input)
    }

    /// Sends the next planned prompt, or settles the session when the plan is through.
    fn start_next(&mut self, i: usize) -> anyhow::Result<()> {
        let s = &mut self.sessions[i];
        let Some(&action) = s.plan.get(s.next) else {
            s.phase = Phase::Done;
            return Ok(());
        };
        let (k, probe) = (s.next, std::mem::take(&mut s.after_kill));
        let text = self.setup.profile.prompt(action, &s.base, k);
        let cmid = format!("soak-{}-{k}", s.id);
        let mut turn = Turn::new(k, action, cmid.clone(), probe);
        if matches!(action, Action::Kill { .. }) && !self.setup.profile.kills_a_process() {
            // The demo's CRASH kills its runtime itself.
            turn.killed = true;
            self.ledger.counts.kills += 1;
        }
        let input = ProviderInput::SessionPrompt {
            session_id: s.id.clone(),
            prompt: ProviderPrompt {
                client_message_id: cmid,
                delivery: PromptDelivery::Auto,
                input: PromptInput::Message {
                    content: vec![ProviderContent::text(text)],
                },
                output_schema: None,
                clear_pending_permissions: None,
            },
        };
        s.phase = Phase::InTurn(turn);
        self.send_input(i, &input)
    }

    /// Books the ended turn and moves on: the next prompt, or a replacement session when this
    /// one's runtime is gone for good (after its probe, so a prompt on a failed session is
    /// tried once).
    fn finish_turn(&mut self, i: usize) -> anyhow::Result<()> {
        let s = &mut self.sessions[i];
        let Phase::InTurn(turn) = std::mem::replace(&mut s.phase, Phase::Ready) else {
            return Ok(());
        };
        let outcome = turn.outcome().unwrap_or_default();
        self.ledger
            .on_turn(turn.action, &outcome, turn.probe, turn.killed);
        s.after_kill = turn.killed;
        s.next += 1;
        self.finished_turns += 1;
        if self.finished_turns == self.setup.warmup {
            self.rss_warmup = Some(self.rss());
        }
        let step = (self.setup.total / 10).max(1);
        if self.setup.progress && self.finished_turns.is_multiple_of(step) {
            let c = &self.ledger.counts;
            eprintln!(
                "soak {}: {}/{} turns, {} kills, {} recovered, {} runtime_failed",
                self.setup.profile.provider,
                self.finished_turns,
                self.setup.total,
                c.kills,
                c.recovered,
                c.runtime_failed
            );
        }
        let s = &self.sessions[i];
        let more = s.next < s.plan.len();
        if more && self.setup.reopen && s.failed && !s.after_kill {
            if s.closed {
                return self.open(i, true);
            }
            return self.close(i, AfterClose::Reopen);
        }
        self.start_next(i)
    }

    /// An admission answer for session `i`'s input.
    pub(super) fn on_admission(
        &mut self,
        i: usize,
        kind: &str,
        answer: &Answer,
    ) -> anyhow::Result<()> {
        if !matches!(answer, Answer::Refused(_)) {
            return Ok(());
        }
        match (&mut self.sessions[i].phase, kind) {
            (Phase::InTurn(t), "session.prompt") if t.result.is_none() => {
                t.refused = true;
                self.finish_turn(i)
            }
            (Phase::Opening { .. }, "session.open") => self.open_failed(i),
            (Phase::Closing { then, .. }, "session.close") => {
                let then = *then;
                self.closed(i, then)
            }
            _ => Ok(()),
        }
    }

    fn open_failed(&mut self, i: usize) -> anyhow::Result<()> {
        let s = &mut self.sessions[i];
        self.ledger.counts.opens_failed += 1;
        self.ledger.counts.turns_not_run += s.plan.len() - s.next;
        s.next = s.plan.len();
        s.phase = Phase::Done;
        s.closed = true;
        Ok(())
    }

    fn closed(&mut self, i: usize, then: AfterClose) -> anyhow::Result<()> {
        match then {
            AfterClose::Reopen => self.open(i, true),
            AfterClose::Finish => {
                self.sessions[i].phase = Phase::Closed;
                Ok(())
            }
        }
    }

    /// One event from the bridge.
    pub(super) fn on_event(&mut self, ev: &Value) -> anyhow::Result<()> {
        let kind = s(ev, "type").unwrap_or_default();
        if let Some(rid) = s(ev, "requestId") {
            if let Some(&i) = self.by_request.get(rid) {
                match (&self.sessions[i].phase, kind) {
                    (Phase::Opening { request_id, .. }, "request.failed") if request_id == rid => {
                        let error = ev.get("error");
                        let why = error.and_then(|e| s(e, "message")).unwrap_or("?");
                        let detail: String = error
                            .and_then(|e| s(e, "diagnostic"))
                            .unwrap_or_default()
                            .chars()
                            .take(400)
                            .collect();
                        let what =
                            format!("open of `{}` failed: {why} {detail}", self.sessions[i].id);
                        self.ledger.note(what);
                        return self.open_failed(i);
                    }
                    (
                        Phase::Closing {
                            request_id, then, ..
                        },
                        "request.completed" | "request.failed",
                    ) if request_id == rid => {
                        let then = *then;
                        return self.closed(i, then);
                    }
                    _ => {}
                }
            }
        }
        let Some(&i) = s(ev, "sessionId").and_then(|sid| self.by_id.get(sid)) else {
            return Ok(());
        };
        if s(ev, "sessionId") != Some(self.sessions[i].id.as_str()) {
            return Ok(()); // an earlier generation's
        }
        let c = &mut self.ledger.counts;
        match kind {
            "session.ready" => {
                if matches!(self.sessions[i].phase, Phase::Opening { .. }) {
                    return self.start_next(i);
                }
            }
            "session.runtime_failed" => {
                c.runtime_failed += 1;
                self.sessions[i].failed = true;
            }
            "session.closed" => {
                let sess = &mut self.sessions[i];
                sess.failed = true;
                sess.closed = true;
            }
            "session.notice" => {
                c.notices += 1;
                let id = ev
                    .get("notice")
                    .and_then(|n| s(n, "id"))
                    .unwrap_or_default();
                if id.starts_with("agent-restarted") {
                    c.restart_notices += 1;
                }
                if id.starts_with("agent-conversation-lost") {
                    c.restart_notices += 1;
                    c.conversations_lost += 1;
                }
            }
            "session.permission" => return self.on_permission(i, ev),
            "session.prompt_result" => {
                let result = ev.get("result");
                if let Some(t) = self.sessions[i].turn_mut() {
                    if s(ev, "clientMessageId") == Some(t.cmid.as_str()) {
                        t.result = result.and_then(|r| s(r, "type")).map(str::to_string);
                        if let Some(turn) = result.and_then(|r| s(r, "turnId")) {
                            t.turn_id.get_or_insert_with(|| turn.to_string());
                        }
                    }
                }
            }
            "session.turn" => {
                if let (Some(t), Some(turn), Some(state)) =
                    (self.sessions[i].turn_mut(), s(ev, "turnId"), s(ev, "state"))
                {
                    if state == "started" {
                        t.turn_id.get_or_insert_with(|| turn.to_string());
                    } else if t.turn_id.as_deref().is_none_or(|id| id == turn) {
                        t.end = Some(state.to_string());
                    }
                }
            }
            "timeline.item" => self.on_item(i),
            _ => {}
        }
        if self.sessions[i]
            .turn_mut()
            .is_some_and(|t| t.outcome().is_some())
        {
            return self.finish_turn(i);
        }
        Ok(())
    }

    /// An item of a started turn: a streaming kill or an interrupt is scheduled now.
    fn on_item(&mut self, i: usize) {
        let kills = self.setup.profile.kills_a_process();
        let at_permission = self.sessions[i]
            .turn_mut()
            .is_some_and(|t| self.setup.profile.kills_at_permission(t.action));
        let (generation, session) = (self.sessions[i].generation, i);
        let Some(t) = self.sessions[i].turn_mut() else {
            return;
        };
        if t.triggered || !t.started() {
            return;
        }
        let (kind, after) = match t.action {
            Action::Interrupt { after_ms } => (TimerKind::Interrupt, after_ms),
            Action::Kill { after_ms, .. } if kills && !at_permission => (TimerKind::Kill, after_ms),
            _ => return,
        };
        t.triggered = true;
        let turn = t.k;
        self.timers.push(Timer {
            at: Instant::now() + Duration::from_millis(after),
            session,
            generation,
            turn,
            kind,
        });
    }

    /// A permission request: the kill of a tool turn is scheduled, any other is answered as
    /// planned (allowed unless the turn says deny).
    fn on_permission(&mut self, i: usize, ev: &Value) -> anyhow::Result<()> {
        let Some(pid) = ev
            .get("request")
            .and_then(|r| s(r, "id"))
            .map(str::to_string)
        else {
            return Ok(());
        };
        let kills = self.setup.profile.kills_a_process();
        let generation = self.sessions[i].generation;
        let mut allow = true;
        if let Some(t) = self.sessions[i].turn_mut() {
            match t.action {
                Action::Kill { after_ms, .. }
                    if kills
                        && !t.triggered
                        && self.setup.profile.kills_at_permission(t.action) =>
                {
                    t.triggered = true;
                    let turn = t.k;
                    self.timers.push(Timer {
                        at: Instant::now() + Duration::from_millis(after_ms),
                        session: i,
                        generation,
                        turn,
                        kind: TimerKind::Kill,
                    });
                    return Ok(());
                }
                Action::Tool { allow: a } => allow = a,
                _ => {}
            }
        }
        let response = if allow {
            self.ledger.counts.permissions_allowed += 1;
            ProviderPermissionResponse::Allow {
                selected_action_id: None,
                updated_input: None,
                updated_permissions: None,
            }
        } else {
            self.ledger.counts.permissions_denied += 1;
            serde_json::from_value(
                serde_json::json!({"behavior": "deny", "message": "denied by the soak"}),
            )?
        };
        let input = ProviderInput::SessionPermission {
            session_id: self.sessions[i].id.clone(),
            permission_id: pid,
            response,
        };
        self.send_input(i, &input)
    }
}
