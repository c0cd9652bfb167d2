//! When Claude Code has a conversation on disk, so that `--resume` finds it.
//!
//! Claude Code (2.1.197) does not write its transcript as a run goes: its session storage
//! queues the entries in memory and appends them to
//! `<config dir>/projects/<cwd slug>/<session id>.jsonl` from a timer (`FLUSH_INTERVAL_MS =
//! 100` in the CLI's bundle), and at a graceful exit. The run's `result` line reaches stdout
//! before that timer fires: measured against the mock model, the file did not exist yet when
//! `result` arrived, its first entries appeared 1–13 ms later and the run's assistant entry
//! ~100 ms later (strace of the CLI's writes); a CLI killed in between leaves no transcript
//! (or one without the run's reply), and `claude --resume <id>` answers "No conversation
//! found with session ID".
//!
//! So a run's end does not mean the conversation is saved. After a run ends the bridge waits
//! until the transcript holds the run's last main-chain entry (the `uuid` of its last
//! `assistant` / `user` line, which the CLI writes under the same uuid) before it counts the
//! conversation as saved — only then is a held persistence handle published and a restart
//! resumes rather than starting afresh. The wait polls the end of the file off the event path
//! ([`POLL`]) for at most [`PATIENCE`]; a transcript that exists by then but lacks the entry
//! (a CLI that writes differently) still counts, one that does not exist does not.

use crate::state::{persistence, SessionState};
use crate::transcript;
use agent_bridge_core::lifecycle::{lock, EventTarget, Liveness, SharedState};
use agent_bridge_core::AgentEvent;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncSeekExt};

/// How often the transcript is looked at while a save is awaited.
pub const POLL: Duration = Duration::from_millis(20);

/// How long a save is awaited before the transcript is taken as it is.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// How much of the transcript's end is read to find the awaited entry (the run's last entry
/// is the last or nearly the last line; a reply longer than this is found by its file's
/// existence after [`PATIENCE`]).
const TAIL_BYTES: u64 = 512 * 1024;

/// What the watch of one runtime needs.
#[derive(Clone)]
pub struct SaveWatch {
    pub shared: SharedState<SessionState>,
    pub events: EventTarget,
    /// The CLI's `projects` folder; `None` when its environment names no home.
    pub projects: Option<PathBuf>,
    /// The watch ends when the runtime closes.
    pub liveness: Liveness,
}

/// What a watch waits for, read from the shared state at each look.
struct Awaited {
    uuid: Option<String>,
    session_id: String,
    cwd: String,
}

impl SaveWatch {
    /// Starts watching when a run ended unsaved and no watch runs yet.
    pub fn start_if_needed(&self) {
        let start = {
            let mut s = lock(&self.shared);
            let start = s.awaiting_save.is_some() && !s.save_watch_running;
            s.save_watch_running |= start;
            start
        };
        if start {
            let watch = self.clone();
            tokio::spawn(async move { watch.run().await });
        }
    }

    async fn run(self) {
        let began = tokio::time::Instant::now();
        while let Some(awaited) = self.awaited() {
            let found = match &self.projects {
                Some(projects) => holds(projects, &awaited, began.elapsed() >= PATIENCE).await,
                None => false,
            };
            if found {
                if self.saved(&awaited).await {
                    break;
                }
                continue;
            }
            if began.elapsed() >= PATIENCE {
                tracing::warn!(
                    session = %awaited.session_id,
                    "Claude Code has not written the transcript {} seconds after the run ended; its handle stays held",
                    PATIENCE.as_secs()
                );
                break;
            }
            tokio::select! {
                _ = tokio::time::sleep(POLL) => {}
                _ = self.liveness.closed() => break,
            }
        }
        lock(&self.shared).save_watch_running = false;
    }

    fn awaited(&self) -> Option<Awaited> {
        let s = lock(&self.shared);
        let uuid = s.awaiting_save.clone()?;
        Some(Awaited {
            uuid: uuid.0,
            session_id: s.native_session_id.clone()?,
            cwd: s.cwd.clone(),
        })
    }

