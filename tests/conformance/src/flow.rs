//! Flow control from the host's side: stop and resume reading the bridge's stdout (a host that
//! does not read makes the bridge's writes fill the pipe), the bridge's resident memory, and
//! counting messages without copying them.

use crate::host::BridgeHost;
use serde_json::Value;
use std::time::Duration;

impl BridgeHost {
    /// Stops reading the bridge's stdout after the line being read (what the reader buffered
    /// already, at most 8 KiB, stays unread too).
    pub fn pause_reading(&self) {
        self.shared.paused.send_replace(true);
    }

    /// Reads the bridge's stdout again.
    pub fn resume_reading(&self) {
        self.shared.paused.send_replace(false);
    }

    /// The bridge's resident memory (`VmRSS` of `/proc/<pid>/status`) in bytes; `None` once it
    /// is gone.
    pub fn rss_bytes(&self) -> Option<u64> {
        let pid = i32::try_from(self.pid()).ok()?;
        agent_bridge_core::proc_info::memory(pid).map(|m| m.rss)
    }

    /// How many stdout messages so far match `pred`.
    pub fn count_messages(&self, pred: impl Fn(&Value) -> bool) -> usize {
        self.state().messages.iter().filter(|m| pred(m)).count()
    }

    /// Waits until at least `n` stdout messages match `pred`; returns how many do.
    pub async fn wait_messages(
        &self,
        pred: impl Fn(&Value) -> bool,
        n: usize,
        timeout: Duration,
    ) -> anyhow::Result<usize> {
        let what = format!("{n} matching messages");
        self.wait_for(timeout, &what, |st| {
            let count = st.messages.iter().filter(|m| pred(m)).count();
            (count >= n).then_some(count)
        })
        .await
    }
}
