//! Process supervisor for vendor CLIs.
//!
//! - spawned without a shell, in a process group of its own;
//! - environment = [`crate::effective_env`]: the bridge's own, replaced by `launch.env` when
//!   given, overlaid with plugin.json's `env`, then the session's `config.env`;
//! - on Linux the child gets `PR_SET_PDEATHSIG(SIGKILL)`, so it dies with the bridge even when
//!   the bridge is SIGKILLed; when the binary enabled the [`guard`](crate::guard), the child is
//!   the guard, which stops everything the CLI started (its group, and descendants that left
//!   it) when the CLI exits, when the bridge asks, or when the bridge dies;
//! - each variable of `private_dirs` is set to a fresh directory of this process alone (under
//!   the child's `TMPDIR`), removed with the [`ManagedChild`]: for agents whose helper daemon
//!   finds its server by such a directory (OpenHands' tmux server by `TMUX_TMPDIR`), so that each
//!   process gets its own server, which its guard then stops with it, and never joins another's;
//! - stdout is read with a bounded line codec; the last stderr lines are kept for diagnostics;
//! - [`ManagedChild::shutdown`]: close stdin, SIGTERM to the group after 1.5 s, a kill 1.5 s
//!   later (the guard's kill request, else SIGKILL to the group). Dropping a `ManagedChild`
//!   kills the same way.
//!
//! The group's id is the leader's pid, so the group is signalled only while the leader is not
//! reaped yet: after that the id may name someone else's group. The guard makes this safe: it
//! exits only once its group and descendants are gone.

use crate::codec::{BoundedLineCodec, Line, MAX_LINE};
use futures_util::StreamExt;
use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio_util::codec::FramedRead;
use tokio_util::sync::CancellationToken;

mod stop;

/// Grace period between the stop steps (stdin close -> SIGTERM -> SIGKILL).
pub const STOP_GRACE: Duration = Duration::from_millis(1500);
/// How many stderr lines are kept for a failure diagnostic.
pub const STDERR_TAIL_LINES: usize = 40;

/// A provider launch override: the connect request's `launch`, or `plugin.json`'s `command`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LaunchOverride {
    /// Program to run instead of the agent's default.
    pub command: Option<String>,
    /// Argument prefix placed before the agent's own arguments (only with `command`).
    pub args: Vec<String>,
    /// The full base environment (replaces the bridge's own).
    pub env: Option<BTreeMap<String, String>>,
    /// Variables set on top of the base (plugin.json's `env` of the entry).
    pub extra_env: BTreeMap<String, String>,
}

impl LaunchOverride {
    /// Builds the spawn spec of a CLI: the override's command and prefix, or the default.
    pub fn spec(&self, default_program: &str, args: Vec<String>) -> SpawnSpec {
        let (program, mut all) = match &self.command {
            Some(cmd) => (cmd.clone(), self.args.clone()),
            None => (default_program.to_string(), Vec::new()),
        };
        all.extend(args);
        SpawnSpec {
            program,
            args: all,
            cwd: None,
            base_env: self.env.clone(),
            env: self.extra_env.clone(),
            env_remove: Vec::new(),
            private_dirs: Vec::new(),
        }
    }

    /// The program this launch runs, for availability probes.
    pub fn program<'a>(&'a self, default_program: &'a str) -> &'a str {
        self.command.as_deref().unwrap_or(default_program)
    }

    /// The `PATH` to search: the one of the launch's effective environment.
    pub fn path_var(&self) -> Option<String> {
        self.var("PATH")
    }

    /// Resolves the program to an absolute path the way the spawn will.
    pub fn resolve(&self, default_program: &str) -> Result<PathBuf, SpawnError> {
        let program = self.program(default_program);
        resolve_program(program, self.path_var().as_deref())
    }
}

/// Finds a program on a PATH (or checks an explicit path).
pub fn resolve_program(program: &str, path_var: Option<&str>) -> Result<PathBuf, SpawnError> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    which::which_in(program, path_var, cwd).map_err(|_| SpawnError::NotFound {
        program: program.to_string(),
        searched: path_var.unwrap_or("").to_string(),
    })
}

/// Everything needed to start one CLI process.
#[derive(Debug, Clone, Default)]
pub struct SpawnSpec {
    pub program: String,
    pub args: Vec<String>,
    pub cwd: Option<PathBuf>,
    /// Replaces the bridge's environment when set.
    pub base_env: Option<BTreeMap<String, String>>,
    /// Overlaid on the base (the session's `config.env`, agent-specific variables).
    pub env: BTreeMap<String, String>,
    /// Variables removed after the overlay.
    pub env_remove: Vec<String>,
    /// Variables set, at each spawn, to a fresh directory of that process alone (under the
    /// child's `TMPDIR`), removed when the [`ManagedChild`] is dropped. Not part of the launch:
    /// two spawns of one spec get two directories.
    pub private_dirs: Vec<String>,
}

