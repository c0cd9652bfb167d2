//! Whether Claude Code is logged in, from the CLI's own `claude auth status` (no model turn).
//!
//! Claude Code 2.1.197 prints JSON and exits 1 when it has no credentials
//! (`{"loggedIn": false, "authMethod": "none", ...}`), and `loggedIn: true` with the method
//! otherwise: a `/login` (OAuth), `ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN`, an `apiKeyHelper`
//! setting, Bedrock / Vertex. The answer is remembered per binary, environment and the files
//! a login writes (see [`agent_bridge_core::probe_cache`]); a "not logged in" is re-checked
//! after a short while, so a login done meanwhile is seen without a restart.

use crate::DEFAULT_PROGRAM;
use agent_bridge_core::login::Login;
use agent_bridge_core::probe;
use agent_bridge_core::probe_cache::{self, ProbeCache};
use agent_bridge_core::supervisor::LaunchOverride;
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

/// What to do when Claude Code is not logged in.
pub const LOGIN_HINT: &str = "run `claude /login` or set ANTHROPIC_API_KEY";
/// Longest `claude auth status` may run.
const STATUS_TIMEOUT: Duration = Duration::from_secs(15);
/// Longest an availability check waits for it (it goes on in the background).
pub const STATUS_WAIT: Duration = Duration::from_secs(8);

/// Reads `claude auth status` output (JSON on stdout; exit 1 when logged out).
pub fn parse_status(stdout: &str) -> Login {
    let json = stdout
        .find('{')
        .and_then(|at| serde_json::from_str::<Value>(stdout[at..].trim()).ok());
    let Some(json) = json else {
        let first = stdout.lines().map(str::trim).find(|l| !l.is_empty());
        return Login::Unknown(format!(
            "unreadable `claude auth status` output{}",
            first.map(|l| format!(": {l}")).unwrap_or_default()
        ));
    };
    match json.get("loggedIn").and_then(Value::as_bool) {
        Some(true) => Login::LoggedIn(
            json.get("authMethod")
                .and_then(Value::as_str)
                .unwrap_or("unknown")
                .to_string(),
        ),
        Some(false) => Login::LoggedOut(LOGIN_HINT.into()),
        None => Login::Unknown("`claude auth status` did not say `loggedIn`".into()),
    }
}

/// The files Claude Code's login state lives in, for the cache key.
fn login_files(env: &std::collections::BTreeMap<String, String>) -> Vec<PathBuf> {
    let home = env.get("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    let config = env
        .get("CLAUDE_CONFIG_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from);
    let mut files = Vec::new();
    match (&config, &home) {
        (Some(dir), _) => files.push(dir.join(".claude.json")),
        (None, Some(home)) => files.push(home.join(".claude.json")),
        _ => {}
    }
    if let Some(dir) = config.or_else(|| home.map(|h| h.join(".claude"))) {
        files.push(dir.join(".credentials.json"));
        files.push(dir.join("settings.json"));
    }
    files
}

/// Runs `claude auth status` once.
async fn run_status(launch: LaunchOverride) -> Login {
    let spec = launch
        .spec(DEFAULT_PROGRAM, vec!["auth".into(), "status".into()])
        .cwd(std::env::temp_dir());
    match probe::run_probe(&spec, STATUS_TIMEOUT).await {
        Ok(out) => match parse_status(&out.stdout) {
            Login::Unknown(why) if !out.success => {
                let stderr = out.stderr.trim();
                Login::Unknown(if stderr.is_empty() {
                    format!("{why} ({})", out.status)
                } else {
                    format!("{why} ({}: {stderr})", out.status)
                })
            }
            login => login,
        },
        Err(e) => Login::Unknown(e.to_string()),
    }
}

/// Remembered `claude auth status` answers.
#[derive(Debug, Default)]
pub struct AuthCache {
    known: ProbeCache<Login>,
}

impl AuthCache {
    /// The login state of `launch`; `Unknown` when the check did not answer within `wait`.
    pub async fn login(&self, launch: &LaunchOverride, wait: Duration) -> Login {
        let env = launch.effective_env(&Default::default());
        let key = format!(
            "claude-auth|{}|{}|{}|{}|{}",
            launch.program(DEFAULT_PROGRAM),
            launch.args.join(" "),
            probe_cache::binary_stamp(launch, DEFAULT_PROGRAM).await,
            probe_cache::env_digest(&env),
            probe_cache::files_stamp(&login_files(&env)).await,
        );
        let probe = run_status(launch.clone());
        self.known
            .get_within(&key, Some(wait), Login::fresh_for, probe)
            .await
            .unwrap_or_else(|| {
                Login::Unknown(format!(
                    "`claude auth status` did not answer within {} s",
                    wait.as_secs()
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::collections::BTreeMap;

    #[test]
    fn the_status_json_of_2_1_197_parses() {
        let out = "{\n  \"loggedIn\": false,\n  \"authMethod\": \"none\",\n  \"apiProvider\": \"firstParty\"\n}\n";
        assert_eq!(parse_status(out), Login::LoggedOut(LOGIN_HINT.into()));
        let key = r#"{"loggedIn": true, "authMethod": "api_key", "apiProvider": "firstParty", "apiKeySource": "ANTHROPIC_API_KEY"}"#;
        assert_eq!(parse_status(key), Login::LoggedIn("api_key".into()));
        let helper =
            r#"{"loggedIn": true, "authMethod": "api_key_helper", "apiKeySource": "apiKeyHelper"}"#;
        assert_eq!(
            parse_status(helper),
            Login::LoggedIn("api_key_helper".into())
        );
        // A warning line before the JSON does not hide it.
        let noisy = "Claude configuration file not found\n{\"loggedIn\": true, \"authMethod\": \"oauth_token\"}";
        assert_eq!(parse_status(noisy), Login::LoggedIn("oauth_token".into()));
    }

    #[test]
    fn other_output_is_unknown_not_logged_out() {
        assert!(matches!(
            parse_status("error: unknown command 'auth'"),
            Login::Unknown(why) if why.contains("unknown command")
        ));
        assert!(matches!(parse_status(""), Login::Unknown(_)));
        assert!(matches!(
            parse_status("{\"authMethod\": \"none\"}"),
            Login::Unknown(_)
        ));
    }

    #[test]
    fn login_files_follow_the_config_dir() {
        let env = BTreeMap::from([("HOME".to_string(), "/h".to_string())]);
        assert_eq!(
            login_files(&env),
            [
                "/h/.claude.json",
                "/h/.claude/.credentials.json",
                "/h/.claude/settings.json"
            ]
            .map(PathBuf::from)
        );
        let mut env = env;
        env.insert("CLAUDE_CONFIG_DIR".into(), "/c".into());
        assert_eq!(
            login_files(&env),
            [
                "/c/.claude.json",
                "/c/.credentials.json",
                "/c/settings.json"
            ]
            .map(PathBuf::from)
        );
    }
}
