//! The bridge's side of the control protocol: requests it sends to the CLI (correlated by
//! `request_id`) and the writer that owns the CLI's stdin.

use crate::wire;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::process::ChildStdin;
use tokio::sync::{mpsc, oneshot};

/// How long a control request may take before the bridge gives up on it.
pub const CONTROL_TIMEOUT: Duration = Duration::from_secs(20);

#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum ControlError {
    #[error("the Claude Code process is not running")]
    Gone,
    #[error("Claude Code did not answer `{0}` in time")]
    Timeout(String),
    #[error("Claude Code refused `{subtype}`: {message}")]
    Refused { subtype: String, message: String },
}

enum Msg {
    Line(String),
    Close,
}

type Waiters = Arc<Mutex<HashMap<String, oneshot::Sender<Result<Value, String>>>>>;

/// Writes lines to the CLI's stdin (in order, from a task of its own so callers never block on
/// the pipe) and keeps the requests awaiting an answer.
#[derive(Debug, Clone)]
pub struct ControlChannel {
    lines: mpsc::UnboundedSender<Msg>,
    waiters: Waiters,
    next: Arc<Mutex<u64>>,
}

impl ControlChannel {
    /// Starts the stdin writer; it ends (closing stdin) when every channel clone is dropped or
    /// [`ControlChannel::close`] is called.
    pub fn start(mut stdin: ChildStdin) -> (ControlChannel, tokio::task::JoinHandle<()>) {
        let (tx, mut rx) = mpsc::unbounded_channel::<Msg>();
        let task = tokio::spawn(async move {
            while let Some(Msg::Line(mut line)) = rx.recv().await {
                line.push('\n');
                if let Err(e) = stdin.write_all(line.as_bytes()).await {
                    tracing::debug!("writing to claude stdin failed: {e}");
                    break;
                }
                if stdin.flush().await.is_err() {
                    break;
                }
            }
            let _ = stdin.shutdown().await;
        });
        let channel = ControlChannel {
            lines: tx,
            waiters: Arc::new(Mutex::new(HashMap::new())),
            next: Arc::new(Mutex::new(0)),
        };
        (channel, task)
    }

    /// Queues one line for the CLI.
    pub fn write(&self, line: String) -> Result<(), ControlError> {
        self.lines
            .send(Msg::Line(line))
            .map_err(|_| ControlError::Gone)
    }

    /// Closes the CLI's stdin once every queued line is written.
    pub fn close(&self) {
        let _ = self.lines.send(Msg::Close);
    }

    /// A stand-in whose writes fail (tests, a process that could not start).
    pub fn closed() -> ControlChannel {
        let (tx, _rx) = mpsc::unbounded_channel();
        ControlChannel {
            lines: tx,
            waiters: Arc::new(Mutex::new(HashMap::new())),
            next: Arc::new(Mutex::new(0)),
        }
    }

    fn next_id(&self, subtype: &str) -> String {
        let n = match self.next.lock() {
            Ok(mut n) => {
                *n += 1;
                *n
            }
            Err(_) => 0,
        };
        format!("bridge-{subtype}-{n}")
    }

    /// Sends a control request without waiting for its answer (logged when it fails).
    pub fn send(&self, request: Value) -> Result<String, ControlError> {
        let subtype = request
            .get("subtype")
            .and_then(Value::as_str)
            .unwrap_or("request")
            .to_string();
        let id = self.next_id(&subtype);
        self.write(wire::control_request_line(&id, request))?;
        Ok(id)
    }

    /// Sends a control request and waits for the CLI's answer.
    pub async fn request(&self, request: Value) -> Result<Value, ControlError> {
        let subtype = request
            .get("subtype")
            .and_then(Value::as_str)
            .unwrap_or("request")
            .to_string();
        let id = self.next_id(&subtype);
        let (tx, rx) = oneshot::channel();
        if let Ok(mut w) = self.waiters.lock() {
            w.insert(id.clone(), tx);
        }
        if let Err(e) = self.write(wire::control_request_line(&id, request)) {
            self.forget(&id);
            return Err(e);
        }
        match tokio::time::timeout(CONTROL_TIMEOUT, rx).await {
            Ok(Ok(Ok(v))) => Ok(v),
            Ok(Ok(Err(message))) => Err(ControlError::Refused { subtype, message }),
            Ok(Err(_)) => Err(ControlError::Gone),
            Err(_) => {
                self.forget(&id);
                Err(ControlError::Timeout(subtype))
            }
        }
    }

