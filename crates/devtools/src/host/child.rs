//! Children the bench and the soak drive over their stdio: `agent-bridge serve` (the bridge
//! under test) and any JSON-lines peer, whose stdout is read on a thread of its own.

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{ChildStdout, Command};
use std::sync::mpsc;
use std::time::Instant;

/// `<bridge> serve [--plugin-dir DIR]`, run in DIR, logging at `warn` unless `AGENT_BRIDGE_LOG`
/// says otherwise; stdio is the caller's to set.
pub fn serve_command(bridge: &Path, plugin_dir: Option<&Path>) -> Command {
    let mut cmd = Command::new(bridge);
    cmd.arg("serve");
    if let Some(dir) = plugin_dir {
        cmd.arg("--plugin-dir").arg(dir).current_dir(dir);
    }
    if std::env::var_os("AGENT_BRIDGE_LOG").is_none() {
        cmd.env("AGENT_BRIDGE_LOG", "warn");
    }
    cmd
}

/// Reads `stdout` on a thread of its own: every JSON line, stamped the moment it was read
/// (lines that are not JSON are skipped), until the end of the output.
pub fn stamped_lines(stdout: ChildStdout) -> mpsc::Receiver<(Instant, Value)> {
    let (tx, lines) = mpsc::channel();
    read_lines(stdout, move |at, line| match line {
        Ok(value) => tx.send((at, value)).is_ok(),
        Err(_) => true,
    });
    lines
}

/// [`stamped_lines`] keeping the lines that are not JSON (as they were read, lossy UTF-8).
pub fn stamped_lines_all(stdout: ChildStdout) -> mpsc::Receiver<(Instant, Result<Value, String>)> {
    let (tx, lines) = mpsc::channel();
    read_lines(stdout, move |at, line| tx.send((at, line)).is_ok());
    lines
}

/// Calls `each` with every line of `stdout` (parsed, or the text when it is not JSON) on a
/// thread of its own, until the output ends or `each` returns false.
fn read_lines(
    stdout: ChildStdout,
    mut each: impl FnMut(Instant, Result<Value, String>) -> bool + Send + 'static,
) {
    std::thread::spawn(move || {
        let mut out = BufReader::new(stdout);
        let mut bytes = Vec::new();
        loop {
            bytes.clear();
            match out.read_until(b'\n', &mut bytes) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let at = Instant::now();
                    let line = serde_json::from_slice::<Value>(&bytes)
                        .map_err(|_| String::from_utf8_lossy(&bytes).trim_end().to_string());
                    if !each(at, line) {
                        break;
                    }
                }
            }
        }
    });
}

/// The command of a launch `spec` with piped stdin and stdout (stderr dropped): its program,
/// arguments, folder and environment (`base_env` replacing the inherited one when set).
pub fn piped_command(spec: &agent_bridge_core::supervisor::SpawnSpec) -> std::process::Command {
    let mut cmd = std::process::Command::new(&spec.program);
    cmd.args(&spec.args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    if let Some(cwd) = &spec.cwd {
        cmd.current_dir(cwd);
    }
    if let Some(base) = &spec.base_env {
        cmd.env_clear().envs(base);
    }
    cmd.envs(&spec.env);
    cmd
}
