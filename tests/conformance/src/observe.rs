//! Observing a [`BridgeHost`]: recorded events and messages, waiting for them, and the final
//! invariant check.

use crate::event::Event;
use crate::host::BridgeHost;
use crate::invariants::InvariantChecker;
use crate::reader::State;
use serde_json::Value;
use std::time::{Duration, Instant};

impl BridgeHost {
    /// Every event received so far.
    pub fn events(&self) -> Vec<Event> {
        self.state().events.clone()
    }

    /// Every stdout line so far, as received (lossy UTF-8, without the newline).
    pub fn stdout_lines(&self) -> Vec<String> {
        self.state().lines.clone()
    }

    /// Every JSON message received on stdout so far (responses and notifications).
    pub fn messages(&self) -> Vec<Value> {
        self.state().messages.clone()
    }

    /// The bridge's stderr so far (its log).
    pub fn stderr(&self) -> String {
        self.state().stderr.clone()
    }

    /// Waits for the first event (from the very first one received) matching `pred`.
    pub async fn wait_event(
        &self,
        pred: impl Fn(&Event) -> bool,
        timeout: Duration,
    ) -> anyhow::Result<Event> {
        self.wait_for(timeout, "a matching event", |st| {
            st.events.iter().find(|e| pred(e)).cloned()
        })
        .await
    }

    /// Waits for the first event matching `pred`; returns every event up to and including it.
    pub async fn collect_until(
        &self,
        pred: impl Fn(&Event) -> bool,
        timeout: Duration,
    ) -> anyhow::Result<Vec<Event>> {
        self.wait_for(timeout, "a matching event", |st| {
            st.events
                .iter()
                .position(&pred)
                .map(|i| st.events[..=i].to_vec())
        })
        .await
    }

    /// Waits for the first stdout message (response or notification) matching `pred`.
    pub async fn wait_message(
        &self,
        pred: impl Fn(&Value) -> bool,
        timeout: Duration,
    ) -> anyhow::Result<Value> {
        self.wait_for(timeout, "a matching message", |st| {
            st.messages.iter().find(|m| pred(m)).cloned()
        })
        .await
    }

    /// Waits until `probe` returns `Some`, re-running it whenever a line arrives.
    pub(crate) async fn wait_for<T>(
        &self,
        timeout: Duration,
        what: &str,
        mut probe: impl FnMut(&State) -> Option<T>,
    ) -> anyhow::Result<T> {
        let deadline = Instant::now() + timeout;
        let mut tick = self.shared.tick.subscribe();
        loop {
            {
                let st = self.state();
                if let Some(found) = probe(&st) {
                    return Ok(found);
                }
                if st.stdout_closed {
                    anyhow::bail!(
                        "the bridge closed stdout while the host waited for {what}\n{}",
                        st.summary()
                    );
                }
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                anyhow::bail!("no {what} within {timeout:?}\n{}", self.state().summary());
            }
            let _ = tokio::time::timeout(left, tick.changed()).await;
        }
    }

    /// Every violation found so far (schema, invariants, stdout hygiene), without the
    /// completeness checks of [`assert_invariants`](Self::assert_invariants).
    pub fn violations(&self) -> Vec<String> {
        self.state().checker.violations().to_vec()
    }

    /// Panics with every violation, and with everything still owed (unanswered requests,
    /// prompts without a result, turns without a terminal state) unless the bridge was stopped.
    pub fn assert_invariants(&self) {
        let mut st = self.state();
        let report = st.checker.final_report();
        st.reported = st.checker.violations().len();
        if !report.is_empty() {
            let list: Vec<String> = report
                .iter()
                .enumerate()
                .map(|(i, v)| format!("{}. {v}", i + 1))
                .collect();
            panic!(
                "{} protocol violation(s):\n{}\n{}",
                report.len(),
                list.join("\n"),
                st.stderr_tail()
            );
        }
    }

    /// The checker, for tests that feed it by hand.
    pub fn with_checker<T>(&self, f: impl FnOnce(&mut InvariantChecker) -> T) -> T {
        f(&mut self.state().checker)
    }
}
