//! The JSON-RPC server: reads host lines, enforces the transport rules, answers the bridge
//! methods and routes `provider/send` inputs to connections.

use crate::agent::ProviderContext;
use crate::codec::{BoundedLineCodec, Line, MAX_LINE};
use crate::connection::Connection;
use crate::emitter::Outbound;
use crate::host_input::{
    parse_line, parse_request_noting_ignored, HostLine, HostRequest, REQUEST_METHODS,
};
use crate::inflight::InFlight;
use crate::registry::ProviderEntry;
use crate::supervisor::LaunchOverride;
use agent_bridge_protocol::jsonrpc::{Incoming, RequestId, RpcError, RpcErrorCode};
use agent_bridge_protocol::wire::*;
use agent_bridge_protocol::{capability, BRIDGE_API_VERSION};
use futures_util::StreamExt;
use serde_json::Value;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::codec::FramedRead;
use tokio_util::sync::CancellationToken;

mod ignored;
mod provider_requests;

pub use crate::limits::AVAILABILITY_TIMEOUT;

/// Static configuration of a bridge server.
pub struct ServerConfig {
    pub name: String,
    pub version: String,
    pub plugin_dir: PathBuf,
    pub providers: Vec<Arc<ProviderEntry>>,
    /// The bridge's spares, the ones its providers were built with: stopped when `serve` ends.
    pub spares: crate::spares::Spares,
}

struct State {
    config: ServerConfig,
    out: Outbound,
    data_dir: Option<PathBuf>,
    initialized: bool,
    connections: HashMap<String, Arc<Connection>>,
    next_connection: u64,
    /// Requests answered from tasks of their own, bounded; their ids.
    inflight: InFlight,
}

/// Why the server stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    InputClosed,
    Shutdown,
    Canceled,
}

/// Serves one host over `reader`/`writer` until stdin closes, `shutdown` arrives or `cancel`
/// fires; then closes every connection (and so every vendor process) and flushes.
pub async fn serve<R, W>(
    config: ServerConfig,
    reader: R,
    writer: W,
    cancel: CancellationToken,
) -> StopReason
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (out, writer_task) = Outbound::start(writer);
    let mut state = State {
        config,
        out,
        data_dir: None,
        initialized: false,
        connections: HashMap::new(),
        next_connection: 1,
        inflight: InFlight::default(),
    };
    let mut lines = FramedRead::new(reader, BoundedLineCodec::new(MAX_LINE));
    let reason = loop {
        let next = tokio::select! {
            _ = cancel.cancelled() => break StopReason::Canceled,
            next = lines.next() => next,
        };
        let line = match next {
            None => break StopReason::InputClosed,
            Some(Err(e)) => {
                tracing::warn!("reading stdin failed: {e}");
                break StopReason::InputClosed;
            }
            Some(Ok(line)) => line,
        };
        // Handling may wait (for room in stdout's queue, for a free in-flight slot): that is
        // backpressure on the host, but never deafness to a cancel.
        let stop = tokio::select! {
            _ = cancel.cancelled() => break StopReason::Canceled,
            stop = state.handle_line(line) => stop,
        };
        if stop {
            break StopReason::Shutdown;
        }
    };
    tracing::info!(?reason, "shutting down");
    let closing: Vec<Arc<Connection>> = state.connections.drain().map(|(_, c)| c).collect();
    let all = futures_util::future::join_all(closing.iter().map(|c| c.close()));
    if tokio::time::timeout(crate::limits::SHUTDOWN_TIMEOUT, all)
        .await
        .is_err()
    {
        tracing::warn!(
            "connections did not close within {} ms; stopping their processes now",
            crate::limits::SHUTDOWN_TIMEOUT.as_millis()
        );
    }
    drop(closing);
    // The warm spares go with the bridge.
    let spares = state.config.spares.clone();
    if tokio::time::timeout(crate::limits::SHUTDOWN_TIMEOUT, spares.stop_all())
        .await
        .is_err()
    {
        tracing::warn!("idle spares did not stop in time; the process guard kills them");
    }
    drop(state);
    let _ = tokio::time::timeout(Duration::from_millis(200), writer_task).await;
    reason
}

