//! Modes that are process flags: an agent whose only unattended switch is an argument of its
//! process (Deep Agents Code's `--yolo`) declares its modes in the profile's (or an entry's)
//! `processModes`, mode id -> the arguments a process of that mode gets after the profile's
//! (`{"ask": [], "yolo": ["--yolo"]}`). The bridge offers them as the agent's modes (for an
//! agent without modes of its own, [`crate::config`]); a session runs on a process started with
//! its mode's arguments, which is another launch than the other modes' (another shared process,
//! another spare: the core keys both by the whole spawn spec), so sessions of different modes
//! never share a process. The mode at open picks the process (a fresh one, a shared one, a
//! spare, a reopen's, a restart's: all by the same spec); a switch of an open session moves it
//! to a process of the new mode with `session/resume` or `session/load`, its history kept
//! ([`crate::process_switch`]).

use agent_bridge_core::supervisor::SpawnSpec;
use serde::Deserialize;
use std::collections::BTreeMap;

/// The process modes of a profile: mode id -> the arguments its processes get.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct ProcessModes(BTreeMap<String, Vec<String>>);

impl ProcessModes {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `id` is one of them.
    pub fn contains(&self, id: &str) -> bool {
        self.0.contains_key(id)
    }

    /// The mode a session gets when it asks for none: the first (by id) whose processes get no
    /// extra argument (the agent's own behaviour), else the first.
    pub fn base(&self) -> Option<&str> {
        self.0
            .iter()
            .find(|(_, args)| args.is_empty())
            .or_else(|| self.0.iter().next())
            .map(|(id, _)| id.as_str())
    }

    /// The ids, the base mode first, then the others by id.
    pub fn ids(&self) -> Vec<String> {
        let base = self.base();
        base.into_iter()
            .map(str::to_string)
            .chain(
                self.0
                    .keys()
                    .filter(|id| Some(id.as_str()) != base)
                    .cloned(),
            )
            .collect()
    }

    /// The process mode of a session that asks for `requested`: that mode if it is one, else
    /// the base mode (`None`: the profile has no process modes).
    pub fn at_open(&self, requested: Option<&str>) -> Option<String> {
        requested
            .filter(|m| self.contains(m))
            .or_else(|| self.base())
            .map(str::to_string)
    }

    /// `base` (the launch without any mode's arguments) for a process of `mode`.
    pub fn spec(&self, base: &SpawnSpec, mode: Option<&str>) -> SpawnSpec {
        let mut spec = base.clone();
        if let Some(args) = mode.and_then(|m| self.0.get(m)) {
            spec.args.extend(args.iter().cloned());
        }
        spec
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn modes(json: &str) -> ProcessModes {
        serde_json::from_str(json).expect("process modes")
    }

    #[test]
    fn the_mode_without_arguments_is_the_base_and_comes_first() {
        let m = modes(r#"{"yolo": ["--yolo"], "ask": []}"#);
        assert_eq!(m.base(), Some("ask"));
        assert_eq!(m.ids(), vec!["ask", "yolo"]);
        let flagged = modes(r#"{"b": ["--b"], "a": ["--a"]}"#);
        assert_eq!(
            flagged.base(),
            Some("a"),
            "none without arguments: the first"
        );
        assert_eq!(ProcessModes::default().base(), None);
        assert!(ProcessModes::default().ids().is_empty());
    }

    #[test]
    fn a_session_opens_in_its_requested_mode_else_the_base() {
        let m = modes(r#"{"ask": [], "yolo": ["--yolo"]}"#);
        assert_eq!(m.at_open(Some("yolo")).as_deref(), Some("yolo"));
        assert_eq!(m.at_open(None).as_deref(), Some("ask"));
        assert_eq!(m.at_open(Some("plan")).as_deref(), Some("ask"));
        assert_eq!(ProcessModes::default().at_open(Some("yolo")), None);
    }

    #[test]
    fn a_modes_arguments_come_after_the_launchs() {
        let m = modes(r#"{"ask": [], "yolo": ["--yolo"]}"#);
        let base = SpawnSpec {
            program: "dcode".into(),
            args: vec!["--acp".into(), "-M".into(), "openai:m".into()],
            ..SpawnSpec::default()
        };
        assert_eq!(
            m.spec(&base, Some("yolo")).args,
            vec!["--acp", "-M", "openai:m", "--yolo"]
        );
        assert_eq!(m.spec(&base, Some("ask")).args, base.args);
        assert_eq!(m.spec(&base, None).args, base.args);
    }
}
