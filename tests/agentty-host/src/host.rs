//! The emulated host: asks for consent, then starts the plugin as Agentty's `NativeProcess` does
//! (`crates/agentty-app/src/plugins/process.rs` @032fb3e: the folder as working directory,
//! `AGENTTY_*` variables, piped stdio), reads its stdout and stderr on threads of their own,
//! counts every message and log line toward the 240-a-second limit, answers its requests and
//! records everything for the tests.
//!
//! A line over 16 MB (`read_line_limited`): on stdout the host logs "plugin sent a message larger
//! than 16 MB" and stops reading that plugin's stdout for good (the plugin runs on, its next write
//! finds the pipe closed); on stderr it logs what it read, cut, and stops reading stderr.

use crate::consent::Consent;
use crate::manifest::Manifest;
use crate::state::{Msg, State};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Longest line read from the plugin (Agentty's `MAX_LINE_BYTES`).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// How the host starts the plugin.
#[derive(Debug, Clone)]
pub struct HostOptions {
    /// The plugin folder (its name must be the manifest's id).
    pub plugin_dir: PathBuf,
    /// `AGENTTY_PLUGIN_DATA`.
    pub data_dir: PathBuf,
    /// The environment Agentty runs with (the plugin gets it, plus the `AGENTTY_*` variables).
    pub env: BTreeMap<String, String>,
    /// The context of `initialize` and of every message (`workspace`, `pane`, `language`).
    pub context: Value,
    /// What `session/get` answers for a focused Claude Code or Codex pane (its conversation);
    /// `None`: no session yet. A shell pane gets -32602 whatever this says.
    pub session_get: Option<Value>,
    /// What the user answers if Agentty asks for consent before the start.
    pub consent: Consent,
}

pub(crate) type Shared = Arc<(Mutex<State>, Condvar)>;

/// A running plugin under the emulated host.
pub struct AgenttyHost {
    pub manifest: Manifest,
    /// The permissions the user was asked to allow before this start (`None`: not asked).
    pub consent_asked: Option<Vec<String>>,
    pub options: HostOptions,
    pub pid: i32,
    pub(crate) shared: Shared,
    stdin: Arc<Mutex<Option<ChildStdin>>>,
    next_id: AtomicU64,
}

fn lock(shared: &Shared) -> std::sync::MutexGuard<'_, State> {
    shared.0.lock().unwrap_or_else(|e| e.into_inner())
}

impl AgenttyHost {
    /// Loads the manifest (as Agentty does before a start), asks for consent when the manifest
    /// asks for what the user has not granted, and starts the plugin. Refused: `Err`, and
    /// nothing was started.
    pub fn start(options: HostOptions) -> Result<AgenttyHost, String> {
        let manifest = crate::manifest::load(&options.plugin_dir)?;
        let consent_asked = crate::consent::ask(&manifest, &options.data_dir, options.consent)?;
        let mut cmd = Command::new(&manifest.entry);
        cmd.env_clear()
            .envs(&options.env)
            .env("AGENTTY_PLUGIN_ID", &manifest.id)
            .env("AGENTTY_PLUGIN_DIR", &options.plugin_dir)
            .env("AGENTTY_PLUGIN_DATA", &options.data_dir)
            .env("AGENTTY_VERSION", crate::AGENTTY_VERSION)
            .env("AGENTTY_LANGUAGE", "en")
            .env("AGENTTY_BIN", "/usr/bin/false")
            .current_dir(&options.plugin_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        std::fs::create_dir_all(&options.data_dir).map_err(|e| e.to_string())?;
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("could not start {}: {e}", manifest.entry.display()))?;
        let pid = child.id() as i32;
        let stdin = Arc::new(Mutex::new(child.stdin.take()));
        let shared: Shared =
            Arc::new((Mutex::new(State::new(&options, &manifest)), Condvar::new()));
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let stderr = child.stderr.take().ok_or("no stderr")?;
        {
            let (shared, stdin, manifest) = (shared.clone(), stdin.clone(), manifest.clone());
            std::thread::spawn(move || read_stdout(stdout, shared, stdin, manifest));
        }
        {
            let shared = shared.clone();
            std::thread::spawn(move || read_stderr(stderr, shared));
        }
        {
            let shared = shared.clone();
            std::thread::spawn(move || {
                let status = child.wait().ok();
                let mut s = lock(&shared);
                s.exited = Some((Instant::now(), status.and_then(|s| s.code())));
                shared.1.notify_all();
            });
        }
        Ok(AgenttyHost {
            manifest,
            consent_asked,
            options,
            pid,
            shared,
            stdin,
            next_id: AtomicU64::new(0),
        })
    }

    /// Writes one message to the plugin's stdin.
    pub fn send(&self, message: &Value) {
        write_line(&self.stdin, message);
    }