impl SpawnSpec {
    pub fn cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }

    pub fn envs<'a>(mut self, vars: impl IntoIterator<Item = (&'a String, &'a String)>) -> Self {
        for (k, v) in vars {
            self.env.insert(k.clone(), v.clone());
        }
        self
    }

    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(key.into(), value.into());
        self
    }

    /// The `PATH` the child will see.
    fn path_var(&self) -> Option<String> {
        self.var("PATH")
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    #[error("`{program}` was not found (searched PATH: {searched})")]
    NotFound { program: String, searched: String },
    #[error("the working folder `{}` does not exist", .cwd.display())]
    MissingCwd { cwd: PathBuf },
    #[error("the working folder `{}` is not a folder", .cwd.display())]
    CwdNotAFolder { cwd: PathBuf },
    #[error("could not start `{program}`: {source}")]
    Io {
        program: String,
        source: std::io::Error,
    },
}

/// One fresh directory per variable of `spec.private_dirs`, under the child's `TMPDIR` (else
/// the bridge's temporary folder).
fn private_dirs(spec: &SpawnSpec) -> Result<Vec<tempfile::TempDir>, SpawnError> {
    if spec.private_dirs.is_empty() {
        return Ok(Vec::new());
    }
    let root = spec
        .var("TMPDIR")
        .map(PathBuf::from)
        .filter(|d| d.is_dir())
        .unwrap_or_else(std::env::temp_dir);
    spec.private_dirs
        .iter()
        .map(|_| {
            tempfile::Builder::new()
                .prefix("agent-bridge-")
                .tempdir_in(&root)
                .map_err(|source| SpawnError::Io {
                    program: spec.program.clone(),
                    source,
                })
        })
        .collect()
}

/// A running CLI process under supervision.
#[derive(Debug)]
pub struct ManagedChild {
    program: String,
    child: Child,
    pid: Option<u32>,
    stdin: Option<ChildStdin>,
    stdout: Option<ChildStdout>,
    stderr_tail: StderrTail,
    exited: Option<ExitStatus>,
    /// The child is the [`guard`](crate::guard), which stops its tree itself.
    guarded: bool,
    /// The directories of `private_dirs`, removed with the child.
    _private_dirs: Vec<tempfile::TempDir>,
}

/// Checks a spawn's working folder, so a missing one is not reported as the program failing.
pub fn check_cwd(cwd: &Path) -> Result<(), SpawnError> {
    match std::fs::metadata(cwd) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(SpawnError::CwdNotAFolder {
            cwd: cwd.to_path_buf(),
        }),
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            Err(SpawnError::MissingCwd {
                cwd: cwd.to_path_buf(),
            })
        }
        // Anything else (no permission...) is for the spawn itself to report.
        Err(_) => Ok(()),
    }
}

