//! The recipes of the PyPI agents, installed into venvs of a pinned CPython 3.13 by
//! `tests/clis/python/install.sh`: Mistral Vibe (`vibe-acp`, `POST /v1/chat/completions`) and
//! Deep Agents Code (`dcode --acp`, `POST /v1/responses`) and OpenHands (`openhands acp`, Chat
//! Completions, never streamed); /work/shared/spec/more-agents-offline.md, "Mistral Vibe",
//! "Deep Agents Code (dcode)" and "OpenHands CLI".

use super::{write, HermeticError};
use std::path::{Path, PathBuf};

type Env = std::collections::BTreeMap<String, String>;

fn set(env: &mut Env, pairs: &[(&str, &str)]) {
    for (k, v) in pairs {
        env.insert((*k).to_string(), (*v).to_string());
    }
}

/// The Python agents' bin dir first on PATH (a launch by name, plugin.json `command`, finds
/// `vibe-acp` there).
fn python_first(env: &mut Env) {
    if let Some(bin) = crate::locator::python_bin_dir() {
        let path = env.get("PATH").cloned().unwrap_or_default();
        env.insert("PATH".into(), format!("{}:{path}", bin.display()));
    }
}

/// Mistral Vibe with the mock as a generic openai-style provider (Chat Completions) in
/// `$VIBE_HOME/config.toml`, models `mock` and `mock2`, the key from `MOCK_API_KEY`;
/// telemetry and update checks off. The null keyring backend skips "Reading API keys from the
/// system keyring".
pub(super) fn vibe_files(home: &Path, base: &str, env: &mut Env) -> Result<PathBuf, HermeticError> {
    let dir = home.join(".vibe");
    let config = format!(
        r#"active_model = "mock"
enable_telemetry = false
enable_update_checks = false
enable_auto_update = false

[[providers]]
name = "mock"
api_base = "{base}/v1"
api_key_env_var = "MOCK_API_KEY"
api_style = "openai"
backend = "generic"

[models.mock]
name = "mock-model"
provider = "mock"
alias = "mock"
max_context_length = 128000

[models.mock2]
name = "mock-model-2"
provider = "mock"
alias = "mock2"
max_context_length = 128000
"#
    );
    write(&dir.join("config.toml"), &config)?;
    set(
        env,
        &[
            ("VIBE_HOME", &dir.display().to_string()),
            ("MOCK_API_KEY", "sk-test"),
            ("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring"),
        ],
    );
    python_first(env);
    Ok(dir)
}

/// Deep Agents Code with the mock as its OpenAI endpoint (`OPENAI_BASE_URL`; langchain's
/// ChatOpenAI speaks the Responses API to it), `openai:mock-model` the default model and
/// `openai:mock-model-2` one more in `$DEEPAGENTS_HOME/config.toml`; update checks, price and ripgrep downloads and LangSmith
/// tracing off. `$DEEPAGENTS_HOME/.state/approval.json` holds the acknowledgement without which
/// `dcode --acp --yolo` refuses to start ("acknowledge YOLO in the interactive TUI").
pub(super) fn dcode_files(
    home: &Path,
    base: &str,
    env: &mut Env,
) -> Result<PathBuf, HermeticError> {
    let dir = home.join(".deepagents");
    write(
        &dir.join(".state/approval.json"),
        r#"{"version":1,"policy_version":"2026-07-14","acknowledged":true}"#,
    )?;
    write(
        &dir.join("config.toml"),
        "[models]\ndefault = \"openai:mock-model\"\n\n[models.providers.openai]\nmodels = [\"mock-model\", \"mock-model-2\"]\n",
    )?;
    set(
        env,
        &[
            ("DEEPAGENTS_HOME", &dir.display().to_string()),
            ("OPENAI_API_KEY", "sk-test"),
            ("OPENAI_BASE_URL", &format!("{base}/v1")),
            ("DEEPAGENTS_CODE_OFFLINE", "1"),
            ("DEEPAGENTS_CODE_NO_UPDATE_CHECK", "1"),
            ("DEEPAGENTS_CODE_AUTO_UPDATE", "0"),
            ("DEEPAGENTS_CODE_PRICES_AUTO_UPDATE", "0"),
            ("DEEPAGENTS_CODE_PLUGIN_AUTO_UPDATE", "0"),
            ("LANGSMITH_TRACING", "false"),
            ("DEEPAGENTS_CODE_LANGSMITH_TRACING", "false"),
        ],
    );
    python_first(env);
    Ok(dir)
}

/// OpenHands CLI with the mock as LiteLLM's `openai/mock-model` (Chat Completions; `openhands
/// acp` never streams) in `$OPENHANDS_PERSISTENCE_DIR/agent_settings.json`, without which
/// `session/new` answers "Authentication required" (LLM_* variables are not read in ACP); a
/// bare `{"llm": …}` spec is valid, tools are added at run time. No request past the mock:
/// `LITELLM_LOCAL_MODEL_COST_MAP` stops LiteLLM fetching its price list at import, and a git
/// `insteadOf` sends the public-skills clone (`https://github.com/OpenHands/extensions`, run at
/// every conversation start) to the mock, which 404s it. Its terminal tool runs in a tmux
/// server (`tmux -L openhands`) that daemonizes: `TMUX_TMPDIR` keeps it apart from any other
/// (the bridge's profile gives each process a directory of its own on top).
pub(super) fn openhands_files(
    home: &Path,
    tmp: &Path,
    base: &str,
    env: &mut Env,
) -> Result<PathBuf, HermeticError> {
    let dir = home.join(".openhands");
    let settings = serde_json::json!({"llm": {
        "model": "openai/mock-model",
        "api_key": "sk-test",
        "base_url": format!("{base}/v1"),
        "usage_id": "agent",
        "num_retries": 0,
    }});
    write(&dir.join("agent_settings.json"), &settings.to_string())?;
    let tmux = tmp.join("tmux");
    super::mkdir(&tmux)?;
    set(
        env,
        &[
            ("OPENHANDS_PERSISTENCE_DIR", &dir.display().to_string()),
            ("LITELLM_LOCAL_MODEL_COST_MAP", "True"),
            ("OPENHANDS_SUPPRESS_BANNER", "1"),
            ("TMUX_TMPDIR", &tmux.display().to_string()),
            ("GIT_CONFIG_COUNT", "1"),
            ("GIT_CONFIG_KEY_0", &format!("url.{base}/git/.insteadOf")),
            ("GIT_CONFIG_VALUE_0", "https://github.com/"),
        ],
    );
    python_first(env);
    Ok(dir)
}