/// At most 200 characters of a host-given string, for a log line or a message.
fn clip(text: &str) -> String {
    agent_bridge_protocol::jsonrpc::clip(text, 200)
}

impl State {
    /// Handles one line; returns true when the bridge must stop.
    async fn handle_line(&mut self, line: Line) -> bool {
        if let Line::Oversize { len } = &line {
            tracing::warn!(len, "discarded a line over the 16 MiB limit");
        }
        match parse_line(line) {
            HostLine::Blank => false,
            HostLine::Refused(id, err) => {
                self.out.respond_error(id, err).await;
                false
            }
            HostLine::Message(Incoming::Response { id }) => {
                tracing::debug!(
                    ?id,
                    "ignoring a response to a request the bridge did not send"
                );
                false
            }
            HostLine::Message(Incoming::Notification { method, .. }) => {
                if method == METHOD_SHUTDOWN {
                    return true;
                }
                tracing::debug!(%method, "ignoring unknown notification");
                false
            }
            HostLine::Message(Incoming::Request { id, method, params }) => {
                self.handle_request(id, &method, params).await;
                false
            }
        }
    }

    async fn handle_request(&mut self, id: RequestId, method: &str, params: Value) {
        if self.inflight.holds(&id) {
            // Answered with `id: null`: the request in flight keeps the only answer with its id.
            let msg = format!(
                "request id {} is in use by a request still in flight; this `{}` was not executed",
                clip(&id.to_string()),
                clip(method)
            );
            tracing::warn!("{msg}");
            let err = RpcError::new(RpcErrorCode::InvalidRequest, msg);
            return self.out.respond_error(None, err).await;
        }
        if method != METHOD_INITIALIZE && !self.initialized {
            let err = if REQUEST_METHODS.contains(&method) {
                RpcError::new(
                    RpcErrorCode::Unavailable,
                    "not initialized: send `initialize` first",
                )
            } else {
                RpcError::new(
                    RpcErrorCode::MethodNotFound,
                    format!("unknown method `{method}`"),
                )
            };
            return self.out.respond_error(Some(id), err).await;
        }
        let parsed = parse_request_noting_ignored(method, params).map(|(request, ignored)| {
            ignored::note(method, &ignored);
            request
        });
        let result = match parsed {
            Ok(HostRequest::Initialize(p)) => self.initialize(p),
            Ok(HostRequest::Availability(p)) => return self.availability(id, p).await,
            Ok(HostRequest::CatalogCacheKey(p)) => return self.cache_key(id, p).await,
            Ok(HostRequest::Connect(p)) => self.connect(p).await,
            Ok(HostRequest::Send(p)) => return self.send(id, p).await,
            Ok(HostRequest::Close(p)) => return self.close(id, p).await,
            Ok(HostRequest::ReadSessionHistory(p)) => {
                return self.read_session_history(id, p).await
            }
            Err(err) => Err(err),
        };
        match result {
            Ok(value) => self.out.respond(id, value).await,
            Err(err) => self.out.respond_error(Some(id), err).await,
        }
    }

    fn initialize(&mut self, params: InitializeParams) -> Result<Value, RpcError> {
        if params.api_version != BRIDGE_API_VERSION {
            return Err(RpcError::new(
                RpcErrorCode::InvalidParams,
                format!(
                    "apiVersion {} is not supported; this bridge speaks {BRIDGE_API_VERSION}",
                    params.api_version
                ),
            ));
        }
        if let Some(plugin) = &params.plugin {
            self.data_dir = plugin.data_dir.as_ref().map(PathBuf::from);
        }
        tracing::info!(
            host = %clip(&params.host.name),
            version = %clip(&params.host.version),
            "initialized"
        );
        self.initialized = true;
        let providers = self
            .config
            .providers
            .iter()
            .map(|e| ProviderInfo {
                id: e.descriptor.id.clone(),
                label: e.descriptor.label.clone(),
                description: e.descriptor.description.clone(),
                icon: e.descriptor.icon.clone(),
                capabilities: e.capabilities(),
            })
            .collect();
        let response = InitializeResponse {
            api_version: BRIDGE_API_VERSION,
            bridge: BridgeInfo {
                name: self.config.name.clone(),
                version: self.config.version.clone(),
            },
            providers,
        };
        serde_json::to_value(response)
            .map_err(|e| RpcError::new(RpcErrorCode::Internal, e.to_string()))
    }

