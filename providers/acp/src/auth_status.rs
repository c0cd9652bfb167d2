//! An agent whose login lives with another CLI (claude-agent-acp runs Claude Code) is asked
//! through that CLI's own status command, from the profile's `auth.status`: exit 0 is logged
//! in, exit 1 is not logged in, anything else (not installed, a crash, no answer in time)
//! cannot tell. The command runs with the agent's environment, no stdin, and is killed when
//! it outlives its time.

use agent_bridge_core::login::Login;
use agent_bridge_core::probe::{self, ProbeError};
use agent_bridge_core::supervisor::SpawnSpec;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::time::Duration;

/// Longest a status command may run.
pub const STATUS_TIMEOUT: Duration = Duration::from_secs(10);

/// A profile's `auth.status`: which program answers, and how.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StatusCommand {
    /// The program (found on the agent's PATH).
    pub program: String,
    /// A variable that, when set, names the program instead (e.g. `CLAUDE_CODE_EXECUTABLE`).
    #[serde(default)]
    pub program_env: Option<String>,
    pub args: Vec<String>,
}

impl StatusCommand {
    /// The program this environment runs.
    pub fn program_in(&self, env: &BTreeMap<String, String>) -> String {
        self.program_env
            .as_ref()
            .and_then(|k| env.get(k))
            .filter(|v| !v.trim().is_empty())
            .cloned()
            .unwrap_or_else(|| self.program.clone())
    }

    /// What the command says of the login, `hint` saying what to do when logged out. It runs
    /// through the core's probe (its own process group, bounded time and output).
    pub async fn login(&self, env: &BTreeMap<String, String>, hint: &str) -> Login {
        let program = self.program_in(env);
        let shown = format!("`{} {}`", program, self.args.join(" "));
        let spec = SpawnSpec {
            program,
            args: self.args.clone(),
            base_env: Some(env.clone()),
            cwd: Some(std::env::temp_dir()),
            ..SpawnSpec::default()
        };
        match probe::run_probe(&spec, STATUS_TIMEOUT).await {
            Ok(out) => match out.code {
                Some(0) => Login::LoggedIn(shown),
                Some(1) => Login::LoggedOut(hint.to_string()),
                _ => Login::Unknown(format!("{shown} ended with {}", out.status)),
            },
            Err(ProbeError::Spawn(e)) => Login::Unknown(format!("{shown} could not run: {e}")),
            Err(ProbeError::Timeout { .. }) => Login::Unknown(format!(
                "{shown} did not answer within {} s",
                STATUS_TIMEOUT.as_secs()
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn env() -> BTreeMap<String, String> {
        [(
            "PATH".to_string(),
            std::env::var("PATH").unwrap_or_default(),
        )]
        .into()
    }

    fn sh(script: &str) -> StatusCommand {
        StatusCommand {
            program: "sh".into(),
            program_env: Some("STATUS_PROGRAM".into()),
            args: vec!["-c".into(), script.into()],
        }
    }

    #[tokio::test]
    async fn exit_0_is_logged_in_exit_1_is_not_other_cannot_tell() {
        assert!(matches!(
            sh("exit 0").login(&env(), "log in").await,
            Login::LoggedIn(_)
        ));
        assert_eq!(
            sh("exit 1").login(&env(), "log in").await,
            Login::LoggedOut("log in".into())
        );
        assert!(matches!(
            sh("exit 3").login(&env(), "log in").await,
            Login::Unknown(_)
        ));
        let missing = StatusCommand {
            program: "no-such-status-program".into(),
            ..sh("")
        };
        let Login::Unknown(why) = missing.login(&env(), "log in").await else {
            panic!("a missing program cannot tell");
        };
        assert!(why.contains("not found"), "{why}");
    }

    #[test]
    fn the_program_variable_wins_when_set() {
        let mut e = env();
        assert_eq!(sh("").program_in(&e), "sh");
        e.insert("STATUS_PROGRAM".into(), "/opt/claude".into());
        assert_eq!(sh("").program_in(&e), "/opt/claude");
    }
}
