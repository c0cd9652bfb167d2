//! The `codex sandbox -- true` probe, run once per Codex installation and remembered.
//!
//! The answer depends on the program and its arguments, the environment it runs with
//! (`CODEX_HOME`, `HOME`) and the binary itself, so the key holds all of them, the binary as
//! its resolved path, size and modification time: an upgraded or replaced CLI probes again.

use crate::launch;
use agent_bridge_core::supervisor::LaunchOverride;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::UNIX_EPOCH;

/// Most remembered launches; a bridge sees a handful (one per `launch` a host connects with).
const MAX_ENTRIES: usize = 64;

/// Sandbox probe results by [`launch_key`] (`None` = the sandbox works).
#[derive(Debug, Default)]
pub struct SandboxCache {
    known: Mutex<HashMap<String, Option<String>>>,
}

/// What identifies a Codex installation and its state: program, prefix, CODEX_HOME and HOME.
pub fn launch_key(launch: &LaunchOverride) -> String {
    let var = |k: &str| match &launch.env {
        Some(env) => env.get(k).cloned(),
        None => std::env::var(k).ok(),
    };
    format!(
        "codex-bridge|{}|{}|{}|{}",
        launch.program(launch::DEFAULT_PROGRAM),
        launch.args.join(" "),
        var("CODEX_HOME").unwrap_or_default(),
        var("HOME").unwrap_or_default()
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
    /// `Some(problem)` when Codex's sandbox cannot run for this launch; probes only the first
    /// time a launch (or its binary) is seen.
    pub async fn problem(&self, launch: &LaunchOverride) -> Option<String> {
        let key = format!("{}|{}", launch_key(launch), binary_identity(launch));
        if let Some(known) = self.lock().get(&key).cloned() {
            return known;
        }
        let problem = launch::probe_sandbox(launch).await;
        let mut known = self.lock();
        if known.len() >= MAX_ENTRIES {
            known.clear();
        }
        known.insert(key, problem.clone());
        problem
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Option<String>>> {
        self.known.lock().unwrap_or_else(|p| p.into_inner())
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
}
