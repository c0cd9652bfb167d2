//! The recipes of the PyPI agents, installed into venvs of a pinned CPython 3.13 by
//! `tests/clis/python/install.sh`: Mistral Vibe (`vibe-acp`, `POST /v1/chat/completions`);
//! /work/shared/spec/more-agents-offline.md, "Mistral Vibe".

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
