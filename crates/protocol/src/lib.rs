//! Wire types for agent-bridge, version 1.
//!
//! Two layers live here, and the rules a host checks them by:
//! - the crate root ([`input`], [`event`] and the modules of the types they carry): Paseo's
//!   provider protocol ([`ProviderInput`], [`ProviderEvent`] and every type they carry), as the
//!   newest Paseo plugin guide describes it (`controls`, `providerOptions`,
//!   `session.can_stop_runtime`, `launch`).
//! - [`wire`]: the bridge's JSON-RPC 2.0 contract (`initialize`, `provider/*`, error codes).
//! - [`invariants`]: the protocol rules that span events (one prompt result per prompt, an end
//!   for every started turn, one answer per request, ...), checked by any host that watches a
//!   bridge: the conformance host, `agent-bridge-dev soak`.
//!
//! Inputs (host -> bridge) parse liberally ([`liberal`]): a field the bridge does not know is
//! ignored (a newer Paseo grows its inputs release by release), a known field of the wrong type is
//! refused naming the field. Events (bridge -> host) serialize exactly as Paseo validates them: optional fields are omitted,
//! never `null`.

pub mod capability;
pub mod catalog;
pub mod content;
pub mod error_code;
pub mod event;
pub mod input;
pub mod invariants;
pub mod jsonrpc;
pub mod liberal;
pub mod permission;
pub mod schema;
pub mod session;
pub mod timeline;
pub mod wire;

pub use capability::Capability;
pub use catalog::*;
pub use content::*;
pub use error_code::ErrorCode;
pub use event::*;
pub use input::*;
pub use permission::*;
pub use session::*;
pub use timeline::*;

/// `PROVIDER_PROTOCOL_VERSION` of Paseo's provider protocol.
pub const PROVIDER_PROTOCOL_VERSION: u32 = 1;
/// Version of the bridge wire contract (`docs/wire.md`).
pub const BRIDGE_API_VERSION: u32 = 1;

/// A JSON value, as carried opaquely on the wire.
pub type Json = serde_json::Value;
/// A JSON object of opaque values (`Record<string, Json>`).
pub type JsonMap = serde_json::Map<String, serde_json::Value>;
