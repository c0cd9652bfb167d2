//! `fake-acp`: a deterministic ACP v1 agent over stdio (JSON-RPC, one message a line) that
//! plays a scenario (`FAKE_ACP_SCENARIO`, see `scenario.rs`), for testing the bridge's ACP
//! provider without a vendor CLI. Never shipped. Sessions persist in `FAKE_ACP_STORE` (see
//! `store.rs`), so a restarted or second process can load and list them. Given `--port P` (the
//! `opencode` profile's flags) it also serves the part of OpenCode's HTTP API the bridge's
//! archive and rewind use (`http.rs`). How to script it: `docs/providers/acp.md`.
//!
//! Nothing waits on a timer unless a scenario asks for a delay: a turn goes step by step and
//! waits only for what the bridge sends (a permission answer, a `session/cancel`).

mod agent;
mod http;
mod scenario;
mod store;
mod turn;

use agent::Agent;
use serde_json::Value;
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// What the writer task does next.
pub enum Out {
    /// A line for stdout (`\n` appended).
    Line(String),
    /// Flush and exit with this code.
    Exit(i32),
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let scenario = scenario::Scenario::load()?;
    for line in &scenario.stderr {
        eprintln!("{line}");
    }
    if let Some(port) = http::port_arg() {
        let listener = http::bind(port).await?;
        tokio::spawn(async move {
            if let Err(e) = http::serve(listener).await {
                eprintln!("fake-acp http: {e}");
            }
        });
    }
    let (tx, mut rx) = mpsc::channel::<Out>(256);
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(out) = rx.recv().await {
            match out {
                Out::Line(mut line) => {
                    line.push('\n');
                    if stdout.write_all(line.as_bytes()).await.is_err()
                        || stdout.flush().await.is_err()
                    {
                        std::process::exit(0);
                    }
                }
                Out::Exit(code) => {
                    let _ = stdout.flush().await;
                    std::process::exit(code);
                }
            }
        }
    });
    let agent = Arc::new(Agent::new(scenario, tx));
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    while let Some(line) = lines.next_line().await? {
        if line.trim().is_empty() {
            continue;
        }
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            eprintln!("fake-acp: not JSON: {line}");
            continue;
        };
        agent.receive(msg).await;
    }
    // stdin closed: the client is gone (a hung turn must not keep the process).
    agent.send(Out::Exit(0)).await;
    let _ = writer.await;
    Ok(())
}
