//! Everything the plugin writes to stdout goes through one writer task, which never lets more
//! than [`STDOUT_PER_SECOND`] lines into any rolling second
//! (Agentty stops a plugin at 240, stderr lines included) and never writes a line Agentty would
//! refuse.

use crate::limits::{MAX_LINE_BYTES, STDOUT_PER_SECOND};
use std::collections::VecDeque;
use std::time::{Duration, Instant};
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

const SECOND: Duration = Duration::from_secs(1);

/// At most `limit` events in any rolling second.
#[derive(Debug)]
pub struct RateWindow {
    limit: usize,
    sent: VecDeque<Instant>,
}

impl RateWindow {
    pub fn new(limit: usize) -> Self {
        RateWindow {
            limit: limit.max(1),
            sent: VecDeque::new(),
        }
    }

    /// Takes a slot at `now` (`None`), or says how long to wait for one.
    pub fn take(&mut self, now: Instant) -> Option<Duration> {
        while self
            .sent
            .front()
            .is_some_and(|t| now.duration_since(*t) >= SECOND)
        {
            self.sent.pop_front();
        }
        if self.sent.len() < self.limit {
            self.sent.push_back(now);
            return None;
        }
        let oldest = self.sent.front().copied().unwrap_or(now);
        Some((oldest + SECOND).saturating_duration_since(now))
    }
}

/// The sending half: cheap to clone, never blocks.
#[derive(Clone)]
pub struct Outbox {
    tx: mpsc::UnboundedSender<String>,
}

impl Outbox {
    /// Starts the writer on `out`; the task ends once every `Outbox` is dropped and the queue
    /// is written.
    pub fn start<W>(out: W) -> (Outbox, JoinHandle<()>)
    where
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (tx, rx) = mpsc::unbounded_channel();
        (Outbox { tx }, tokio::spawn(write_all(out, rx)))
    }

    /// Queues one JSON line (without its newline). A line Agentty would refuse is dropped
    /// with a warning.
    pub fn send(&self, line: String) {
        if line.len() >= MAX_LINE_BYTES {
            tracing::warn!(
                bytes = line.len(),
                "dropped a message over Agentty's 16 MB line limit"
            );
            return;
        }
        let _ = self.tx.send(line);
    }
}

async fn write_all<W>(mut out: W, mut rx: mpsc::UnboundedReceiver<String>)
where
    W: AsyncWrite + Unpin + Send,
{
    let mut window = RateWindow::new(STDOUT_PER_SECOND);
    while let Some(mut line) = rx.recv().await {
        while let Some(wait) = window.take(Instant::now()) {
            tokio::time::sleep(wait).await;
        }
        line.push('\n');
        if out.write_all(line.as_bytes()).await.is_err() || out.flush().await.is_err() {
            // Agentty is gone: nothing more can be said.
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rolling_second_never_holds_more_than_the_limit() {
        let mut w = RateWindow::new(3);
        let t0 = Instant::now();
        assert_eq!(w.take(t0), None);
        assert_eq!(w.take(t0 + Duration::from_millis(100)), None);
        assert_eq!(w.take(t0 + Duration::from_millis(200)), None);
        // The fourth waits for the first to leave the window.
        let wait = w.take(t0 + Duration::from_millis(300)).expect("must wait");
        assert_eq!(wait, Duration::from_millis(700));
        assert_eq!(w.take(t0 + Duration::from_millis(1000)), None);
        assert!(w.take(t0 + Duration::from_millis(1050)).is_some());
    }

    #[tokio::test]
    async fn lines_are_written_in_order_with_newlines() {
        let (client, mut server) = tokio::io::duplex(1024);
        let (outbox, task) = Outbox::start(client);
        outbox.send("{\"a\":1}".into());
        outbox.send("{\"b\":2}".into());
        drop(outbox);
        task.await.expect("writer");
        let mut text = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut server, &mut text)
            .await
            .expect("read");
        assert_eq!(text, "{\"a\":1}\n{\"b\":2}\n");
    }
}
