//! Every time limit the core enforces, in one place. A limit turns a hang (of a provider, an
//! agent call or a process) into a clear answer: a `request.failed` with code `timeout`, a
//! canceled turn, or a dropped (and so killed) process.

use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::ProviderError;
use std::time::Duration;

/// Default limit for an availability probe when the host gives none.
pub const AVAILABILITY_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest `provider/catalogCacheKey` may take; on expiry the key is `null` (no caching).
pub const CATALOG_CACHE_KEY_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest a `catalog` request may take: as long as an ACP agent's start may take
/// (`initialize` and `session/new` are each allowed 50 s; Kilo's start alone took over 30 s
/// once on a loaded 2-core machine).
pub const CATALOG_TIMEOUT: Duration = Duration::from_secs(60);
/// Longest a `sessions` (session list) request, and an archive or unarchive, may take: as long
/// as a catalog, since each starts an ACP agent for the query (Kilo's session list through
/// `agent-bridge acp` hit the former 30 s on the loaded 2-core machine, where a fresh `kilo acp`
/// took 13 s to initialize and open a session).
pub const SESSIONS_TIMEOUT: Duration = CATALOG_TIMEOUT;

/// Longest a provider may take to open a session (CLI start, resume, replay).
pub const OPEN_TIMEOUT: Duration = Duration::from_secs(90);
/// Longest a history read (`provider/readSessionHistory`) may take, its processes' stop
/// included: inside the 30 s Paseo waits for a plugin's answer (`REQUEST_TIMEOUT_MS`). Of it,
/// the open gets what the close and the processes' stop may not need (18 s: OpenCode's
/// `session/load` through a fresh `opencode acp` took 12.5 s on a loaded 2-core machine).
pub const HISTORY_READ_TIMEOUT: Duration = Duration::from_secs(25);
/// Longest one agent call (start a turn, configure, answer a permission...) may take.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(60);
/// How long an agent has to end a turn after an interrupt before the core ends it itself.
pub const INTERRUPT_GRACE: Duration = Duration::from_secs(5);
/// Longest `AgentSession::abandon_turn` may take before the core settles the turn anyway.
pub const ABANDON_TIMEOUT: Duration = Duration::from_secs(2);
/// Longest an agent's close may take before it is dropped (which kills its processes).
pub const CLOSE_CALL_TIMEOUT: Duration = Duration::from_secs(4);
/// How long a closed session waits for the processes its provider spawned to be gone.
pub const PROCESS_GONE_TIMEOUT: Duration = Duration::from_secs(3);
/// How long closing a connection may take before its sessions are abandoned (their processes
/// are then killed when dropped).
pub const CLOSE_TIMEOUT: Duration = Duration::from_millis(3100);
/// How long the bridge's own shutdown (`shutdown`, stdin closed, SIGTERM) lets its connections
/// close gracefully before it drops them, which kills their processes at once. With the flush
/// and the runtime's teardown after it, the bridge and every CLI are gone within 1.5 s: inside
/// the 2 s Paseo gives its plugin process between `shutdown` and SIGTERM.
pub const SHUTDOWN_TIMEOUT: Duration = Duration::from_millis(1000);

/// The error of something that did not answer within `limit`.
pub fn timeout_error(what: &str, limit: Duration) -> ProviderError {
    let amount = if limit.as_secs() > 0 {
        format!("{} s", limit.as_secs())
    } else {
        format!("{} ms", limit.as_millis())
    };
    ProviderError::new(format!("{what} did not answer within {amount}"))
        .with_code(ErrorCode::Timeout)
}

/// Runs `fut` with a time limit, turning a hang into [`timeout_error`].
pub async fn bounded<T>(
    limit: Duration,
    what: &str,
    fut: impl std::future::Future<Output = Result<T, ProviderError>>,
) -> Result<T, ProviderError> {
    match tokio::time::timeout(limit, fut).await {
        Ok(r) => r,
        Err(_) => Err(timeout_error(what, limit)),
    }
}
