//! The process guard: a tiny parent for every vendor CLI so that nothing the CLI starts
//! outlives it or the bridge, even when the bridge is SIGKILLed and even when a descendant
//! leaves the process group with `setsid`.
//!
//! `PR_SET_PDEATHSIG` only reaches the bridge's direct child. So the bridge's direct child is
//! this guard (the same executable, run as `agent-bridge __guard PROGRAM ARGS...`), the leader
//! of a fresh process group. It starts the real CLI in its group with the inherited stdio and
//! becomes a child subreaper (`PR_SET_CHILD_SUBREAPER`): a descendant whose parent dies is
//! reparented to the guard instead of init, so the guard's descendants (by parent chain) are
//! everything the CLI started, whatever session or group they moved to.
//!
//! The guard takes its signals synchronously (blocked, then `sigtimedwait` in its main loop), so
//! there is no signal handler and no async-signal-safety question; the CLI starts with an empty
//! signal mask and default dispositions. It reacts to:
//! - the CLI's exit (`SIGCHLD`): stop everything left (below), exit with the CLI's status;
//! - `KILL_SIGNAL`, sent by the bridge to the guard's pid alone (the last stop step, a kill):
//!   stop everything at once, CLI included;
//! - its parent-death signal, when the bridge is gone: the same, at once;
//! - `SIGTERM` (the bridge's graceful stop step, sent to the whole group, so the CLI and its
//!   group got it too): passed on to the descendants outside the group, so they get the same
//!   grace; the guard keeps waiting for the CLI, which deserves its grace period.
//!
//! Stopping everything: scan `/proc` for the guard's descendants and group members, SIGKILL
//! them (each through a pidfd checked against the scanned start time, so a recycled pid is never
//! hit), reap what the guard inherits, and repeat until nothing is left (at most
//! `CLEANUP_LIMIT`). The guard exits only after that, so the bridge never has to signal the
//! group after it reaped the guard.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::OnceLock;

/// `argv[1]` that selects guard mode.
pub const GUARD_ARG: &str = "__guard";

/// Sent by the bridge to the guard's pid: kill the CLI and everything it started, then exit.
pub(crate) const KILL_SIGNAL: libc::c_int = libc::SIGUSR1;

/// How long the guard keeps killing and reaping before it exits anyway (a process stuck in
/// uninterruptible sleep cannot be waited for forever).
pub(crate) const CLEANUP_LIMIT: std::time::Duration = std::time::Duration::from_secs(1);

static GUARD_EXE: OnceLock<PathBuf> = OnceLock::new();

/// Enables the guard for every later spawn (the binary calls this with its own path).
pub fn enable(exe: PathBuf) {
    let _ = GUARD_EXE.set(exe);
}

pub(crate) fn exe() -> Option<&'static PathBuf> {
    GUARD_EXE.get()
}

/// Runs guard mode with the arguments after `__guard`; never returns. Must run before any
/// other thread is started (it changes the signal mask).
pub fn run(args: Vec<OsString>) -> ! {
    let Some((program, rest)) = args.split_first() else {
        eprintln!("agent-bridge __guard: missing program");
        std::process::exit(127);
    };
    #[cfg(target_os = "linux")]
    linux::run(program, rest);
    #[cfg(not(target_os = "linux"))]
    portable::run(program, rest);
}

/// The exit code for a failed start of the CLI.
fn start_failed(program: &std::ffi::OsStr, e: &std::io::Error) -> ! {
    eprintln!(
        "agent-bridge: cannot start {}: {e}",
        program.to_string_lossy()
    );
    std::process::exit(if e.kind() == std::io::ErrorKind::NotFound {
        127
    } else {
        126
    });
}

#[cfg(target_os = "linux")]
mod linux {
    use super::{start_failed, CLEANUP_LIMIT, KILL_SIGNAL};
    use crate::proctree;
    use std::ffi::{OsStr, OsString};
    use std::os::unix::process::CommandExt;
    use std::time::{Duration, Instant};

    /// The signal the kernel sends the guard when the bridge dies.
    const DEATH_SIGNAL: libc::c_int = libc::SIGUSR2;

    /// Every signal the guard takes in its main loop.
    const TAKEN: [libc::c_int; 6] = [
        libc::SIGCHLD,
        libc::SIGTERM,
        libc::SIGINT,
        libc::SIGHUP,
        KILL_SIGNAL,
        DEATH_SIGNAL,
    ];

