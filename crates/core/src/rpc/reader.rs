//! The reader task: routes answers to their calls, hands the rest to the provider's
//! [`Inbound`], and at the end of the agent's output declares the peer dead.

use super::dialect::truncate;
use super::peer::{LineSource, PeerHandle, PeerOptions};
use super::{Inbound, Incoming, IncomingRequest, Responder};
use crate::codec::Line;
use std::sync::Arc;
use std::time::Duration;

/// How long after a process exit the reader waits for its exit status.
const EXIT_WAIT: Duration = Duration::from_secs(3);

/// The reader: routes answers, hands the rest to `inbound`, fails waiting calls at the end.
pub(super) async fn read(
    mut input: impl LineSource,
    peer: PeerHandle,
    inbound: Arc<dyn Inbound>,
    options: PeerOptions,
) {
    let stop = options.stop_reading.clone();
    let reason = loop {
        let line = tokio::select! {
            biased;
            line = input.next_line() => line,
            _ = stop.cancelled() => break "its output was abandoned after it exited",
        };
        let text = match line {
            None => break "its output ended",
            Some(Line::Text(t)) => t,
            Some(Line::Oversize { len }) => {
                tracing::warn!(peer = %peer.shared.name, "skipped an oversize line ({len} bytes)");
                continue;
            }
            Some(Line::InvalidUtf8) => {
                tracing::warn!(peer = %peer.shared.name, "skipped a non-UTF-8 line");
                continue;
            }
        };
        if text.trim().is_empty() {
            continue;
        }
        match peer.shared.dialect.decode(&text) {
            Ok(Incoming::Response { id, result }) => peer.resolve(&id, result),
            Ok(Incoming::Notification { method, params }) => {
                inbound.notification(&peer, method, params).await
            }
            Ok(Incoming::Request { id, method, params }) => {
                let responder = Responder::new(peer.clone(), id.clone(), method.clone());
                let request = IncomingRequest {
                    id,
                    method,
                    params,
                    responder,
                };
                inbound.request(&peer, request).await
            }
            Err(e) => tracing::warn!(
                peer = %peer.shared.name,
                "unreadable line ({e}): {}",
                truncate(&text, 200)
            ),
        }
    };
    peer.close_calls(reason);
    if let Some(eof) = &options.eof {
        eof.cancel();
    }
    let exit = match options.exit {
        Some(mut rx) => {
            let waited = tokio::time::timeout(EXIT_WAIT, rx.wait_for(Option::is_some)).await;
            match waited {
                Ok(Ok(info)) => info.clone(),
                _ => None,
            }
        }
        None => None,
    };
    inbound.closed(&peer, exit).await;
}
