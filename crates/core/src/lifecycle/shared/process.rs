//! One shared agent process: its runtime, its members, the demultiplexer of its messages and
//! each member's queue and task.

use super::pool::SharedProcesses;
use super::{ProcessDeaths, Route, RouteKey, SharedDeath, SharedKey};
use crate::agent_process::ExitInfo;
use crate::lifecycle::{lock, AgentRuntime, EventTarget, InboundDriver, Liveness, Translator};
use crate::rpc::{rpc_error, Inbound, IncomingRequest, PeerHandle, METHOD_NOT_FOUND};
use crate::scope::ProcessScope;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot, OwnedMutexGuard};

/// Most messages waiting for one member's translator.
pub const MEMBER_QUEUE: usize = 256;

/// A message queued for one member.
enum Message {
    Notification {
        method: String,
        params: Value,
    },
    Request(IncomingRequest),
    /// The process's output ended (after everything it said before).
    Closed(Option<ExitInfo>),
    /// Answered once everything queued before it is translated and in the sink.
    Settle(oneshot::Sender<()>),
}

struct Slot {
    tx: mpsc::Sender<Message>,
    translator: Arc<dyn Translator>,
    /// The native sessions (threads, ACP sessions) of the member.
    claims: HashSet<String>,
    /// No claim yet: the member is opening its native session, whose id it learns from the
    /// answer; until then it takes the messages of native sessions nobody claimed (what the
    /// agent says about the new session before answering).
    opening: bool,
}

#[derive(Default)]
pub(super) struct Members {
    slots: HashMap<u64, Slot>,
    next: u64,
    /// Bumped whenever the last member leaves: an idle stop acts only if it is still the last.
    idle_epoch: u64,
    /// The process is being stopped: nobody joins it any more.
    stopping: bool,
}

type MemberTable = Arc<Mutex<Members>>;

/// One agent process shared by sessions.
pub struct SharedProcess {
    runtime: AgentRuntime,
    handshake: Value,
    members: MemberTable,
    label: String,
    /// Held by the session opening on the process until it claims its native session.
    opening: Arc<tokio::sync::Mutex<()>>,
    /// Its launch key's crash-loop count, and which process of the key it is.
    death: SharedDeath,
}

impl std::fmt::Debug for SharedProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedProcess")
            .field("label", &self.label)
            .field("pid", &self.runtime.process.pid())
            .finish_non_exhaustive()
    }
}

impl SharedProcess {
    /// The inbound of a process about to start (its messages go to `members`).
    pub(super) fn demux(route: Arc<dyn Route>) -> (MemberTable, Arc<dyn Inbound>) {
        let members = MemberTable::default();
        let inbound = Arc::new(Demux {
            route,
            members: members.clone(),
        });
        (members, inbound)
    }

    pub(super) fn new(
        runtime: AgentRuntime,
        handshake: Value,
        members: MemberTable,
        deaths: ProcessDeaths,
    ) -> Self {
        static SERIAL: AtomicU64 = AtomicU64::new(0);
        // The process itself is live from the start: its members decide what its exit means.
        runtime.liveness.go_live();
        let label = runtime.label().to_string();
        SharedProcess {
            runtime,
            handshake,
            members,
            label,
            opening: Arc::default(),
            death: SharedDeath {
                deaths,
                serial: SERIAL.fetch_add(1, Ordering::Relaxed),
            },
        }
    }

    /// The crash-loop count of the process's key, and which process it is.
    pub fn death(&self) -> SharedDeath {
        self.death.clone()
    }

    pub fn runtime(&self) -> &AgentRuntime {
        &self.runtime
    }

    pub fn rpc(&self) -> &PeerHandle {
        &self.runtime.rpc
    }

    /// What the agent answered to the handshake (`initialize`): its capabilities, for every
    /// session of the process.
    pub fn handshake(&self) -> &Value {
        &self.handshake
    }

    pub fn pid(&self) -> Option<u32> {
        self.runtime.process.pid()
    }

    pub(super) fn opening(&self) -> Arc<tokio::sync::Mutex<()>> {
        self.opening.clone()
    }

    /// Sessions on the process.
    pub fn members(&self) -> usize {
        lock(&self.members).slots.len()
    }

    /// Running and taking members.
    pub(super) fn usable(&self) -> bool {
        !self.runtime.rpc.is_closed() && !lock(&self.members).stopping
    }

