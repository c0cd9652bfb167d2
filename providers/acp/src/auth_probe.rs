//! Whether an ACP agent is logged in, for availability: the profile's cheap evidence first
//! ([`crate::auth`]); without it, where the profile asks for a probe, the agent itself — start
//! it, `initialize`, `session/new` in a temp folder, stop it (no prompt, so no model turn). A
//! `session/new` refused with ACP's `auth_required` (-32000) means not logged in; the answer
//! names the agent's `authMethods`. Probe answers are remembered per launch, binary,
//! environment and the evidence files (a login done meanwhile is seen at the next check).

use crate::launch::{self, AUTH_REQUIRED};
use crate::profile::Profile;
use crate::wire::{method, requests, AuthMethod};
use agent_bridge_core::login::Login;
use agent_bridge_core::probe_cache::{self, ProbeCache};
use agent_bridge_core::rpc::PeerError;
use agent_bridge_core::supervisor::LaunchOverride;

use std::time::Duration;

/// Longest a whole probe (start, `initialize`, `session/new`, stop) may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(40);
/// Longest an availability check waits for a probe (it goes on in the background).
pub const PROBE_WAIT: Duration = Duration::from_secs(7);

/// The login methods an agent advertised, for a person: `name (description)`.
pub fn methods_text(methods: &[AuthMethod]) -> String {
    methods
        .iter()
        .map(|m| match (&m.name, &m.description) {
            (Some(n), Some(d)) => format!("{n} ({d})"),
            (Some(n), None) => n.clone(),
            _ => m.id.clone(),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// What to do, from the profile's hint, the agent's refusal and its login methods.
pub fn logged_out(hint: &str, label: &str, refusal: &str, methods: &[AuthMethod]) -> Login {
    let mut what = hint.to_string();
    if !refusal.trim().is_empty() {
        what.push_str(&format!(" ({label} says: {})", refusal.trim()));
    }
    if !methods.is_empty() {
        what.push_str(&format!("; its login methods: {}", methods_text(methods)));
    }
    Login::LoggedOut(what)
}

async fn probe(profile: Profile, launch: LaunchOverride, hint: String) -> Login {
    let cwd = std::env::temp_dir().display().to_string();
    let spec = launch::spec(&profile, &launch, Some(&cwd), &Default::default());
    let run = async {
        let agent = match launch::start_for_query(&profile, &spec).await {
            Ok(agent) => agent,
            Err(e) => return Login::Unknown(e.message),
        };
        let answer = agent
            .runtime
            .rpc()
            .call(method::SESSION_NEW, requests::new_session(&cwd, vec![]))
            .await;
        match answer {
            Ok(v) => {
                agent.shutdown(v["sessionId"].as_str()).await;
                Login::LoggedIn("session/new succeeded".into())
            }
            Err(PeerError::Rpc { error, .. }) if error.code == AUTH_REQUIRED => {
                agent.shutdown(None).await;
                logged_out(
                    &hint,
                    &profile.label,
                    &error.message,
                    &agent.init.auth_methods,
                )
            }
            Err(e) => {
                let why = agent.error(e).message;
                agent.shutdown(None).await;
                Login::Unknown(format!("`session/new` failed: {why}"))
            }
        }
    };
    match tokio::time::timeout(PROBE_TIMEOUT, run).await {
        Ok(login) => login,
        Err(_) => Login::Unknown(format!(
            "{} did not answer `initialize` and `session/new` within {} s",
            profile.label,
            PROBE_TIMEOUT.as_secs()
        )),
    }
}

/// Remembered probe answers.
#[derive(Debug, Default)]
pub struct AuthCheck {
    known: ProbeCache<Login>,
}

impl AuthCheck {
    /// The login state of the agent `launch` runs; `None` when the profile says nothing
    /// about logins (the agent needs none, or the bridge cannot tell).
    pub async fn login(&self, profile: &Profile, launch: &LaunchOverride) -> Option<Login> {
        let spec = profile.auth.as_ref()?;
        let env = launch.effective_env(&Default::default());
        if let Some(found) = spec.evidence(&env).await {
            return Some(Login::LoggedIn(found));
        }
        if let Some(status) = &spec.status {
            let key = format!(
                "acp-auth-status|{}|{}|{}|{}",
                profile.name,
                status.program_in(&env),
                probe_cache::env_digest(&env),
                probe_cache::files_stamp(&spec.paths(&env)).await,
            );
            let (status, hint) = (status.clone(), spec.hint.clone());
            let run = async move { status.login(&env, &hint).await };
            let login = self
                .known
                .get_within(&key, Some(PROBE_WAIT), Login::fresh_for, run)
                .await
                .unwrap_or_else(|| {
                    Login::Unknown(format!(
                        "its login check did not answer within {} s",
                        PROBE_WAIT.as_secs()
                    ))
                });
            return Some(login);
        }
        if !spec.probe {
            return Some(Login::LoggedOut(spec.hint.clone()));
        }
        let key = format!(
            "acp-auth|{}|{}|{}|{}|{}|{}",
            profile.name,
            launch.program(&profile.program),
            launch.args.join(" "),
            probe_cache::binary_stamp(launch, &profile.program).await,
            probe_cache::env_digest(&env),
            probe_cache::files_stamp(&spec.paths(&env)).await,
        );
        let run = probe(profile.clone(), launch.clone(), spec.hint.clone());
        let login = self
            .known
            .get_within(&key, Some(PROBE_WAIT), Login::fresh_for, run)
            .await
            .unwrap_or_else(|| {
                Login::Unknown(format!(
                    "{} did not answer `session/new` within {} s",
                    profile.label,
                    PROBE_WAIT.as_secs()
                ))
            });
        Some(login)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn method(id: &str, name: Option<&str>, description: Option<&str>) -> AuthMethod {
        AuthMethod {
            id: id.into(),
            name: name.map(str::to_string),
            description: description.map(str::to_string),
        }
    }

    #[test]
    fn a_refusal_names_the_hint_the_agent_and_its_methods() {
        let methods = [
            method(
                "oauth-personal",
                Some("Log in with Google"),
                Some("Log in with your Google account"),
            ),
            method("gemini-api-key", Some("Gemini API key"), None),
            method("x", None, None),
        ];
        assert_eq!(
            logged_out("set GEMINI_API_KEY", "Gemini CLI", "Gemini API key is missing or not configured.", &methods),
            Login::LoggedOut(
                "set GEMINI_API_KEY (Gemini CLI says: Gemini API key is missing or not configured.); its login methods: Log in with Google (Log in with your Google account); Gemini API key; x".into()
            )
        );
        assert_eq!(logged_out("h", "A", "", &[]), Login::LoggedOut("h".into()));
    }
}
