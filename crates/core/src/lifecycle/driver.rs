//! The inbound side of a session's runtime: the peer's reader hands every message of the
//! agent, in order, to the provider's [`Translator`]; the events it returns go into the
//! session's bounded sink, waiting for room (a slow host slows the reader, and through the
//! stdout pipe the agent: no queue of our own). An unexpected end of the runtime becomes
//! `AgentEvent::RuntimeFailed` (see [`Liveness`]). Once the runtime closes, events still
//! waiting for room are dropped.

use super::{Liveness, RefuseAll};
use crate::agent::{AgentEvent, SessionSink};
use crate::agent_process::ExitInfo;
use crate::rpc::{Inbound, IncomingRequest, PeerHandle};
use serde_json::Value;
use std::sync::{Arc, Mutex};

/// What a provider does with its agent's messages: translate them into events.
#[async_trait::async_trait]
pub trait Translator: Send + Sync + 'static {
    /// A notification of the agent.
    async fn notification(
        &self,
        peer: &PeerHandle,
        method: String,
        params: Value,
    ) -> Vec<AgentEvent>;

    /// A request of the agent: answer it through its responder, or keep it waiting for the
    /// user (a permission). The default refuses it (`-32601`).
    async fn request(&self, peer: &PeerHandle, request: IncomingRequest) -> Vec<AgentEvent> {
        RefuseAll.request(peer, request).await;
        Vec::new()
    }

    /// The runtime ended unexpectedly: forget what only it could answer (its waiting
    /// requests, its running turn). Called before the failure is reported.
    fn ended(&self) {}

    /// On a shared process: the native session `native` (not one the session claimed: a
    /// sub-agent's thread it found) is this session's.
    fn owns(&self, native: &str) -> bool {
        let _ = native;
        false
    }
}

#[async_trait::async_trait]
impl<T: Translator + ?Sized> Translator for Arc<T> {
    async fn notification(
        &self,
        peer: &PeerHandle,
        method: String,
        params: Value,
    ) -> Vec<AgentEvent> {
        (**self).notification(peer, method, params).await
    }

    async fn request(&self, peer: &PeerHandle, request: IncomingRequest) -> Vec<AgentEvent> {
        (**self).request(peer, request).await
    }

    fn ended(&self) {
        (**self).ended()
    }

    fn owns(&self, native: &str) -> bool {
        (**self).owns(native)
    }
}

/// Where a runtime's events go: the session's sink, or nowhere while the runtime belongs to
/// no session yet (a spare process).
#[derive(Debug, Clone, Default)]
pub struct EventTarget(Arc<Mutex<Option<SessionSink>>>);

impl EventTarget {
    pub fn new(sink: Option<SessionSink>) -> Self {
        EventTarget(Arc::new(Mutex::new(sink)))
    }

    /// Binds the runtime to a session (a spare taken, a restart's new sink).
    pub fn attach(&self, sink: SessionSink) {
        *super::lock(&self.0) = Some(sink);
    }

    /// The session's sink, once there is one.
    pub fn sink(&self) -> Option<SessionSink> {
        super::lock(&self.0).clone()
    }

    /// Sends one event, waiting while the sink is full; false when no session takes it.
    pub async fn send(&self, event: AgentEvent) -> bool {
        match self.sink() {
            Some(sink) => sink.send(event).await,
            None => {
                tracing::debug!("event of a runtime without a session dropped");
                false
            }
        }
    }
}

/// The [`Inbound`] of a session's runtime.
pub struct InboundDriver<T> {
    translator: T,
    events: EventTarget,
    liveness: Liveness,
    label: String,
}

impl<T: Translator> InboundDriver<T> {
    pub fn new(translator: T, events: EventTarget, liveness: Liveness, label: &str) -> Self {
        InboundDriver {
            translator,
            events,
            liveness,
            label: label.to_string(),
        }
    }

    /// Sends events in order, each waiting for room, until the session or the runtime is gone.
    async fn send(&self, events: Vec<AgentEvent>) {
        for event in events {
            tokio::select! {
                biased;
                sent = self.events.send(event) => if !sent { return },
                _ = self.liveness.closed() => return,
            }
        }
    }
}

#[async_trait::async_trait]
impl<T: Translator> Inbound for InboundDriver<T> {
    async fn notification(&self, peer: &PeerHandle, method: String, params: Value) {
        let events = self.translator.notification(peer, method, params).await;
        self.send(events).await;
    }

    async fn request(&self, peer: &PeerHandle, request: IncomingRequest) {
        let events = self.translator.request(peer, request).await;
        self.send(events).await;
    }

    async fn closed(&self, _peer: &PeerHandle, exit: Option<ExitInfo>) {
        if let Some(error) = self.liveness.failure(&self.label, exit.as_ref()) {
            self.translator.ended();
            self.send(vec![AgentEvent::RuntimeFailed(error)]).await;
        }
    }
}
