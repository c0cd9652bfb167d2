//! Warm spares: agent processes kept idle so that the next session of a provider opens without
//! starting its CLI. Every family keeps them through this module's rules:
//!
//! - a shared family (Codex app-server, ACP agents): the last session's close stops its process
//!   (the close is answered once it is gone) and a fresh process of the same launch starts as
//!   the spare, kept [`idle_time`]; a new session of the same launch joins it
//!   (`lifecycle::shared`, its `fresh` module). A fresh process holds no session's state: the
//!   stopped one saved its sessions on its way out;
//! - a process of one session (Claude, and the `processPerSession: true` entries of the ACP
//!   family): a [`PrestartedPool`] keeps a process started ahead, its handshake done, for the
//!   exact launch the provider last opened; the next open of that launch takes it (no spawn, no
//!   handshake on the open path) and the pool starts the next one in the background. Claude has
//!   an extra off switch of its own (`AGENT_BRIDGE_CLAUDE_SPARE=0`).
//!
//! Bounded: at most one idle spare per provider (an older one is stopped when another becomes
//! idle), stopped after [`idle_time`] (`AGENT_BRIDGE_SPARE_IDLE_SECS`; unset:
//! [`DEFAULT_SHARED_IDLE`]; `0`: no spare), dropped when it dies while idle, and stopped when the
//! bridge stops ([`Spares::stop_all`], called by the server on exit; the process guard kills them if
//! the bridge itself is killed). The idle time and that stop are the bridge's [`Spares`], built
//! once and passed down from `serve`; which kind of spare a provider keeps is decided by its
//! [`ProcessChoice`](crate::lifecycle::ProcessChoice).
//!
//! Every idle spare is registered here while it idles ([`register`] gives a [`SpareTicket`];
//! dropping it unregisters). The registry is published as a small JSON file per bridge in
//! [`report_dir`], which `agent-bridge doctor --json` reads to report the spares of the running
//! bridges and their memory ([`running`]).

mod prestarted;

pub use prestarted::{PoolConfig, Prestarted, PrestartedPool, SpareKeyBound};

use crate::proc_info;
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long an unused spare is kept when [`IDLE_ENV`] is set without a number (ten minutes).
pub const DEFAULT_IDLE: Duration = Duration::from_secs(600);
/// How long a spare is kept when [`IDLE_ENV`] is not set: ten minutes. See
/// `docs/configuration.md`.
pub const DEFAULT_SHARED_IDLE: Duration = DEFAULT_IDLE;
/// The bridge environment variable that sets every family's idle time, in seconds (`0`: no
/// spares; the last session's close stops the process and waits for it, and no process is
/// started ahead).
pub const IDLE_ENV: &str = "AGENT_BRIDGE_SPARE_IDLE_SECS";
/// The environment variable that moves the report folder (tests).
pub const DIR_ENV: &str = "AGENT_BRIDGE_SPARES_DIR";

/// How long an unused spare of any family is kept: [`IDLE_ENV`] when it is a number of
/// seconds ([`DEFAULT_IDLE`] when it is something else), else [`DEFAULT_SHARED_IDLE`].
pub fn idle_time() -> Duration {
    idle_from(std::env::var(IDLE_ENV).ok().as_deref())
}

fn idle_from(value: Option<&str>) -> Duration {
    match value.map(str::trim).map(str::parse::<f64>) {
        Some(Ok(secs)) if secs.is_finite() && secs >= 0.0 => Duration::from_secs_f64(secs),
        Some(_) => {
            tracing::warn!("{IDLE_ENV} must be a number of seconds; 600 is used");
            DEFAULT_IDLE
        }
        None => DEFAULT_SHARED_IDLE,
    }
}

