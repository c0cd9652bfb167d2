//! The agent-bridge engine.

pub mod agent;
pub mod codec;
pub mod supervisor;

pub use agent::*;