impl ManagedChild {
    /// Spawns the process described by `spec` with piped stdio.
    pub fn spawn(spec: &SpawnSpec) -> Result<ManagedChild, SpawnError> {
        if let Some(cwd) = &spec.cwd {
            check_cwd(cwd)?;
        }
        let resolved = resolve_program(&spec.program, spec.path_var().as_deref())?;
        let guard = crate::guard::exe();
        let mut cmd = match guard {
            Some(guard) => {
                let mut c = Command::new(guard);
                c.arg(crate::guard::GUARD_ARG).arg(&resolved);
                c
            }
            None => Command::new(&resolved),
        };
        cmd.args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // A guard is asked to stop (it would leave descendants behind when SIGKILLed).
            .kill_on_drop(guard.is_none())
            .process_group(0);
        if let Some(cwd) = &spec.cwd {
            cmd.current_dir(cwd);
        }
        if let Some(base) = &spec.base_env {
            cmd.env_clear();
            cmd.envs(base);
        }
        cmd.envs(&spec.env);
        for k in &spec.env_remove {
            cmd.env_remove(k);
        }
        let private_dirs = private_dirs(spec)?;
        for (k, dir) in spec.private_dirs.iter().zip(&private_dirs) {
            cmd.env(k, dir.path());
        }
        #[cfg(target_os = "linux")]
        {
            let parent = std::process::id() as libc::pid_t;
            // SAFETY: only async-signal-safe calls (prctl, getppid, kill) run in the child.
            unsafe {
                cmd.pre_exec(move || {
                    if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    if libc::getppid() != parent {
                        libc::kill(libc::getpid(), libc::SIGKILL);
                    }
                    Ok(())
                });
            }
        }
        let mut child = cmd.spawn().map_err(|source| SpawnError::Io {
            program: spec.program.clone(),
            source,
        })?;
        let pid = child.id();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr_tail = StderrTail {
            lines: Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_TAIL_LINES))),
            closed: CancellationToken::new(),
            count: Arc::new(tokio::sync::watch::Sender::new(0)),
        };
        if let Some(stderr) = child.stderr.take() {
            let tail = stderr_tail.lines.clone();
            let closed = stderr_tail.closed.clone();
            let count = stderr_tail.count.clone();
            let program = spec.program.clone();
            tokio::spawn(async move {
                let mut reader = BufReader::new(stderr);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    // Bounded: a stderr line is cut at 64 KiB.
                    match (&mut reader)
                        .take(64 * 1024)
                        .read_until(b'\n', &mut buf)
                        .await
                    {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            let line = String::from_utf8_lossy(&buf).trim_end().to_string();
                            if line.is_empty() {
                                continue;
                            }
                            tracing::debug!(target: "agent_stderr", program = %program, "{line}");
                            if let Ok(mut t) = tail.lock() {
                                if t.len() == STDERR_TAIL_LINES {
                                    t.pop_front();
                                }
                                t.push_back(line);
                                // Under the lock: the count and the lines agree.
                                count.send_modify(|n| *n += 1);
                            }
                        }
                    }
                }
                closed.cancel();
            });
        } else {
            stderr_tail.closed.cancel();
        }
        tracing::debug!(program = %spec.program, ?pid, "spawned");
        Ok(ManagedChild {
            program: spec.program.clone(),
            child,
            pid,
            stdin,
            stdout,
            stderr_tail,
            exited: None,
            guarded: guard.is_some(),
            _private_dirs: private_dirs,
        })
    }

    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    pub fn program(&self) -> &str {
        &self.program
    }

    /// Takes the stdin pipe (for a writer task).
    pub fn take_stdin(&mut self) -> Option<ChildStdin> {
        self.stdin.take()
    }

    /// Takes stdout as a stream of bounded lines.
    pub fn take_stdout_lines(&mut self) -> Option<StdoutLines> {
        self.stdout.take().map(|out| StdoutLines {
            inner: FramedRead::new(out, BoundedLineCodec::new(MAX_LINE)),
        })
    }

    /// The last stderr lines, joined, for an error's `diagnostic`.
    pub fn stderr_tail(&self) -> String {
        self.stderr_tail.text()
    }

    /// A shareable handle on the stderr tail (for reader tasks that outlive a borrow).
    pub fn stderr_tail_handle(&self) -> StderrTail {
        self.stderr_tail.clone()
    }
}

/// A shareable view of a child's last stderr lines, and whether its stderr has closed.
#[derive(Debug, Clone)]
pub struct StderrTail {
    lines: Arc<Mutex<VecDeque<String>>>,
    /// Cancelled when the reader reached the end of stderr (every writer is gone).
    closed: CancellationToken,
    /// How many lines were read so far.
    count: Arc<tokio::sync::watch::Sender<u64>>,
}

impl StderrTail {
    /// A receiver that changes with every line read (its value: the lines read so far).
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.count.subscribe()
    }

    /// The lines read after the first `seen` ones (at most the kept tail), and the new count.
    pub fn lines_after(&self, seen: u64) -> (Vec<String>, u64) {
        let Ok(lines) = self.lines.lock() else {
            return (Vec::new(), seen);
        };
        let total = *self.count.borrow();
        let new = usize::try_from(total.saturating_sub(seen))
            .unwrap_or(usize::MAX)
            .min(lines.len());
        let skip = lines.len() - new;
        (lines.iter().skip(skip).cloned().collect(), total)
    }

    pub fn text(&self) -> String {
        match self.lines.lock() {
            Ok(t) => t.iter().cloned().collect::<Vec<_>>().join("\n"),
            Err(_) => String::new(),
        }
    }

    /// Resolves once stderr has closed (the last line is in).
    pub async fn closed(&self) {
        self.closed.cancelled().await
    }

    /// Waits until stderr has closed (the last line is in), at most `limit`: a descendant
    /// outside the process group may hold it open.
    pub async fn closed_within(&self, limit: Duration) -> bool {
        tokio::time::timeout(limit, self.closed.cancelled())
            .await
            .is_ok()
    }
}

/// A CLI's stdout as bounded lines.
pub struct StdoutLines {
    inner: FramedRead<ChildStdout, BoundedLineCodec>,
}

impl StdoutLines {
    /// The next line; `None` at EOF. Oversize and non-UTF-8 lines are reported, not fatal.
    pub async fn next_line(&mut self) -> Option<Line> {
        match self.inner.next().await {
            Some(Ok(line)) => Some(line),
            Some(Err(e)) => {
                tracing::warn!("reading agent stdout failed: {e}");
                None
            }
            None => None,
        }
    }
}

#[cfg(test)]
mod tests;
