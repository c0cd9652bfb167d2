//! Encoders from a [`Reply`] to each API family's wire format: SSE frames for streaming
//! requests and a JSON body for non-streaming ones.

pub mod anthropic;
pub mod gemini;
pub mod openai_chat;
pub mod openai_responses;

use crate::reply::Reply;
use std::time::Duration;

/// One SSE event (already formatted, ending with a blank line) and the pause before it.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub delay: Duration,
    pub data: String,
}

impl Frame {
    /// `event: <name>\ndata: <json>\n\n`.
    pub fn event(name: &str, data: &serde_json::Value) -> Frame {
        Frame {
            delay: Duration::ZERO,
            data: format!("event: {name}\ndata: {data}\n\n"),
        }
    }

    /// `data: <payload>\n\n`.
    pub fn data(payload: impl std::fmt::Display) -> Frame {
        Frame {
            delay: Duration::ZERO,
            data: format!("data: {payload}\n\n"),
        }
    }

    /// The same frame sent after `delay`.
    pub fn after(mut self, delay: Duration) -> Frame {
        self.delay = delay;
        self
    }
}

/// Per-response details the encoders need.
#[derive(Debug, Clone, PartialEq)]
pub struct Ctx {
    /// Model name echoed back.
    pub model: String,
    /// Unique number of this response (for ids).
    pub seq: u64,
    /// Unix time in seconds.
    pub created: u64,
}

impl Ctx {
    pub fn new(model: Option<&str>, seq: u64) -> Ctx {
        let created = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        Ctx {
            model: model.unwrap_or("mock-model").to_string(),
            seq,
            created,
        }
    }

    /// An id like `msg_mock0007`.
    pub fn id(&self, prefix: &str) -> String {
        format!("{prefix}_mock{:04}", self.seq)
    }
}

/// Token counts reported by every family (fixed, small, non-zero).
pub const INPUT_TOKENS: u64 = 10;
pub const OUTPUT_TOKENS: u64 = 5;

/// The text deltas of a text reply with the pause before each: a normal text goes out in two
/// halves (so clients' delta concatenation is exercised), a slow text chunk by chunk.
pub fn text_deltas(reply: &Reply) -> Vec<(String, Duration)> {
    match reply {
        Reply::Text(t) => {
            let mid = t
                .char_indices()
                .map(|(i, _)| i)
                .find(|i| *i >= (t.len() / 2).max(1))
                .unwrap_or(t.len());
            let (a, b) = t.split_at(mid);
            if b.is_empty() {
                // Empty or one-character text: a single delta.
                return vec![(t.clone(), Duration::ZERO)];
            }
            vec![
                (a.to_string(), Duration::ZERO),
                (b.to_string(), Duration::ZERO),
            ]
        }
        Reply::SlowText { chunks, interval } => chunks
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let delay = if i == 0 { Duration::ZERO } else { *interval };
                (c.clone(), delay)
            })
            .collect(),
        Reply::ToolCall { .. } | Reply::Error { .. } => Vec::new(),
    }
}

#[cfg(test)]
#[path = "sse_tests.rs"]
mod tests;
