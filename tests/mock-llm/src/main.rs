//! `mock-llm`: run the mock by hand.
//!
//! ```text
//! mock-llm [--port N] [--script FILE.json] [--log FILE.jsonl]
//! mock-llm env CLI --root DIR --port N
//! ```
//! Serving: prints `MOCK_LLM_URL=http://127.0.0.1:<port>` on stdout once listening, logs every
//! request to stderr (RUST_LOG=mock_llm=debug for more) and runs until Ctrl-C / SIGTERM.
//!
//! `env`: prepares the hermetic environment of `CLI` (`claude`, `codex`, ... see
//! [`mock_llm::Cli`]) under `DIR` for a mock listening on port `N` (the recipe of
//! [`mock_llm::hermetic::build`]: `DIR/home` with the CLI's config files, an empty working
//! directory `DIR/work`, `DIR/tmp`) and prints the CLI's complete environment as one JSON
//! object of variables. The pinned CLIs' bin dir put first on PATH is found as by the tests
//! (`AGENT_BRIDGE_CLI_BIN` first).

use anyhow::{bail, Context, Result};
use mock_llm::{hermetic, Cli, MockLlm, MockOptions, Script};
use std::io::Write;
use std::path::PathBuf;

const USAGE: &str = "usage: mock-llm [--port N] [--script FILE.json] [--log FILE.jsonl]
       mock-llm env CLI --root DIR --port N";

/// `mock-llm env CLI --root DIR --port N`: prints the CLI's hermetic environment as JSON.
fn print_env(mut args: impl Iterator<Item = String>) -> Result<()> {
    let name = args
        .next()
        .with_context(|| format!("env needs a CLI\n{USAGE}"))?;
    let cli = Cli::ALL
        .into_iter()
        .find(|c| c.bin_name() == name)
        .with_context(|| format!("unknown CLI {name:?}\n{USAGE}"))?;
    let (mut root, mut port) = (None, None);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .with_context(|| format!("{name} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--root" => root = Some(PathBuf::from(value("--root")?)),
            "--port" => {
                port = Some(
                    value("--port")?
                        .parse::<u16>()
                        .context("--port: not a port number")?,
                )
            }
            other => bail!("unknown argument {other:?}\n{USAGE}"),
        }
    }
    let root = root.with_context(|| format!("env needs --root\n{USAGE}"))?;
    let port = port.with_context(|| format!("env needs --port\n{USAGE}"))?;
    let env = hermetic::build(cli, port, &root)?;
    println!("{}", serde_json::to_string(&env.env)?);
    Ok(())
}

fn parse_args() -> Result<MockOptions> {
    let mut options = MockOptions::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .with_context(|| format!("{name} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--port" => {
                options.port = value("--port")?
                    .parse()
                    .context("--port: not a port number")?
            }
            "--script" => {
                let path = value("--script")?;
                let text =
                    std::fs::read_to_string(&path).with_context(|| format!("reading {path}"))?;
                options.script =
                    Some(Script::from_json(&text).with_context(|| format!("parsing {path}"))?);
            }
            "--log" => options.request_log = Some(PathBuf::from(value("--log")?)),
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => bail!("unknown argument {other:?}\n{USAGE}"),
        }
    }
    Ok(options)
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().is_some_and(|a| a == "env") {
        return print_env(args.skip(1));
    }
    serve()
}

#[tokio::main]
async fn serve() -> Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("mock_llm=info")),
        )
        .init();
    let options = parse_args()?;
    let mock = MockLlm::start_with(options).await?;
    println!("MOCK_LLM_URL={}", mock.base_url());
    std::io::stdout().flush()?;
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::select! {
        r = tokio::signal::ctrl_c() => r?,
        _ = term.recv() => {}
    }
    let n = mock.requests().len();
    mock.shutdown().await;
    tracing::info!(requests = n, "mock-llm stopped");
    Ok(())
}
