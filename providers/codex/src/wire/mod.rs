//! Hand-written serde types for the parts of the `codex app-server` protocol (v2) the bridge
//! uses, derived from the CLI's own schema (`codex app-server generate-json-schema`, 0.171.0;
//! see `schema/methods.json`). Unknown notifications, server requests, item types and enum
//! values deserialize to an `Other`/`Unknown` arm instead of failing.

pub mod items;
pub mod notify;
pub mod params;
pub mod thread;