    /// A new member whose messages `translator` translates into `events`; `None` when the
    /// process is stopping.
    pub(super) fn add(
        &self,
        translator: Arc<dyn Translator>,
        events: EventTarget,
    ) -> Option<(u64, Liveness, Settle)> {
        let (tx, rx) = mpsc::channel(MEMBER_QUEUE);
        let liveness = Liveness::default();
        let id = {
            let mut m = lock(&self.members);
            if m.stopping {
                return None;
            }
            m.next += 1;
            let id = m.next;
            m.slots.insert(
                id,
                Slot {
                    tx: tx.clone(),
                    translator: translator.clone(),
                    claims: HashSet::new(),
                    opening: true,
                },
            );
            id
        };
        let driver = InboundDriver::new(translator, events, liveness.clone(), &self.label);
        tokio::spawn(serve(
            rx,
            driver,
            liveness.clone(),
            self.runtime.rpc.clone(),
        ));
        Some((id, liveness, Settle(Some(tx))))
    }

    /// The member `id` leaves. `Some(epoch)` when it was the last (the process is idle since
    /// `epoch`); with `stop`, a last member marks the process stopping.
    pub(super) fn remove(&self, id: u64, stop: bool) -> Option<u64> {
        let mut m = lock(&self.members);
        m.slots.remove(&id)?;
        if !m.slots.is_empty() {
            return None;
        }
        m.idle_epoch += 1;
        m.stopping |= stop;
        Some(m.idle_epoch)
    }

    /// No member joined since the process became idle at `epoch`: it is marked stopping (true)
    /// or kept (false).
    pub(super) fn stop_if_idle(&self, epoch: u64) -> bool {
        let mut m = lock(&self.members);
        if m.slots.is_empty() && m.idle_epoch == epoch {
            m.stopping = true;
        }
        m.stopping && m.slots.is_empty()
    }

    pub(super) fn claim(&self, id: u64, native: &str) {
        if let Some(slot) = lock(&self.members).slots.get_mut(&id) {
            slot.claims.insert(native.to_string());
            slot.opening = false;
        }
    }

    pub(super) fn release(&self, id: u64, native: &str) {
        if let Some(slot) = lock(&self.members).slots.get_mut(&id) {
            slot.claims.remove(native);
        }
    }
}

/// The peer's inbound of a shared process: each message to its member's queue.
struct Demux {
    route: Arc<dyn Route>,
    members: MemberTable,
}

impl Demux {
    /// The queues `key` names.
    fn targets(&self, key: &RouteKey) -> Vec<mpsc::Sender<Message>> {
        let m = lock(&self.members);
        match key {
            RouteKey::All => m.slots.values().map(|s| s.tx.clone()).collect(),
            RouteKey::Nobody => Vec::new(),
            RouteKey::Session(native) => {
                let owner = m
                    .slots
                    .values()
                    .find(|s| s.claims.contains(native))
                    .or_else(|| m.slots.values().find(|s| s.translator.owns(native)));
                match owner {
                    Some(s) => vec![s.tx.clone()],
                    None => m
                        .slots
                        .values()
                        .filter(|s| s.opening)
                        .map(|s| s.tx.clone())
                        .collect(),
                }
            }
        }
    }
}

#[async_trait::async_trait]
impl Inbound for Demux {
    async fn notification(&self, _peer: &PeerHandle, method: String, params: Value) {
        let key = self.route.notification(&method, &params);
        let targets = self.targets(&key);
        if targets.is_empty() {
            tracing::debug!(%method, ?key, "notification of no session of the shared process dropped");
        }
        for tx in targets {
            let message = Message::Notification {
                method: method.clone(),
                params: params.clone(),
            };
            // A member gone meanwhile takes nothing.
            let _ = tx.send(message).await;
        }
    }

    async fn request(&self, _peer: &PeerHandle, request: IncomingRequest) {
        let key = self.route.request(&request.method, &request.params);
        match self.targets(&key).into_iter().next() {
            // A member gone meanwhile drops it: its responder refuses it.
            Some(tx) => {
                let _ = tx.send(Message::Request(request)).await;
            }
            None => {
                let method = request.method.clone();
                tracing::debug!(%method, ?key, "request of no session of the shared process refused");
                request
                    .responder
                    .respond(Err(rpc_error(
                        METHOD_NOT_FOUND,
                        format!("no session of agent-bridge takes `{method}`"),
                    )))
                    .await;
            }
        }
    }

    async fn closed(&self, _peer: &PeerHandle, exit: Option<ExitInfo>) {
        let all = self.targets(&RouteKey::All);
        for tx in all {
            let _ = tx.send(Message::Closed(exit.clone())).await;
        }
    }
}

