//! What the thread runs with, and the overrides a turn needs.

use crate::catalog::{self, SessionConfig};
use crate::wire::thread::ThreadOpened;

/// The settings the thread runs with (from its open answer, then from each `turn/start`
/// that changed them: Codex keeps a turn's overrides for the turns after it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Applied {
    pub model: Option<String>,
    pub effort: Option<String>,
    /// The mode id of the thread's approval policy and sandbox (`None` when none matches).
    pub mode: Option<String>,
    /// `networkAccess` of the thread's sandbox policy (`None` outside the sandboxed modes).
    pub network: Option<bool>,
    /// The reasoning summary (`summary`).
    pub summary: Option<String>,
    /// The `web_search` config the thread was loaded with (not a turn override: a change
    /// loads the thread again, see `thread_config`).
    pub web_search: Option<String>,
}

impl Applied {
    /// What a thread runs with once loaded, from its `thread/start` or `thread/resume`
    /// answer, the thread config it was loaded with (`web_search`) and its reasoning summary
    /// when known. The answer does not say the summary: a new thread runs with
    /// `config.toml`'s, a resumed one with the last turn's (Codex restores it from the
    /// rollout), unknown here, so the next turn sends the committed one.
    pub fn loaded(opened: &ThreadOpened, summary: Option<&str>, web_search: &str) -> Applied {
        Applied {
            model: opened.model.clone().or(opened.thread.model.clone()),
            effort: opened.reasoning_effort.clone(),
            mode: catalog::mode_of(&opened.approval_policy, &opened.sandbox).map(str::to_string),
            network: catalog::network_of(&opened.sandbox),
            summary: summary.map(str::to_string),
            web_search: Some(web_search.to_string()),
        }
    }

    /// The overrides a turn must carry to run with `config`: only what differs. Any override
    /// makes the app-server rebuild the turn's context, a few ms before the model request.
    /// A sandbox policy goes whenever the mode or, in a sandboxed mode, the network access
    /// differs; `network` then says the access it carries.
    pub fn overrides(&self, config: &SessionConfig) -> Applied {
        let differs = |want: &Option<String>, have: &Option<String>| {
            want.as_ref().filter(|w| Some(*w) != have.as_ref()).cloned()
        };
        let mode = differs(&config.mode, &self.mode);
        let want_network = config
            .mode
            .as_deref()
            .and_then(catalog::mode)
            .filter(|m| m.sandboxed)
            .map(|_| config.controls.network_access);
        let network = if mode.is_some() || (want_network.is_some() && want_network != self.network)
        {
            want_network
        } else {
            None
        };
        Applied {
            model: differs(&config.model, &self.model),
            effort: differs(&config.effort, &self.effort),
            mode,
            network,
            summary: differs(
                &Some(config.controls.reasoning_summary.clone()),
                &self.summary,
            ),
            web_search: None,
        }
    }

    /// Whether a turn with `overrides` carries a sandbox policy.
    pub fn sends_sandbox(overrides: &Applied) -> bool {
        overrides.mode.is_some() || overrides.network.is_some()
    }

    /// The settings after a turn ran with `overrides`.
    pub(super) fn merge(&mut self, overrides: Applied) {
        let sandbox = Self::sends_sandbox(&overrides);
        let Applied {
            model,
            effort,
            mode,
            network,
            summary,
            web_search: _,
        } = overrides;
        self.model = model.or(self.model.take());
        self.effort = effort.or(self.effort.take());
        self.mode = mode.or(self.mode.take());
        if sandbox {
            self.network = network;
        }
        self.summary = summary.or(self.summary.take());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::params::TurnStartParams;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn a_turn_overrides_only_what_the_thread_does_not_run_with() {
        let mut applied = Applied {
            model: Some("gpt-5".into()),
            effort: Some("medium".into()),
            mode: Some("full-access".into()),
            summary: Some("auto".into()),
            ..Default::default()
        };
        let same = SessionConfig::for_test("gpt-5", Some("medium"), "full-access");
        assert_eq!(applied.overrides(&same), Applied::default());
        let changed = SessionConfig::for_test("gpt-5-mini", Some("medium"), "read-only");
        let overrides = applied.overrides(&changed);
        assert_eq!(
            overrides,
            Applied {
                model: Some("gpt-5-mini".into()),
                effort: None,
                mode: Some("read-only".into()),
                network: Some(false),
                ..Default::default()
            }
        );
        applied.merge(overrides);
        assert_eq!(applied.overrides(&changed), Applied::default(), "kept");
        assert_eq!(applied.effort.as_deref(), Some("medium"));
        // A thread whose settings match no mode gets the session's mode with its turn.
        let unknown = Applied {
            mode: None,
            ..applied.clone()
        };
        assert_eq!(
            unknown.overrides(&changed).mode.as_deref(),
            Some("read-only")
        );
        // Nothing chosen is nothing sent.
        let unset = SessionConfig {
            effort: None,
            ..changed
        };
        assert_eq!(applied.overrides(&unset).effort, None);
    }

    #[test]
    fn network_access_and_summary_ride_on_the_turn_only_when_they_differ() {
        let mut applied = Applied {
            mode: Some("auto".into()),
            network: Some(false),
            summary: Some("auto".into()),
            ..Default::default()
        };
        let mut c = SessionConfig::for_test("gpt-5", None, "auto");
        c.model = None;
        assert_eq!(applied.overrides(&c), Applied::default());
        c.controls.network_access = true;
        c.controls.reasoning_summary = "detailed".into();
        let o = applied.overrides(&c);
        assert_eq!(
            o,
            Applied {
                network: Some(true),
                summary: Some("detailed".into()),
                ..Default::default()
            }
        );
        assert!(Applied::sends_sandbox(&o), "the sandbox policy carries it");
        applied.merge(o);
        assert_eq!(applied.overrides(&c), Applied::default(), "kept");
        // Unsandboxed modes always reach the network: no policy for the toggle alone.
        let mut full = SessionConfig::for_test("gpt-5", None, "full-access");
        full.model = None;
        full.controls = c.controls.clone();
        let to_full = applied.overrides(&full);
        assert_eq!(to_full.mode.as_deref(), Some("full-access"));
        assert_eq!(to_full.network, None);
        applied.merge(to_full);
        assert_eq!(applied.network, None);
        assert_eq!(applied.overrides(&full), Applied::default());
        // Back to a sandboxed mode: the policy carries the chosen access.
        let back = applied.overrides(&c);
        assert_eq!(
            (back.mode.as_deref(), back.network),
            (Some("auto"), Some(true))
        );
        let params = TurnStartParams {
            sandbox_policy: catalog::mode("auto").map(|m| m.sandbox_policy(true)),
            summary: back.summary.clone(),
            ..Default::default()
        };
        assert_eq!(
            serde_json::to_value(&params).unwrap()["sandboxPolicy"],
            json!({"type": "workspaceWrite", "networkAccess": true})
        );
    }
}
