//! The host side of the bridge wire (`bridge-wire.md`), over any byte stream: JSON-RPC requests
//! with numeric ids, responses matched to them, and `provider/event` notifications delivered in
//! order on a channel. No rendering here.

use agent_bridge_protocol::jsonrpc::RpcError;
use agent_bridge_protocol::wire::{EventNotification, SendParams, METHOD_EVENT, METHOD_SEND};
use agent_bridge_protocol::ProviderInput;
use anyhow::{anyhow, Context};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

/// How long a request may wait for its answer.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

type Answer = Result<Value, RpcError>;
type Pending = Arc<Mutex<HashMap<i64, oneshot::Sender<Answer>>>>;

/// What the bridge sent besides responses.
#[derive(Debug)]
pub enum Inbound {
    Event(Box<EventNotification>),
    /// A line the client could not understand (reported, never fatal).
    Malformed(String),
}

/// A connected host. Cheap to share behind an `Arc`.
pub struct Client {
    writer: tokio::sync::Mutex<Box<dyn AsyncWrite + Unpin + Send>>,
    next_id: AtomicI64,
    pending: Pending,
}

impl Client {
    /// Starts the reader task; events arrive on the returned channel, which closes when the
    /// bridge's output ends.
    pub fn start<R, W>(reader: R, writer: W) -> (Arc<Client>, mpsc::Receiver<Inbound>)
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let pending: Pending = Arc::default();
        let (tx, rx) = mpsc::channel(256);
        tokio::spawn(read_loop(reader, pending.clone(), tx));
        let client = Client {
            writer: tokio::sync::Mutex::new(Box::new(writer)),
            next_id: AtomicI64::new(1),
            pending,
        };
        (Arc::new(client), rx)
    }

    async fn write(&self, message: &Value) -> anyhow::Result<()> {
        let mut line = serde_json::to_vec(message)?;
        line.push(b'\n');
        let mut w = self.writer.lock().await;
        w.write_all(&line).await?;
        w.flush().await?;
        Ok(())
    }

    /// Sends a request and waits for its result.
    pub async fn request<P: Serialize, T: DeserializeOwned>(
        &self,
        method: &str,
        params: P,
    ) -> anyhow::Result<T> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        if let Ok(mut p) = self.pending.lock() {
            p.insert(id, tx);
        }
        let message = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        self.write(&message)
            .await
            .with_context(|| format!("sending `{method}` to the bridge"))?;
        let answer = match tokio::time::timeout(REQUEST_TIMEOUT, rx).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => return Err(anyhow!("the bridge stopped before answering `{method}`")),
            Err(_) => {
                if let Ok(mut p) = self.pending.lock() {
                    p.remove(&id);
                }
                return Err(anyhow!(
                    "`{method}` got no answer within {} s",
                    REQUEST_TIMEOUT.as_secs()
                ));
            }
        };
        let value = answer.map_err(|e| anyhow!("`{method}` was refused: {e}"))?;
        serde_json::from_value(value)
            .with_context(|| format!("the answer to `{method}` has an unexpected shape"))
    }

    /// Sends a notification (no answer).
    pub async fn notify<P: Serialize>(&self, method: &str, params: P) -> anyhow::Result<()> {
        self.write(&json!({ "jsonrpc": "2.0", "method": method, "params": params }))
            .await
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

async fn read_loop<R: AsyncRead + Unpin>(reader: R, pending: Pending, tx: mpsc::Sender<Inbound>) {
    let mut lines = BufReader::with_capacity(64 * 1024, reader).lines();
    loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                let _ = tx
                    .send(Inbound::Malformed(format!(
                        "reading the bridge failed: {e}"
                    )))
                    .await;
                break;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let inbound = match classify(&line) {
            Ok(Message::Event(n)) => Inbound::Event(n),
            Ok(Message::Answer(id, answer)) => {
                let waiter = pending.lock().ok().and_then(|mut p| p.remove(&id));
                if let Some(waiter) = waiter {
                    let _ = waiter.send(answer);
                }
                continue;
            }
            Err(problem) => Inbound::Malformed(problem),
        };
        if tx.send(inbound).await.is_err() {
            break;
        }
    }
    // Dropping the waiters tells every open request that no answer will come.
    if let Ok(mut p) = pending.lock() {
        p.clear();
    }
}

enum Message {
    Event(Box<EventNotification>),
    Answer(i64, Answer),
}

fn classify(line: &str) -> Result<Message, String> {
    let value: Value =
        serde_json::from_str(line).map_err(|e| format!("the bridge wrote a non-JSON line: {e}"))?;
    if value.get("method").and_then(Value::as_str) == Some(METHOD_EVENT) {
        let params = value.get("params").cloned().unwrap_or(Value::Null);
        return serde_json::from_value(params)
            .map(|n| Message::Event(Box::new(n)))
            .map_err(|e| format!("the bridge wrote an event this client cannot read: {e}"));
    }
    let Some(id) = value.get("id").and_then(Value::as_i64) else {
        let error = value.get("error").map(Value::to_string).unwrap_or_default();
        return Err(format!(
            "the bridge wrote a message without a request id {error}"
        ));
    };
    let answer = match value.get("error") {
        Some(error) => Err(serde_json::from_value::<RpcError>(error.clone())
            .map_err(|e| format!("malformed error object: {e}"))?),
        None => Ok(value.get("result").cloned().unwrap_or(Value::Null)),
    };
    Ok(Message::Answer(id, answer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_answers_events_and_garbage() {
        let ok = classify(r#"{"jsonrpc":"2.0","id":3,"result":null}"#);
        assert!(matches!(ok, Ok(Message::Answer(3, Ok(Value::Null)))));
        let err = classify(r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"bad"}}"#);
        assert!(matches!(err, Ok(Message::Answer(4, Err(e))) if e.code == -32602));
        let event = classify(
            r#"{"jsonrpc":"2.0","method":"provider/event","params":{"connectionId":"c1","event":{"type":"session.ready","sessionId":"s"}}}"#,
        );
        assert!(matches!(event, Ok(Message::Event(n)) if n.connection_id == "c1"));
        assert!(classify("not json").is_err());
        assert!(
            classify(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#)
                .is_err()
        );
    }
}