    fn entry(&self, provider_id: &str) -> Result<Arc<ProviderEntry>, RpcError> {
        self.config
            .providers
            .iter()
            .find(|e| e.descriptor.id == provider_id)
            .cloned()
            .ok_or_else(|| {
                RpcError::new(
                    RpcErrorCode::InvalidParams,
                    format!("unknown provider `{provider_id}`"),
                )
            })
    }

    fn context(&self, entry: &ProviderEntry, launch: Option<LaunchSpec>) -> ProviderContext {
        let launch = entry.launch(launch.map(|l| LaunchOverride {
            command: Some(l.command),
            args: l.args,
            env: Some(l.env),
            ..LaunchOverride::default()
        }));
        let data_dir = self
            .data_dir
            .clone()
            .unwrap_or_else(|| self.config.plugin_dir.join(".data"));
        ProviderContext {
            launch,
            data_dir: Some(data_dir),
            plugin_dir: Some(self.config.plugin_dir.clone()),
        }
    }

    async fn connect(&mut self, params: ConnectParams) -> Result<Value, RpcError> {
        let entry = self.entry(&params.provider_id)?;
        let version = agent_bridge_protocol::PROVIDER_PROTOCOL_VERSION;
        if !params.request.versions.contains(&version) {
            return Err(RpcError::new(
                RpcErrorCode::InvalidParams,
                format!("none of the offered protocol versions {:?} is supported (this bridge speaks {version})", params.request.versions),
            ));
        }
        let ctx = self.context(&entry, params.request.launch);
        let capabilities = capability::negotiate(
            &params.request.capabilities,
            &entry.capabilities_for(&ctx).await,
        );
        let connection_id = format!("c{}", self.next_connection);
        self.next_connection += 1;
        let conn = Connection::new(
            connection_id.clone(),
            entry,
            capabilities.clone(),
            ctx,
            self.out.clone(),
        );
        self.connections
            .insert(connection_id.clone(), Arc::new(conn));
        let response = ConnectResponse {
            connection_id,
            version,
            capabilities,
        };
        serde_json::to_value(response)
            .map_err(|e| RpcError::new(RpcErrorCode::Internal, e.to_string()))
    }

    fn connection(&self, connection_id: &str) -> Result<Arc<Connection>, RpcError> {
        if let Some(conn) = self.connections.get(connection_id) {
            return Ok(conn.clone());
        }
        // Ids are handed out in sequence, so an id below the next one was closed — but only
        // an id spelled exactly as one was issued (`c1`, never `c01` or `c+1`).
        let issued = connection_id
            .strip_prefix('c')
            .and_then(|n| n.parse::<u64>().ok())
            .is_some_and(|n| {
                n >= 1 && n < self.next_connection && format!("c{n}") == connection_id
            });
        if issued {
            return Err(RpcError::new(
                RpcErrorCode::Unavailable,
                format!("connection `{connection_id}` is closed"),
            ));
        }
        Err(RpcError::new(
            RpcErrorCode::InvalidParams,
            format!("unknown connection `{connection_id}`"),
        ))
    }

    async fn send(&mut self, id: RequestId, params: SendParams) {
        let admitted = self
            .connection(&params.connection_id)
            .and_then(|c| c.admit(params.input));
        match admitted {
            Ok(dispatch) => {
                // Answer first, so the admission result precedes the input's events.
                self.out.respond(id, Value::Null).await;
                dispatch.run();
            }
            Err(err) => self.out.respond_error(Some(id), err).await,
        }
    }

    async fn close(&mut self, id: RequestId, params: CloseParams) {
        let out = self.out.clone();
        let conn = self.connection(&params.connection_id);
        match conn {
            Ok(conn) => {
                let ticket = self.inflight.begin(&id).await;
                self.connections.remove(&conn.id);
                tokio::spawn(async move {
                    conn.close().await;
                    out.respond(id, Value::Null).await;
                    drop(ticket);
                });
            }
            Err(err) => out.respond_error(Some(id), err).await,
        }
    }
}
