//! The `claude` command line of a session, and the version probe.

use crate::DEFAULT_PROGRAM;
use agent_bridge_core::probe;
use agent_bridge_core::supervisor::{LaunchOverride, SpawnError, SpawnSpec};
use agent_bridge_protocol::{McpServerConfig, ProviderSessionConfig};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// The oldest Claude Code this provider drives (control protocol with `initialize` models,
/// `--replay-user-messages`, `apply_flag_settings`).
pub const MIN_VERSION: Version = Version::new(2, 1, 0);

/// The variable that turns on file checkpoints for a CLI driven through stream-json.
pub const FILE_CHECKPOINTING: &str = "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING";

/// What a session process is started with.
#[derive(Debug, Clone, Default)]
pub struct LaunchOptions {
    pub cwd: String,
    pub model: Option<String>,
    pub mode: String,
    pub effort: Option<String>,
    pub resume: Option<String>,
    /// With `resume`: keep the conversation only up to this message (`--resume-session-at`,
    /// a rewind).
    pub resume_at: Option<String>,
    pub system_prompt: Option<String>,
    pub mcp_servers: BTreeMap<String, McpServerConfig>,
    pub denied_tools: Vec<String>,
    pub allowed_tools: Vec<String>,
    /// Let the session switch to `bypassPermissions` later.
    pub allow_bypass: bool,
    /// The session's `providerOptions` (thinking budget, additional folders).
    pub options: crate::options::Options,
    /// The output schema (JSON text) of the prompts this process answers (`--json-schema`: a
    /// process flag, so a prompt with another schema, or none, restarts the CLI).
    pub json_schema: Option<String>,
}

impl LaunchOptions {
    pub fn from_config(config: &ProviderSessionConfig, env: &BTreeMap<String, String>) -> Self {
        let allowed_tools = config
            .tool_policy
            .iter()
            .flat_map(|p| p.preapproved.iter())
            .map(|t| match t {
                agent_bridge_protocol::PreapprovedTool::Mcp { server, tool } => {
                    format!("mcp__{server}__{tool}")
                }
            })
            .collect();
        LaunchOptions {
            cwd: config.cwd.clone(),
            model: config.model.clone().filter(|m| !m.is_empty()),
            mode: config
                .mode
                .clone()
                .unwrap_or_else(|| crate::catalog::DEFAULT_MODE.into()),
            effort: config.thinking_option.clone(),
            resume: None,
            resume_at: None,
            system_prompt: config.system_prompt.clone().filter(|s| !s.is_empty()),
            mcp_servers: config.mcp_servers.clone(),
            denied_tools: config.denied_tools.clone().unwrap_or_default(),
            allowed_tools,
            allow_bypass: bypass_allowed(env),
            options: crate::options::Options::default(),
            json_schema: None,
        }
    }

    /// The CLI arguments (after the launch's own prefix). The MCP servers' config holds
    /// secrets and is never one: `mcp_file` is the private file it was written to (see
    /// [`crate::mcp_file`]); without one no MCP server is passed.
    ///
    /// No `-p`: stream-json input alone runs the CLI as the Agent SDK does (claude-agent-acp
    /// too). The model request is byte for byte the same (tools, system prompt, settings,
    /// permissions), but print mode spends ~10–20 ms more CPU per turn before sending it
    /// (measured with claude 2.1.197; `bench --claude` keeps `-p` for its direct drive).
    pub fn args(&self, mcp_file: Option<&Path>) -> Vec<String> {
        let mut args: Vec<String> = [
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-partial-messages",
            "--replay-user-messages",
            "--permission-prompt-tool",
            "stdio",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.push(format!("--permission-mode={}", self.mode));
        if self.allow_bypass {
            args.push("--allow-dangerously-skip-permissions".into());
        }
        if let Some(model) = self.model.as_deref().filter(|m| *m != "default") {
            args.push(format!("--model={model}"));
        }
        if let Some(effort) = &self.effort {
            args.push(format!("--effort={effort}"));
        }
        args.extend(self.options.args());
        if let Some(id) = &self.resume {
            args.push(format!("--resume={id}"));
            if let Some(at) = &self.resume_at {
                args.push(format!("--resume-session-at={at}"));
            }
        }
        if let Some(schema) = &self.json_schema {
            args.push(format!("--json-schema={schema}"));
        }
        if let Some(prompt) = &self.system_prompt {
            args.push(format!("--append-system-prompt={prompt}"));
        }
        if let Some(file) = mcp_file.filter(|_| !self.mcp_servers.is_empty()) {
            args.push("--mcp-config".into());
            args.push(file.display().to_string());
        }
        if !self.denied_tools.is_empty() {
            args.push(format!("--disallowedTools={}", self.denied_tools.join(",")));
        }
        if !self.allowed_tools.is_empty() {
            args.push(format!("--allowedTools={}", self.allowed_tools.join(",")));
        }
        args
    }

    /// The MCP servers' config JSON (`--mcp-config`), when the session has servers.
    pub fn mcp_config(&self) -> Option<String> {
        (!self.mcp_servers.is_empty()).then(|| mcp_config(&self.mcp_servers))
    }

    /// The spawn of the CLI; `mcp_file` as for [`LaunchOptions::args`].
    pub fn spec(
        &self,
        launch: &LaunchOverride,
        env: &BTreeMap<String, String>,
        mcp_file: Option<&Path>,
    ) -> SpawnSpec {
        // File checkpoints make `rewind_files` possible (the Agent SDK's
        // `enableFileCheckpointing`); `CLAUDE_CODE_DISABLE_FILE_CHECKPOINTING` still wins.
        launch
            .spec(DEFAULT_PROGRAM, self.args(mcp_file))
            .cwd(&self.cwd)
            .env(FILE_CHECKPOINTING, "true")
            .envs(env)
    }
}

/// `--dangerously-skip-permissions` (and so a later switch to bypass) refuses to start as
/// root unless `IS_SANDBOX=1`.
fn bypass_allowed(env: &BTreeMap<String, String>) -> bool {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    !root || env.get("IS_SANDBOX").is_some_and(|v| v == "1")
}

/// `--mcp-config` JSON of the session's MCP servers.
fn mcp_config(servers: &BTreeMap<String, McpServerConfig>) -> String {
    let mut out = Map::new();
    for (name, cfg) in servers {
        let v = match cfg {
            McpServerConfig::Stdio {
                command, args, env, ..
            } => {
                json!({"type": "stdio", "command": command, "args": args.clone().unwrap_or_default(), "env": env.clone().unwrap_or_default()})
            }
            McpServerConfig::Http { url, headers, .. } => {
                json!({"type": "http", "url": url, "headers": headers.clone().unwrap_or_default()})
            }
            McpServerConfig::Sse { url, headers, .. } => {
                json!({"type": "sse", "url": url, "headers": headers.clone().unwrap_or_default()})
            }
        };
        out.insert(name.clone(), v);
    }
    json!({"mcpServers": Value::Object(out)}).to_string()
}

pub use agent_bridge_core::probe::{parse_version, Version};

#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("{0}")]
    NotFound(String),
    #[error("`{program} --version` failed: {detail}")]
    Unrunnable { program: String, detail: String },
}

