//! The soak's accounting: every input sent and every line read goes through here. Each event is
//! checked as the conformance host checks it (both JSON Schemas and the strict typed round
//! trip, `agent_bridge_conformance::validate`); the protocol rules are the shared
//! [`InvariantChecker`]'s; on top of them the ledger counts what the soak
//! did (kills, interrupts, permissions) and what came of it (recoveries, runtime failures),
//! and the JSON-RPC requests of the host itself.

use super::plan::Action;
use agent_bridge_protocol::invariants::{InvariantChecker, Tally};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;

/// Problems kept verbatim for the report (the rest are only counted).
const KEEP_PROBLEMS: usize = 20;

/// What the soak did and saw, besides the checker's tally.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Counts {
    /// Turns by what they were planned to do.
    pub text_turns: usize,
    pub tool_turns: usize,
    pub interrupt_turns: usize,
    pub kill_turns: usize,
    /// CLIs killed mid-turn (the demo: `CRASH` prompts sent).
    pub kills: usize,
    /// Kill turns whose kill did not happen: the turn ended first, or no CLI process was found.
    pub kills_missed: usize,
    /// Turns right after a kill: completed (the session recovered) or not.
    pub recovered: usize,
    pub not_recovered: usize,
    pub interrupts_sent: usize,
    pub permissions_allowed: usize,
    pub permissions_denied: usize,
    /// Turns by how they ended.
    pub completed: usize,
    pub failed: usize,
    pub canceled: usize,
    /// Prompts answered by a `failed` prompt result (no turn).
    pub prompt_failed: usize,
    /// Failed turns that were neither killed nor right after a kill (the agent or the bridge
    /// failed on its own).
    pub unexpected_failures: usize,
    pub runtime_failed: usize,
    /// Restarts in a new conversation (the agent could not bring its session back).
    pub conversations_lost: usize,
    /// `session.notice` warnings that the agent was restarted.
    pub restart_notices: usize,
    pub notices: usize,
    pub opens: usize,
    pub opens_failed: usize,
    /// Sessions opened again after their runtime failed for good.
    pub reopens: usize,
    /// Inputs refused at admission (an error answer to `provider/send`).
    pub refused: usize,
    /// Turns, opens and closes that got no answer within the turn timeout (the soak stopped
    /// driving the session).
    pub hung: usize,
    /// Planned turns that never ran (their session was stuck or could not be opened).
    pub turns_not_run: usize,
    /// Stdout lines that are neither a JSON-RPC answer nor a `provider/event` carrying a
    /// `ProviderEvent`.
    pub invalid_lines: usize,
}

#[derive(Debug)]
struct Rpc {
    method: String,
    /// A `provider/send`: the connection and input, for the checker when it is refused.
    input: Option<(String, Value)>,
}

/// How an admitted request of the host was answered.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    Ok(Value),
    Refused(String),
}

/// The soak's books.
#[derive(Debug, Default)]
pub struct Ledger {
    checker: InvariantChecker,
    pub counts: Counts,
    rpc: HashMap<i64, Rpc>,
    problems: Vec<String>,
    seq: usize,
}

impl Ledger {
    pub fn new() -> Ledger {
        Ledger::default()
    }

    /// A JSON-RPC request `id` was written (`input`: what a `provider/send` carried).
    pub fn on_request(&mut self, id: i64, method: &str, input: Option<(&str, &Value)>) {
        if let Some((conn, input)) = input {
            self.checker.on_input(conn, input);
        }
        let rpc = Rpc {
            method: method.to_string(),
            input: input.map(|(c, i)| (c.to_string(), i.clone())),
        };
        self.rpc.insert(id, rpc);
    }

    /// `provider/connect` answered with this connection.
    pub fn on_connected(&mut self, connection: &str) {
        self.checker.on_connect(connection);
    }

