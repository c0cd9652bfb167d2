//! One soak session's state: where it is (opening, in a turn, closing, ...), its plan, and the
//! turn under way with everything the bridge said about it so far.

use super::plan::Action;
use std::time::Instant;

/// The turn under way.
#[derive(Debug, Clone)]
pub struct Turn {
    /// Its number in the session's plan.
    pub k: usize,
    pub action: Action,
    pub cmid: String,
    pub sent: Instant,
    /// The prompt result's type (`turn`, `steer`, `completed`, `failed`).
    pub result: Option<String>,
    pub turn_id: Option<String>,
    /// The terminal state of the turn.
    pub end: Option<String>,
    /// A kill or interrupt was scheduled.
    pub triggered: bool,
    /// Its CLI was killed (the demo: it was asked to crash).
    pub killed: bool,
    /// The turn right after a kill: does the session still work?
    pub probe: bool,
    /// The prompt was refused at admission.
    pub refused: bool,
}

impl Turn {
    pub fn new(k: usize, action: Action, cmid: String, probe: bool) -> Turn {
        Turn {
            k,
            action,
            cmid,
            sent: Instant::now(),
            result: None,
            turn_id: None,
            end: None,
            triggered: false,
            killed: false,
            probe,
            refused: false,
        }
    }

    /// How the turn ended, once it did: the terminal state of a started turn, `prompt_failed`
    /// (a failed prompt result), `completed` (a prompt answered without a turn) or `refused`.
    pub fn outcome(&self) -> Option<String> {
        if self.refused {
            return Some("refused".into());
        }
        match self.result.as_deref()? {
            "failed" => Some("prompt_failed".into()),
            "completed" => Some("completed".into()),
            _ => self.end.clone(),
        }
    }

    /// The turn has begun (a `session.turn` started, or its prompt result announced it).
    pub fn started(&self) -> bool {
        self.turn_id.is_some()
    }
}

/// What a close leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterClose {
    /// Open a replacement and go on with the plan.
    Reopen,
    /// The end of the run.
    Finish,
}

#[derive(Debug, Clone)]
pub enum Phase {
    Opening {
        request_id: String,
        since: Instant,
    },
    Ready,
    InTurn(Turn),
    Closing {
        request_id: String,
        since: Instant,
        then: AfterClose,
    },
    /// Every planned turn ran (or could not run); the session stays open until the end.
    Done,
    /// Closed at the end of the run.
    Closed,
    /// Something did not answer in time; the soak stopped driving it.
    Stuck,
}

#[derive(Debug)]
pub struct Sess {
    /// `s0`, `s1`, ...: the base of its session ids.
    pub base: String,
    /// How many times it was opened, minus one.
    pub generation: u32,
    /// The bridge's session id now (`s3`, then `s3.r1` after a reopen).
    pub id: String,
    pub plan: Vec<Action>,
    /// The next turn of the plan.
    pub next: usize,
    pub phase: Phase,
    /// Its runtime failed for good (`session.runtime_failed`), or the bridge closed it.
    pub failed: bool,
    /// The bridge closed it (`session.closed`): inputs for it are refused.
    pub closed: bool,
    /// The last turn's CLI was killed: the next turn is a probe.
    pub after_kill: bool,
}

impl Sess {
    pub fn new(index: usize, plan: Vec<Action>) -> Sess {
        let base = format!("s{index}");
        Sess {
            id: base.clone(),
            base,
            generation: 0,
            plan,
            next: 0,
            phase: Phase::Done,
            failed: false,
            closed: false,
            after_kill: false,
        }
    }

    /// The id of the next generation (a replacement after a failure).
    pub fn next_id(&self) -> String {
        format!("{}.r{}", self.base, self.generation + 1)
    }

    /// Nothing more to drive: done, closed or stuck.
    pub fn settled(&self) -> bool {
        matches!(self.phase, Phase::Done | Phase::Closed | Phase::Stuck)
    }

    pub fn turn_mut(&mut self) -> Option<&mut Turn> {
        match &mut self.phase {
            Phase::InTurn(t) => Some(t),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_ends_with_its_terminal_state_or_its_failed_result() {
        let mut t = Turn::new(0, Action::Text, "m".into(), false);
        assert_eq!(t.outcome(), None);
        t.end = Some("completed".into());
        assert_eq!(t.outcome(), None, "the prompt result is still owed");
        t.result = Some("turn".into());
        assert_eq!(t.outcome().as_deref(), Some("completed"));
        let mut f = Turn::new(1, Action::Text, "n".into(), false);
        f.result = Some("failed".into());
        assert_eq!(f.outcome().as_deref(), Some("prompt_failed"));
        let mut r = Turn::new(2, Action::Text, "o".into(), false);
        r.refused = true;
        assert_eq!(r.outcome().as_deref(), Some("refused"));
        let s = Sess::new(3, vec![]);
        assert_eq!((s.id.as_str(), s.next_id().as_str()), ("s3", "s3.r1"));
    }
}