    /// The awaited entry is on disk: the conversation counts as saved and a held handle is
    /// published. False when another run ended meanwhile (its entry is awaited next).
    async fn saved(&self, awaited: &Awaited) -> bool {
        let publish = {
            let mut s = lock(&self.shared);
            if s.awaiting_save.as_ref().map(|a| &a.0) != Some(&awaited.uuid) {
                return false;
            }
            s.awaiting_save = None;
            s.transcript_saved = true;
            // The transcript now ends where the session is (past any rewind point).
            let rewound = s.rewound_at.take().is_some();
            let held = std::mem::take(&mut s.persistence_held);
            (held || rewound).then(|| persistence(&awaited.session_id, &awaited.cwd))
        };
        if let Some(handle) = publish {
            tracing::debug!(session = %awaited.session_id, "transcript saved; publishing its handle");
            self.events.send(AgentEvent::Persistence(handle)).await;
        }
        true
    }
}

/// Whether the transcript of `awaited` holds its entry (or, `exists_is_enough`, exists).
async fn holds(projects: &Path, awaited: &Awaited, exists_is_enough: bool) -> bool {
    let (projects, cwd, id) = (
        projects.to_path_buf(),
        awaited.cwd.clone(),
        awaited.session_id.clone(),
    );
    // Finding the file walks folders: off the runtime.
    let path =
        tokio::task::spawn_blocking(move || transcript::find_transcript(&projects, &cwd, &id))
            .await
            .ok()
            .flatten();
    let Some(path) = path else {
        return false;
    };
    let Some(uuid) = &awaited.uuid else {
        return true;
    };
    exists_is_enough || tail_contains(&path, uuid).await
}

/// Whether the last `TAIL_BYTES` of `path` contain the entry `uuid`.
pub async fn tail_contains(path: &Path, uuid: &str) -> bool {
    let Ok(mut file) = tokio::fs::File::open(path).await else {
        return false;
    };
    let Ok(meta) = file.metadata().await else {
        return false;
    };
    let start = meta.len().saturating_sub(TAIL_BYTES);
    if file.seek(std::io::SeekFrom::Start(start)).await.is_err() {
        return false;
    }
    let mut buf = Vec::with_capacity((meta.len() - start) as usize);
    if file.read_to_end(&mut buf).await.is_err() {
        return false;
    }
    let needle = format!("\"uuid\":\"{uuid}\"");
    buf.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// Whether Claude Code can resume `session_id` in `cwd`: its transcript exists.
pub async fn resumable(projects: Option<&Path>, cwd: &str, session_id: &str) -> bool {
    let Some(projects) = projects.map(Path::to_path_buf) else {
        return false;
    };
    let (cwd, id) = (cwd.to_string(), session_id.to_string());
    tokio::task::spawn_blocking(move || transcript::find_transcript(&projects, &cwd, &id).is_some())
        .await
        .unwrap_or(false)
}

/// Whether the transcript of `session_id` is on disk and, when `entry` is given, holds it.
pub async fn on_disk(
    projects: Option<&Path>,
    cwd: &str,
    session_id: &str,
    entry: Option<&str>,
) -> bool {
    let Some(projects) = projects else {
        return false;
    };
    let awaited = Awaited {
        uuid: entry.map(str::to_string),
        session_id: session_id.to_string(),
        cwd: cwd.to_string(),
    };
    holds(projects, &awaited, false).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_tail_is_searched_for_the_entry_uuid() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("t.jsonl");
        let filler = format!("{{\"type\":\"user\",\"text\":\"{}\"}}\n", "x".repeat(1000));
        let mut text = String::new();
        text.push_str("{\"type\":\"user\",\"uuid\":\"early\"}\n");
        for _ in 0..600 {
            text.push_str(&filler);
        }
        text.push_str("{\"type\":\"assistant\",\"uuid\":\"late\"}\n");
        tokio::fs::write(&path, text).await.expect("write");
        assert!(tail_contains(&path, "late").await);
        // Beyond the tail: not looked at.
        assert!(!tail_contains(&path, "early").await);
        assert!(!tail_contains(&path, "absent").await);
        assert!(!tail_contains(&dir.path().join("none.jsonl"), "late").await);
    }
}
