//! The ACP provider (`providers/acp`) against the fake ACP agent (`tests/fake-acp`), in a plain
//! `cargo test`: the real bridge, a `plugin.json` entry `"agent": "acp"` starting the fake, and a
//! scenario per test (what the agent streams, asks, stores, and when it crashes or hangs). The
//! real CLIs (`agnostic_*.rs`, `#[ignore]`d) stay the end-to-end truth; these pin the provider's
//! own logic deterministically.

mod fake_acp;
