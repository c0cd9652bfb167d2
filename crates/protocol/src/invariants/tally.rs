//! [`Tally`]: what a checker counted, strictly (nothing is excused by a close or a stop), for a
//! host that reports figures rather than asserting (`agent-bridge-dev soak`).

use super::{InvariantChecker, TurnPhase};
use serde::Serialize;

/// Counts over every connection a checker saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Admitted prompts (`session.prompt` inputs not refused at admission).
    pub prompts: usize,
    /// Prompts with exactly one `session.prompt_result`.
    pub prompts_answered_once: usize,
    /// Prompts without any `session.prompt_result`.
    pub prompts_lost: usize,
    /// Prompts with more than one.
    pub prompts_duplicated: usize,
    /// Results beyond the first, summed over the duplicated prompts (each is also one
    /// violation).
    pub extra_results: usize,
    /// Turns announced by a prompt result or started.
    pub turns: usize,
    /// Turns started and never given a terminal state.
    pub turns_unended: usize,
    /// Turns announced by a prompt result that never started.
    pub turns_never_started: usize,
    /// Admitted inputs with a `requestId`.
    pub requests: usize,
    /// Of those, the ones never answered.
    pub requests_unanswered: usize,
    /// Every rule broken so far ([`InvariantChecker::violations`]).
    pub violations: usize,
}

impl Tally {
    /// Violations other than the duplicated prompt results counted on their own.
    pub fn other_violations(&self) -> usize {
        self.violations.saturating_sub(self.extra_results)
    }
}

impl InvariantChecker {
    /// What was counted so far.
    pub fn tally(&self) -> Tally {
        let mut t = Tally {
            violations: self.violations.len(),
            ..Tally::default()
        };
        for conn in self.connections.values() {
            for count in conn.prompts.values() {
                t.prompts += 1;
                match *count {
                    0 => t.prompts_lost += 1,
                    1 => t.prompts_answered_once += 1,
                    n => {
                        t.prompts_duplicated += 1;
                        t.extra_results += n as usize - 1;
                    }
                }
            }
            for session in conn.sessions.values() {
                for phase in session.turns.values() {
                    t.turns += 1;
                    match phase {
                        TurnPhase::Active => t.turns_unended += 1,
                        TurnPhase::Announced => t.turns_never_started += 1,
                        TurnPhase::Ended => {}
                    }
                }
            }
            t.requests += conn.requests.len();
            t.requests_unanswered += conn.requests.values().filter(|r| !r.answered).count();
        }
        t
    }
}
