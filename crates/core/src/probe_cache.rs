//! Remembered answers of expensive availability probes (`claude auth status`, an app-server's
//! `account/read`, an ACP agent's `session/new`): one probe per key at a time, its answer kept
//! for as long as the caller says it stays true.
//!
//! A key names everything the answer depends on: the program and its arguments, the binary
//! ([`binary_stamp`]: an upgraded CLI probes again), the environment ([`env_digest`], a hash:
//! no secret is kept) and the files a login writes ([`file_stamp`]: logging in or out probes
//! again). A probe runs in a task of its own, so an asker that stops waiting
//! ([`ProbeCache::get_within`]) does not waste it: the next asker finds its answer.

use crate::supervisor::LaunchOverride;
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, UNIX_EPOCH};
use tokio::sync::OnceCell;
use tokio::time::Instant;

/// Most remembered keys; a bridge sees a handful (one per `launch` a host connects with).
const MAX_ENTRIES: usize = 64;

struct Stamped<V> {
    value: V,
    at: Instant,
}

type Slot<V> = Arc<OnceCell<Stamped<V>>>;

/// Probe answers by key.
pub struct ProbeCache<V> {
    slots: Mutex<HashMap<String, Slot<V>>>,
}

impl<V> Default for ProbeCache<V> {
    fn default() -> Self {
        ProbeCache {
            slots: Mutex::new(HashMap::new()),
        }
    }
}

impl<V> std::fmt::Debug for ProbeCache<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.slots.lock().map_or(0, |s| s.len());
        f.debug_struct("ProbeCache").field("keys", &n).finish()
    }
}

impl<V: Clone + Send + Sync + 'static> ProbeCache<V> {
    /// The slot of `key`: its answer while `fresh_for(answer)` has not passed, else a new one.
    fn slot(&self, key: &str, fresh_for: impl Fn(&V) -> Duration) -> Slot<V> {
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        let stale = slots
            .get(key)
            .and_then(|s| s.get())
            .is_some_and(|s| s.at.elapsed() >= fresh_for(&s.value));
        if stale {
            slots.remove(key);
        }
        if !slots.contains_key(key) && slots.len() >= MAX_ENTRIES {
            slots.clear();
        }
        slots.entry(key.to_string()).or_default().clone()
    }

    /// The answer for `key`, probing (once, whoever else asks meanwhile) when none is fresh,
    /// waiting at most `limit` (`None`: as long as it takes). `None` when the probe did not
    /// answer in time (it keeps running and its answer is remembered) or panicked.
    pub async fn get_within(
        &self,
        key: &str,
        limit: Option<Duration>,
        fresh_for: impl Fn(&V) -> Duration,
        probe: impl Future<Output = V> + Send + 'static,
    ) -> Option<V> {
        let slot = self.slot(key, fresh_for);
        if let Some(known) = slot.get() {
            return Some(known.value.clone());
        }
        let shared = slot.clone();
        let task = tokio::spawn(async move {
            shared
                .get_or_init(|| async {
                    Stamped {
                        value: probe.await,
                        at: Instant::now(),
                    }
                })
                .await
                .value
                .clone()
        });
        let answer = match limit {
            Some(limit) => tokio::time::timeout(limit, task).await.ok()?,
            None => task.await,
        };
        match answer {
            Ok(v) => Some(v),
            Err(e) => {
                tracing::warn!("an availability probe failed: {e}");
                None
            }
        }
    }
}

/// What identifies the binary `launch` runs: resolved path, size, modification time. Empty
/// when it cannot be found (the probe's own spawn then says why). The PATH search runs off
/// the async runtime.
pub async fn binary_stamp(launch: &LaunchOverride, default_program: &str) -> String {
    let (launch, program) = (launch.clone(), default_program.to_string());
    let found = tokio::task::spawn_blocking(move || launch.resolve(&program).ok()).await;
    let Ok(Some(path)) = found else {
        return String::new();
    };
    let real = tokio::fs::canonicalize(&path).await.unwrap_or(path);
    format!("{}|{}", real.display(), file_stamp(&real).await)
}

