//! Logging in Agentty mode: quiet and bounded. Agentty counts every stderr line toward the 240
//! messages a second after which it stops the plugin, so the log is warn-level by default
//! (`AGENT_BRIDGE_LOG` overrides) and goes through a token bucket: at most
//! [`LOG_BURST`] lines at once and [`LOG_PER_SECOND`] a second on average; what is over is
//! counted and said in one line once the bucket allows it again.

use crate::limits::{LOG_BURST, LOG_PER_SECOND};
use std::io::Write;
use std::sync::Mutex;
use std::time::Instant;

/// Longest log line written (Agentty keeps 2,000 characters of a line).
const LINE_CHARS: usize = 2_000;

/// A token bucket of log lines.
#[derive(Debug)]
pub struct Bucket {
    tokens: f64,
    at: Instant,
    dropped: u64,
}

impl Bucket {
    pub fn new(now: Instant) -> Self {
        Bucket {
            tokens: f64::from(LOG_BURST),
            at: now,
            dropped: 0,
        }
    }

    /// The lines to write now for `lines` wanting out at `now`: possibly a note of what was
    /// dropped before, then as many of `lines` as the bucket allows.
    pub fn admit(&mut self, now: Instant, lines: Vec<String>) -> Vec<String> {
        let elapsed = now.duration_since(self.at).as_secs_f64();
        self.at = now;
        self.tokens = (self.tokens + elapsed * f64::from(LOG_PER_SECOND)).min(f64::from(LOG_BURST));
        let mut out = Vec::new();
        if self.dropped > 0 && self.tokens >= 1.0 {
            self.tokens -= 1.0;
            out.push(format!(
                "agent-bridge: {} log lines dropped (at most {LOG_PER_SECOND} a second in Agentty)",
                self.dropped
            ));
            self.dropped = 0;
        }
        for line in lines {
            if self.tokens >= 1.0 {
                self.tokens -= 1.0;
                out.push(line);
            } else {
                self.dropped += 1;
            }
        }
        out
    }
}

static BUCKET: Mutex<Option<Bucket>> = Mutex::new(None);

/// Writes `text` (one formatted event, maybe several lines) to stderr through the bucket.
fn emit(text: &[u8]) {
    let text = String::from_utf8_lossy(text);
    let lines: Vec<String> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| crate::limits::cut(l, LINE_CHARS))
        .collect();
    if lines.is_empty() {
        return;
    }
    let now = Instant::now();
    let admitted = match BUCKET.lock() {
        Ok(mut bucket) => bucket
            .get_or_insert_with(|| Bucket::new(now))
            .admit(now, lines),
        Err(_) => return,
    };
    let mut err = std::io::stderr().lock();
    for line in admitted {
        let _ = writeln!(err, "{line}");
    }
}

/// One event's writer: collects the formatted event, hands it to the bucket when dropped.
pub struct Gate(Vec<u8>);

impl Write for Gate {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        emit(&self.0);
    }
}

struct Gated;

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Gated {
    type Writer = Gate;

    fn make_writer(&'a self) -> Gate {
        Gate(Vec::new())
    }
}

/// Installs the Agentty-mode logger (warn unless `AGENT_BRIDGE_LOG` says otherwise).
pub fn init() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("AGENT_BRIDGE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(Gated)
        .with_ansi(false)
        .with_target(false)
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_flood_of_log_lines_is_cut_to_the_bucket_and_counted() {
        let t0 = Instant::now();
        let mut b = Bucket::new(t0);
        let lines = |n: usize| (0..n).map(|i| format!("line {i}")).collect::<Vec<_>>();
        let first = b.admit(t0, lines(100));
        assert_eq!(first.len(), LOG_BURST as usize, "a burst, then nothing");
        // A second later: the note of the 90 dropped lines, then what the refill allows.
        let later = b.admit(t0 + Duration::from_secs(1), lines(100));
        assert_eq!(later.len(), LOG_PER_SECOND as usize);
        assert!(later[0].contains("90 log lines dropped"), "{later:?}");
        // Over ten seconds of constant flooding, at most burst + rate x time lines get out.
        let mut written = 0;
        for s in 2..12 {
            written += b.admit(t0 + Duration::from_secs(s), lines(1000)).len();
        }
        assert!(written <= (LOG_PER_SECOND * 10) as usize, "{written}");
    }
}
