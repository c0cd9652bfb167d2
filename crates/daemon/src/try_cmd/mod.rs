//! `agent-bridge try`: one prompt, one turn, through the same core as `serve` (the server runs
//! in-process over a duplex pipe and this command speaks the wire to it), rendered live.

mod client;
mod permission;
mod pick;
mod render;
mod retry;
mod session;
mod term;

use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
#[command(after_help = "\
Skipped providers are named with the reason (missing, wrong version, not logged in). \
A Claude session retries an unreachable API twice (CLAUDE_CODE_MAX_RETRIES=2 unless set); \
while an agent keeps retrying (a \"Retrying the model connection\" notice), `try` gives up \
--give-up-after seconds after the prompt. Unless --agent named the provider, each agent tried \
is given up --give-up-after seconds after it was tried when its model has not answered (a \
retry or silence) or its session did not open; one whose open was refused or whose turn failed \
is given up at once; each in one line with the CLI's words. After a \
model out of reach the demo agent runs next (it needs no network), and the demo is reached \
within twice --give-up-after in all. A PATH searched for missing CLIs is printed once.

Permission requests are asked y/n on the terminal. When stdin is not a terminal they are \
denied, unless --yes is given. Ctrl-C interrupts the turn (a second Ctrl-C quits at once).

Exit status: 0 when the turn completed, 1 when it failed or was canceled, or when the \
session could not be opened.")]
pub struct TryArgs {
    /// Provider id (or agent name) from plugin.json. Default: the first provider other than
    /// the demo agent that is available and logged in, else the demo agent.
    #[arg(long)]
    pub agent: Option<String>,
    /// Mode id (e.g. `auto` runs the demo's tools without asking).
    #[arg(long)]
    pub mode: Option<String>,
    /// Model id.
    #[arg(long)]
    pub model: Option<String>,
    /// Working directory of the session (default: the current directory).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// Allow every permission request without asking.
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Folder holding plugin.json (default: as `serve` finds it).
    #[arg(long)]
    pub plugin_dir: Option<PathBuf>,
    /// Give up on an agent that keeps retrying an unreachable model this many seconds after the
    /// prompt (then the next available agent runs; with --agent, exit 1).
    #[arg(long, default_value_t = 30, value_name = "SECS")]
    pub give_up_after: u64,
    /// The prompt (several words are joined with spaces).
    #[arg(required = true, num_args = 1..)]
    pub prompt: Vec<String>,
}

/// Runs the command on a runtime of its own; the exit code says how the turn ended. Errors
/// (no such provider, the session could not open) are printed here and exit 1.
pub fn run(args: TryArgs) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let result = runtime.block_on(session::run(args));
    // A permission question may still be blocked reading stdin: do not wait for it.
    runtime.shutdown_timeout(std::time::Duration::from_millis(300));
    Ok(result.unwrap_or_else(|e| {
        eprintln!("agent-bridge try: {e:#}");
        ExitCode::from(1)
    }))
}

pub(crate) use term::Style;
