//! Hermetic environments for the real CLIs, as code: for each CLI, the HOME / config
//! dirs and files under a fresh temp root, and the complete environment map for the child
//! (telemetry and update checks off, dummy keys, the mock as base URL, and the mock's proxy
//! trap as HTTP(S)_PROXY with NO_PROXY=127.0.0.1,localhost, except for qwen, which ignores
//! NO_PROXY). Recipes: /work/shared/spec/real-cli-offline.md.
//!
//! The map is meant for one child process (`env_clear()` + `envs()`, see
//! [`HermeticEnv::apply`]); never put it into the test process's own environment.

mod acp_clis;
mod clis;
mod node22_clis;
mod python_clis;

pub use clis::{
    build, claude, claude_agent_acp, cline, codex, codex_acp, copilot, dcode, droid, gemini, grok,
    kilo, kimi, opencode, openhands, pi, qwen, vibe,
};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Errors while preparing a hermetic environment.
#[derive(Debug, thiserror::Error)]
pub enum HermeticError {
    #[error("cannot create {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The CLIs the rig knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cli {
    Claude,
    Codex,
    Gemini,
    Opencode,
    Qwen,
    ClaudeAgentAcp,
    CodexAcp,
    Copilot,
    Kilo,
    Cline,
    Kimi,
    Droid,
    Grok,
    Pi,
    Vibe,
    Dcode,
    Openhands,
}

impl Cli {
    pub const ALL: [Cli; 17] = [
        Cli::Claude,
        Cli::Codex,
        Cli::Gemini,
        Cli::Opencode,
        Cli::Qwen,
        Cli::ClaudeAgentAcp,
        Cli::CodexAcp,
        Cli::Copilot,
        Cli::Kilo,
        Cli::Cline,
        Cli::Kimi,
        Cli::Droid,
        Cli::Grok,
        Cli::Pi,
        Cli::Vibe,
        Cli::Dcode,
        Cli::Openhands,
    ];

    /// The executable's name in `node_modules/.bin`.
    pub fn bin_name(self) -> &'static str {
        match self {
            Cli::Claude => "claude",
            Cli::Codex => "codex",
            Cli::Gemini => "gemini",
            Cli::Opencode => "opencode",
            Cli::Qwen => "qwen",
            Cli::ClaudeAgentAcp => "claude-agent-acp",
            Cli::CodexAcp => "codex-acp",
            Cli::Copilot => "copilot",
            Cli::Kilo => "kilo",
            Cli::Cline => "cline",
            Cli::Kimi => "kimi",
            Cli::Droid => "droid",
            Cli::Grok => "grok",
            Cli::Pi => "pi-acp",
            Cli::Vibe => "vibe-acp",
            Cli::Dcode => "dcode",
            Cli::Openhands => "openhands",
        }
    }

    /// Whether the CLI honours NO_PROXY (qwen does not: it would tunnel even 127.0.0.1
    /// through the proxy trap, so it runs without proxy variables).
    pub fn honours_no_proxy(self) -> bool {
        !matches!(self, Cli::Qwen)
    }
}

/// A prepared environment: directories under `root` and the child's full environment.
#[derive(Debug, Clone)]
pub struct HermeticEnv {
    pub cli: Cli,
    /// The temp root everything lives under.
    pub root: PathBuf,
    /// `HOME` of the child.
    pub home: PathBuf,
    /// A fresh, empty working directory for the child (`current_dir`).
    pub workdir: PathBuf,
    /// The CLI's own config dir (CLAUDE_CONFIG_DIR, CODEX_HOME, ~/.gemini,
    /// $XDG_CONFIG_HOME/opencode, ~/.qwen).
    pub config_dir: PathBuf,
    /// The complete environment of the child (apply with `env_clear()` first).
    pub env: BTreeMap<String, String>,
}

impl HermeticEnv {
    /// Sets (or overrides) a variable.
    pub fn set(&mut self, key: impl Into<String>, value: impl Into<String>) -> &mut Self {
        self.env.insert(key.into(), value.into());
        self
    }

    /// Removes a variable.
    pub fn remove(&mut self, key: &str) -> &mut Self {
        self.env.remove(key);
        self
    }

    /// Replaces the command's environment with this one and runs it in `workdir`.
    pub fn apply<'a>(
        &self,
        cmd: &'a mut tokio::process::Command,
    ) -> &'a mut tokio::process::Command {
        cmd.env_clear().envs(&self.env).current_dir(&self.workdir)
    }

    /// Same as [`HermeticEnv::apply`] for `std::process::Command`.
    pub fn apply_std<'a>(
        &self,
        cmd: &'a mut std::process::Command,
    ) -> &'a mut std::process::Command {
        cmd.env_clear().envs(&self.env).current_dir(&self.workdir)
    }
}

pub(crate) fn mkdir(path: &Path) -> Result<(), HermeticError> {
    std::fs::create_dir_all(path).map_err(|source| HermeticError::Io {
        path: path.to_path_buf(),
        source,
    })
}

pub(crate) fn write(path: &Path, contents: &str) -> Result<(), HermeticError> {
    if let Some(parent) = path.parent() {
        mkdir(parent)?;
    }
    std::fs::write(path, contents).map_err(|source| HermeticError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Variables every CLI gets: PATH (the test's own, with the pinned CLIs' bin dir first),
/// HOME, XDG dirs, TMPDIR, locale, a plain terminal.
pub(crate) fn base_env(home: &Path, tmp: &Path) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    let mut path = std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into());
    if let Some(bin) = crate::locator::cli_bin_dir() {
        path = format!("{}:{path}", bin.display());
    }
    let h = home.display();
    for (k, v) in [
        ("PATH", path),
        ("HOME", h.to_string()),
        (
            "USER",
            std::env::var("USER").unwrap_or_else(|_| "tester".into()),
        ),
        ("SHELL", "/bin/bash".into()),
        ("LANG", "C.UTF-8".into()),
        ("TERM", "dumb".into()),
        ("NO_COLOR", "1".into()),
        ("TMPDIR", tmp.display().to_string()),
        ("XDG_CONFIG_HOME", format!("{h}/.config")),
        ("XDG_DATA_HOME", format!("{h}/.local/share")),
        ("XDG_CACHE_HOME", format!("{h}/.cache")),
        ("XDG_STATE_HOME", format!("{h}/.local/state")),
    ] {
        env.insert(k.to_string(), v);
    }
    env
}

/// HTTP(S)_PROXY / ALL_PROXY (both cases) -> the mock's proxy trap, NO_PROXY -> loopback.
pub(crate) fn proxy_env(env: &mut BTreeMap<String, String>, proxy_url: &str) {
    for k in ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"] {
        env.insert(k.to_string(), proxy_url.to_string());
        env.insert(k.to_ascii_lowercase(), proxy_url.to_string());
    }
    env.insert("NO_PROXY".into(), "127.0.0.1,localhost".into());
    env.insert("no_proxy".into(), "127.0.0.1,localhost".into());
}