/// One member's task: its messages, in order, through its translator into its sink, until it
/// leaves or the process is gone.
async fn serve(
    mut rx: mpsc::Receiver<Message>,
    driver: InboundDriver<Arc<dyn Translator>>,
    liveness: Liveness,
    peer: PeerHandle,
) {
    loop {
        let message = tokio::select! {
            biased;
            _ = liveness.closed() => return,
            m = rx.recv() => match m {
                Some(m) => m,
                None => return,
            },
        };
        match message {
            Message::Notification { method, params } => {
                driver.notification(&peer, method, params).await
            }
            Message::Request(request) => driver.request(&peer, request).await,
            Message::Closed(exit) => {
                driver.closed(&peer, exit).await;
                return;
            }
            Message::Settle(done) => {
                let _ = done.send(());
            }
        }
    }
}

/// Waits until everything the agent said for a session before now has been translated and
/// sent into its sink: what an answer must not overtake (a `session/load` replay before its
/// answer, a turn's last updates before the `session/prompt` answer that ends it). On a
/// process of the session's own, messages are translated in order before any answer: there is
/// nothing to wait for.
#[derive(Debug, Clone, Default)]
pub struct Settle(Option<mpsc::Sender<Message>>);

impl std::fmt::Debug for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Message::Notification { .. } => "Notification",
            Message::Request(_) => "Request",
            Message::Closed(_) => "Closed",
            Message::Settle(_) => "Settle",
        })
    }
}

impl Settle {
    /// Resolves once the member's queue is translated up to now (at once when the member left
    /// or the process is gone).
    pub async fn wait(&self) {
        let Some(tx) = &self.0 else { return };
        let (done, settled) = oneshot::channel();
        if tx.send(Message::Settle(done)).await.is_ok() {
            let _ = settled.await;
        }
    }
}

/// A session's place on a shared process. Leaving (its close, its restart, or dropping it)
/// stops its messages at once; the last member leaving stops the process after the pool's idle
/// grace.
pub struct SharedMember {
    process: Arc<SharedProcess>,
    id: u64,
    liveness: Liveness,
    settle: Settle,
    pool: SharedProcesses,
    key: SharedKey,
    /// The session's process scope: it holds the process when the session leaves it last.
    scope: ProcessScope,
    /// The process's opening lock, held until the session claims its native session.
    opening: Mutex<Option<OwnedMutexGuard<()>>>,
    left: AtomicBool,
}

impl std::fmt::Debug for SharedMember {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedMember")
            .field("process", &self.process)
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl SharedMember {
    pub(super) fn new(
        process: Arc<SharedProcess>,
        (id, liveness, settle): (u64, Liveness, Settle),
        (pool, key, scope): (SharedProcesses, SharedKey, ProcessScope),
        opening: OwnedMutexGuard<()>,
    ) -> Self {
        SharedMember {
            process,
            id,
            liveness,
            settle,
            pool,
            key,
            scope,
            opening: Mutex::new(Some(opening)),
            left: AtomicBool::new(false),
        }
    }

    pub fn process(&self) -> &Arc<SharedProcess> {
        &self.process
    }

    pub fn rpc(&self) -> &PeerHandle {
        self.process.rpc()
    }

    /// The member's own liveness: the process's death is its failure only while it is live.
    pub fn liveness(&self) -> &Liveness {
        &self.liveness
    }

    /// A handle that waits until the member's messages so far are translated.
    pub fn settle(&self) -> Settle {
        self.settle.clone()
    }

    /// Messages about the native session `native` (a thread, an ACP session) are this
    /// member's. The first claim ends its opening: the next session may open on the process.
    pub fn claim(&self, native: &str) {
        self.process.claim(self.id, native);
        lock(&self.opening).take();
    }

    /// Messages about `native` are no longer this member's.
    pub fn release(&self, native: &str) {
        self.process.release(self.id, native);
    }

    /// Leaves the process: its messages stop at once. Returns the idle epoch when it was the
    /// last member (the process is stopping when the grace is zero).
    fn detach(&self) -> Option<u64> {
        if self.left.swap(true, Ordering::SeqCst) {
            return None;
        }
        self.liveness.close();
        lock(&self.opening).take();
        let stop = self.pool.idle_grace().is_zero() || self.pool.fresh_for(&self.key).is_some();
        let epoch = self.process.remove(self.id, stop)?;
        if stop {
            // The last session's close waits for the process, as for one of its own.
            if let Some(pid) = self.process.pid() {
                self.scope.register(pid);
            }
        }
        Some(epoch)
    }

    /// Leaves the process. When it was the last member the process stops after the idle grace;
    /// with no grace this waits until it is gone.
    pub async fn leave(&self) {
        if let Some(epoch) = self.detach() {
            self.pool
                .idle(self.key.clone(), self.process.clone(), epoch)
                .await;
        }
    }
}

impl Drop for SharedMember {
    fn drop(&mut self) {
        if let Some(epoch) = self.detach() {
            self.pool
                .idle_later(self.key.clone(), self.process.clone(), epoch);
        }
    }
}
