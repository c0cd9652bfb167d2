//! The writer task (the bounded queue into the agent's stdin) and the exit watcher: either
//! declares the peer dead, the writer when writing fails, the watcher when the process exits.

use super::peer::Shared;
use crate::agent_process::ExitInfo;
use std::sync::Weak;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

/// One message for the writer.
pub(super) enum Outgoing {
    Line(String),
    /// Close the agent's stdin once the lines queued before are written.
    Close,
}

/// Batches stop growing at this size.
const BATCH: usize = 64 * 1024;

/// Drains the bounded queue into the agent's stdin, flushing once per batch. Stops when the
/// queue is closed, a `Close` comes, writing fails (the peer is then dead) or the peer dies
/// (what is still queued is dropped: its calls have failed already).
pub(super) async fn write<W: AsyncWrite + Unpin>(
    mut output: W,
    mut rx: mpsc::Receiver<Outgoing>,
    peer: Weak<Shared>,
    dead: CancellationToken,
) {
    let mut buf: Vec<u8> = Vec::with_capacity(4096);
    loop {
        let first = tokio::select! {
            biased;
            _ = dead.cancelled() => break,
            msg = rx.recv() => match msg {
                Some(msg) => msg,
                None => break,
            },
        };
        let mut next = Some(first);
        let mut close = false;
        while let Some(msg) = next.take() {
            match msg {
                Outgoing::Line(line) => {
                    buf.extend_from_slice(line.as_bytes());
                    buf.push(b'\n');
                }
                Outgoing::Close => {
                    close = true;
                    break;
                }
            }
            if buf.len() >= BATCH {
                break;
            }
            next = rx.try_recv().ok();
        }
        if !buf.is_empty() {
            let written = tokio::select! {
                biased;
                _ = dead.cancelled() => break,
                written = write_batch(&mut output, &buf) => written,
            };
            if let Err(e) = written {
                if let Some(shared) = peer.upgrade() {
                    tracing::debug!(peer = %shared.name, "writing to the agent failed: {e}");
                    shared.close_calls(&format!("writing to it failed: {e}"));
                }
                break;
            }
            buf.clear();
        }
        if close {
            break;
        }
    }
    // Later sends fail: the receiver is dropped here.
    rx.close();
    let _ = output.shutdown().await;
}

async fn write_batch<W: AsyncWrite + Unpin>(output: &mut W, buf: &[u8]) -> std::io::Result<()> {
    output.write_all(buf).await?;
    output.flush().await
}

/// Declares the peer dead as soon as its process exited, even while the reader is still busy
/// (stuck in a handler, or a grandchild holds the output open): a call can no longer be
/// answered.
pub(super) async fn watch_exit(mut exit: watch::Receiver<Option<ExitInfo>>, peer: Weak<Shared>) {
    let status = match exit.wait_for(Option::is_some).await {
        Ok(info) => info.as_ref().map(|i| i.status.clone()).unwrap_or_default(),
        // The process owner is gone without publishing an exit: the reader decides.
        Err(_) => return,
    };
    if let Some(shared) = peer.upgrade() {
        shared.close_calls(&format!("it exited: {status}"));
    }
}
