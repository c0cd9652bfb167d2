//! The fuzz targets of agent-bridge, as plain functions of the input bytes that panic when a
//! property fails. The cargo-fuzz crate (`fuzz/`, nightly, outside the workspace) runs each
//! under libFuzzer; `tests/corpus.rs` replays every checked-in corpus and regression input
//! through the same functions on stable, so a crash once found stays fixed.
//!
//! - [`codec`]: the 16 MiB JSON-lines codec (any chunking, any limit);
//! - [`wire`]: the daemon's parsing of a host line and of every method's params;
//! - [`claude`], [`codex`], [`acp`]: each provider's normalizer fed a CLI's stdout.

pub mod acp;
pub mod check;
pub mod claude;
pub mod codec;
pub mod codex;
pub mod wire;

use agent_bridge_core::codec::{BoundedLineCodec, Line, MAX_LINE};
use tokio_util::bytes::BytesMut;
use tokio_util::codec::Decoder;

/// A fuzz target: panics when a property fails.
pub type Target = fn(&[u8]);

/// Every target by its name (the name of its `fuzz/` binary and corpus folder).
pub const TARGETS: [(&str, Target); 5] = [
    ("codec", codec::run),
    ("wire", wire::run),
    ("claude", claude::run),
    ("codex", codex::run),
    ("acp", acp::run),
];

/// The target called `name`.
pub fn target(name: &str) -> Option<Target> {
    TARGETS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// The lines of `data` as the core reads them: split by the transport's line codec, with lines
/// over the limit, lines that are not UTF-8 and blank lines skipped (as the agent peer does).
pub fn text_lines(data: &[u8]) -> Vec<String> {
    lines(MAX_LINE, data)
        .into_iter()
        .filter_map(|l| match l {
            Line::Text(t) if !t.trim().is_empty() => Some(t),
            _ => None,
        })
        .collect()
}

/// Every line the codec (limit `max`) decodes from `data`, end of input included.
pub fn lines(max: usize, data: &[u8]) -> Vec<Line> {
    let mut codec = BoundedLineCodec::new(max);
    let mut buf = BytesMut::from(data);
    let mut out = Vec::new();
    loop {
        match codec.decode_eof(&mut buf) {
            Ok(Some(line)) => out.push(line),
            Ok(None) => return out,
            Err(e) => panic!("the line codec failed: {e}"),
        }
    }
}
