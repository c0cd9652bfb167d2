//! Children the bench and the soak drive over their stdio: this binary's `serve` (the bridge
//! under test) and any JSON-lines peer, whose stdout is read on a thread of its own.

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{ChildStdout, Command};
use std::sync::mpsc;
use std::time::Instant;

/// `<exe> serve [--plugin-dir DIR]`, run in DIR, logging at `warn` unless `AGENT_BRIDGE_LOG`
/// says otherwise; stdio is the caller's to set.
pub fn serve_command(exe: &Path, plugin_dir: Option<&Path>) -> Command {
    let mut cmd = Command::new(exe);
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
    std::thread::spawn(move || {
        let mut out = BufReader::new(stdout);
        loop {
            let mut line = String::new();
            match out.read_line(&mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let at = Instant::now();
                    let Ok(value) = serde_json::from_str::<Value>(&line) else {
                        continue;
                    };
                    if tx.send((at, value)).is_err() {
                        break;
                    }
                }
            }
        }
    });
    lines
}