/// One idle spare, as published.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct SpareRecord {
    /// The provider id (`codex-bridge`, an ACP entry's id, `claude-bridge`).
    pub provider: String,
    /// The spare's process (the guard's when the bridge runs one: its tree is the whole CLI).
    pub pid: u32,
    /// `shared`: a shared process whose sessions all left; `prestarted`: a process started
    /// ahead for the next session.
    pub kind: String,
    /// When it became idle, in milliseconds since the Unix epoch.
    pub idle_since_ms: u64,
}

/// What a bridge publishes.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct BridgeSpares {
    pub bridge_pid: u32,
    pub spares: Vec<SpareRecord>,
}

type Stop = Box<dyn FnOnce() -> BoxFuture<'static, ()> + Send>;

struct Entry {
    record: SpareRecord,
    stop: Option<Stop>,
}

#[derive(Default)]
struct Registry {
    next: u64,
    entries: BTreeMap<u64, Entry>,
}

fn registry() -> &'static Mutex<Registry> {
    static REGISTRY: OnceLock<Mutex<Registry>> = OnceLock::new();
    REGISTRY.get_or_init(Mutex::default)
}

/// A registered idle spare; dropping it unregisters it.
#[derive(Debug)]
pub struct SpareTicket(u64);

impl Drop for SpareTicket {
    fn drop(&mut self) {
        let removed = crate::lifecycle::lock(registry()).entries.remove(&self.0);
        if removed.is_some() {
            publish();
        }
    }
}

/// Registers an idle spare of `provider` (process `pid`, of `kind`); `stop` stops it when the
/// bridge stops ([`Spares::stop_all`]).
pub fn register(
    provider: &str,
    pid: u32,
    kind: &str,
    stop: impl FnOnce() -> BoxFuture<'static, ()> + Send + 'static,
) -> SpareTicket {
    let record = SpareRecord {
        provider: provider.to_string(),
        pid,
        kind: kind.to_string(),
        idle_since_ms: now_ms(),
    };
    let id = {
        let mut r = crate::lifecycle::lock(registry());
        r.next += 1;
        let id = r.next;
        r.entries.insert(
            id,
            Entry {
                record,
                stop: Some(Box::new(stop)),
            },
        );
        id
    };
    publish();
    SpareTicket(id)
}

/// The idle spares of this bridge.
pub fn idle() -> Vec<SpareRecord> {
    crate::lifecycle::lock(registry())
        .entries
        .values()
        .map(|e| e.record.clone())
        .collect()
}

/// Whether the bridge is stopping: set by [`Spares::stop_all`], read by every pool before it
/// keeps a spare (one flag per bridge, shared by its pools; no global).
#[derive(Debug, Clone, Default)]
pub struct Stopping(Arc<AtomicBool>);

