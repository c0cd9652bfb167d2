//! Runs one shell command for the demo's tool call, through the core's process supervisor.

use agent_bridge_core::codec::Line;
use agent_bridge_core::supervisor::{ManagedChild, SpawnError, SpawnSpec};
use agent_bridge_core::ProcessScope;
use std::collections::BTreeMap;
use tokio_util::sync::CancellationToken;

/// Output kept from a command (the rest is cut).
pub const MAX_OUTPUT: usize = 64 * 1024;

pub struct ShellRun {
    pub exit_code: i64,
    pub output: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ShellError {
    #[error(transparent)]
    Spawn(#[from] SpawnError),
    #[error("waiting for the command failed: {0}")]
    Wait(std::io::Error),
}

/// Runs `sh -c CMD` (stderr merged into stdout) in `cwd`, its pid registered in the session's
/// `scope`. `Ok(None)` when canceled (the process group is killed).
pub async fn run_shell(
    command: &str,
    cwd: &str,
    base_env: Option<BTreeMap<String, String>>,
    env: &BTreeMap<String, String>,
    cancel: &CancellationToken,
    scope: &ProcessScope,
) -> Result<Option<ShellRun>, ShellError> {
    let spec = SpawnSpec {
        program: "sh".into(),
        args: vec!["-c".into(), format!("exec 2>&1; {command}")],
        cwd: Some(cwd.into()),
        base_env,
        env: env.clone(),
        env_remove: vec![],
        private_dirs: vec![],
    };
    let mut child = ManagedChild::spawn(&spec)?;
    if let Some(pid) = child.pid() {
        scope.register(pid);
    }
    drop(child.take_stdin());
    let mut lines = child.take_stdout_lines();
    let mut output = String::new();
    let read = async {
        if let Some(lines) = lines.as_mut() {
            while let Some(line) = lines.next_line().await {
                let text = match line {
                    Line::Text(t) => t,
                    Line::Oversize { len } => format!("[{len} bytes cut]"),
                    Line::InvalidUtf8 => "[binary output]".into(),
                };
                if output.len() + text.len() < MAX_OUTPUT {
                    output.push_str(&text);
                    output.push('\n');
                }
            }
        }
    };
    tokio::select! {
        _ = cancel.cancelled() => {
            child.kill().await;
            return Ok(None);
        }
        _ = read => {}
    }
    let status = tokio::select! {
        _ = cancel.cancelled() => {
            child.kill().await;
            return Ok(None);
        }
        s = child.wait() => s.map_err(ShellError::Wait)?,
    };
    let exit_code = status.code().map(i64::from).unwrap_or(-1);
    Ok(Some(ShellRun { exit_code, output }))
}
