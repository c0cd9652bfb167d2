//! What the thread runs with, and the overrides a turn needs.

use crate::catalog::SessionConfig;

/// The settings the thread runs with (from its open answer, then from each `turn/start`
/// that changed them: Codex keeps a turn's overrides for the turns after it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Applied {
    pub model: Option<String>,
    pub effort: Option<String>,
    /// The mode id of the thread's approval policy and sandbox (`None` when none matches).
    pub mode: Option<String>,
}

impl Applied {
    /// The overrides a turn must carry to run with `config`: only what differs. Any override
    /// makes the app-server rebuild the turn's context, a few ms before the model request.
    pub fn overrides(&self, config: &SessionConfig) -> Applied {
        let differs = |want: &Option<String>, have: &Option<String>| {
            want.as_ref().filter(|w| Some(*w) != have.as_ref()).cloned()
        };
        Applied {
            model: differs(&config.model, &self.model),
            effort: differs(&config.effort, &self.effort),
            mode: differs(&config.mode, &self.mode),
        }
    }

    /// The settings after a turn ran with `overrides`.
    pub(super) fn merge(&mut self, overrides: Applied) {
        let Applied {
            model,
            effort,
            mode,
        } = overrides;
        self.model = model.or(self.model.take());
        self.effort = effort.or(self.effort.take());
        self.mode = mode.or(self.mode.take());
    }
}
