//! Reading the stored history of a native session without a live session
//! (`provider/readSessionHistory`, Paseo's `readSessionHistory`).
//!
//! One way for every agent with persistence, owned by the core: the provider opens the native
//! session as a reopen with `history: replay` does (Claude resumes its transcript, Codex its
//! thread, an ACP agent `session/load`s it), the rows it replays are collected instead of
//! published, and the session is closed at once: no turn starts, nothing is announced to the
//! host, and the answer comes only once every process the read started is gone (the same
//! census and wait as a session's close). The rows are what a reopen would replay, in the same
//! order: what the agent streamed while opening, then its replay list; a row sent again with the
//! same id replaces the earlier one in place.

use crate::agent::{AgentEvent, OpenRequest, ProcessScope, Provider, ProviderContext, SessionSink};
use crate::limits::{bounded, CLOSE_CALL_TIMEOUT, HISTORY_READ_TIMEOUT, PROCESS_GONE_TIMEOUT};
use agent_bridge_protocol::{
    HistoryMode, ProviderError, ProviderPersistence, ProviderSessionConfig, TimelineItem,
};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// What a history read names: the native session, and where and how it ran.
#[derive(Debug, Clone)]
pub struct HistoryRead {
    pub persistence: ProviderPersistence,
    pub cwd: String,
    pub env: BTreeMap<String, String>,
}

/// Session ids of the reads (never shown to a host; unique within the bridge).
static NEXT_READ: AtomicU64 = AtomicU64::new(1);

/// The rows of a read, in provider order; a row sent again replaces the earlier one in place.
#[derive(Default)]
struct Rows {
    items: Vec<TimelineItem>,
    index: HashMap<String, usize>,
}

impl Rows {
    fn take(&mut self, mut item: TimelineItem) {
        if !crate::timeline::has_id(&item) {
            return;
        }
        crate::session::strip_carried_context(&mut item);
        item.normalize();
        match self.index.get(&item.id) {
            Some(&at) => self.items[at] = item,
            None => {
                self.index.insert(item.id.clone(), self.items.len());
                self.items.push(item);
            }
        }
    }

    fn event(&mut self, event: AgentEvent) {
        // Only the session's own rows are history; what else an opening agent reports (its
        // config, commands, a persistence handle, child rows) is not.
        if let AgentEvent::Item(item) = event {
            self.take(item);
        }
    }
}

/// Reads the history of `read`'s native session with `provider`: the open within
/// [`HISTORY_READ_TIMEOUT`] less the close's and the processes' own limits, so the whole read
/// answers inside it; every process the read started is gone when it returns.
pub async fn read_history(
    provider: Arc<dyn Provider>,
    ctx: &ProviderContext,
    read: HistoryRead,
) -> Result<Vec<TimelineItem>, ProviderError> {
    let scope = ProcessScope::with_token(CancellationToken::new());
    let (sink, mut rx) = SessionSink::channel();
    let session_id = format!("history-{}", NEXT_READ.fetch_add(1, Ordering::Relaxed));
    let request = OpenRequest {
        session_id: session_id.clone(),
        config: ProviderSessionConfig {
            cwd: read.cwd,
            env: read.env,
            persist: true,
            ..ProviderSessionConfig::default()
        },
        persistence: Some(read.persistence),
        history: HistoryMode::Replay,
        scope: scope.clone(),
    };
    let mut rows = Rows::default();
    let opened = {
        let open = bounded(
            HISTORY_READ_TIMEOUT - CLOSE_CALL_TIMEOUT - PROCESS_GONE_TIMEOUT,
            "reading the session's history",
            provider.open(ctx, request, sink),
        );
        tokio::pin!(open);
        // The sink is drained while the open runs: an agent that streams a long history never
        // stalls on its bounded queue.
        let result = loop {
            tokio::select! {
                r = &mut open => break r,
                Some(event) = rx.recv() => rows.event(event),
            }
        };
        // What the open started is counted before anything of it is dropped.
        scope.census().await;
        result
    };
    let result = match opened {
        Ok(opened) => {
            drain(&mut rx, &mut rows);
            let mut session = opened.session;
            for item in opened.replay {
                rows.take(item);
            }
            if tokio::time::timeout(CLOSE_CALL_TIMEOUT, session.close())
                .await
                .is_err()
            {
                tracing::warn!(session = %session_id, "the agent did not close a history read in time; dropping it");
            }
            drain(&mut rx, &mut rows);
            drop(session);
            Ok(std::mem::take(&mut rows.items))
        }
        Err(error) => Err(error),
    };
    drop(rx);
    if !scope.wait_gone(PROCESS_GONE_TIMEOUT).await {
        tracing::warn!(session = %session_id, "processes of a history read outlived it");
    }
    result
}

/// Takes the rows already queued (the agent's open or close returned before they were read).
fn drain(rx: &mut mpsc::Receiver<AgentEvent>, rows: &mut Rows) {
    while let Ok(event) = rx.try_recv() {
        rows.event(event);
    }
}
