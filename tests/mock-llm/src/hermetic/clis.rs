//! The per-CLI recipes.

use super::{base_env, mkdir, proxy_env, write, Cli, HermeticEnv, HermeticError};
use crate::MockLlm;
use serde_json::json;
use std::path::Path;

/// Prepares `root` for `cli` talking to the mock on `port` (a mock in this process or
/// another one) and returns its environment.
pub fn build(cli: Cli, port: u16, root: &Path) -> Result<HermeticEnv, HermeticError> {
    let base = format!("http://127.0.0.1:{port}");
    let home = root.join("home");
    let workdir = root.join("work");
    let tmp = root.join("tmp");
    for dir in [&home, &workdir, &tmp] {
        mkdir(dir)?;
    }
    let mut env = base_env(&home, &tmp);
    if cli.honours_no_proxy() {
        proxy_env(&mut env, &base);
    }
    let config_dir = match cli {
        Cli::Claude | Cli::ClaudeAgentAcp => claude_files(&home, &base, &mut env)?,
        Cli::Codex | Cli::CodexAcp => codex_files(&home, &base, &mut env)?,
        Cli::Gemini => gemini_files(&home, &base, &mut env)?,
        Cli::Opencode => opencode_files(&home, &base, &mut env)?,
        Cli::Qwen => qwen_files(&home, &base, &mut env)?,
        Cli::Copilot => super::acp_clis::copilot_files(&home, &base, &mut env)?,
        Cli::Kilo => super::acp_clis::kilo_files(&home, &base, &mut env)?,
        Cli::Cline => super::acp_clis::cline_files(&home, &base, &mut env)?,
        Cli::Kimi => super::node22_clis::kimi_files(&home, &base, &mut env)?,
        Cli::Droid => super::node22_clis::droid_files(&home, &base, &mut env)?,
        Cli::Grok => super::node22_clis::grok_files(&home, &base, &mut env)?,
        Cli::Pi => super::node22_clis::pi_files(&home, &base, &mut env)?,
        Cli::Vibe => super::python_clis::vibe_files(&home, &base, &mut env)?,
        Cli::Dcode => super::python_clis::dcode_files(&home, &base, &mut env)?,
        Cli::Openhands => super::python_clis::openhands_files(&home, &tmp, &base, &mut env)?,
    };
    Ok(HermeticEnv {
        cli,
        root: root.to_path_buf(),
        home,
        workdir,
        config_dir,
        env,
    })
}

type Env = std::collections::BTreeMap<String, String>;

fn set(env: &mut Env, pairs: &[(&str, &str)]) {
    for (k, v) in pairs {
        env.insert((*k).to_string(), (*v).to_string());
    }
}

fn claude_files(
    home: &Path,
    base: &str,
    env: &mut Env,
) -> Result<std::path::PathBuf, HermeticError> {
    let dir = home.join(".claude");
    mkdir(&dir)?;
    set(
        env,
        &[
            ("CLAUDE_CONFIG_DIR", &dir.display().to_string()),
            ("ANTHROPIC_BASE_URL", base),
            ("ANTHROPIC_API_KEY", "sk-test"),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
            ("DISABLE_AUTOUPDATER", "1"),
            ("DISABLE_TELEMETRY", "1"),
            ("DISABLE_ERROR_REPORTING", "1"),
            // --dangerously-skip-permissions / bypassPermissions refuse to run as root without it.
            ("IS_SANDBOX", "1"),
        ],
    );
    Ok(dir)
}

fn codex_files(
    home: &Path,
    base: &str,
    env: &mut Env,
) -> Result<std::path::PathBuf, HermeticError> {
    let dir = home.join(".codex");
    // `[features] plugins = false`: otherwise every start syncs "curated plugins" from
    // github.com / chatgpt.com. `wire_api = "chat"` is rejected by 0.171.
    let config = format!(
        r#"model = "mock-model"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.mock]
name = "Mock"
base_url = "{base}/v1"
env_key = "MOCK_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false

[features]
plugins = false
"#
    );
    write(&dir.join("config.toml"), &config)?;
    set(
        env,
        &[
            ("CODEX_HOME", &dir.display().to_string()),
            ("MOCK_API_KEY", "sk-test"),
        ],
    );
    Ok(dir)
}

