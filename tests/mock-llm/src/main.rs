//! `mock-llm`: run the mock by hand.
//!
//! ```text
//! mock-llm [--port N] [--script FILE.json] [--log FILE.jsonl]
//! ```
//! Prints `MOCK_LLM_URL=http://127.0.0.1:<port>` on stdout once listening, logs every
//! request to stderr (RUST_LOG=mock_llm=debug for more) and runs until Ctrl-C / SIGTERM.

use anyhow::{bail, Context, Result};
use mock_llm::{MockLlm, MockOptions, Script};
use std::io::Write;
use std::path::PathBuf;

const USAGE: &str = "usage: mock-llm [--port N] [--script FILE.json] [--log FILE.jsonl]";

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

#[tokio::main]
async fn main() -> Result<()> {
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
