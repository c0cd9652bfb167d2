//! The process guard: a tiny parent for every vendor CLI so that nothing the CLI starts in its
//! process group outlives the bridge, even when the bridge is SIGKILLed.
//!
//! `PR_SET_PDEATHSIG` only reaches the bridge's direct child. So the bridge's direct child is
//! this guard (the same executable, run as `agent-bridge __guard PROGRAM ARGS...`), the leader
//! of a fresh process group. It starts the real CLI in its group with the inherited stdio,
//! forwards the CLI's exit status, and when the bridge dies (its parent-death signal) it
//! SIGKILLs the whole group, grandchildren included.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::OnceLock;

/// argv[1] that selects guard mode.
pub const GUARD_ARG: &str = "__guard";

static GUARD_EXE: OnceLock<PathBuf> = OnceLock::new();

/// Enables the guard for every later spawn (the binary calls this with its own path).
pub fn enable(exe: PathBuf) {
    let _ = GUARD_EXE.set(exe);
}

pub(crate) fn exe() -> Option<&'static PathBuf> {
    GUARD_EXE.get()
}

/// The signal the kernel sends the guard when the bridge dies.
#[cfg(target_os = "linux")]
const DEATH_SIGNAL: libc::c_int = libc::SIGUSR2;

#[cfg(target_os = "linux")]
extern "C" fn on_bridge_death(_: libc::c_int) {
    // SAFETY: kill(2) is async-signal-safe; 0 = our own process group (the guard leads it).
    unsafe {
        libc::kill(0, libc::SIGKILL);
    }
}

extern "C" fn ignore(_: libc::c_int) {}

/// Runs guard mode with the arguments after `__guard`; never returns.
pub fn run(args: Vec<OsString>) -> ! {
    let Some((program, rest)) = args.split_first() else {
        eprintln!("agent-bridge __guard: missing program");
        std::process::exit(127);
    };
    // SAFETY: installing plain signal handlers before any thread is started.
    unsafe {
        #[cfg(target_os = "linux")]
        {
            libc::signal(
                DEATH_SIGNAL,
                on_bridge_death as *const () as libc::sighandler_t,
            );
            libc::prctl(libc::PR_SET_PDEATHSIG, DEATH_SIGNAL, 0, 0, 0);
            if libc::getppid() == 1 {
                libc::kill(0, libc::SIGKILL);
            }
        }
        // The group's SIGTERM is for the CLI; the guard leaves when the CLI does. A handler (not
        // SIG_IGN) so the CLI, after exec, gets the default disposition back.
        libc::signal(libc::SIGTERM, ignore as *const () as libc::sighandler_t);
        libc::signal(libc::SIGINT, ignore as *const () as libc::sighandler_t);
        libc::signal(libc::SIGHUP, ignore as *const () as libc::sighandler_t);
    }
    let status = std::process::Command::new(program).args(rest).status();
    match status {
        Ok(status) => {
            use std::os::unix::process::ExitStatusExt;
            if let Some(code) = status.code() {
                std::process::exit(code);
            }
            std::process::exit(128 + status.signal().unwrap_or(0));
        }
        Err(e) => {
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
    }
}
