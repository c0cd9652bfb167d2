//! `session.archive` / `session.unarchive`: Codex's `thread/archive` / `thread/unarchive` on a
//! short-lived app-server (as the session list uses). An archived thread leaves `thread/list`
//! (and so the session list) and comes back when unarchived.

use crate::history;
use crate::launch::{self, call_error};
use crate::wire::notify::method;
use agent_bridge_core::ProviderContext;
use agent_bridge_protocol::{ProviderError, ProviderPersistence};
use serde_json::{json, Value};

/// The cwd a persistence handle was made in (the app-server starts there).
fn cwd_of(p: &ProviderPersistence) -> Option<&str> {
    p.data
        .get("cwd")
        .and_then(Value::as_str)
        .filter(|c| !c.is_empty())
}

/// Archives (`archived`) or unarchives the thread `persistence` names.
pub async fn set_archived(
    ctx: &ProviderContext,
    persistence: &ProviderPersistence,
    archived: bool,
) -> Result<(), ProviderError> {
    let thread_id = history::thread_of(persistence)?;
    let cwd = cwd_of(persistence).filter(|c| std::path::Path::new(c).is_dir());
    let spec = launch::app_server_spec(&ctx.launch, cwd, &Default::default());
    let server = launch::start_for_query(&spec).await?;
    let call = if archived {
        method::THREAD_ARCHIVE
    } else {
        method::THREAD_UNARCHIVE
    };
    let answer = server
        .rpc
        .call(call, json!({ "threadId": thread_id }))
        .await;
    let stderr = server.process.stderr_tail();
    launch::stop(&server).await;
    answer.map(|_| ()).map_err(|e| call_error(e, &stderr))
}
