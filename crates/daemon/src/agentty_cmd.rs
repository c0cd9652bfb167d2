//! `agent-bridge agentty`: the bridge as an Agentty panel plugin (the `agent-bridge-agentty`
//! crate), with the core in this process. Started by `agentty-plugin.json`'s launcher.

use crate::plugin;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct AgenttyArgs {
    /// Folder holding plugin.json (default: as `serve` finds it; Agentty starts the plugin in
    /// its folder).
    #[arg(long)]
    pub plugin_dir: Option<PathBuf>,
}

pub fn run(args: AgenttyArgs) -> anyhow::Result<ExitCode> {
    agent_bridge_agentty::log::init();
    let loaded = plugin::Loaded::find(args.plugin_dir)?;
    let options = agent_bridge_agentty::Options {
        plugin_dir: loaded.folder()?,
        providers: loaded.providers,
        spares: loaded.spares,
        data_dir: std::env::var_os("AGENTTY_PLUGIN_DATA").map(PathBuf::from),
        demo: std::env::var("AGENT_BRIDGE_DEMO").is_ok_and(|v| v == "1"),
    };
    let ended = agent_bridge_agentty::run(options)?;
    tracing::debug!(?ended, "agentty mode stopped");
    Ok(ExitCode::SUCCESS)
}
