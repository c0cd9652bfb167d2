//! The one effective environment of a vendor CLI: what a session's process, an availability or
//! version probe, and the bridge's own look-ups of the CLI's files (Claude's transcripts under
//! `CLAUDE_CONFIG_DIR`, Codex's prompts under `CODEX_HOME`, a probe cache's key) all see.
//!
//! Layers, lowest first (a later one wins for a variable both set):
//!
//! 1. the bridge's own environment, unless (2) is given;
//! 2. `launch.env`: the connect request's `launch` (Paseo's per-provider launch override)
//!    *replaces* (1) entirely;
//! 3. the `env` of the provider's `plugin.json` entry ([`LaunchOverride::extra_env`]);
//! 4. the session's `config.env`.
//!
//! A provider's own fixed variables sit in its [`SpawnSpec`] at a documented place (Claude's
//! `CLAUDE_CODE_ENABLE_FILE_CHECKPOINTING` below (4), an ACP profile's `env` above it), and
//! [`SpawnSpec::env_remove`] removes last. [`SpawnSpec::effective_env`] resolves a spec with the
//! same [`layered`] rule the spawn applies, so a look-up agrees with what the CLI got.
//!
//! The bridge's own variables that are not UTF-8 are left out of the maps (a spawn without
//! `launch.env` still inherits them: the OS applies layer 1).

use crate::supervisor::{LaunchOverride, SpawnSpec};
use std::collections::BTreeMap;

/// An environment: variable -> value.
pub type Env = BTreeMap<String, String>;

/// The environment of the CLI of `launch` for a session whose `config.env` is `session`
/// (empty for a probe or a look-up outside a session): layers 1-4 of the module doc.
pub fn effective_env(launch: &LaunchOverride, session: &Env) -> Env {
    layered(launch.env.as_ref(), &[&launch.extra_env, session], &[])
}

/// `base` (the bridge's own environment when `None`), each overlay on top in order, then the
/// `remove`d variables taken out.
pub fn layered(base: Option<&Env>, overlays: &[&Env], remove: &[String]) -> Env {
    let mut env = match base {
        Some(base) => base.clone(),
        None => process_env(),
    };
    for overlay in overlays {
        env.extend(overlay.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    for k in remove {
        env.remove(k);
    }
    env
}

/// The bridge's own environment (its UTF-8 variables; `std::env::vars` would panic on others).
fn process_env() -> Env {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}

impl LaunchOverride {
    /// [`effective_env`] of this launch.
    pub fn effective_env(&self, session: &Env) -> Env {
        effective_env(self, session)
    }

    /// One variable of [`LaunchOverride::effective_env`] without a session.
    pub fn var(&self, name: &str) -> Option<String> {
        self.effective_env(&Env::new()).remove(name)
    }
}

impl SpawnSpec {
    /// The environment the process of this spec gets ([`layered`]: `base_env` or the bridge's
    /// own, `env` on top, `env_remove` taken out), as [`crate::supervisor::ManagedChild::spawn`]
    /// applies it.
    pub fn effective_env(&self) -> Env {
        layered(self.base_env.as_ref(), &[&self.env], &self.env_remove)
    }

    /// One variable of [`SpawnSpec::effective_env`].
    pub fn var(&self, name: &str) -> Option<String> {
        self.effective_env().remove(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn env(pairs: &[(&str, &str)]) -> Env {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn plugin_json_env_is_over_the_launch_env_and_the_session_env_over_both() {
        let launch = LaunchOverride {
            env: Some(env(&[("HOME", "/h"), ("A", "launch"), ("B", "launch")])),
            extra_env: env(&[("A", "plugin"), ("CLAUDE_CONFIG_DIR", "/second")]),
            ..LaunchOverride::default()
        };
        assert_eq!(
            effective_env(&launch, &env(&[("B", "session")])),
            env(&[
                ("HOME", "/h"),
                ("A", "plugin"),
                ("B", "session"),
                ("CLAUDE_CONFIG_DIR", "/second"),
            ])
        );
        assert_eq!(launch.var("CLAUDE_CONFIG_DIR").as_deref(), Some("/second"));
    }

    #[test]
    fn without_a_launch_env_the_bridge_s_own_is_the_base() {
        let launch = LaunchOverride {
            extra_env: env(&[("AGENT_BRIDGE_TEST_ONLY_IN_PLUGIN", "1")]),
            ..LaunchOverride::default()
        };
        let got = effective_env(&launch, &Env::new());
        assert_eq!(got.get("PATH"), std::env::var("PATH").ok().as_ref());
        assert_eq!(
            got.get("AGENT_BRIDGE_TEST_ONLY_IN_PLUGIN")
                .map(String::as_str),
            Some("1")
        );
    }

    #[test]
    fn a_spec_carries_the_plugin_json_env_and_its_removals() {
        let launch = LaunchOverride {
            env: Some(env(&[("HOME", "/h"), ("CODEX_HOME", "/launch")])),
            extra_env: env(&[("CODEX_HOME", "/plugin")]),
            ..LaunchOverride::default()
        };
        let mut spec = launch.spec("codex", vec![]).env("X", "1");
        assert_eq!(spec.var("CODEX_HOME").as_deref(), Some("/plugin"));
        spec.env_remove.push("X".into());
        assert_eq!(
            spec.effective_env(),
            env(&[("HOME", "/h"), ("CODEX_HOME", "/plugin")])
        );
    }

    /// What a spawned process prints with `env` is [`SpawnSpec::effective_env`].
    #[tokio::test]
    async fn the_spawned_process_gets_exactly_the_effective_env() {
        let launch = LaunchOverride {
            env: Some(env(&[
                ("PATH", &std::env::var("PATH").unwrap_or_default()),
                ("A", "launch"),
                ("GONE", "x"),
            ])),
            extra_env: env(&[("A", "plugin"), ("B", "plugin")]),
            ..LaunchOverride::default()
        };
        let mut spec = launch.spec("env", vec![]).envs(&env(&[("B", "session")]));
        spec.env_remove.push("GONE".into());
        let out = crate::probe::run_probe(&spec, std::time::Duration::from_secs(10))
            .await
            .expect("env runs");
        let printed: Env = out
            .stdout
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert_eq!(printed, spec.effective_env());
    }
}
