//! One turn's timeline as a host sees it (prompt written, first assistant text, turn end),
//! lined up with the mock model server's own clock (request arrived, answer's last byte), so
//! a turn splits into "before the model" and "after the model" for every way of driving a CLI.

use super::bridge::unix_nanos;
use mock_llm::RecordedRequest;
use std::time::Instant;

/// Maps this process's `Instant`s onto the wall clock the mock stamps with (µs since the
/// epoch).
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    instant: Instant,
    unix_us: i64,
}

impl Clock {
    pub fn now() -> Clock {
        Clock {
            instant: Instant::now(),
            unix_us: (unix_nanos() / 1000) as i64,
        }
    }

    /// `at` in microseconds since the Unix epoch.
    pub fn unix_us(&self, at: Instant) -> i64 {
        match at.checked_duration_since(self.instant) {
            Some(d) => self.unix_us + d.as_micros() as i64,
            None => self.unix_us - self.instant.duration_since(at).as_micros() as i64,
        }
    }
}

/// What the host saw of one turn.
#[derive(Debug, Clone, Copy)]
pub struct TurnStamps {
    /// The prompt was written to the pipe.
    pub sent: Instant,
    /// The first assistant text arrived (a delta, a chunk or an item).
    pub first_output: Option<Instant>,
    /// The turn's end arrived (`result`, the prompt's answer, the `session.turn` end).
    pub end: Instant,
}

/// One turn's durations, in nanoseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Phases {
    pub turn: i64,
    /// Prompt written -> the first model request arrived.
    pub to_model: Option<i64>,
    /// The last model answer's end -> the turn end read.
    pub after_model: Option<i64>,
    /// Prompt written -> first assistant text read.
    pub first_output: Option<i64>,
}

/// Splits a turn with the model requests that arrived during it (`is_model` picks the
/// generation calls out of the log: no token counts, no traps).
pub fn phases(
    clock: &Clock,
    turn: &TurnStamps,
    log: &[RecordedRequest],
    is_model: impl Fn(&str) -> bool,
) -> Phases {
    let sent = clock.unix_us(turn.sent);
    let end = clock.unix_us(turn.end);
    let during: Vec<&RecordedRequest> = log
        .iter()
        .filter(|r| is_model(&r.path))
        .filter(|r| (r.at_unix_us as i64) >= sent && (r.at_unix_us as i64) <= end)
        .collect();
    let ns = |us: i64| us * 1000;
    let first = during.iter().map(|r| r.at_unix_us).min();
    let last_done = during.iter().filter_map(|r| r.done_unix_us).max();
    Phases {
        turn: turn.end.saturating_duration_since(turn.sent).as_nanos() as i64,
        to_model: first.map(|at| ns(at as i64 - sent)),
        after_model: last_done.map(|done| ns(end - done as i64)),
        first_output: turn
            .first_output
            .map(|at| at.saturating_duration_since(turn.sent).as_nanos() as i64),
    }
}

/// Anthropic generation requests (not `count_tokens`).
pub fn anthropic_generation(path: &str) -> bool {
    let path = path.split('?').next().unwrap_or(path);
    path.ends_with("/v1/messages")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::time::Duration;

    #[test]
    fn a_turn_splits_around_its_model_requests() {
        let clock = Clock::now();
        let base = clock.unix_us(clock.instant) as u64;
        let turn = TurnStamps {
            sent: clock.instant + Duration::from_millis(10),
            first_output: Some(clock.instant + Duration::from_millis(40)),
            end: clock.instant + Duration::from_millis(50),
        };
        let req = |path: &str, at_ms: u64, done_ms: Option<u64>| {
            crate::host::mock::recorded(
                mock_llm::Family::Anthropic,
                path,
                base + at_ms * 1000,
                done_ms.map(|d| base + d * 1000),
            )
        };
        let log = vec![
            req("/v1/messages", 5, Some(8)), // the previous turn's
            req("/v1/messages/count_tokens", 12, Some(13)),
            req("/v1/messages?beta=true", 30, Some(38)),
            req("/v1/messages", 39, Some(45)),
        ];
        let p = phases(&clock, &turn, &log, anthropic_generation);
        let near =
            |got: Option<i64>, ms: i64| got.is_some_and(|ns| (ns - ms * 1_000_000).abs() < 2_000);
        assert_eq!(p.turn, 40_000_000);
        assert!(near(p.to_model, 20), "{p:?}");
        assert!(near(p.after_model, 5), "{p:?}");
        assert_eq!(p.first_output, Some(30_000_000));
        let none = phases(&clock, &turn, &[], anthropic_generation);
        assert_eq!((none.to_model, none.after_model), (None, None));
    }

    #[test]
    fn the_clock_maps_instants_both_ways() {
        let clock = Clock::now();
        let later = clock.instant + Duration::from_millis(3);
        assert_eq!(clock.unix_us(later), clock.unix_us + 3000);
        if let Some(earlier) = clock.instant.checked_sub(Duration::from_millis(2)) {
            assert_eq!(clock.unix_us(earlier), clock.unix_us - 2000);
        }
    }

    #[test]
    fn generation_paths_are_told_apart() {
        assert!(anthropic_generation("/v1/messages?beta=true"));
        assert!(!anthropic_generation("/v1/messages/count_tokens"));
    }
}
