//! Test helpers: the recorded CLI transcripts and a runner feeding them to a normalizer.

use super::{Mode, NormEvent, Normalizer};
use crate::wire::CliMessage;

/// A recorded transcript (`tests/fixtures/<name>.jsonl`, copied from the shared fixtures).
pub fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}.jsonl", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// Feeds every line of a fixture to a fresh live normalizer.
pub fn run(name: &str) -> Vec<NormEvent> {
    let mut n = Normalizer::new("S", Mode::Live);
    let mut out = Vec::new();
    for line in fixture(name).lines() {
        let msg =
            CliMessage::parse(line).unwrap_or_else(|e| panic!("{name}: bad line {e}: {line:.200}"));
        out.extend(n.handle(&msg));
    }
    out
}
