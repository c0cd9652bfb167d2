//! `agent-bridge`: native coding-agent CLIs as Paseo providers.

mod acp_cmd;
mod agents;
mod agentty_cmd;
mod doctor;
mod doctor_json;
mod doctor_text;
mod plugin;
mod try_cmd;

use agent_bridge_core::server::{serve, ServerConfig};
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use tokio_util::sync::CancellationToken;

#[derive(Parser)]
#[command(
    name = "agent-bridge",
    version,
    about = "Native coding-agent CLIs as Paseo providers"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the wire contract (JSON-RPC 2.0 lines) on stdin/stdout. The default.
    Serve {
        /// Folder holding plugin.json (default: the working directory).
        #[arg(long)]
        plugin_dir: Option<PathBuf>,
    },
    /// Print the JSON Schema of the wire.
    Schema,
    /// Run one prompt through the bridge core and render the turn live.
    Try(try_cmd::TryArgs),
    /// Check every provider of plugin.json: its CLI, version and availability.
    Doctor(doctor::DoctorArgs),
    /// Run as an Agentty panel plugin (Agentty's plugin protocol on stdin/stdout).
    Agentty(agentty_cmd::AgenttyArgs),
    /// Run one provider as an ACP agent (Agent Client Protocol on stdin/stdout), for Zed,
    /// JetBrains, Neovim, acpx and other ACP clients. See docs/acp.md.
    Acp(acp_cmd::AcpArgs),
}

/// Logs to stderr at `default_level` (or what `AGENT_BRIDGE_LOG` says); colors only on a TTY.
fn init_logging(default_level: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("AGENT_BRIDGE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_level));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .with_target(false)
        .try_init();
}

fn main() -> anyhow::Result<ExitCode> {
    let mut args = std::env::args_os();
    if args
        .nth(1)
        .is_some_and(|a| a == agent_bridge_core::guard::GUARD_ARG)
    {
        agent_bridge_core::guard::run(args.collect());
    }
    if let Ok(exe) = std::env::current_exe() {
        agent_bridge_core::guard::enable(exe);
    }
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Serve { plugin_dir: None }) {
        Command::Serve { plugin_dir } => {
            init_logging("info");
            run_serve(plugin_dir).map(|()| ExitCode::SUCCESS)
        }
        Command::Schema => {
            let schema = agent_bridge_protocol::schema::wire_schema();
            println!("{}", serde_json::to_string_pretty(&schema)?);
            Ok(ExitCode::SUCCESS)
        }
        Command::Try(args) => {
            init_logging("warn");
            try_cmd::run(args)
        }
        Command::Doctor(args) => {
            // Doctor reports problems itself (e.g. unknown agents), so logs would repeat them.
            init_logging("error");
            doctor::run(args)
        }
        // Logs quietly and rate-limited: Agentty counts stderr lines toward its limit.
        Command::Agentty(args) => agentty_cmd::run(args),
        // stdout is the protocol: logs go to stderr, warnings only unless AGENT_BRIDGE_LOG says.
        Command::Acp(args) => {
            init_logging("warn");
            acp_cmd::run(args)
        }
    }
}

fn run_serve(plugin_dir: Option<PathBuf>) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let result = runtime.block_on(async {
        let loaded = plugin::Loaded::find(plugin_dir)?;
        let plugin_dir = loaded.folder().unwrap_or_else(|_| PathBuf::from("."));
        let plugin::Loaded { manifest, providers, spares, .. } = loaded;
        tracing::info!(plugin = %manifest.id, dir = %plugin_dir.display(), providers = providers.len(), "agent-bridge serving");
        let config = ServerConfig {
            name: "agent-bridge".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            plugin_dir,
            providers,
            spares,
        };
        let cancel = CancellationToken::new();
        agent_bridge_core::stop_signal::cancel_on_stop_signal(cancel.clone());
        let reason = serve(config, tokio::io::stdin(), tokio::io::stdout(), cancel).await;
        tracing::info!(?reason, "stopped");
        anyhow::Ok(())
    });
    // Dropping the runtime drops every task, and with them any process still supervised
    // (their process groups are SIGKILLed on drop).
    runtime.shutdown_timeout(std::time::Duration::from_millis(300));
    result
}
