//! `agent-bridge acp --provider ID`: one provider of plugin.json as an ACP agent on stdio (the
//! `agent-bridge-acp-agent` crate), with the core in this process. See docs/acp.md.

use crate::plugin;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct AcpArgs {
    /// The provider of plugin.json to serve (`claude-bridge`, `codex-bridge`, …).
    #[arg(long)]
    pub provider: String,
    /// Folder holding plugin.json (default: as `serve` finds it: `AGENT_BRIDGE_PLUGIN_DIR`,
    /// the working directory, the executable's folders, else the built-in manifest).
    #[arg(long)]
    pub plugin_dir: Option<PathBuf>,
    /// Where sessions are remembered (default: `AGENT_BRIDGE_DATA_DIR`, else
    /// `$XDG_DATA_HOME/agent-bridge`, else `~/.local/share/agent-bridge`).
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
}

pub fn run(args: AcpArgs) -> anyhow::Result<ExitCode> {
    let loaded = plugin::Loaded::find(args.plugin_dir)?;
    let plugin_dir = loaded.folder()?;
    let data_dir = args
        .data_dir
        .or_else(|| std::env::var_os("AGENT_BRIDGE_DATA_DIR").map(PathBuf::from))
        .or_else(|| {
            std::env::var_os("XDG_DATA_HOME").map(|d| PathBuf::from(d).join("agent-bridge"))
        })
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share/agent-bridge"))
        })
        .unwrap_or_else(|| std::env::temp_dir().join("agent-bridge"));
    let options = agent_bridge_acp_agent::Options {
        plugin_dir,
        providers: loaded.providers,
        spares: loaded.spares,
        provider: args.provider,
        data_dir,
    };
    agent_bridge_acp_agent::run(options)?;
    Ok(ExitCode::SUCCESS)
}
