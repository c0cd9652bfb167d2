//! What each turn of a soak does, decided up front from the seed: the same seed, sessions and
//! rates give the same turns whatever the timing.

use serde::Serialize;

/// SplitMix64: small, seedable, good enough to pick turns.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [0, n] (n itself included).
    pub fn up_to(&mut self, n: u64) -> u64 {
        self.next_u64() % (n + 1)
    }
}

/// One turn of a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Action {
    /// A plain reply.
    Text,
    /// A shell command through the agent's tool; a permission asked for is answered so.
    Tool { allow: bool },
    /// A long reply, interrupted `after_ms` after it began to stream.
    Interrupt { after_ms: u64 },
    /// `kill -9` of the session's CLI `after_ms` after the turn began to stream, or (a tool
    /// turn) after its permission request arrived. The next turn is plain text: it shows
    /// whether the session recovered.
    Kill { at_permission: bool, after_ms: u64 },
}

/// How often each kind of turn comes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rates {
    /// Share of all turns that kill the CLI.
    pub kill: f64,
    pub interrupt: f64,
    /// Share of tool turns among the rest.
    pub tool: f64,
    /// Of the tool turns, the share whose permission is allowed.
    pub allow: f64,
    /// Longest delay before a kill or an interrupt, ms.
    pub max_delay_ms: u64,
}

impl Rates {
    /// Problems with the rates, for the command line.
    pub fn check(&self) -> Result<(), String> {
        let share = |name: &str, v: f64, max: f64| {
            if (0.0..=max).contains(&v) {
                Ok(())
            } else {
                Err(format!("{name} must be between 0 and {max}, not {v}"))
            }
        };
        share("--kill-rate", self.kill, 0.5)?;
        share("--interrupt-rate", self.interrupt, 1.0)?;
        share("--tool-rate", self.tool, 1.0)?;
        share("--allow-rate", self.allow, 1.0)?;
        if self.kill + self.interrupt > 1.0 {
            return Err("--kill-rate plus --interrupt-rate exceeds 1".into());
        }
        Ok(())
    }
}

/// The turns of session number `session` (each session draws from its own stream).
pub fn plan(seed: u64, session: usize, turns: usize, rates: &Rates) -> Vec<Action> {
    let mut rng = Rng::new(seed ^ (session as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03));
    // A kill is never followed by a kill (the next turn is the recovery probe), so where one
    // may come it comes with kill / (1 - kill): `kill` of all turns in the long run.
    let kill = if rates.kill > 0.0 {
        (rates.kill / (1.0 - rates.kill)).min(1.0)
    } else {
        0.0
    };
    let mut out = Vec::with_capacity(turns);
    for _ in 0..turns {
        let after_kill = matches!(out.last(), Some(Action::Kill { .. }));
        let r = rng.unit();
        let delay = rng.up_to(rates.max_delay_ms);
        let coin = rng.unit();
        let action = if after_kill {
            Action::Text
        } else if r < kill {
            Action::Kill {
                at_permission: coin < rates.tool,
                after_ms: delay,
            }
        } else if r < kill + rates.interrupt {
            Action::Interrupt { after_ms: delay }
        } else if rng.unit() < rates.tool {
            Action::Tool {
                allow: coin < rates.allow,
            }
        } else {
            Action::Text
        };
        out.push(action);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    const RATES: Rates = Rates {
        kill: 0.2,
        interrupt: 0.1,
        tool: 0.3,
        allow: 0.5,
        max_delay_ms: 300,
    };

    #[test]
    fn a_seed_gives_the_same_plan_and_sessions_differ() {
        assert_eq!(plan(7, 0, 50, &RATES), plan(7, 0, 50, &RATES));
        assert_ne!(plan(7, 0, 50, &RATES), plan(7, 1, 50, &RATES));
        assert_ne!(plan(7, 0, 50, &RATES), plan(8, 0, 50, &RATES));
    }

    #[test]
    fn kills_come_at_their_rate_and_each_is_followed_by_a_plain_turn() {
        let turns: Vec<Action> = (0..10).flat_map(|s| plan(1, s, 1000, &RATES)).collect();
        let kills = turns
            .iter()
            .filter(|a| matches!(a, Action::Kill { .. }))
            .count();
        let share = kills as f64 / turns.len() as f64;
        assert!((0.18..0.22).contains(&share), "{share}");
        for s in 0..10 {
            let p = plan(1, s, 1000, &RATES);
            for w in p.windows(2) {
                if matches!(w[0], Action::Kill { .. }) {
                    assert_eq!(w[1], Action::Text);
                }
            }
        }
        let tools = turns
            .iter()
            .filter(|a| matches!(a, Action::Tool { .. }))
            .count();
        assert!(tools > 1000, "{tools}");
        assert!(turns.iter().all(|a| match a {
            Action::Kill { after_ms, .. } | Action::Interrupt { after_ms } => *after_ms <= 300,
            _ => true,
        }));
    }

    #[test]
    fn no_kills_at_rate_zero_and_bad_rates_are_refused() {
        let none = Rates { kill: 0.0, ..RATES };
        assert!(plan(3, 0, 500, &none)
            .iter()
            .all(|a| !matches!(a, Action::Kill { .. })));
        assert!(Rates { kill: 0.6, ..RATES }.check().is_err());
        assert!(Rates {
            interrupt: 0.9,
            ..RATES
        }
        .check()
        .is_err());
        assert!(RATES.check().is_ok());
    }
}