    /// Why the guard stops waiting for the CLI.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum End {
        CliExited,
        Killed,
        BridgeDied,
    }

    struct Guard {
        me: libc::pid_t,
        bridge: libc::pid_t,
        cli: libc::pid_t,
        /// The CLI's wait status once reaped.
        status: Option<libc::c_int>,
        set: libc::sigset_t,
    }

    pub(super) fn run(program: &OsStr, rest: &[OsString]) -> ! {
        // SAFETY: plain syscalls; `set` is initialised by sigemptyset before use, and the guard
        // is still single-threaded, so the process mask is this thread's mask.
        let (me, bridge, set) = unsafe {
            let me = libc::getpid();
            let bridge = libc::getppid();
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            for sig in TAKEN {
                libc::sigaddset(&mut set, sig);
            }
            libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
            // Failure (a kernel before 3.4) leaves orphans to init; the parent-chain scan
            // still finds every descendant whose parents live.
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
            // Until now the SIGKILL death signal the bridge set before exec applied.
            libc::prctl(libc::PR_SET_PDEATHSIG, DEATH_SIGNAL, 0, 0, 0);
            (me, bridge, set)
        };
        if bridge_gone(bridge) {
            std::process::exit(128 + libc::SIGKILL);
        }
        let mut cmd = std::process::Command::new(program);
        cmd.args(rest);
        // SAFETY: sigprocmask is async-signal-safe; the CLI starts with nothing blocked.
        unsafe {
            cmd.pre_exec(|| {
                let mut empty: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut empty);
                libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
                Ok(())
            });
        }
        let cli = match cmd.spawn() {
            // Dropping the handle neither kills nor waits: the guard reaps with waitpid.
            Ok(child) => child.id() as libc::pid_t,
            Err(e) => start_failed(program, &e),
        };
        let mut guard = Guard {
            me,
            bridge,
            cli,
            status: None,
            set,
        };
        let end = guard.wait_for_end();
        guard.stop_everything(end);
        std::process::exit(guard.exit_code());
    }

    fn bridge_gone(bridge: libc::pid_t) -> bool {
        // SAFETY: getppid has no preconditions.
        unsafe { libc::getppid() != bridge }
    }

    impl Guard {
        /// Waits for one of the taken signals, at most `limit`; `None` on timeout.
        fn take_signal(&self, limit: Duration) -> Option<libc::c_int> {
            let timeout = libc::timespec {
                tv_sec: limit.as_secs() as libc::time_t,
                tv_nsec: limit.subsec_nanos() as libc::c_long,
            };
            // SAFETY: `set` and `timeout` are valid for the call; a null siginfo is allowed.
            let sig = unsafe { libc::sigtimedwait(&self.set, std::ptr::null_mut(), &timeout) };
            (sig > 0).then_some(sig)
        }

        /// Reaps every exited child (the CLI and adopted orphans), noting the CLI's status.
        fn reap(&mut self) {
            loop {
                let mut status = 0;
                // SAFETY: `status` is a valid out-pointer.
                let pid = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
                if pid <= 0 {
                    return;
                }
                if pid == self.cli {
                    self.status = Some(status);
                }
            }
        }

        fn wait_for_end(&mut self) -> End {
            loop {
                self.reap();
                if self.status.is_some() {
                    return End::CliExited;
                }
                // A blocked signal stays pending, so one sent between the reap and this wait
                // is not lost; the timeout only re-checks the parent as a last resort.
                match self.take_signal(Duration::from_secs(1)) {
                    Some(libc::SIGTERM) => self.pass_term_on(),
                    Some(KILL_SIGNAL) => return End::Killed,
                    // A parent *thread* that exits sends it too: only a new parent means the
                    // bridge is gone.
                    Some(DEATH_SIGNAL) | None if bridge_gone(self.bridge) => {
                        return End::BridgeDied
                    }
                    // SIGCHLD: reaped above; SIGINT/SIGHUP: the CLI's own business.
                    _ => {}
                }
            }
        }

        /// The group's SIGTERM reached the CLI and its group; descendants that left the group
        /// get it from the guard.
        fn pass_term_on(&self) {
            for p in proctree::stoppable(self.me) {
                if p.pgrp != self.me && !p.is_zombie() {
                    proctree::signal(&p, libc::SIGTERM);
                }
            }
        }

        /// SIGKILLs and reaps everything the guard answers for, until nothing is left.
        fn stop_everything(&mut self, end: End) {
            let deadline = Instant::now() + CLEANUP_LIMIT;
            loop {
                self.reap();
                let left = proctree::stoppable(self.me);
                if left.is_empty() || Instant::now() >= deadline {
                    return;
                }
                // Parents first: a killed parent cannot reap (and free the pid of) a child
                // between the scan and its signal.
                for p in left.iter().filter(|p| !p.is_zombie()) {
                    proctree::signal(p, libc::SIGKILL);
                }
                let wait = if end == End::BridgeDied { 2 } else { 10 };
                let _ = self.take_signal(Duration::from_millis(wait));
            }
        }

        /// The CLI's exit status as an exit code (`128 + signal` when it was killed).
        fn exit_code(&self) -> i32 {
            match self.status {
                Some(s) if libc::WIFEXITED(s) => libc::WEXITSTATUS(s),
                Some(s) if libc::WIFSIGNALED(s) => 128 + libc::WTERMSIG(s),
                _ => 128 + libc::SIGKILL,
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod portable {
    use super::start_failed;
    use std::ffi::{OsStr, OsString};

    extern "C" fn ignore(_: libc::c_int) {}

    /// Without subreapers and parent-death signals: run the CLI, forward its status.
    pub(super) fn run(program: &OsStr, rest: &[OsString]) -> ! {
        // SAFETY: installing plain signal handlers before any thread is started. A handler
        // (not SIG_IGN) so the CLI, after exec, gets the default disposition back.
        unsafe {
            for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
                libc::signal(sig, ignore as *const () as libc::sighandler_t);
            }
        }
        match std::process::Command::new(program).args(rest).status() {
            Ok(status) => {
                use std::os::unix::process::ExitStatusExt;
                std::process::exit(
                    status
                        .code()
                        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0)),
                );
            }
            Err(e) => start_failed(program, &e),
        }
    }
}
