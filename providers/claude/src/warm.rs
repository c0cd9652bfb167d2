//! Warm session open: one spare `claude` process per spawn key, pre-started and initialized
//! (its control `initialize` answered), so the next `session.open` with the very same command
//! line, cwd and environment takes it instead of paying for the CLI's start.
//!
//! - The key is the whole spawn: program, arguments (model, permission mode, effort, tools,
//!   MCP servers, system prompt...), cwd and environment. Anything that differs (a `--resume`,
//!   another model or mode, another env) does not match and spawns as before.
//! - At most one spare per key and `warmSpares` in all (default one: the most recently used
//!   spawn's, a whole CLI process, ~165 MB resident for claude 2.1.197; the oldest goes first).
//! - A spare is not a session: it has no session id and no sink, and its events are dropped.
//! - The pool is the core's ([`ProcessChoice`], prestarted: one spare per key, the bound, the
//!   background start, the idle reaper, the registry): it never leaks: a spare is stopped
//!   after the bridge's idle time unused, when the pool (the provider) is dropped, and with the
//!   bridge (the core's `Spares::stop_all`; the supervisor's guard kills its group). A dropped
//!   [`Runtime`] SIGKILLs its process group.
//! - The idle time is every family's: `AGENT_BRIDGE_SPARE_IDLE_SECS` (default 600 s; `0`: no
//!   spare). `AGENT_BRIDGE_CLAUDE_SPARE=0` in the bridge's environment is an extra off switch
//!   for Claude alone.
//! - A ready spare is registered with the core's spares (reported by `doctor --json` as
//!   `prestarted`).
//!
//! What is Claude's here: the key (the exact spawn, cwd and flags included), how a spare starts
//! (Claude's own runtime: stream-json channel, normalizer, events, then `initialize`) and how a
//! session takes it ([`Spare::attach`]).

use crate::launch::LaunchOptions;
use crate::normalize::{Mode, Normalizer};
use crate::runtime::{initialize, spawn_runtime, startup_error, Runtime};
use agent_bridge_core::lifecycle::lock;
use agent_bridge_core::lifecycle::{ProcessChoice, ProcessOptions, Sharing};
use agent_bridge_core::registry::ProviderManifest;
use agent_bridge_core::spares::Prestarted;
use agent_bridge_core::supervisor::{LaunchOverride, SpawnSpec};
use agent_bridge_core::SessionSink;
use agent_bridge_protocol::ProviderError;
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The bridge environment variable that turns spares off (`0`).
pub const SPARE_ENV: &str = "AGENT_BRIDGE_CLAUDE_SPARE";

/// What a spare must match to serve an open: the exact spawn.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SpareKey {
    program: String,
    args: Vec<String>,
    cwd: Option<PathBuf>,
    base_env: Option<BTreeMap<String, String>>,
    env: BTreeMap<String, String>,
    env_remove: Vec<String>,
    /// A digest of the MCP servers' config (it is passed in a file, not in `args`).
    mcp_config: Option<u64>,
}

impl SpareKey {
    /// The key of `spec` (spawned without an MCP config file) with the MCP config `mcp`.
    pub fn of(spec: &SpawnSpec, mcp: Option<&str>) -> Self {
        use std::hash::{Hash, Hasher};
        let mcp_config = mcp.map(|json| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            json.hash(&mut h);
            h.finish()
        });
        SpareKey {
            mcp_config,
            program: spec.program.clone(),
            args: spec.args.clone(),
            cwd: spec.cwd.clone(),
            base_env: spec.base_env.clone(),
            env: spec.env.clone(),
            env_remove: spec.env_remove.clone(),
        }
    }
}

/// How a session process is started: enough to start a spare like it.
#[derive(Debug, Clone)]
pub struct SpareStart {
    pub launch: LaunchOverride,
    /// The session's `config.env` overlay.
    pub env: BTreeMap<String, String>,
    pub opts: LaunchOptions,
}

impl SpareStart {
    pub fn key(&self) -> SpareKey {
        let spec = self.opts.spec(&self.launch, &self.env, None);
        SpareKey::of(&spec, self.opts.mcp_config().as_deref())
    }
}

/// A started, initialized process waiting for a session.
pub struct Spare {
    pub runtime: Runtime,
    /// The CLI's answer to `initialize` (commands, models).
    pub init: Value,
}

impl Spare {
    /// Starts a process and waits for its `initialize` answer.
    pub async fn start(start: &SpareStart) -> Result<Spare, ProviderError> {
        let mut runtime =
            spawn_runtime("spare", &start.launch, &start.env, &start.opts, None).await?;
        match initialize(&runtime.channel).await {
            Ok(init) => {
                runtime.release_mcp_config().await;
                Ok(Spare { runtime, init })
            }
            Err(e) => Err(startup_error(&mut runtime, "initialize", e).await),
        }
    }

    /// Hands the process to session `session_id`: its events go to `sink` from now on.
    pub fn attach(self, session_id: &str, sink: SessionSink) -> (Runtime, Value) {
        lock(&self.runtime.shared).normalizer = Normalizer::new(session_id, Mode::Live);
        self.runtime.events.attach(sink);
        (self.runtime, self.init)
    }

    /// The process id (of the guard when the bridge runs one).
    pub async fn pid(&self) -> Option<u32> {
        self.runtime.agent.process.pid()
    }
}

impl Prestarted for Spare {
    fn pid(&self) -> Option<u32> {
        self.runtime.agent.process.pid()
    }

    fn is_dead(&self) -> bool {
        self.runtime.is_dead()
    }

    fn shutdown(mut self) -> BoxFuture<'static, ()> {
        Box::pin(async move { self.runtime.shutdown().await })
    }
}

/// How the Claude provider's sessions get their process: always one of their own, with a
/// prestarted spare of the last launch (the core's [`ProcessChoice`]).
pub type ClaudeProcesses = ProcessChoice<SpareKey, Spare>;

/// The process options of a Claude entry (`warmSpares`; `processPerSession` means nothing
/// here), or the defaults without one; the bridge's [`SPARE_ENV`] `=0` turns the spares off.
pub fn process_options(entry: Option<&ProviderManifest>) -> ProcessOptions {
    let mut options = match entry {
        Some(entry) => ProcessOptions::from_options(&entry.id, &entry.options, Sharing::Never),
        None => ProcessOptions::defaults(Sharing::Never),
    };
    if std::env::var(SPARE_ENV).is_ok_and(|v| v == "0" || v == "false") {
        options.max_spares = 0;
    }
    options
}

/// Starts a spare for `start` in the background (outside any session's scope), unless one is
/// ready or starting.
pub fn prestart(processes: &ClaudeProcesses, start: SpareStart) {
    let key = start.key();
    processes.prestart(key, async move {
        Spare::start(&start).await.map_err(|e| e.message)
    });
}

/// The `initialize` answer of the ready spare for `key` (it stays ready).
pub fn peek_init(processes: &ClaudeProcesses, key: &SpareKey) -> Option<Value> {
    processes
        .prestarted()?
        .peek(key, |spare| spare.init.clone())
}

#[cfg(test)]
#[path = "warm_tests.rs"]
mod tests;
