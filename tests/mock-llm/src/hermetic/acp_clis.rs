//! The recipes of GitHub Copilot CLI, Kilo Code CLI and Cline (all over ACP, all sending
//! `POST /v1/chat/completions`); /work/shared/spec/real-cli-offline.md, "Three more ACP agents".

use super::{mkdir, write, HermeticError};
use serde_json::json;
use std::path::{Path, PathBuf};

type Env = std::collections::BTreeMap<String, String>;

fn set(env: &mut Env, pairs: &[(&str, &str)]) {
    for (k, v) in pairs {
        env.insert((*k).to_string(), (*v).to_string());
    }
}

fn pretty(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

/// Copilot with a model provider of its own (no GitHub login), offline (no telemetry, web
/// tools or auto-update).
pub(super) fn copilot_files(
    home: &Path,
    base: &str,
    env: &mut Env,
) -> Result<PathBuf, HermeticError> {
    let dir = home.join(".copilot");
    mkdir(&dir)?;
    link_copilot_pkg(home)?;
    set(
        env,
        &[
            ("COPILOT_HOME", &dir.display().to_string()),
            ("COPILOT_PROVIDER_BASE_URL", &format!("{base}/v1")),
            ("COPILOT_PROVIDER_TYPE", "openai"),
            ("COPILOT_PROVIDER_WIRE_API", "completions"),
            ("COPILOT_PROVIDER_API_KEY", "sk-test"),
            ("COPILOT_MODEL", "mock-model"),
            ("COPILOT_AUTO_UPDATE", "false"),
            ("COPILOT_OFFLINE", "true"),
        ],
    );
    Ok(dir)
}

/// Links the home's `.cache/copilot/pkg/<platform>/<version>` to the copy tests/clis/install.sh
/// unpacked once (`<cli cache>/copilot-pkg`), so that a fresh home does not unpack Copilot's
/// 235 MB package again (1.3 s and 235 MB per start). Copilot only reads it. Without that copy
/// (an older install), the home unpacks its own, as before.
fn link_copilot_pkg(home: &Path) -> Result<(), HermeticError> {
    let Some(seed) = crate::locator::cli_path("copilot")
        .and_then(|bin| Some(bin.parent()?.parent()?.parent()?.join("copilot-pkg")))
    else {
        return Ok(());
    };
    let Ok(platforms) = std::fs::read_dir(&seed) else {
        return Ok(());
    };
    for platform in platforms.flatten() {
        let Ok(versions) = std::fs::read_dir(platform.path()) else {
            continue;
        };
        let into = home.join(".cache/copilot/pkg").join(platform.file_name());
        mkdir(&into)?;
        for version in versions.flatten() {
            let link = into.join(version.file_name());
            std::os::unix::fs::symlink(version.path(), &link)
                .map_err(|source| HermeticError::Io { path: link, source })?;
        }
    }
    Ok(())
}

/// Kilo (an OpenCode fork): the mock as its only provider (else it asks the Kilo gateway),
/// shell and edits asked, telemetry and downloads off.
pub(super) fn kilo_files(home: &Path, base: &str, env: &mut Env) -> Result<PathBuf, HermeticError> {
    let dir = home.join(".config").join("kilo");
    for sub in [".local/share", ".cache", ".local/state"] {
        mkdir(&home.join(sub))?;
    }
    let config = json!({
        "autoupdate": false,
        "share": "disabled",
        "model": "mock/mock-model",
        "small_model": "mock/mock-model",
        "enabled_providers": ["mock"],
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
        "permission": {"bash": "ask", "edit": "ask"}
    });
    write(&dir.join("kilo.json"), &pretty(&config))?;
    let registry = format!("{base}/npm/");
    set(
        env,
        &[
            ("KILO_TELEMETRY_LEVEL", "off"),
            ("KILO_DISABLE_AUTOUPDATE", "1"),
            ("KILO_DISABLE_MODELS_FETCH", "1"),
            ("KILO_DISABLE_LSP_DOWNLOAD", "1"),
            ("KILO_DISABLE_DEFAULT_PLUGINS", "1"),
            ("KILO_DISABLE_SHARE", "1"),
            ("KILO_DISABLE_CLAUDE_CODE", "1"),
            ("npm_config_registry", &registry),
            ("NPM_CONFIG_REGISTRY", &registry),
        ],
    );
    Ok(dir)
}

/// Cline with the mock as its OpenAI-compatible provider (`updatedAt` is required, else the
/// file is discarded), telemetry, updates and the feature-flag fetch off, and the local session
/// backend (else a hub daemon outlives the process; the cline-bridge profile sets it too).
pub(super) fn cline_files(
    home: &Path,
    base: &str,
    env: &mut Env,
) -> Result<PathBuf, HermeticError> {
    let dir = home.join(".cline");
    let data = dir.join("data");
    let providers = json!({
        "version": 1,
        "lastUsedProvider": "openai-compatible",
        "providers": {"openai-compatible": {
            "settings": {
                "provider": "openai-compatible",
                "apiKey": "sk-test",
                "model": "gpt-4o",
                "baseUrl": format!("{base}/v1")
            },
            "updatedAt": "2026-12-01T00:00:00.000Z",
            "tokenSource": "manual"
        }}
    });
    write(&data.join("settings/providers.json"), &pretty(&providers))?;
    write(
        &data.join("settings/global-settings.json"),
        &pretty(&json!({"telemetryOptOut": true, "autoUpdateEnabled": false})),
    )?;
    write(&data.join("cache/feature-flags.json"), "{}")?;
    set(
        env,
        &[
            ("CLINE_API_KEY", "sk-test"),
            ("CLINE_PROVIDER", "openai-compatible"),
            ("CLINE_SESSION_BACKEND_MODE", "local"),
        ],
    );
    Ok(dir)
}