fn gemini_files(
    home: &Path,
    base: &str,
    env: &mut Env,
) -> Result<std::path::PathBuf, HermeticError> {
    let dir = home.join(".gemini");
    let settings = json!({
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": false},
        "telemetry": {"enabled": false},
        "general": {
            "disableAutoUpdate": true,
            "disableUpdateNag": true,
            "enableAutoUpdate": false,
            "enableAutoUpdateNotification": false
        }
    });
    write(&dir.join("settings.json"), &pretty(&settings))?;
    set(
        env,
        &[
            ("GEMINI_API_KEY", "sk-test"),
            ("GOOGLE_GEMINI_BASE_URL", base),
            ("GEMINI_CLI_NO_RELAUNCH", "true"),
        ],
    );
    Ok(dir)
}

fn opencode_files(
    home: &Path,
    base: &str,
    env: &mut Env,
) -> Result<std::path::PathBuf, HermeticError> {
    let dir = home.join(".config").join("opencode");
    for sub in [".local/share", ".cache", ".local/state"] {
        mkdir(&home.join(sub))?;
    }
    let config = json!({
        "autoupdate": false,
        "share": "disabled",
        "model": "mock/mock-model",
        "small_model": "mock/mock-model",
        "provider": {"mock": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Mock",
            "options": {"baseURL": format!("{base}/v1"), "apiKey": "sk-test"},
            "models": {"mock-model": {
                "name": "Mock Model",
                "tool_call": true,
                "limit": {"context": 128000, "output": 8192}
            }}
        }},
        "permission": {"bash": "allow", "edit": "allow"}
    });
    write(&dir.join("opencode.json"), &pretty(&config))?;
    // The background install of @opencode-ai/plugin cannot be switched off; point it at the
    // mock (logged as `GET /npm/@opencode-ai%2fplugin`, answered 404) instead of npmjs.org.
    let registry = format!("{base}/npm/");
    set(
        env,
        &[
            ("OPENCODE_DISABLE_AUTOUPDATE", "1"),
            ("OPENCODE_DISABLE_MODELS_FETCH", "1"),
            ("OPENCODE_DISABLE_LSP_DOWNLOAD", "1"),
            ("OPENCODE_DISABLE_DEFAULT_PLUGINS", "1"),
            ("OPENCODE_DISABLE_SHARE", "1"),
            ("OPENCODE_DISABLE_CLAUDE_CODE", "1"),
            ("npm_config_registry", &registry),
            ("NPM_CONFIG_REGISTRY", &registry),
        ],
    );
    Ok(dir)
}

fn qwen_files(home: &Path, base: &str, env: &mut Env) -> Result<std::path::PathBuf, HermeticError> {
    let dir = home.join(".qwen");
    let settings = json!({
        "security": {"auth": {"selectedType": "openai"}},
        "privacy": {"usageStatisticsEnabled": false},
        "telemetry": {"enabled": false},
        "general": {"disableAutoUpdate": true, "disableUpdateNag": true}
    });
    write(&dir.join("settings.json"), &pretty(&settings))?;
    set(
        env,
        &[
            ("OPENAI_API_KEY", "sk-test"),
            ("OPENAI_BASE_URL", &format!("{base}/v1")),
            ("OPENAI_MODEL", "mock-model"),
        ],
    );
    Ok(dir)
}