    /// A request to the plugin; returns its id.
    pub fn request(&self, method: &str, params: Value) -> u64 {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst) + 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    pub fn notify(&self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Closes the plugin's stdin (Agentty quitting without a word).
    pub fn close_stdin(&self) {
        if let Ok(mut s) = self.stdin.lock() {
            s.take();
        }
    }

    /// Sends a signal to the plugin's process.
    pub fn signal(&self, signal: i32) {
        // SAFETY: kill(2) on the pid of our own child, reaped only by the waiter thread.
        unsafe {
            libc::kill(self.pid, signal);
        }
    }

    /// Waits until `f` holds over the state (checked at once and on every change).
    pub fn wait_for<T>(
        &self,
        what: &str,
        timeout: Duration,
        mut f: impl FnMut(&State) -> Option<T>,
    ) -> T {
        let deadline = Instant::now() + timeout;
        let mut state = lock(&self.shared);
        loop {
            if let Some(v) = f(&state) {
                return v;
            }
            let now = Instant::now();
            if now >= deadline {
                let panel = state
                    .panel
                    .as_ref()
                    .map(|p| serde_json::to_string_pretty(p).unwrap_or_default())
                    .unwrap_or_default();
                panic!(
                    "timed out after {timeout:?} waiting for {what}\nviolations: {:?}\nlog: {:?}\npanel: {panel}",
                    state.violations, state.logs
                );
            }
            state = self
                .shared
                .1
                .wait_timeout(state, deadline - now)
                .map(|(g, _)| g)
                .unwrap_or_else(|e| e.into_inner().0);
        }
    }

    /// A look at the state.
    pub fn with<T>(&self, f: impl FnOnce(&State) -> T) -> T {
        f(&lock(&self.shared))
    }

    pub(crate) fn with_mut<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        f(&mut lock(&self.shared))
    }
}

impl Drop for AgenttyHost {
    fn drop(&mut self) {
        let gone = self.with(|s| s.exited.is_some());
        if !gone {
            self.signal(libc::SIGKILL);
        }
    }
}

fn write_line(stdin: &Mutex<Option<ChildStdin>>, message: &Value) {
    if let Ok(mut guard) = stdin.lock() {
        if let Some(s) = guard.as_mut() {
            let line = format!("{message}\n");
            let _ = s.write_all(line.as_bytes()).and_then(|_| s.flush());
        }
    }
}

/// One line, refusing more than [`MAX_LINE_BYTES`] (Agentty's `read_line_limited`: what was
/// read stays in `out`).
fn read_line(reader: &mut impl BufRead, out: &mut Vec<u8>) -> std::io::Result<usize> {
    out.clear();
    let n = reader
        .by_ref()
        .take(MAX_LINE_BYTES as u64 + 1)
        .read_until(b'\n', out)?;
    if out.len() > MAX_LINE_BYTES {
        return Err(std::io::Error::other(
            "plugin sent a message larger than 16 MB",
        ));
    }
    Ok(n)
}

fn read_stdout(
    stdout: impl Read,
    shared: Shared,
    stdin: Arc<Mutex<Option<ChildStdin>>>,
    manifest: Manifest,
) {
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    loop {
        match read_line(&mut reader, &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                // The host logs it and reads this plugin's stdout no more; the plugin runs on.
                let mut s = lock(&shared);
                s.count(Instant::now());
                s.logs.push(format!("agentty: {e}"));
                s.violation(format!(
                    "stdout: {e}: Agentty stops reading its stdout for good"
                ));
                s.stdout_closed = true;
                shared.1.notify_all();
                break;
            }
        }
        let text = String::from_utf8_lossy(&line).trim_end().to_string();
        if text.trim().is_empty() {
            // Neither a message nor a log line: the host skips it.
            continue;
        }
        let answer = {
            let mut s = lock(&shared);
            s.count(Instant::now());
            let answer = match serde_json::from_str::<Value>(&text) {
                Ok(v) if v.is_object() && (v.get("method").is_some() || v.get("id").is_some()) => {
                    s.message(v, &manifest)
                }
                _ => {
                    // The host logs it ("stdout: …") and goes on.
                    s.note(format!(
                        "stdout line that is not JSON-RPC (logged): {text:.200}"
                    ));
                    s.logs.push(format!("stdout: {text}"));
                    s.messages.push(Msg::Stray(text));
                    None
                }
            };
            shared.1.notify_all();
            answer
        };
        if let Some(answer) = answer {
            write_line(&stdin, &answer);
        }
    }
}

fn read_stderr(stderr: impl Read, shared: Shared) {
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::new();
    loop {
        let over = match read_line(&mut reader, &mut line) {
            Ok(0) => break,
            Ok(_) => false,
            Err(_) => true,
        };
        let text = String::from_utf8_lossy(&line).trim_end().to_string();
        let mut s = lock(&shared);
        s.count(Instant::now());
        if over {
            // Logged cut, and stderr is read no more.
            s.logs.push(format!("{:.200} …(cut)", text));
            s.violation("stderr: a line over 16 MB: Agentty stops reading its stderr".into());
            shared.1.notify_all();
            break;
        }
        s.logs.push(text);
        shared.1.notify_all();
    }
}
