//! The host side of the bridge wire (`docs/wire.md`), over any byte stream: JSON-RPC requests
//! with numeric ids, responses matched to them, and `provider/event` notifications delivered in
//! order on a channel. No rendering here.

use agent_bridge_core::codec::{BoundedLineCodec, MAX_LINE};
use agent_bridge_core::rpc::{Inbound as PeerInbound, JsonRpc, Peer, PeerHandle, PeerOptions};
use agent_bridge_protocol::wire::{EventNotification, SendParams, METHOD_EVENT, METHOD_SEND};
use agent_bridge_protocol::ProviderInput;
use anyhow::{anyhow, Context};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;
use tokio_util::codec::FramedRead;

/// How long a request may wait for its answer.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// What the bridge sent besides responses.
#[derive(Debug)]
pub enum Inbound {
    Event(Box<EventNotification>),
    /// A line the client could not understand (reported, never fatal).
    Malformed(String),
}

/// A connected host over the core's JSON-RPC peer (the same peer the bridge uses towards
/// agents, in the standard JSON-RPC 2.0 dialect). Cheap to share behind an `Arc`.
pub struct Client {
    peer: PeerHandle,
}

/// Hands the bridge's notifications to the session, in order.
struct Events(mpsc::Sender<Inbound>);

#[async_trait::async_trait]
impl PeerInbound for Events {
    async fn notification(&self, _peer: &PeerHandle, method: String, params: Value) {
        let inbound = classify(&method, params);
        let _ = self.0.send(inbound).await;
    }
}

impl Client {
    /// Starts the peer; events arrive on the returned channel, which closes when the bridge's
    /// output ends.
    pub fn start<R, W>(reader: R, writer: W) -> (Arc<Client>, mpsc::Receiver<Inbound>)
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (tx, rx) = mpsc::channel(256);
        let mut options = PeerOptions::new("agent-bridge");
        options.call_timeout = REQUEST_TIMEOUT;
        let peer = Peer::start(
            FramedRead::new(reader, BoundedLineCodec::new(MAX_LINE)),
            writer,
            Arc::new(JsonRpc::v2()),
            Arc::new(Events(tx)),
            options,
        );
        (Arc::new(Client { peer }), rx)
    }

    /// Sends a request and waits for its result.
    pub async fn request<P: Serialize, T: DeserializeOwned>(
        &self,
        method: &str,
        params: P,
    ) -> anyhow::Result<T> {
        let params = serde_json::to_value(params)
            .with_context(|| format!("encoding the params of `{method}`"))?;
        let value = self
            .peer
            .call(method, params)
            .await
            .map_err(|e| match e.rpc() {
                Some(error) => anyhow!("`{method}` was refused: {error}"),
                None => anyhow!("{e}"),
            })?;
        serde_json::from_value(value)
            .with_context(|| format!("the answer to `{method}` has an unexpected shape"))
    }

    /// Sends a notification (no answer).
    pub async fn notify<P: Serialize>(&self, method: &str, params: P) -> anyhow::Result<()> {
        let params = serde_json::to_value(params)?;
        self.peer
            .notify(method, Some(&params))
            .await
            .map_err(|e| anyhow!("{e}"))
    }

    /// `provider/send`: admission only; results arrive as events.
    pub async fn send(&self, connection_id: &str, input: ProviderInput) -> anyhow::Result<()> {
        let params = SendParams {
            connection_id: connection_id.to_string(),
            input,
        };
        let _: Value = self.request(METHOD_SEND, params).await?;
        Ok(())
    }
}

/// A notification of the bridge: an event, or something this client cannot read.
fn classify(method: &str, params: Value) -> Inbound {
    if method != METHOD_EVENT {
        return Inbound::Malformed(format!(
            "the bridge sent an unknown notification `{method}`"
        ));
    }
    match serde_json::from_value(params) {
        Ok(n) => Inbound::Event(Box::new(n)),
        Err(e) => Inbound::Malformed(format!(
            "the bridge wrote an event this client cannot read: {e}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn classifies_events_and_garbage() {
        let event = classify(
            METHOD_EVENT,
            json!({"connectionId": "c1", "event": {"type": "session.ready", "sessionId": "s"}}),
        );
        assert!(matches!(event, Inbound::Event(n) if n.connection_id == "c1"));
        assert!(matches!(
            classify(METHOD_EVENT, json!({"nope": 1})),
            Inbound::Malformed(_)
        ));
        assert!(matches!(
            classify("other", json!({})),
            Inbound::Malformed(_)
        ));
    }

    #[tokio::test]
    async fn requests_are_answered_and_events_delivered_over_the_core_peer() {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(ours);
        let (client, mut events) = Client::start(read, write);
        let (their_read, mut their_write) = tokio::io::split(theirs);
        let bridge = tokio::spawn(async move {
            let mut lines = BufReader::new(their_read).lines();
            let line = lines.next_line().await.unwrap().unwrap();
            let req: Value = serde_json::from_str(&line).unwrap();
            let event = json!({"jsonrpc": "2.0", "method": METHOD_EVENT, "params":
                {"connectionId": "c1", "event": {"type": "session.ready", "sessionId": "s"}}});
            let answer = json!({"jsonrpc": "2.0", "id": req["id"], "result": {"ok": true}});
            let out = format!("{event}\n{answer}\n");
            their_write.write_all(out.as_bytes()).await.unwrap();
            req
        });
        let answer: Value = client.request("initialize", json!({"x": 1})).await.unwrap();
        assert_eq!(answer, json!({"ok": true}));
        let req = bridge.await.unwrap();
        assert_eq!(req["method"], "initialize");
        assert_eq!(req["jsonrpc"], "2.0");
        assert!(matches!(events.recv().await, Some(Inbound::Event(_))));
    }
}