fn pretty(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

/// Claude Code (`claude -p ...`).
pub fn claude(mock: &MockLlm, root: &Path) -> Result<HermeticEnv, HermeticError> {
    build(Cli::Claude, mock.port(), root)
}

/// Codex (`codex exec` / `codex app-server`).
pub fn codex(mock: &MockLlm, root: &Path) -> Result<HermeticEnv, HermeticError> {
    build(Cli::Codex, mock.port(), root)
}

/// Gemini CLI (`gemini -p` / `gemini --acp`).
pub fn gemini(mock: &MockLlm, root: &Path) -> Result<HermeticEnv, HermeticError> {
    build(Cli::Gemini, mock.port(), root)
}

/// OpenCode (`opencode run` / `opencode acp` / `opencode serve`).
pub fn opencode(mock: &MockLlm, root: &Path) -> Result<HermeticEnv, HermeticError> {
    build(Cli::Opencode, mock.port(), root)
}

/// Qwen Code (`qwen -p` / `qwen --acp`); no proxy variables.
pub fn qwen(mock: &MockLlm, root: &Path) -> Result<HermeticEnv, HermeticError> {
    build(Cli::Qwen, mock.port(), root)
}

/// `@zed-industries/claude-agent-acp` (Claude's env; expect one refused CONNECT to
/// raw.githubusercontent.com:443 per process start from its bundled Claude Code).
pub fn claude_agent_acp(mock: &MockLlm, root: &Path) -> Result<HermeticEnv, HermeticError> {
    build(Cli::ClaudeAgentAcp, mock.port(), root)
}

/// `@zed-industries/codex-acp` (Codex's env).
pub fn codex_acp(mock: &MockLlm, root: &Path) -> Result<HermeticEnv, HermeticError> {
    build(Cli::CodexAcp, mock.port(), root)
}

/// GitHub Copilot CLI (`copilot --acp --stdio`) with the mock as its own model provider.
pub fn copilot(mock: &MockLlm, root: &Path) -> Result<HermeticEnv, HermeticError> {
    build(Cli::Copilot, mock.port(), root)
}

/// Kilo Code CLI (`kilo acp`).
pub fn kilo(mock: &MockLlm, root: &Path) -> Result<HermeticEnv, HermeticError> {
    build(Cli::Kilo, mock.port(), root)
}

/// Cline (`cline --acp`).
pub fn cline(mock: &MockLlm, root: &Path) -> Result<HermeticEnv, HermeticError> {
    build(Cli::Cline, mock.port(), root)
}

/// Kimi Code CLI (`kimi acp`), node 22 first on its PATH.
pub fn kimi(mock: &MockLlm, root: &Path) -> Result<HermeticEnv, HermeticError> {
    build(Cli::Kimi, mock.port(), root)
}

/// Factory Droid (`droid exec --output-format acp`), air-gapped.
pub fn droid(mock: &MockLlm, root: &Path) -> Result<HermeticEnv, HermeticError> {
    build(Cli::Droid, mock.port(), root)
}

/// Grok Build (`grok agent --no-leader stdio`), a custom Chat Completions model.
pub fn grok(mock: &MockLlm, root: &Path) -> Result<HermeticEnv, HermeticError> {
    build(Cli::Grok, mock.port(), root)
}

/// Pi through its ACP adapter (`pi-acp`, which starts `pi --mode rpc`), node 22 first on PATH.
pub fn pi(mock: &MockLlm, root: &Path) -> Result<HermeticEnv, HermeticError> {
    build(Cli::Pi, mock.port(), root)
}

/// Mistral Vibe (`vibe-acp`), from its venv of the pinned CPython 3.13.
pub fn vibe(mock: &MockLlm, root: &Path) -> Result<HermeticEnv, HermeticError> {
    build(Cli::Vibe, mock.port(), root)
}

/// Deep Agents Code (`dcode --acp`), from its venv of the pinned CPython 3.13.
pub fn dcode(mock: &MockLlm, root: &Path) -> Result<HermeticEnv, HermeticError> {
    build(Cli::Dcode, mock.port(), root)
}

/// OpenHands CLI (`openhands acp`), from its venv of the pinned CPython 3.13.
pub fn openhands(mock: &MockLlm, root: &Path) -> Result<HermeticEnv, HermeticError> {
    build(Cli::Openhands, mock.port(), root)
}
