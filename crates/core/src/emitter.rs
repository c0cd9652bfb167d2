//! The single outbound path: every response and `provider/event` line goes through one bounded
//! channel to one stdout writer task, so lines never interleave and a slow host applies
//! backpressure instead of growing a queue.

use agent_bridge_protocol::jsonrpc::{Outgoing, RequestId, RpcError};
use agent_bridge_protocol::wire::METHOD_EVENT;
use agent_bridge_protocol::ProviderEvent;
use tokio::io::{AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::mpsc;

/// Capacity of the outbound line queue.
pub const OUTBOUND_QUEUE: usize = 1024;

/// A cheap, cloneable handle for writing JSON-RPC lines.
#[derive(Debug, Clone)]
pub struct Outbound {
    tx: mpsc::Sender<String>,
}

impl Outbound {
    /// Starts the writer task; it ends when every `Outbound` is dropped, after flushing.
    pub fn start<W>(writer: W) -> (Outbound, tokio::task::JoinHandle<()>)
    where
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (tx, mut rx) = mpsc::channel::<String>(OUTBOUND_QUEUE);
        let task = tokio::spawn(async move {
            let mut out = BufWriter::with_capacity(64 * 1024, writer);
            while let Some(line) = rx.recv().await {
                if write_line(&mut out, &line).await.is_err() {
                    break;
                }
                // Batch what is already queued, then flush once.
                while let Ok(line) = rx.try_recv() {
                    if write_line(&mut out, &line).await.is_err() {
                        return;
                    }
                }
                if out.flush().await.is_err() {
                    break;
                }
            }
            let _ = out.flush().await;
        });
        (Outbound { tx }, task)
    }

    async fn send_line<T: serde::Serialize>(&self, msg: &T) {
        match serde_json::to_string(msg) {
            Ok(line) => {
                if self.tx.send(line).await.is_err() {
                    tracing::debug!("stdout writer is gone; dropping a message");
                }
            }
            Err(e) => tracing::error!("could not serialize an outgoing message: {e}"),
        }
    }

    pub async fn respond(&self, id: RequestId, result: serde_json::Value) {
        self.send_line(&Outgoing::result(id, result)).await;
    }

    pub async fn respond_error(&self, id: Option<RequestId>, error: RpcError) {
        self.send_line(&Outgoing::error(id, error)).await;
    }

    /// Emits one `provider/event`, normalizing what Paseo's schema requires.
    pub async fn event(&self, connection_id: &str, event: ProviderEvent) {
        if let Some(line) = render_event(connection_id, event) {
            self.send_raw(line).await;
        }
    }

    /// Writes a line made by [`render_event`].
    pub async fn send_raw(&self, line: String) {
        if self.tx.send(line).await.is_err() {
            tracing::debug!("stdout writer is gone; dropping a message");
        }
    }
}

/// The `provider/event` line of `event` (normalized as Paseo's schema requires), to write
/// later with [`Outbound::send_raw`]; `None` (logged) if it cannot be serialized.
pub fn render_event(connection_id: &str, mut event: ProviderEvent) -> Option<String> {
    if let ProviderEvent::TimelineItem { item, .. } = &mut event {
        item.normalize();
    }
    // Serialized straight from borrowed parts: no intermediate JSON tree per event.
    let line = EventLine {
        jsonrpc: "2.0",
        method: METHOD_EVENT,
        params: EventParams {
            connection_id,
            event: &event,
        },
    };
    match serde_json::to_string(&line) {
        Ok(line) => Some(line),
        Err(e) => {
            tracing::error!("could not serialize an outgoing event: {e}");
            None
        }
    }
}

/// A `provider/event` notification, as written.
#[derive(serde::Serialize)]
struct EventLine<'a> {
    jsonrpc: &'static str,
    method: &'static str,
    params: EventParams<'a>,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct EventParams<'a> {
    connection_id: &'a str,
    event: &'a ProviderEvent,
}

async fn write_line<W: AsyncWrite + Unpin>(
    out: &mut BufWriter<W>,
    line: &str,
) -> std::io::Result<()> {
    out.write_all(line.as_bytes()).await?;
    out.write_all(b"\n").await
}
