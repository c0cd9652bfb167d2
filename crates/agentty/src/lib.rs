//! agent-bridge as an [Agentty](https://agentty.app) panel plugin (`agent-bridge agentty`).
//!
//! Agentty starts the plugin (`agentty-plugin.json`'s launcher, which runs this mode) with the
//! plugin folder as its working directory and speaks its executable-plugin protocol (API 4) on
//! stdio ([`wire`]). The bridge core runs in this process ([`bridge`]): the panel drives
//! sessions through the same wire contract Paseo uses, so the core's guarantees hold here too —
//! one result per prompt, every turn ends, permissions are the user's to answer (the panel
//! never answers one itself), no process left behind.
//!
//! - [`app`], [`actions`], [`second`]: the panel's state and what the user does with it (no IO);
//! - [`session`], [`rows`], [`permission`]: a session's timeline as panel rows;
//! - [`view`], [`ui`], [`text_view`]: the UI tree (and a text rendering of it);
//! - [`driver`]: the loop, and a shutdown that closes every session within Agentty's 1.5 s;
//! - [`outbox`], [`log`], [`limits`]: staying inside Agentty's limits (240 messages a second
//!   counting stderr lines, one notification per 700 ms, 2,000 elements and 12 levels a tree);
//! - [`tools`], [`tool_calls`], [`tool_turns`], [`tool_answers`]: `list_agents` and `ask_agent`, the tools the agents in
//!   Agentty's panes call (`tools/call`, API 4), answered by the panel's own sessions.

pub mod actions;
pub mod app;
pub mod bridge;
pub mod driver;
pub mod events;
pub mod limits;
pub mod log;
pub mod outbox;
pub mod permission;
pub mod rows;
pub mod second;
pub mod session;
pub mod store;
pub mod text_view;
pub mod tool_answers;
pub mod tool_calls;
pub mod tool_turns;
pub mod tools;
pub mod ui;
pub mod view;
pub mod wire;

use agent_bridge_core::registry::ProviderEntry;
use std::path::PathBuf;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

pub use driver::Ended;

/// What the plugin runs with.
pub struct Options {
    /// The folder of `plugin.json` (the plugin folder).
    pub plugin_dir: PathBuf,
    /// The providers of `plugin.json` this build carries.
    pub providers: Vec<Arc<ProviderEntry>>,
    /// The bridge's spares, the ones the providers were built with (stopped with the core).
    pub spares: agent_bridge_core::spares::Spares,
    /// `AGENTTY_PLUGIN_DATA`: where sessions are remembered (and providers persist theirs).
    pub data_dir: Option<PathBuf>,
    /// `AGENT_BRIDGE_DEMO=1`: offer the built-in demo agent.
    pub demo: bool,
}

/// Runs the plugin on stdin/stdout until Agentty says `shutdown`, closes stdin, or sends
/// SIGTERM / SIGINT; returns within Agentty's 1.5 s with every session's processes gone.
pub fn run(options: Options) -> std::io::Result<Ended> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let ended = runtime.block_on(async {
        let stop = CancellationToken::new();
        agent_bridge_core::stop_signal::cancel_on_stop_signal(stop.clone());
        driver::serve(options, tokio::io::stdin(), tokio::io::stdout(), stop).await
    });
    // Whatever did not close in time is dropped here, and its processes are killed with it.
    runtime.shutdown_timeout(std::time::Duration::from_millis(150));
    Ok(ended)
}
