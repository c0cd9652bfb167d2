//! What the agent reports while `Provider::open` runs (an ACP `session/load` streams the whole
//! history before it answers). The actor drains the sink all along, so the open never stalls
//! on the bounded queue; but nothing of a session may precede `session.opened`, whose fields
//! (capabilities, persistence, title) and the following `session.config` are only known once
//! the open returns. So the events are rendered and held here in order, then written right
//! after `session.opened` + `session.config`, before `session.ready`.
//!
//! Memory is bounded: the first [`SPOOL_MEMORY_BYTES`] of lines stay in memory, the rest go to
//! an anonymous temporary file (deleted by the OS when closed, even if the bridge dies). A
//! snapshot that replaces the row just before it (streamed text) replaces it here too, so a
//! history of chunk updates costs one line per row.

use crate::emitter::{render_event, Outbound};
use agent_bridge_protocol::{ProviderCommand, ProviderEvent};
use std::collections::VecDeque;
use std::io::SeekFrom;
use tokio::io::{AsyncBufReadExt, AsyncSeekExt, AsyncWriteExt, BufReader, BufWriter};

/// How many bytes of spooled lines are held in memory before the rest goes to a file.
pub const SPOOL_MEMORY_BYTES: usize = 1 << 20;

pub(super) struct Spool {
    connection_id: String,
    /// The newest event, kept whole so a newer snapshot of the same row can replace it.
    last: Option<ProviderEvent>,
    /// The first lines, in order.
    memory: VecDeque<String>,
    memory_bytes: usize,
    /// The lines after those.
    file: Option<BufWriter<tokio::fs::File>>,
    /// Lines after a file failure (kept in memory: losing history is worse), after the file's.
    overflow: VecDeque<String>,
    file_failed: bool,
    /// The last command list the agent reported (only the newest matters).
    pub(super) commands: Option<Vec<ProviderCommand>>,
}

/// True when `next` is a newer snapshot of the same row as `prev`.
fn same_row(prev: &ProviderEvent, next: &ProviderEvent) -> bool {
    match (prev, next) {
        (
            ProviderEvent::TimelineItem {
                session_id: a,
                item: x,
                ..
            },
            ProviderEvent::TimelineItem {
                session_id: b,
                item: y,
                ..
            },
        ) => a == b && x.id == y.id,
        _ => false,
    }
}

impl Spool {
    pub(super) fn new(connection_id: String) -> Self {
        Self {
            connection_id,
            last: None,
            memory: VecDeque::new(),
            memory_bytes: 0,
            file: None,
            overflow: VecDeque::new(),
            file_failed: false,
            commands: None,
        }
    }

    pub(super) async fn push(&mut self, event: ProviderEvent) {
        if self
            .last
            .as_ref()
            .is_some_and(|prev| same_row(prev, &event))
        {
            self.last = Some(event);
            return;
        }
        if let Some(prev) = self.last.replace(event) {
            self.store(prev).await;
        }
    }

    async fn store(&mut self, event: ProviderEvent) {
        let Some(line) = render_event(&self.connection_id, event) else {
            return;
        };
        if self.file_failed {
            self.overflow.push_back(line);
            return;
        }
        if self.file.is_none() && self.memory_bytes + line.len() <= SPOOL_MEMORY_BYTES {
            self.memory_bytes += line.len();
            self.memory.push_back(line);
            return;
        }
        if self.file.is_none() {
            match tempfile::tempfile() {
                Ok(file) => {
                    let file = tokio::fs::File::from_std(file);
                    self.file = Some(BufWriter::with_capacity(64 * 1024, file));
                }
                Err(e) => return self.file_failure(line, &e),
            }
        }
        if let Some(file) = self.file.as_mut() {
            let written = match file.write_all(line.as_bytes()).await {
                Ok(()) => file.write_all(b"\n").await,
                Err(e) => Err(e),
            };
            if let Err(e) = written {
                self.file_failure(line, &e);
            }
        }
    }

