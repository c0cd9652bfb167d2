//! A process and everything under it, as the bench and the soak need it (read through
//! `agent_bridge_core::proc_info`): its descendants, their summed memory, which child started
//! last (a bridge's newest CLI is its spare), whether a process seen earlier still runs, and
//! the peak memory over a while.

use agent_bridge_core::proc_info::{self, Memory, Pid, ProcStat};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A child's pid as `/proc` spells it (a pid past `i32` names no process).
fn raw(pid: u32) -> Pid {
    Pid::try_from(pid).unwrap_or(-1)
}

/// `root` and every process under it.
pub fn tree(root: u32) -> BTreeSet<u32> {
    let mut pids: BTreeSet<u32> = proc_info::descendants(&proc_info::all(), raw(root))
        .iter()
        .filter_map(|p| u32::try_from(p.pid).ok())
        .collect();
    pids.insert(root);
    pids
}

/// A process as told apart over time: a recycled pid has another start time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ProcId {
    pub pid: u32,
    /// Clock ticks after boot when it started.
    pub start: u64,
}

impl ProcId {
    fn of(p: &ProcStat) -> Option<ProcId> {
        Some(ProcId {
            pid: u32::try_from(p.pid).ok()?,
            start: p.start_time,
        })
    }
}

/// Every live process under `root` (not `root` itself).
pub fn descendants(root: u32) -> Vec<ProcId> {
    proc_info::descendants(&proc_info::all(), raw(root))
        .iter()
        .filter(|p| !p.is_zombie())
        .filter_map(ProcId::of)
        .collect()
}

/// The parent of a live process.
pub fn parent(pid: u32) -> Option<u32> {
    proc_info::stat(raw(pid)).and_then(|s| u32::try_from(s.ppid).ok())
}

/// True while that very process runs (a zombie has stopped).
pub fn alive(p: ProcId) -> bool {
    proc_info::alive(raw(p.pid), p.start)
}

/// True while `pid` has a child process.
pub fn has_children(pid: u32) -> bool {
    proc_info::all().iter().any(|s| s.ppid == raw(pid))
}

/// The subtree of `root`'s child that started last (none when it has no child).
pub fn newest_child_tree(root: u32) -> BTreeSet<u32> {
    proc_info::all()
        .iter()
        .filter(|s| s.ppid == raw(root))
        .max_by_key(|s| (s.start_time, s.pid))
        .and_then(|s| u32::try_from(s.pid).ok())
        .map(tree)
        .unwrap_or_default()
}

/// The resident set size of a process, in bytes (`VmRSS`), and its peak (`VmHWM`).
pub fn rss_bytes(pid: u32) -> Option<(u64, u64)> {
    proc_info::memory(raw(pid)).map(|m| (m.rss, m.peak))
}

/// CPU time (user + system) a process used so far, in seconds.
pub fn cpu_seconds(pid: u32) -> Option<f64> {
    proc_info::stat(raw(pid)).map(|s| s.cpu_seconds())
}

/// The summed memory of `pids` (processes gone meanwhile count nothing); `peak` sums each
/// process's own peak, an upper bound of the tree's.
pub fn memory(pids: &BTreeSet<u32>) -> Memory {
    pids.iter()
        .filter_map(|pid| proc_info::memory(raw(*pid)))
        .fold(Memory::default(), |sum, m| Memory {
            rss: sum.rss + m.rss,
            peak: sum.peak + m.peak,
        })
}

/// The summed resident memory of `pid` and its descendants now, in bytes.
pub fn tree_rss(pid: u32) -> u64 {
    memory(&tree(pid)).rss
}

/// Reads a memory figure on a thread of its own at a fixed interval until finished; returns
/// the highest reading.
pub struct PeakSampler {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<u64>,
}

impl PeakSampler {
    /// The resident memory of `pid`'s whole tree every 10 ms (an npm launcher, the native CLI
    /// and its helpers come and go).
    pub fn tree(pid: u32) -> anyhow::Result<PeakSampler> {
        PeakSampler::start("bench-tree-rss", Duration::from_millis(10), move || {
            tree_rss(pid)
        })
    }

    /// Any reading every 10 ms.
    pub fn with(
        name: &str,
        read: impl Fn() -> u64 + Send + 'static,
    ) -> anyhow::Result<PeakSampler> {
        PeakSampler::start(name, Duration::from_millis(10), read)
    }

    /// The resident memory of `pid` alone every 5 ms.
    pub fn process(pid: u32) -> anyhow::Result<PeakSampler> {
        PeakSampler::start("bench-rss", Duration::from_millis(5), move || {
            rss_bytes(pid).map_or(0, |(rss, _)| rss)
        })
    }

    fn start(
        name: &str,
        every: Duration,
        read: impl Fn() -> u64 + Send + 'static,
    ) -> anyhow::Result<PeakSampler> {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                let mut peak = 0;
                while !flag.load(Ordering::Relaxed) {
                    peak = peak.max(read());
                    std::thread::sleep(every);
                }
                peak
            })?;
        Ok(PeakSampler { stop, thread })
    }

    pub fn finish(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn this_process_and_a_child_are_found() {
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .expect("sleep");
        // Let it exec (before that it is a copy of this process).
        std::thread::sleep(Duration::from_millis(100));
        let me = std::process::id();
        assert!(tree(me).contains(&me) && tree(me).contains(&child.id()));
        assert!(has_children(me));
        assert_eq!(parent(child.id()), Some(me));
        let seen = descendants(me);
        let sleeper = seen.iter().find(|p| p.pid == child.id()).copied();
        assert!(sleeper.is_some_and(alive), "{seen:?}");
        assert!(memory(&tree(me)).rss > 0);
        assert!(cpu_seconds(me).is_some_and(|s| s >= 0.0));
        let alone = rss_bytes(child.id()).expect("rss").0;
        assert_eq!(tree(child.id()), BTreeSet::from([child.id()]));
        assert_eq!(tree_rss(child.id()), alone);
        assert_eq!(newest_child_tree(child.id()), BTreeSet::new());
        let sampler = PeakSampler::tree(child.id()).expect("sampler");
        std::thread::sleep(Duration::from_millis(30));
        assert!(sampler.finish() >= alone / 2, "the peak of a running sleep");
        let _ = child.kill();
        let _ = child.wait();
        assert!(sleeper.is_some_and(|p| !alive(p)), "a reaped child is gone");
    }
}