impl Stopping {
    /// The bridge is stopping: a spare being started is stopped instead of kept.
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    fn set(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// The spares of one bridge: how long an unused one is kept and whether the bridge is
/// stopping. Built once by the host that runs `serve` (from the bridge's environment), handed
/// to every provider's [`ProcessChoice`](crate::lifecycle::ProcessChoice) and to `serve`,
/// which stops them all when it ends ([`Spares::stop_all`]).
#[derive(Debug, Clone)]
pub struct Spares {
    idle: Duration,
    stopping: Stopping,
}

impl Default for Spares {
    /// [`Spares::from_env`].
    fn default() -> Self {
        Spares::from_env()
    }
}

impl Spares {
    /// Spares kept `idle` unused (zero: none).
    pub fn new(idle: Duration) -> Self {
        Spares {
            idle,
            stopping: Stopping::default(),
        }
    }

    /// Spares kept [`idle_time`] (the bridge's [`IDLE_ENV`]).
    pub fn from_env() -> Self {
        Spares::new(idle_time())
    }

    /// How long an unused spare is kept (zero: no spares).
    pub fn idle(&self) -> Duration {
        self.idle
    }

    /// The bridge's stop flag, which the pools read.
    pub fn stopping(&self) -> &Stopping {
        &self.stopping
    }

    /// Stops every idle spare (the bridge is stopping; none is started or kept from now on)
    /// and removes the bridge's report.
    pub async fn stop_all(&self) {
        self.stopping.set();
        let stops: Vec<Stop> = crate::lifecycle::lock(registry())
            .entries
            .values_mut()
            .filter_map(|e| e.stop.take())
            .collect();
        futures_util::future::join_all(stops.into_iter().map(|stop| stop())).await;
        let _ = std::fs::remove_file(report_file());
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Where bridges publish their spares: [`DIR_ENV`], else `$XDG_RUNTIME_DIR/agent-bridge/spares`,
/// else `<tmp>/agent-bridge-<uid>/spares`.
pub fn report_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os(DIR_ENV) {
        return PathBuf::from(dir);
    }
    match std::env::var_os("XDG_RUNTIME_DIR") {
        Some(run) => PathBuf::from(run).join("agent-bridge").join("spares"),
        // SAFETY: getuid has no preconditions and cannot fail.
        None => std::env::temp_dir()
            .join(format!("agent-bridge-{}", unsafe { libc::getuid() }))
            .join("spares"),
    }
}

fn report_file() -> PathBuf {
    report_dir().join(format!("{}.json", std::process::id()))
}

/// Writes this bridge's report (removes it when nothing idles). Best effort: a report that
/// cannot be written only leaves `doctor` without it.
fn publish() {
    let spares = idle();
    let file = report_file();
    if spares.is_empty() {
        let _ = std::fs::remove_file(&file);
        return;
    }
    let report = BridgeSpares {
        bridge_pid: std::process::id(),
        spares,
    };
    let Ok(text) = serde_json::to_string(&report) else {
        return;
    };
    let dir = report_dir();
    let tmp = dir.join(format!(".{}.tmp", std::process::id()));
    let written = std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&tmp, text))
        .and_then(|()| std::fs::rename(&tmp, &file));
    if let Err(e) = written {
        tracing::debug!(
            "could not publish the idle spares in {}: {e}",
            dir.display()
        );
    }
}

/// An idle spare of a running bridge, with its memory.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct RunningSpare {
    pub bridge_pid: u32,
    #[serde(flatten)]
    pub record: SpareRecord,
    /// The resident memory of the spare's process tree (the process and its descendants).
    pub rss_bytes: u64,
}

/// The idle spares of every running bridge of this user, with their process-tree RSS. Reports
/// of bridges that are gone are removed; spares that are gone are left out.
pub fn running() -> Vec<RunningSpare> {
    let Ok(dir) = std::fs::read_dir(report_dir()) else {
        return Vec::new();
    };
    let procs = proc_info::all();
    let mut out = Vec::new();
    for file in dir.flatten() {
        let path = file.path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let Some(report) = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str::<BridgeSpares>(&t).ok())
        else {
            continue;
        };
        if !procs.iter().any(|p| p.pid == report.bridge_pid as i32) {
            let _ = std::fs::remove_file(&path);
            continue;
        }
        for record in report.spares {
            let root = record.pid as i32;
            let Some(own) = proc_info::memory(root) else {
                continue;
            };
            let rss_bytes = own.rss
                + proc_info::descendants(&procs, root)
                    .iter()
                    .filter_map(|p| proc_info::memory(p.pid))
                    .map(|m| m.rss)
                    .sum::<u64>();
            out.push(RunningSpare {
                bridge_pid: report.bridge_pid,
                record,
                rss_bytes,
            });
        }
    }
    out.sort_by_key(|s| (s.bridge_pid, s.record.idle_since_ms));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_idle_time_is_read_in_seconds_with_a_default() {
        assert_eq!(idle_from(None), DEFAULT_SHARED_IDLE);
        assert_eq!(idle_from(Some("0")), Duration::ZERO);
        assert_eq!(idle_from(Some("1.5")), Duration::from_millis(1500));
        assert_eq!(idle_from(Some("soon")), DEFAULT_IDLE);
        assert_eq!(idle_from(Some("-3")), DEFAULT_IDLE);
    }
}
