//! The `codex sandbox -- true` probe, run once per Codex installation and remembered.
//!
//! The answer depends on the program and its arguments, the environment it runs with
//! (`CODEX_HOME`, `HOME`) and the binary itself, so the key holds all of them, the binary as
//! its resolved path, size and modification time: an upgraded or replaced CLI probes again.
//! Concurrent askers share one probe. An open does not wait for it ([`SandboxCache::lookup`]):
//! the session assumes the sandbox works until the probe answers (see `session`).

use crate::launch;
use agent_bridge_core::supervisor::LaunchOverride;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::UNIX_EPOCH;
use tokio::sync::OnceCell;

/// Most remembered launches; a bridge sees a handful (one per `launch` a host connects with).
const MAX_ENTRIES: usize = 64;

/// One launch's probe result (`None` = the sandbox works), set once it answered.
pub type ProbeCell = Arc<OnceCell<Option<String>>>;

/// Sandbox probe results by [`launch_key`] and binary.
#[derive(Debug, Default)]
pub struct SandboxCache {
    known: Mutex<HashMap<String, ProbeCell>>,
}

/// What [`SandboxCache::lookup`] knows.
#[derive(Debug)]
pub enum Sandbox {
    Known(Option<String>),
    /// The probe is running (started by this lookup or an earlier one).
    Pending(ProbeCell),
}

/// What identifies a Codex installation and its state: program, prefix, CODEX_HOME and HOME
/// (of the launch's effective environment: plugin.json's `env` included).
pub fn launch_key(launch: &LaunchOverride) -> String {
    let env = launch.effective_env(&Default::default());
    let var = |k: &str| env.get(k).map(String::as_str).unwrap_or_default();
    format!(
        "codex-bridge|{}|{}|{}|{}",
        launch.program(launch::DEFAULT_PROGRAM),
        launch.args.join(" "),
        var("CODEX_HOME"),
        var("HOME")
    )
}

/// The binary the launch runs: resolved path, size and modification time (empty when it
/// cannot be found: then the probe's own spawn reports why).
fn binary_identity(launch: &LaunchOverride) -> String {
    let Ok(path) = launch.resolve(launch::DEFAULT_PROGRAM) else {
        return String::new();
    };
    let real = std::fs::canonicalize(&path).unwrap_or(path);
    let meta = std::fs::metadata(&real).ok();
    let modified = meta
        .as_ref()
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    format!(
        "{}|{}|{modified}",
        real.display(),
        meta.map_or(0, |m| m.len())
    )
}

impl SandboxCache {
    fn cell(&self, launch: &LaunchOverride) -> ProbeCell {
        let key = format!("{}|{}", launch_key(launch), binary_identity(launch));
        let mut known = self.known.lock().unwrap_or_else(|p| p.into_inner());
        if !known.contains_key(&key) && known.len() >= MAX_ENTRIES {
            known.clear();
        }
        known.entry(key).or_default().clone()
    }

    /// `Some(problem)` when Codex's sandbox cannot run for this launch; probes only the first
    /// time a launch (or its binary) is seen.
    pub async fn problem(&self, launch: &LaunchOverride) -> Option<String> {
        let cell = self.cell(launch);
        cell.get_or_init(|| launch::probe_sandbox(launch))
            .await
            .clone()
    }

    /// The answer when known; otherwise the probe starts in the background (once per launch).
    pub fn lookup(&self, launch: &LaunchOverride) -> Sandbox {
        let cell = self.cell(launch);
        if let Some(known) = cell.get() {
            return Sandbox::Known(known.clone());
        }
        let (probe, launch) = (cell.clone(), launch.clone());
        tokio::spawn(async move {
            probe.get_or_init(|| launch::probe_sandbox(&launch)).await;
        });
        Sandbox::Pending(cell)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::collections::BTreeMap;
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;

    /// A fake `codex` that logs each run (with its CODEX_HOME) and fails the sandbox probe
    /// when `$CODEX_HOME/broken` exists.
    fn fake_codex(dir: &Path, version: &str) -> std::path::PathBuf {
        let bin = dir.join("codex");
        let log = dir.join("runs.log");
        let script = format!(
            "#!/bin/sh\n# {version}\necho \"$CODEX_HOME $*\" >> '{}'\nif [ -e \"$CODEX_HOME/broken\" ]; then echo 'bwrap: no permission' >&2; exit 1; fi\nexit 0\n",
            log.display()
        );
        std::fs::write(&bin, script).unwrap();
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
        bin
    }

    fn runs(dir: &Path) -> usize {
        std::fs::read_to_string(dir.join("runs.log"))
            .map(|s| s.lines().count())
            .unwrap_or(0)
    }

    fn launch(bin: &Path, home: &Path) -> LaunchOverride {
        let env = BTreeMap::from([
            ("CODEX_HOME".to_string(), home.display().to_string()),
            ("PATH".to_string(), "/usr/bin:/bin".to_string()),
        ]);
        LaunchOverride {
            command: Some(bin.display().to_string()),
            env: Some(env),
            ..LaunchOverride::default()
        }
    }

    #[tokio::test]
    async fn the_probe_runs_once_per_launch_home_and_binary() {
        let dir = tempfile::tempdir().unwrap();
        let (home_a, home_b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir_all(&home_a).unwrap();
        std::fs::create_dir_all(&home_b).unwrap();
        std::fs::write(home_b.join("broken"), "").unwrap();
        let bin = fake_codex(dir.path(), "1");
        let cache = SandboxCache::default();

        assert_eq!(cache.problem(&launch(&bin, &home_a)).await, None);
        assert_eq!(cache.problem(&launch(&bin, &home_a)).await, None);
        assert_eq!(runs(dir.path()), 1, "the same launch is probed once");

        let broken = cache.problem(&launch(&bin, &home_b)).await;
        assert_eq!(broken.as_deref(), Some("bwrap: no permission"));
        assert_eq!(runs(dir.path()), 2, "another CODEX_HOME probes again");

        let mut prefixed = launch(&bin, &home_a);
        prefixed.args = vec!["--profile-x".into()];
        cache.problem(&prefixed).await;
        assert_eq!(runs(dir.path()), 3, "another launch probes again");

        // An upgraded CLI (another file at the same path) probes again.
        fake_codex(dir.path(), "2 (upgraded)");
        assert_eq!(cache.problem(&launch(&bin, &home_a)).await, None);
        assert_eq!(runs(dir.path()), 4, "a changed binary probes again");
        assert_eq!(cache.problem(&launch(&bin, &home_a)).await, None);
        assert_eq!(runs(dir.path()), 4);
    }

    #[tokio::test]
    async fn a_lookup_probes_in_the_background_once() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("h");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(home.join("broken"), "").unwrap();
        let bin = fake_codex(dir.path(), "1");
        let cache = SandboxCache::default();
        let Sandbox::Pending(cell) = cache.lookup(&launch(&bin, &home)) else {
            panic!("nothing is known yet");
        };
        // A second asker meanwhile shares the running probe.
        let problem = cache.problem(&launch(&bin, &home)).await;
        assert_eq!(problem.as_deref(), Some("bwrap: no permission"));
        assert_eq!(cell.get().cloned().flatten(), problem);
        assert!(matches!(
            cache.lookup(&launch(&bin, &home)),
            Sandbox::Known(Some(_))
        ));
        assert_eq!(runs(dir.path()), 1);
    }
}
