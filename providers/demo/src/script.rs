//! What a prompt asks of the demo agent. Deterministic: the same prompt always does the same.

/// The demo's reading of one prompt.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Script {
    /// `run \`CMD\``: a real shell command to run as a tool call.
    pub command: Option<String>,
    /// `SLOW`: stream slowly (one word per `SLOW_WORD_MS`) so interrupt and steer can land.
    pub slow: bool,
    /// `FAIL`: the turn fails.
    pub fail: bool,
    /// `CRASH`: the runtime dies mid-turn.
    pub crash: bool,
    /// `BENCH n`: emit `n` small timestamped items as fast as possible (for the benchmark).
    pub bench: Option<u32>,
}

pub const SLOW_WORD_MS: u64 = 200;
pub const SLOW_WORDS: usize = 50;

impl Script {
    pub fn parse(prompt: &str) -> Script {
        Script {
            command: run_command(prompt),
            slow: prompt.contains("SLOW"),
            fail: prompt.contains("FAIL"),
            crash: prompt.contains("CRASH"),
            bench: bench_count(prompt),
        }
    }
}

fn run_command(prompt: &str) -> Option<String> {
    let start = prompt.find("run `")? + "run `".len();
    let len = prompt[start..].find('`')?;
    let cmd = prompt[start..start + len].trim();
    (!cmd.is_empty()).then(|| cmd.to_string())
}

fn bench_count(prompt: &str) -> Option<u32> {
    let rest = prompt.split("BENCH").nth(1)?;
    rest.split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn reads_every_directive() {
        let s = Script::parse("please run `echo hi` SLOW then FAIL");
        assert_eq!(s.command.as_deref(), Some("echo hi"));
        assert!(s.slow && s.fail && !s.crash);
        assert_eq!(Script::parse("BENCH 500").bench, Some(500));
        assert_eq!(Script::parse("run `` nothing").command, None);
        assert_eq!(Script::parse("hello"), Script::default());
    }
}
