//! Codex's availability: the CLI is found, new enough, logged in (or configured with a
//! provider that needs no login), and whether its Linux sandbox runs — told apart as
//! `missing`, `incompatible`, `unrunnable` (with what to do) and `available` (with a note
//! when the sandbox cannot run), without a model turn.

use crate::auth::{AuthCache, Check};
use crate::launch;
use crate::sandbox_cache::SandboxCache;
use agent_bridge_core::login::Login;
use agent_bridge_core::supervisor::LaunchOverride;
use agent_bridge_protocol::{AvailabilityStatus, ProviderAvailability};

pub async fn check(
    auth: &AuthCache,
    sandbox: &SandboxCache,
    launch: &LaunchOverride,
) -> ProviderAvailability {
    if let Err(e) = launch.resolve(launch::DEFAULT_PROGRAM) {
        return ProviderAvailability::with(
            AvailabilityStatus::Missing,
            format!("{e}; install Codex with `npm install -g @openai/codex`"),
        );
    }
    let version = match launch::probe_version(launch).await {
        Ok(v) => v,
        Err(e) => return ProviderAvailability::with(AvailabilityStatus::Unrunnable, e.to_string()),
    };
    if version < launch::MIN_VERSION {
        return ProviderAvailability::with(
            AvailabilityStatus::Incompatible,
            format!(
                "codex {version} is older than {}, the oldest app-server protocol this bridge speaks; update with `npm install -g @openai/codex@latest`",
                launch::MIN_VERSION
            ),
        );
    }
    let (login, problem) = tokio::join!(auth.check(launch), sandbox.problem(launch));
    combine(login, problem)
}

/// The login check and the sandbox probe as one answer.
pub fn combine(login: Check, sandbox_problem: Option<String>) -> ProviderAvailability {
    let login = match login {
        Check::Broken(why) => {
            return ProviderAvailability::with(
                AvailabilityStatus::Unrunnable,
                format!("`codex app-server` does not start: {why}"),
            )
        }
        Check::Login(login @ Login::LoggedOut(_)) => return login.availability("Codex"),
        Check::Login(login) => login.availability("Codex"),
    };
    let sandbox = sandbox_problem.map(|problem| {
        format!("Codex's Linux sandbox cannot run here ({problem}); the read-only and auto modes cannot run commands, use ask or full-access")
    });
    let notes: Vec<String> = login.diagnostic.into_iter().chain(sandbox).collect();
    if notes.is_empty() {
        ProviderAvailability::available()
    } else {
        ProviderAvailability::with(AvailabilityStatus::Available, notes.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_login_decides_before_the_sandbox() {
        let out = combine(
            Check::Login(Login::LoggedOut("run `codex login`".into())),
            Some("bwrap".into()),
        );
        assert_eq!(
            (out.status, out.diagnostic.as_deref()),
            (
                AvailabilityStatus::Unrunnable,
                Some("Codex is not logged in: run `codex login`")
            )
        );
        let broken = combine(Check::Broken("config.toml: unknown field".into()), None);
        assert_eq!(broken.status, AvailabilityStatus::Unrunnable);
        assert!(broken
            .diagnostic
            .unwrap_or_default()
            .contains("unknown field"));
        let fine = combine(Check::Login(Login::LoggedIn("chatgpt".into())), None);
        assert_eq!(fine, ProviderAvailability::available());
        let noted = combine(
            Check::Login(Login::Unknown("timed out".into())),
            Some("bwrap: denied".into()),
        );
        assert_eq!(noted.status, AvailabilityStatus::Available);
        let d = noted.diagnostic.unwrap_or_default();
        assert!(
            d.contains("timed out") && d.contains("bwrap: denied"),
            "{d}"
        );
    }
}