/// Size and modification time of `path`, or `absent`.
pub async fn file_stamp(path: &Path) -> String {
    match tokio::fs::metadata(path).await {
        Ok(meta) => {
            let modified = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{}:{modified}", meta.len())
        }
        Err(_) => "absent".into(),
    }
}

/// [`file_stamp`] of each path, joined.
pub async fn files_stamp(paths: &[PathBuf]) -> String {
    let mut out = String::new();
    for p in paths {
        out.push_str(&format!("{}={};", p.display(), file_stamp(p).await));
    }
    out
}

/// A hash of a whole environment: equal environments give equal digests, and no value (an API
/// key, say) is kept.
pub fn env_digest(env: &BTreeMap<String, String>) -> String {
    let mut h = DefaultHasher::new();
    env.hash(&mut h);
    format!("{:016x}", h.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn counting(n: &Arc<AtomicUsize>, value: &'static str) -> impl Future<Output = String> {
        let n = n.clone();
        async move {
            n.fetch_add(1, Ordering::SeqCst);
            value.to_string()
        }
    }

    /// Fresh for 10 min when "in", 20 s otherwise.
    fn fresh(v: &String) -> Duration {
        Duration::from_secs(if v == "in" { 600 } else { 20 })
    }

    async fn get(
        cache: &ProbeCache<String>,
        key: &str,
        probe: impl Future<Output = String> + Send + 'static,
    ) -> String {
        cache
            .get_within(key, None, fresh, probe)
            .await
            .expect("an answer")
    }

    #[tokio::test(start_paused = true)]
    async fn answers_are_kept_while_fresh_then_probed_again() {
        let cache: ProbeCache<String> = ProbeCache::default();
        let runs = Arc::new(AtomicUsize::new(0));
        assert_eq!(get(&cache, "a", counting(&runs, "out")).await, "out");
        assert_eq!(get(&cache, "a", counting(&runs, "in")).await, "out");
        assert_eq!(runs.load(Ordering::SeqCst), 1, "a fresh answer is reused");
        tokio::time::advance(Duration::from_secs(21)).await;
        assert_eq!(get(&cache, "a", counting(&runs, "in")).await, "in");
        assert_eq!(
            runs.load(Ordering::SeqCst),
            2,
            "a stale answer is probed again"
        );
        tokio::time::advance(Duration::from_secs(21)).await;
        assert_eq!(get(&cache, "a", counting(&runs, "out")).await, "in");
        assert_eq!(get(&cache, "b", counting(&runs, "out")).await, "out");
        assert_eq!(runs.load(Ordering::SeqCst), 3, "another key probes");
    }

    #[tokio::test(start_paused = true)]
    async fn a_slow_probe_keeps_running_for_the_next_asker() {
        let cache: ProbeCache<String> = ProbeCache::default();
        let slow = async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            "slow".to_string()
        };
        let first = cache
            .get_within("k", Some(Duration::from_secs(1)), fresh, slow)
            .await;
        assert_eq!(first, None, "the asker stopped waiting");
        // The second asker shares the running probe instead of starting one.
        assert_eq!(
            get(&cache, "k", async { "other".to_string() }).await,
            "slow"
        );
    }

    #[tokio::test]
    async fn stamps_follow_the_file_and_digests_hide_values() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("auth.json");
        assert_eq!(file_stamp(&file).await, "absent");
        std::fs::write(&file, "{}").unwrap();
        let written = file_stamp(&file).await;
        assert_ne!(written, "absent");
        std::fs::write(&file, "{\"key\": 1}").unwrap();
        assert_ne!(
            file_stamp(&file).await,
            written,
            "a rewrite changes the stamp"
        );

        let env = BTreeMap::from([("OPENAI_API_KEY".to_string(), "sk-secret".to_string())]);
        let digest = env_digest(&env);
        assert!(!digest.contains("secret"));
        assert_eq!(digest, env_digest(&env.clone()));
        assert_ne!(digest, env_digest(&BTreeMap::new()));
    }
}
