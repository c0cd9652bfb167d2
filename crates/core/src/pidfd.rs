//! Exit detection without reaping: a pidfd turns readable when the process has exited (is a
//! zombie), while its pid — and so its process group id — still cannot be reused.

use crate::supervisor::ManagedChild;
use std::os::fd::{FromRawFd, OwnedFd};
use tokio::io::unix::AsyncFd;

/// A pollable handle on one process.
pub struct PidFd(AsyncFd<OwnedFd>);

impl PidFd {
    /// Opens a pidfd (Linux ≥ 5.3); `None` where the kernel has none.
    pub fn open(pid: u32) -> Option<PidFd> {
        #[cfg(target_os = "linux")]
        {
            // SAFETY: plain syscall; on success it returns a new fd that we own.
            let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
            if fd < 0 {
                return None;
            }
            // SAFETY: `fd` is a fresh descriptor owned by nobody else.
            let owned = unsafe { OwnedFd::from_raw_fd(fd as i32) };
            // SAFETY: the fd stays open as long as the AsyncFd owns it (it holds the OwnedFd).
            unsafe { AsyncFd::register(owned) }.ok().map(PidFd)
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = pid;
            None
        }
    }
}

/// Resolves when the child has exited: with a pidfd, before it is reaped; without one, by
/// reaping it.
pub async fn exited(pidfd: Option<&PidFd>, child: &mut ManagedChild) {
    match pidfd {
        Some(fd) => {
            let _ = fd.0.readable().await;
        }
        None => {
            let _ = child.wait().await;
        }
    }
}