    fn forget(&self, id: &str) {
        if let Ok(mut w) = self.waiters.lock() {
            w.remove(id);
        }
    }

    /// Routes a `control_response` from the CLI to its waiter. Returns false for an answer
    /// nobody waits for (fire-and-forget requests).
    pub fn resolve(&self, request_id: &str, result: Result<Value, String>) -> bool {
        let waiter = self
            .waiters
            .lock()
            .ok()
            .and_then(|mut w| w.remove(request_id));
        match waiter {
            Some(tx) => {
                let _ = tx.send(result);
                true
            }
            None => false,
        }
    }

    /// Fails every waiter (the process is gone) and stops the writer.
    pub fn fail_all(&self) {
        let waiters: Vec<_> = match self.waiters.lock() {
            Ok(mut w) => w.drain().collect(),
            Err(_) => Vec::new(),
        };
        drop(waiters);
    }
}

/// The answer to a control request the CLI sent, other than `can_use_tool` (which waits for
/// the host): the bridge registers no hooks (a callback is told to continue) and hosts no
/// in-process MCP servers (a JSON-RPC error for the message); anything else is refused.
pub fn reply_to(req: &wire::ControlRequest) -> String {
    match req.subtype() {
        "hook_callback" => wire::control_success_line(&req.request_id, json!({})),
        "mcp_message" => {
            let server = req.str_field("server_name").unwrap_or("?");
            let id = req
                .request
                .get("message")
                .and_then(|m| m.get("id"))
                .cloned()
                .unwrap_or(Value::Null);
            let error = json!({"code": -32601, "message": format!("no SDK MCP server named {server} in agent-bridge")});
            wire::control_success_line(
                &req.request_id,
                json!({"mcp_response": {"jsonrpc": "2.0", "id": id, "error": error}}),
            )
        }
        other => wire::control_error_line(
            &req.request_id,
            &format!("agent-bridge does not handle `{other}`"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn req(request: Value) -> wire::ControlRequest {
        serde_json::from_value(json!({"request_id": "r1", "request": request})).expect("request")
    }

    fn parsed(line: &str) -> Value {
        serde_json::from_str(line).expect("json line")
    }

    #[test]
    fn every_cli_request_gets_an_answer() {
        let hook = parsed(&reply_to(&req(
            json!({"subtype": "hook_callback", "callback_id": "hook_0", "input": {}}),
        )));
        assert_eq!(
            hook,
            json!({"type": "control_response", "response": {"subtype": "success", "request_id": "r1", "response": {}}})
        );
        let mcp = parsed(&reply_to(&req(
            json!({"subtype": "mcp_message", "server_name": "x", "message": {"jsonrpc": "2.0", "id": 7, "method": "tools/list"}}),
        )));
        assert_eq!(mcp["response"]["response"]["mcp_response"]["id"], 7);
        assert_eq!(
            mcp["response"]["response"]["mcp_response"]["error"]["code"],
            -32601
        );
        let other = parsed(&reply_to(&req(json!({"subtype": "brand_new"}))));
        assert_eq!(other["response"]["subtype"], "error");
        assert_eq!(other["response"]["request_id"], "r1");
    }

    #[tokio::test]
    async fn answers_reach_their_waiters_and_a_dead_process_fails_them() {
        let channel = ControlChannel::closed();
        assert_eq!(
            channel.request(json!({"subtype": "interrupt"})).await,
            Err(ControlError::Gone)
        );
        assert!(!channel.resolve("nobody", Ok(Value::Null)));
    }
}
