//! agent-bridge as an ACP agent (`agent-bridge acp --provider ID`): the Agent Client Protocol
//! (v1, JSON-RPC 2.0 lines) on stdio, for Zed, JetBrains, Neovim, acpx and Paseo's ACP
//! providers. The bridge core runs in this process ([`core_link`], as `agent-bridge agentty`
//! does); the [`facade`] is one more host of it, translating ACP requests into core session
//! operations and core events into ACP `session/update`s.
//!
//! - [`transport`]: the client's lines in and out (bounded, every bad line answered);
//! - [`facade`]: the one task that owns the ACP sessions;
//! - [`timeline`], [`tool_calls`]: timeline snapshots as chunks, tool calls and plans;
//! - [`permission`], [`config`], [`prompt`], [`mcp`], [`capabilities`], [`session_ids`]: the
//!   single mappings between ACP and the bridge wire.
//!
//! Wire types are the agent half of `agent-client-protocol-schema` (v1). See `docs/acp.md`.

pub mod capabilities;
pub mod config;
pub mod core_link;
pub mod facade;
pub mod mcp;
pub mod permission;
pub mod prompt;
pub mod session_ids;
pub mod timeline;
pub mod tool_calls;
pub mod transport;

use agent_bridge_core::codec::{BoundedLineCodec, MAX_LINE};
use agent_bridge_core::registry::ProviderEntry;
use core_link::CoreLink;
use futures_util::StreamExt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;
use tokio_util::codec::FramedRead;
use tokio_util::sync::CancellationToken;

/// What the agent runs with.
pub struct Options {
    /// The folder of `plugin.json`.
    pub plugin_dir: PathBuf,
    /// The providers of `plugin.json` this build carries.
    pub providers: Vec<Arc<ProviderEntry>>,
    /// The bridge's spares, the ones the providers were built with (stopped with the core).
    pub spares: agent_bridge_core::spares::Spares,
    /// The provider to serve (`--provider`).
    pub provider: String,
    /// Where providers keep what they persist, and where ACP session ids are remembered.
    pub data_dir: PathBuf,
}

/// Why the agent could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("no provider `{0}` in plugin.json (this build serves: {1})")]
    UnknownProvider(String, String),
    #[error("the bridge core did not start: {0}")]
    Core(#[from] core_link::CoreError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Runs the agent on stdin/stdout until stdin closes or SIGTERM / SIGINT.
pub fn run(options: Options) -> Result<(), StartError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let result = runtime.block_on(async {
        let stop = CancellationToken::new();
        agent_bridge_core::stop_signal::cancel_on_stop_signal(stop.clone());
        serve(options, tokio::io::stdin(), tokio::io::stdout(), stop).await
    });
    // Whatever did not close in time is dropped here, and its processes are killed with it.
    runtime.shutdown_timeout(Duration::from_millis(300));
    result
}

/// Serves one ACP client on `input` / `output`.
pub async fn serve<R, W>(
    options: Options,
    input: R,
    output: W,
    stop: CancellationToken,
) -> Result<(), StartError>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let Options {
        plugin_dir,
        providers,
        spares,
        provider,
        data_dir,
    } = options;
    let served: Vec<String> = providers.iter().map(|p| p.descriptor.id.clone()).collect();
    let Some(agent) = providers
        .iter()
        .find(|p| p.descriptor.id == provider)
        .map(|p| p.agent.clone())
    else {
        return Err(StartError::UnknownProvider(provider, served.join(", ")));
    };
    let (core, core_task, mut events) = CoreLink::start(plugin_dir, providers, spares);
    let init = core.initialize(&data_dir).await?;
    let Some(info) = init.providers.into_iter().find(|p| p.id == provider) else {
        core_task.cancel.cancel();
        return Err(StartError::UnknownProvider(provider, served.join(", ")));
    };
    let (out, writer) = transport::Out::start(output);
    let (internal_tx, mut internal) = mpsc::channel(64);
    let mut facade = facade::Facade::new(out, core, info, agent, data_dir, internal_tx);
    let mut lines = FramedRead::new(input, BoundedLineCodec::new(MAX_LINE));
    loop {
        tokio::select! {
            line = lines.next() => match line {
                Some(Ok(line)) => facade.client(transport::read_line(line)).await,
                Some(Err(e)) => {
                    tracing::warn!("reading the client failed: {e}");
                    break;
                }
                None => break,
            },
            Some(event) = events.recv() => facade.event(event.event).await,
            Some(message) = internal.recv() => facade.internal(message).await,
            _ = stop.cancelled() => break,
        }
    }
    // Close every session (their processes are gone when this returns), then the core; the
    // core's last events are drained meanwhile so it never waits on a full queue, and a
    // handle published at close is remembered (the session can be resumed later).
    let core_link::Core { task, cancel } = core_task;
    let remember = facade.closing();
    let closing = async {
        facade.shutdown().await;
        let _ = task.await;
    };
    let mut published = Vec::new();
    let drain = async {
        while let Some(e) = events.recv().await {
            published.extend(remember.handle(e.event));
        }
    };
    let stopped = tokio::time::timeout(Duration::from_secs(5), async {
        tokio::select! {
            _ = closing => {}
            _ = drain => {}
        }
    })
    .await;
    if stopped.is_err() {
        tracing::warn!("the core did not stop in time; its processes are killed with it");
        cancel.cancel();
    }
    // With what the core said before it stopped that the drain did not read yet.
    while let Ok(e) = events.try_recv() {
        published.extend(remember.handle(e.event));
    }
    for handle in published {
        remember.write(handle).await;
    }
    drop(facade);
    let _ = tokio::time::timeout(Duration::from_millis(500), writer).await;
    Ok(())
}