    fn file_failure(&mut self, line: String, e: &std::io::Error) {
        tracing::warn!(
            "cannot spool replayed history to a temporary file ({e}); keeping it in memory"
        );
        self.file_failed = true;
        self.overflow.push_back(line);
    }

    /// Writes every spooled line, in order.
    pub(super) async fn replay(mut self, out: &Outbound) {
        if let Some(last) = self.last.take() {
            self.store(last).await;
        }
        for line in self.memory.drain(..) {
            out.send_raw(line).await;
        }
        if let Some(file) = self.file.take() {
            if let Err(e) = replay_file(file, out).await {
                tracing::warn!("reading spooled history back failed: {e}");
            }
        }
        for line in self.overflow.drain(..) {
            out.send_raw(line).await;
        }
    }

    /// Bytes held in memory (for tests of the bound).
    #[cfg(test)]
    fn held(&self) -> usize {
        self.memory_bytes + self.overflow.iter().map(String::len).sum::<usize>()
    }
}

async fn replay_file(mut file: BufWriter<tokio::fs::File>, out: &Outbound) -> std::io::Result<()> {
    file.flush().await?;
    let mut file = file.into_inner();
    file.seek(SeekFrom::Start(0)).await?;
    let mut lines = BufReader::with_capacity(64 * 1024, file).lines();
    while let Some(line) = lines.next_line().await? {
        // A line cut by a failed write must not reach the host (one invalid event closes the
        // connection).
        if serde_json::from_str::<serde::de::IgnoredAny>(&line).is_ok() {
            out.send_raw(line).await;
        } else {
            tracing::warn!("dropped a damaged spooled line");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_bridge_protocol::{ItemBody, TimelineItem};
    use tokio::io::AsyncBufReadExt;

    fn row(id: &str, text: &str) -> ProviderEvent {
        ProviderEvent::TimelineItem {
            session_id: "s1".into(),
            item: TimelineItem::new(
                id,
                ItemBody::Reasoning {
                    text: text.to_string(),
                },
            ),
            timestamp: None,
        }
    }

    async fn written(spool: Spool) -> Vec<serde_json::Value> {
        let (reader, writer) = tokio::io::duplex(64 * 1024);
        let (out, task) = Outbound::start(writer);
        let read = tokio::spawn(async move {
            let mut lines = tokio::io::BufReader::new(reader).lines();
            let mut all = vec![];
            while let Ok(Some(line)) = lines.next_line().await {
                all.push(serde_json::from_str::<serde_json::Value>(&line).expect("json"));
            }
            all
        });
        spool.replay(&out).await;
        drop(out);
        task.await.expect("writer");
        read.await.expect("reader")
    }

    #[tokio::test]
    async fn a_long_history_is_bounded_in_memory_and_replayed_in_order() {
        let mut spool = Spool::new("c1".into());
        let n = 20_000;
        let text = "y".repeat(200);
        for i in 0..n {
            spool.push(row(&format!("r{i}"), &text)).await;
        }
        assert!(spool.held() <= SPOOL_MEMORY_BYTES, "{}", spool.held());
        assert!(spool.file.is_some(), "the rest went to a file");
        let lines = written(spool).await;
        assert_eq!(lines.len(), n);
        for (i, line) in lines.iter().enumerate() {
            assert_eq!(line["params"]["event"]["item"]["id"], format!("r{i}"));
        }
    }

    #[tokio::test]
    async fn consecutive_snapshots_of_a_row_are_coalesced() {
        let mut spool = Spool::new("c1".into());
        spool.push(row("a", "1")).await;
        spool.push(row("a", "12")).await;
        spool.push(row("b", "x")).await;
        spool.push(row("a", "123")).await;
        let lines = written(spool).await;
        let got: Vec<(String, String)> = lines
            .iter()
            .map(|l| {
                let item = &l["params"]["event"]["item"];
                (
                    item["id"].as_str().unwrap_or("").to_string(),
                    item["text"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect();
        let want =
            [("a", "12"), ("b", "x"), ("a", "123")].map(|(a, b)| (a.to_string(), b.to_string()));
        assert_eq!(got, want.to_vec());
    }
}
