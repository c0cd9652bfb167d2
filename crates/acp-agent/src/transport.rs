//! The ACP client's side of stdio: JSON-RPC 2.0 lines in, JSON-RPC 2.0 lines out.
//!
//! Reading follows the bridge's own transport rules (`agent_bridge_core::host_input`): a line
//! over 16 MiB is discarded with `-32600`, a line that is not UTF-8 or not JSON gets `-32700`,
//! a bad envelope `-32600`, each answered with `id: null` (or the request's id when it could be
//! read) and nothing else lost. Answers to the requests the facade sends the client
//! (`session/request_permission`) are routed back with their result.
//!
//! Writing goes through one bounded queue to one writer task: a client that stops reading
//! stops the facade (and through it the core), nothing grows without bound.

use agent_bridge_core::codec::Line;
use agent_bridge_core::host_input::{parse_line, HostLine};
use agent_bridge_protocol::jsonrpc::{Incoming, Outgoing, RequestId, RpcError};
use serde_json::Value;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

/// Lines waiting for the writer, at most.
const OUTBOX: usize = 256;

/// One message of the client, after the envelope was checked.
#[derive(Debug)]
pub enum ClientMessage {
    Request {
        id: RequestId,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
    /// The answer to a request the facade sent: its result, or the client's error.
    Response {
        id: RequestId,
        result: Result<Value, RpcError>,
    },
    /// A line that could not be read; it is answered with this error.
    Refused(Option<RequestId>, RpcError),
    Blank,
}

/// Reads one line of the client.
pub fn read_line(line: Line) -> ClientMessage {
    if let Line::Text(text) = &line {
        if let Some(response) = response_of(text) {
            return response;
        }
    }
    match parse_line(line) {
        HostLine::Blank => ClientMessage::Blank,
        HostLine::Refused(id, e) => ClientMessage::Refused(id, e),
        HostLine::Message(Incoming::Request { id, method, params }) => {
            ClientMessage::Request { id, method, params }
        }
        HostLine::Message(Incoming::Notification { method, params }) => {
            ClientMessage::Notification { method, params }
        }
        // `parse_line` drops the result of an answer; `response_of` reads answers first, so
        // this is an answer without a readable result or error.
        HostLine::Message(Incoming::Response { id }) => ClientMessage::Response {
            id,
            result: Err(RpcError {
                code: -32603,
                message: "the client's answer has no readable result".into(),
                data: None,
            }),
        },
    }
}

/// An answer (`id` with `result` or `error`, no `method`), with what it carries.
fn response_of(text: &str) -> Option<ClientMessage> {
    let trimmed = text.trim_start();
    if !trimmed.starts_with('{') {
        return None;
    }
    let Ok(Value::Object(mut obj)) = serde_json::from_str::<Value>(trimmed) else {
        return None;
    };
    if obj.contains_key("method") {
        return None;
    }
    let id: RequestId = serde_json::from_value(obj.remove("id")?).ok()?;
    let result = match (obj.remove("result"), obj.remove("error")) {
        (_, Some(error)) => Err(
            serde_json::from_value::<RpcError>(error).unwrap_or(RpcError {
                code: -32603,
                message: "the client answered with an unreadable error".into(),
                data: None,
            }),
        ),
        (Some(result), None) => Ok(result),
        (None, None) => return None,
    };
    Some(ClientMessage::Response { id, result })
}

/// Where the facade writes: one bounded queue to the writer task. Cheap to clone.
#[derive(Clone)]
pub struct Out {
    tx: mpsc::Sender<String>,
}

impl Out {
    /// Starts the writer on `output`; it ends when every `Out` is dropped.
    pub fn start<W>(output: W) -> (Out, tokio::task::JoinHandle<()>)
    where
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (tx, mut rx) = mpsc::channel::<String>(OUTBOX);
        let task = tokio::spawn(async move {
            let mut output = output;
            while let Some(line) = rx.recv().await {
                if output.write_all(line.as_bytes()).await.is_err()
                    || output.write_all(b"\n").await.is_err()
                {
                    tracing::debug!("the client's stdin is closed; dropping what is left");
                    return;
                }
                if rx.is_empty() && output.flush().await.is_err() {
                    return;
                }
            }
            let _ = output.flush().await;
        });
        (Out { tx }, task)
    }

    async fn send(&self, message: &impl serde::Serialize) {
        match serde_json::to_string(message) {
            Ok(line) => {
                let _ = self.tx.send(line).await;
            }
            Err(e) => tracing::error!("a message for the client could not be written: {e}"),
        }
    }

    pub async fn result(&self, id: RequestId, result: Value) {
        self.send(&Outgoing::result(id, result)).await
    }

    pub async fn error(&self, id: Option<RequestId>, error: RpcError) {
        self.send(&Outgoing::error(id, error)).await
    }

    pub async fn notify(&self, method: &'static str, params: Value) {
        self.send(&Outgoing::notification(method, params)).await
    }

    /// A request to the client; its answer comes back as a [`ClientMessage::Response`].
    pub async fn request(&self, id: RequestId, method: &'static str, params: Value) {
        let message = serde_json::json!({
            "jsonrpc": "2.0", "id": id, "method": method, "params": params,
        });
        self.send(&message).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> ClientMessage {
        read_line(Line::Text(text.into()))
    }

    #[test]
    fn reads_answers_with_their_result() {
        match read(r#"{"jsonrpc":"2.0","id":7,"result":{"outcome":{"outcome":"cancelled"}}}"#) {
            ClientMessage::Response { id, result } => {
                assert_eq!(id.to_string(), "7");
                assert_eq!(result.unwrap()["outcome"]["outcome"], "cancelled");
            }
            other => panic!("not an answer: {other:?}"),
        }
        match read(r#"{"jsonrpc":"2.0","id":"a","error":{"code":-1,"message":"no"}}"#) {
            ClientMessage::Response { result, .. } => assert_eq!(result.unwrap_err().code, -1),
            other => panic!("not an answer: {other:?}"),
        }
    }

    #[test]
    fn refuses_what_is_not_json_rpc() {
        assert!(matches!(read("{oops"), ClientMessage::Refused(None, e) if e.code == -32700));
        assert!(matches!(read("[1]"), ClientMessage::Refused(None, e) if e.code == -32600));
        assert!(matches!(
            read_line(Line::Oversize { len: 20 << 20 }),
            ClientMessage::Refused(None, e) if e.code == -32600
        ));
        assert!(matches!(read("   "), ClientMessage::Blank));
        assert!(matches!(
            read(r#"{"jsonrpc":"2.0","id":1,"method":"x"}"#),
            ClientMessage::Request { .. }
        ));
    }
}
