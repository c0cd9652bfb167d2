//! The crash-loop count of a shared process: its deaths in a row without a completed turn,
//! counted once per death however many sessions it failed, and kept across its restarts (per
//! launch key). The guard against a crash loop protects from a process that dies at every
//! start; on a shared process that is the process's property, not each session's: N sessions
//! failed by one death are one death, and a turn completed by any of them resets the count.

use std::sync::{Arc, Mutex, MutexGuard};

/// The count, whatever panicked while holding it (the lifecycle's policy on a poisoned lock;
/// this module is below the lifecycle and the provider contract, which both name it).
fn lock(count: &Mutex<Count>) -> MutexGuard<'_, Count> {
    count.lock().unwrap_or_else(|p| p.into_inner())
}

#[derive(Debug, Default)]
struct Count {
    in_a_row: u32,
    /// The serial of the last process counted (each session reports the same death).
    last: Option<u64>,
}

/// The deaths in a row of the processes of one launch key.
#[derive(Debug, Clone, Default)]
pub struct ProcessDeaths(Arc<Mutex<Count>>);

impl ProcessDeaths {
    /// Process `serial` died: counted once; the deaths in a row so far.
    pub fn died(&self, serial: u64) -> u32 {
        let mut c = lock(&self.0);
        if c.last != Some(serial) {
            c.in_a_row += 1;
            c.last = Some(serial);
        }
        c.in_a_row
    }

    /// A session of the key completed a turn: the processes work.
    pub fn progressed(&self) {
        lock(&self.0).in_a_row = 0;
    }

    pub fn in_a_row(&self) -> u32 {
        lock(&self.0).in_a_row
    }
}

/// What a session on a shared process reports when the process dies: the key's count and
/// which process it was.
#[derive(Debug, Clone)]
pub struct SharedDeath {
    pub deaths: ProcessDeaths,
    pub serial: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_death_counts_once_for_all_its_sessions_and_a_turn_resets_it() {
        let deaths = ProcessDeaths::default();
        assert_eq!(deaths.died(1), 1);
        assert_eq!(deaths.died(1), 1, "another session of the same process");
        assert_eq!(deaths.died(2), 2, "its restarted process");
        deaths.progressed();
        assert_eq!(deaths.died(3), 1);
        assert_eq!(deaths.died(3), 1);
    }
}