/// Runs `<launch> --version` and returns its first output line.
pub async fn probe_version(launch: &LaunchOverride) -> Result<String, ProbeError> {
    let spec = launch.spec(DEFAULT_PROGRAM, vec!["--version".into()]);
    let shown = spec.program.clone();
    let out = probe::run_probe(&spec, Duration::from_secs(10))
        .await
        .map_err(|e| match e {
            probe::ProbeError::Spawn(e @ SpawnError::NotFound { .. }) => {
                ProbeError::NotFound(e.to_string())
            }
            other => ProbeError::Unrunnable {
                program: shown.clone(),
                detail: other.to_string(),
            },
        })?;
    let first = out.stdout.lines().map(str::trim).find(|l| !l.is_empty());
    match (out.success, first) {
        (true, Some(line)) => Ok(line.to_string()),
        _ => Err(ProbeError::Unrunnable {
            program: shown,
            detail: format!("{} {}", out.status, out.stderr),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_minimum_orders_banners() {
        let v = |s: &str| parse_version(s).unwrap();
        assert!(v("2.0.9 (Claude Code)") < MIN_VERSION);
        assert!(v("2.1.0-beta.1 (Claude Code)") < MIN_VERSION);
        assert!(v("2.1.197 (Claude Code)") >= MIN_VERSION);
        assert_eq!(parse_version("garbage"), None);
    }

    #[test]
    fn resume_and_model_are_passed_as_flag_values() {
        let opts = LaunchOptions {
            cwd: "/w".into(),
            model: Some("sonnet".into()),
            mode: "plan".into(),
            resume: Some("-dash".into()),
            ..LaunchOptions::default()
        };
        let args = opts.args(None);
        assert!(args.contains(&"--resume=-dash".to_string()));
        assert!(args.contains(&"--model=sonnet".to_string()));
        assert!(args.contains(&"--permission-mode=plan".to_string()));
        assert!(args.contains(&"--permission-prompt-tool".to_string()));
    }

    #[test]
    fn mcp_secrets_stay_off_the_command_line() {
        let servers: BTreeMap<String, McpServerConfig> = serde_json::from_value(json!({
            "tools": {"type": "stdio", "command": "srv", "env": {"TOKEN": "SECRET-env"}},
            "web": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "SECRET-header"}}
        }))
        .expect("servers");
        let opts = LaunchOptions {
            mcp_servers: servers,
            ..LaunchOptions::default()
        };
        let config = opts.mcp_config().expect("a config");
        assert!(config.contains("SECRET-env") && config.contains("SECRET-header"));
        let args = opts.args(Some(Path::new("/private/mcp.json")));
        assert!(args.iter().all(|a| !a.contains("SECRET")), "{args:?}");
        let at = args.iter().position(|a| a == "--mcp-config").expect("flag");
        assert_eq!(
            args.get(at + 1).map(String::as_str),
            Some("/private/mcp.json")
        );
        assert!(LaunchOptions::default().mcp_config().is_none());
    }
}