    /// The answer to request `id`; `None` when the host never sent it (a violation).
    pub fn on_answer(&mut self, id: i64, answer: Answer) -> Option<(String, Answer)> {
        let Some(rpc) = self.rpc.remove(&id) else {
            self.problem(format!("an answer to request {id}, which was never sent"));
            return None;
        };
        if let (Answer::Refused(why), Some((conn, input))) = (&answer, &rpc.input) {
            self.counts.refused += 1;
            self.checker.on_refused(conn, input);
            let kind = input.get("type").and_then(Value::as_str).unwrap_or("?");
            self.note(format!("`{kind}` refused at admission: {why}"));
        }
        Some((rpc.method, answer))
    }

    /// One `provider/event`'s params as read; returns the event when it is one.
    pub fn on_event(&mut self, params: &Value) -> Option<Value> {
        self.seq += 1;
        let (Some(conn), Some(event)) = (
            params.get("connectionId").and_then(Value::as_str),
            params.get("event"),
        ) else {
            self.invalid_line(format!(
                "provider/event without connectionId or event: {params}"
            ));
            return None;
        };
        let problems = agent_bridge_conformance::validate::validate_event(event);
        if !problems.is_empty() {
            let text: String = event.to_string().chars().take(400).collect();
            self.invalid_line(format!(
                "an invalid event ({}): {text}",
                problems.join("; ")
            ));
        }
        let before = self.checker.violations().len();
        self.checker.on_event(self.seq, conn, event);
        let found: Vec<String> = self.checker.violations()[before..].to_vec();
        for v in found {
            self.note(v);
        }
        Some(event.clone())
    }

    /// A line that breaks the wire (not JSON, neither answer nor event).
    pub fn invalid_line(&mut self, what: String) {
        self.counts.invalid_lines += 1;
        self.note(what);
    }

    /// A violation found by the soak itself (not the checker).
    pub fn problem(&mut self, what: String) {
        self.checker.report(what.clone());
        self.note(what);
    }

    /// Keeps a problem's text (the first few) for the report.
    pub fn note(&mut self, what: String) {
        if self.problems.len() < KEEP_PROBLEMS {
            self.problems.push(what);
        }
    }

    /// A turn of `action` ended `outcome`: `completed`, `failed`, `canceled`, `prompt_failed`
    /// (a failed prompt result), `refused` (not admitted) or `hung`. `probe`: the turn right
    /// after a performed kill. `killed`: this turn's CLI was killed.
    pub fn on_turn(&mut self, action: Action, outcome: &str, probe: bool, killed: bool) {
        let c = &mut self.counts;
        match action {
            Action::Text => c.text_turns += 1,
            Action::Tool { .. } => c.tool_turns += 1,
            Action::Interrupt { .. } => c.interrupt_turns += 1,
            Action::Kill { .. } => {
                c.kill_turns += 1;
                if !killed {
                    c.kills_missed += 1;
                }
            }
        }
        match outcome {
            "completed" => c.completed += 1,
            "failed" => c.failed += 1,
            "canceled" => c.canceled += 1,
            "prompt_failed" => c.prompt_failed += 1,
            "hung" => c.hung += 1,
            _ => {}
        }
        if matches!(outcome, "failed" | "prompt_failed") && !killed && !probe {
            c.unexpected_failures += 1;
        }
        // A probe killed in its turn (with `--shared`, another session's kill ends every
        // running turn) is not a failed recovery: the session's next turn probes again. With
        // `--shared` a probe may also be a turn the plan interrupts: canceled, it ran.
        if probe {
            if matches!(outcome, "completed" | "canceled") {
                c.recovered += 1;
            } else if !killed {
                c.not_recovered += 1;
            }
        }
    }

    /// The checker's strict counts.
    pub fn tally(&self) -> Tally {
        self.checker.tally()
    }

    /// Host requests (JSON-RPC) still unanswered.
    pub fn rpc_unanswered(&self) -> Vec<String> {
        self.rpc.values().map(|r| r.method.clone()).collect()
    }

    pub fn problems(&self) -> &[String] {
        &self.problems
    }
}

#[cfg(test)]
#[path = "ledger_tests.rs"]
mod tests;
