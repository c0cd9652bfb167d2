//! What OpenCode and Kilo (its fork) need beyond ACP: both run OpenCode's HTTP server inside
//! their `acp` process, and the bridge uses it for what ACP cannot do. The profile says which
//! agent has which of these (data in `profiles.json`: `embeddedServer`, `serverPasswordEnv`,
//! `retryLog`, `spareWarmup`); the behaviour is here, and the rest of the crate calls it only
//! through these modules.
//!
//! - [`embedded_server`]: where the server listens (a port chosen per spawn) and a client of it;
//! - [`server_password`]: a password for that server, drawn once per run;
//! - [`revert`] and [`revert_tag`]: rewinding a session, and the revert token of a live turn;
//! - [`archive`]: archiving a session;
//! - [`retry_log`]: model retries the agent only logs on stderr;
//! - [`spare_warmup`]: a fresh spare resumes and closes the last session before it is offered.
//!
//! These modules depend on the profile, the session state and the wire types, never on the
//! launch or session code that calls them.

pub mod archive;
pub mod embedded_server;
pub mod retry_log;
pub mod revert;
pub mod revert_tag;
pub mod server_password;
pub mod spare_warmup;
