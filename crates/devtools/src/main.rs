//! `agent-bridge-dev`: the measurement tools of agent-bridge, kept out of the binary users
//! install. Both drive a built `agent-bridge serve` as a child over pipes (the one next to this
//! binary, or `--bridge-bin`); the real CLIs talk to the mock model server of `tests/mock-llm`,
//! run inside this process.

mod acp_registry;
mod bench;
mod host;
mod plugin;
mod soak;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "agent-bridge-dev",
    version,
    about = "Bench and soak of a built agent-bridge"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Measure latency, throughput and memory of agent-bridge's `serve` over pipes.
    Bench(Box<bench::BenchArgs>),
    /// Chaos soak: concurrent sessions x turns with seeded CLI kills, interrupts and
    /// permissions; counts lost, duplicated and unterminated work, orphans and memory.
    Soak(soak::SoakArgs),
    /// Write (or `--check`) the ACP registry manifest of every bridged provider of plugin.json
    /// under `registry/`.
    AcpRegistry(acp_registry::RegistryArgs),
}

/// Logs to stderr at `warn` (or what `AGENT_BRIDGE_LOG` says); colors only on a TTY.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("AGENT_BRIDGE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .with_target(false)
        .try_init();
}

fn main() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    init_logging();
    match cli.command {
        Command::Bench(args) => bench::run(*args),
        Command::Soak(args) => soak::run(args),
        Command::AcpRegistry(args) => acp_registry::run(args),
    }
}
