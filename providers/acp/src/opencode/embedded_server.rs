//! The HTTP server an agent runs beside ACP, for what ACP cannot ask. `opencode acp` serves
//! OpenCode's whole HTTP API from the same process, its ACP session ids are the server's
//! session ids, and its ACP layer is itself a client of that server (docs/opencode-serve.md).
//! The bridge uses it to rewind a session ([`crate::opencode::revert`]).
//!
//! Nothing tells where it listens: with no port flag it takes 4096, or a random port when that
//! is taken, and prints neither. So the bridge chooses: a loopback port free a moment before
//! the spawn, passed with the profile's flags (`--port P --hostname 127.0.0.1`), and a new one
//! when the agent could not bind it (it exits before answering `initialize`). The port is
//! chosen at each spawn, after the launch's key was taken from the spec, so sessions of a
//! launch still share a process. It travels with that process's `initialize` answer (under
//! [`PORT_KEY`], a name no ACP field has), which every session on the process reads. Requests
//! carry the server's password ([`crate::opencode::server_password`]) as HTTP basic auth.

use crate::opencode::server_password;
use crate::profile::Profile;
use agent_bridge_core::loopback_http::{free_port, LoopbackHttp};
use agent_bridge_core::supervisor::SpawnSpec;
use agent_bridge_protocol::ProviderError;
use serde_json::{json, Value};
use std::time::Duration;

pub use crate::profile::EmbeddedServer;

/// Where the server's port is kept in the process's `initialize` answer.
pub const PORT_KEY: &str = "agentBridge/serverPort";
/// Longest one request to the server may take.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(15);
/// Starts of an agent, each on a newly chosen port, before a taken port is an error.
pub const PORT_ATTEMPTS: usize = 3;

/// `spec` with the agent's server on a free loopback port, and the port (`None`, and `spec`
/// unchanged, for an agent without one).
pub fn on_free_port(
    profile: &Profile,
    spec: &SpawnSpec,
) -> Result<(SpawnSpec, Option<u16>), ProviderError> {
    let Some(server) = &profile.embedded_server else {
        return Ok((spec.clone(), None));
    };
    let port = free_port().map_err(|e| {
        ProviderError::new(format!(
            "no free loopback port for {}'s server: {e}",
            profile.label
        ))
    })?;
    let mut spec = spec.clone();
    spec.args.extend([
        server.port_flag.clone(),
        port.to_string(),
        server.hostname_flag.clone(),
        "127.0.0.1".to_string(),
    ]);
    Ok((spec, Some(port)))
}

/// Records `port` in the process's `initialize` answer.
pub fn mark(answer: &mut Value, port: u16) {
    if let Some(fields) = answer.as_object_mut() {
        fields.insert(PORT_KEY.to_string(), json!(port));
    }
}

/// A client of the server of the process whose `initialize` answer is `handshake` (started
/// from `spec`), where the profile has one.
pub fn client(profile: &Profile, spec: &SpawnSpec, handshake: &Value) -> Option<LoopbackHttp> {
    let server = profile.embedded_server.as_ref()?;
    let port = handshake
        .get(PORT_KEY)
        .and_then(Value::as_u64)
        .and_then(|p| u16::try_from(p).ok())?;
    let http = LoopbackHttp::new(port, CALL_TIMEOUT);
    let password = profile
        .server_password_env
        .as_deref()
        .and_then(|name| server_password::value(spec, name))
        .filter(|p| !p.is_empty());
    let Some(password) = password else {
        return Some(http);
    };
    let user = server
        .user_env
        .as_deref()
        .and_then(|name| server_password::value(spec, name))
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| server.user.clone());
    Some(http.basic_auth(&user, &password))
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_bridge_core::supervisor::LaunchOverride;
    use pretty_assertions::assert_eq;
    use std::collections::BTreeMap;

    fn opencode() -> Profile {
        crate::profile::builtin("opencode").expect("the opencode profile")
    }

    #[test]
    fn the_port_is_chosen_per_spawn_and_kept_with_the_handshake() {
        let profile = opencode();
        let launch = LaunchOverride {
            env: Some(BTreeMap::new()),
            ..LaunchOverride::default()
        };
        let spec = crate::launch::spec(&profile, &launch, Some("/tmp"), &BTreeMap::new());
        let (with_port, port) = on_free_port(&profile, &spec).expect("a port");
        let port = port.expect("opencode runs a server");
        assert_eq!(
            with_port.args[spec.args.len()..],
            [
                "--port".to_string(),
                port.to_string(),
                "--hostname".into(),
                "127.0.0.1".into()
            ]
        );
        assert_eq!(
            agent_bridge_core::lifecycle::SharedKey::of(&spec),
            agent_bridge_core::lifecycle::SharedKey::of(&spec.clone()),
            "the launch key is taken before the port is added"
        );
        let mut answer = json!({"protocolVersion": 1});
        mark(&mut answer, port);
        let http = client(&profile, &spec, &answer).expect("a client");
        assert_eq!(http.port(), port);
        assert!(
            format!("{http:?}").contains("<set>"),
            "the bridge's password is used: {http:?}"
        );
        assert!(client(&profile, &spec, &json!({"protocolVersion": 1})).is_none());
    }

    #[test]
    fn agents_without_a_server_are_spawned_as_they_are() {
        let profile = crate::profile::builtin("gemini").expect("gemini");
        let spec =
            crate::launch::spec(&profile, &LaunchOverride::default(), None, &BTreeMap::new());
        let (same, port) = on_free_port(&profile, &spec).expect("spec");
        assert_eq!((same.args, port), (spec.args.clone(), None));
        assert!(client(&profile, &spec, &json!({PORT_KEY: 4096})).is_none());
    }
}
