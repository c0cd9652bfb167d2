//! Whether Codex can reach its model without a login prompt, from the app-server's own
//! `account/read` (no model turn).
//!
//! `codex login status` is not enough: it says "Not logged in" for a custom `model_provider`
//! whose key comes from an `env_key` (which needs no login). `account/read` answers
//! `{account, requiresOpenaiAuth}` for the configured provider, so "not logged in" is: no
//! account (no `codex login`, no API key saved with `codex login --with-api-key`) while the
//! provider needs OpenAI auth. Codex 0.171's app-server reads neither OPENAI_API_KEY nor
//! CODEX_API_KEY from its environment (checked: its requests then carry no key), so those do
//! not count. The answer is remembered per binary, environment and the files a login writes.

use crate::launch::{self, call_error};
use crate::sandbox_cache::launch_key;
use crate::wire::notify::method;
use agent_bridge_core::login::Login;
use agent_bridge_core::probe_cache::{self, ProbeCache};
use agent_bridge_core::supervisor::LaunchOverride;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// What to do when Codex is not logged in.
pub const LOGIN_HINT: &str = "run `codex login` (with an API key: `printenv OPENAI_API_KEY | codex login --with-api-key`; codex app-server does not read OPENAI_API_KEY itself)";
/// Longest the whole check (start, `account/read`, stop) may take.
const CHECK_TIMEOUT: Duration = Duration::from_secs(20);
/// Longest an availability check waits for it (it goes on in the background).
pub const CHECK_WAIT: Duration = Duration::from_secs(8);

/// Reads an `account/read` answer.
pub fn parse_account(answer: &Value) -> Login {
    let account = answer.get("account").filter(|a| !a.is_null());
    let requires = answer.get("requiresOpenaiAuth").and_then(Value::as_bool);
    match (account, requires) {
        (Some(a), _) => Login::LoggedIn(
            a.get("type")
                .and_then(Value::as_str)
                .unwrap_or("account")
                .to_string(),
        ),
        (None, Some(false)) => Login::LoggedIn("a configured model provider".into()),
        (None, Some(true)) => Login::LoggedOut(LOGIN_HINT.into()),
        (None, None) => {
            Login::Unknown("`account/read` answered without `requiresOpenaiAuth`".into())
        }
    }
}

/// Why the check could not run, when that means sessions cannot either.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    Login(Login),
    /// The app-server did not start (a broken config.toml, say): sessions would fail too.
    Broken(String),
}

/// `$CODEX_HOME` (or `~/.codex`): where a login and the config live.
fn codex_home(env: &BTreeMap<String, String>) -> Option<PathBuf> {
    match env.get("CODEX_HOME").filter(|h| !h.is_empty()) {
        Some(h) => Some(PathBuf::from(h)),
        None => env
            .get("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join(".codex")),
    }
}

async fn run_check(launch: LaunchOverride) -> Check {
    let cwd = std::env::temp_dir().display().to_string();
    let spec = launch::app_server_spec(&launch, Some(&cwd), &BTreeMap::new());
    let checked = async {
        let server = match launch::start_for_query(&spec).await {
            Ok(s) => s,
            Err(e) => {
                let mut why = e.message;
                if let Some(d) = e.diagnostic.filter(|d| !d.trim().is_empty()) {
                    why.push_str(&format!(": {}", d.trim()));
                }
                return Check::Broken(why);
            }
        };
        let answer = server
            .rpc
            .call(method::ACCOUNT_READ, json!({ "refreshToken": false }))
            .await;
        let stderr = server.process.stderr_tail();
        launch::stop(&server).await;
        Check::Login(match answer {
            Ok(v) => parse_account(&v),
            Err(e) => Login::Unknown(call_error(e, &stderr).message),
        })
    };
    match tokio::time::timeout(CHECK_TIMEOUT, checked).await {
        Ok(check) => check,
        Err(_) => Check::Login(Login::Unknown(format!(
            "`codex app-server` did not answer `account/read` within {} s",
            CHECK_TIMEOUT.as_secs()
        ))),
    }
}

fn fresh_for(check: &Check) -> Duration {
    match check {
        Check::Login(l) => l.fresh_for(),
        Check::Broken(_) => agent_bridge_core::login::LOGGED_OUT_FRESH,
    }
}

/// Remembered `account/read` answers.
#[derive(Debug, Default)]
pub struct AuthCache {
    known: ProbeCache<Check>,
}

impl AuthCache {
    /// The login state of `launch`; `Unknown` when the check did not answer in time.
    pub async fn check(&self, launch: &LaunchOverride) -> Check {
        let env = launch.effective_env(&Default::default());
        let files: Vec<PathBuf> = codex_home(&env)
            .map(|h| vec![h.join("auth.json"), h.join("config.toml")])
            .unwrap_or_default();
        let key = format!(
            "{}|{}|{}|{}",
            launch_key(launch),
            probe_cache::binary_stamp(launch, launch::DEFAULT_PROGRAM).await,
            probe_cache::env_digest(&env),
            probe_cache::files_stamp(&files).await,
        );
        let probe = run_check(launch.clone());
        self.known
            .get_within(&key, Some(CHECK_WAIT), fresh_for, probe)
            .await
            .unwrap_or_else(|| {
                Check::Login(Login::Unknown(format!(
                    "`codex app-server` did not answer `account/read` within {} s",
                    CHECK_WAIT.as_secs()
                )))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn account_answers_of_0_171_parse() {
        // Empty CODEX_HOME, default OpenAI provider (even with OPENAI_API_KEY set).
        let none = json!({"account": null, "userId": null, "requiresOpenaiAuth": true, "workspaceRouting": null});
        assert_eq!(parse_account(&none), Login::LoggedOut(LOGIN_HINT.into()));
        // After `codex login --with-api-key`.
        let key = json!({"account": {"type": "apiKey"}, "requiresOpenaiAuth": true});
        assert_eq!(parse_account(&key), Login::LoggedIn("apiKey".into()));
        let chatgpt = json!({"account": {"type": "chatgpt", "email": "a@b", "planType": "plus"}, "requiresOpenaiAuth": true});
        assert_eq!(parse_account(&chatgpt), Login::LoggedIn("chatgpt".into()));
        // A custom `model_provider` with an `env_key` (the test rig's mock).
        let custom = json!({"account": null, "requiresOpenaiAuth": false});
        assert!(matches!(parse_account(&custom), Login::LoggedIn(_)));
        assert!(matches!(parse_account(&json!({})), Login::Unknown(_)));
    }

    #[test]
    fn codex_home_defaults_to_dot_codex() {
        let env = BTreeMap::from([("HOME".to_string(), "/h".to_string())]);
        assert_eq!(codex_home(&env), Some(PathBuf::from("/h/.codex")));
        let mut env = env;
        env.insert("CODEX_HOME".into(), "/c".into());
        assert_eq!(codex_home(&env), Some(PathBuf::from("/c")));
        assert_eq!(codex_home(&BTreeMap::new()), None);
    }
}
