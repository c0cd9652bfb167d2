//! What `bench --codex` drives besides the bridge: a child speaking JSON-RPC lines over its
//! stdio (`codex app-server`, codex-acp) in a process group of its own, each stdout line
//! stamped when it is read; and the RSS of a whole process tree (an npm launcher, the native
//! CLI, its helpers).

use agent_bridge_core::supervisor::SpawnSpec;
use anyhow::{anyhow, bail, Context};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// A JSON-RPC child: `jsonrpc` says whether messages carry `"jsonrpc": "2.0"` (ACP does, the
/// app-server's dialect does not).
pub struct RpcChild {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<(Instant, Value)>,
    next: i64,
    jsonrpc: bool,
    name: &'static str,
    pub pid: u32,
}

impl RpcChild {
    /// Starts `spec` in a new process group; returns it and the instant just before the spawn.
    pub fn spawn(
        spec: &SpawnSpec,
        name: &'static str,
        jsonrpc: bool,
    ) -> anyhow::Result<(RpcChild, Instant)> {
        let mut cmd = Command::new(&spec.program);
        cmd.args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0);
        if let Some(cwd) = &spec.cwd {
            cmd.current_dir(cwd);
        }
        if let Some(base) = &spec.base_env {
            cmd.env_clear().envs(base);
        }
        cmd.envs(&spec.env);
        let started = Instant::now();
        let mut child = cmd
            .spawn()
            .with_context(|| format!("starting {}", spec.program))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| anyhow!("{name} has no stdout"))?;
        let stdin = child.stdin.take();
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
        let pid = child.id();
        let me = RpcChild {
            child,
            stdin,
            lines,
            next: 0,
            jsonrpc,
            name,
            pid,
        };
        Ok((me, started))
    }

    fn write(&mut self, mut message: Value) -> anyhow::Result<Instant> {
        if self.jsonrpc {
            message["jsonrpc"] = json!("2.0");
        }
        let mut bytes = serde_json::to_vec(&message)?;
        bytes.push(b'\n');
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| anyhow!("{}'s stdin is closed", self.name))?;
        let at = Instant::now();
        stdin.write_all(&bytes)?;
        stdin.flush()?;
        Ok(at)
    }

    /// Writes a request; returns its id and when it was written.
    pub fn request(&mut self, method: &str, params: Value) -> anyhow::Result<(i64, Instant)> {
        self.next += 1;
        let id = self.next;
        let at = self.write(json!({"id": id, "method": method, "params": params}))?;
        Ok((id, at))
    }

    pub fn notify(&mut self, method: &str) -> anyhow::Result<()> {
        self.write(json!({ "method": method })).map(|_| ())
    }

    /// Reads messages until `pred` accepts one (an error answer to any request fails);
    /// returns when that one was read, and it.
    pub fn wait(
        &mut self,
        limit: Duration,
        what: &str,
        mut pred: impl FnMut(Instant, &Value) -> bool,
    ) -> anyhow::Result<(Instant, Value)> {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok((_, v)) if v.get("error").is_some() && v.get("method").is_none() => {
                    bail!("{}: {what}: error answer {v}", self.name)
                }
                Ok((at, v)) if pred(at, &v) => return Ok((at, v)),
                Ok(_) => {}
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    bail!("{}: no {what} within {limit:?}", self.name)
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    bail!("{} exited while waiting for {what}", self.name)
                }
            }
        }
    }

    /// A request and its answer: returns when it was written, when answered, and the result.
    pub fn call(
        &mut self,
        method: &str,
        params: Value,
        limit: Duration,
    ) -> anyhow::Result<(Instant, Instant, Value)> {
        let (id, sent) = self.request(method, params)?;
        let (at, v) = self.wait(limit, &format!("answer to {method}"), |_, v| {
            v["id"] == json!(id) && v.get("method").is_none()
        })?;
        Ok((sent, at, v["result"].clone()))
    }
}

impl Drop for RpcChild {
    /// Closes stdin, then kills the whole group (codex-acp does not exit on EOF, and both are
    /// npm launchers around a native binary).
    fn drop(&mut self) {
        self.stdin = None;
        if let Ok(group) = libc::pid_t::try_from(self.pid) {
            if group > 1 {
                // SAFETY: a plain syscall on the group this child leads (`process_group(0)`).
                unsafe {
                    libc::killpg(group, libc::SIGKILL);
                }
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `pid` and its descendants, from `/proc/*/stat`.
fn tree(pid: u32) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for e in entries.flatten() {
            let Some(p) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
                continue;
            };
            let parent = std::fs::read_to_string(e.path().join("stat"))
                .ok()
                .and_then(|stat| {
                    let rest = stat.get(stat.rfind(')')? + 1..)?;
                    rest.split_whitespace().nth(1)?.parse::<u32>().ok()
                });
            if let Some(parent) = parent {
                children.entry(parent).or_default().push(p);
            }
        }
    }
    let mut out = vec![pid];
    let mut i = 0;
    while i < out.len() {
        out.extend(children.get(&out[i]).into_iter().flatten());
        i += 1;
    }
    out
}

/// The summed RSS of `pid` and its descendants, in bytes.
pub fn tree_rss(pid: u32) -> u64 {
    tree(pid)
        .into_iter()
        .filter_map(|p| super::bridge::rss_bytes(p).map(|(rss, _)| rss))
        .sum()
}

/// Samples [`tree_rss`] every 10 ms until finished; returns the peak.
pub struct TreeSampler {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<u64>,
}

impl TreeSampler {
    pub fn start(pid: u32) -> anyhow::Result<TreeSampler> {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("bench-tree-rss".into())
            .spawn(move || {
                let mut peak = 0;
                while !flag.load(Ordering::Relaxed) {
                    peak = peak.max(tree_rss(pid));
                    std::thread::sleep(Duration::from_millis(10));
                }
                peak
            })?;
        Ok(TreeSampler { stop, thread })
    }

    pub fn finish(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_counts_its_children() {
        let mut child = Command::new("sleep").arg("5").spawn().expect("sleep");
        // Let it exec (before that it is a copy of this process).
        std::thread::sleep(Duration::from_millis(100));
        let me = std::process::id();
        let members = tree(me);
        assert!(members.contains(&me) && members.contains(&child.id()));
        let alone = super::super::bridge::rss_bytes(child.id()).expect("rss").0;
        assert_eq!(tree(child.id()), vec![child.id()]);
        assert_eq!(tree_rss(child.id()), alone);
        let _ = child.kill();
        let _ = child.wait();
    }
}
