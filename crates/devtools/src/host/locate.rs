//! Where the bench and the soak find what they run: the `agent-bridge` under test and the
//! pinned CLIs (installed by `tests/clis/install.sh`, found as the tests find them), and a CLI's
//! version.

use anyhow::anyhow;
use std::path::{Path, PathBuf};

/// The `agent-bridge` whose `serve` is driven: `explicit` (`--bridge-bin`), else the one next to
/// this binary (both are built into the same target folder).
pub fn bridge_binary(explicit: Option<&Path>) -> anyhow::Result<PathBuf> {
    if let Some(bin) = explicit {
        return Ok(bin.to_path_buf());
    }
    let exe = std::env::current_exe()?;
    exe.parent()
        .map(|d| d.join("agent-bridge"))
        .filter(|p| p.is_file())
        .ok_or_else(|| {
            anyhow!(
                "agent-bridge not found next to {}: cargo build --release -p agent-bridge (or pass --bridge-bin)",
                exe.display()
            )
        })
}

/// A pinned CLI's bin by name (`claude`, `codex`, `codex-acp`): in `$AGENT_BRIDGE_CLI_BIN`,
/// `$AGENT_BRIDGE_CLI_CACHE/node_modules/.bin` or the checkout's `.cache/clis`.
pub fn pinned_cli(name: &str) -> anyhow::Result<PathBuf> {
    mock_llm::cli_path(name).ok_or_else(|| {
        anyhow!("the pinned {name} is not installed (run tests/clis/install.sh or pass its path)")
    })
}

/// What a CLI says its version is (`--version`), else `unknown`.
pub fn cli_version(bin: &Path) -> String {
    mock_llm::cli_version(bin).unwrap_or_else(|| "unknown".into())
}

/// An npm package's version, from the package.json behind its bin; `unknown` when none says.
pub fn package_version(bin: &Path) -> String {
    mock_llm::package_version(bin).unwrap_or_else(|| "unknown".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn an_explicit_bridge_wins_and_a_missing_one_says_how_to_build_it() {
        assert_eq!(
            bridge_binary(Some(Path::new("/opt/agent-bridge"))).ok(),
            Some(PathBuf::from("/opt/agent-bridge"))
        );
        // The test binary lives in target/debug/deps, where no agent-bridge is built.
        let missing = bridge_binary(None).map_err(|e| e.to_string());
        assert!(
            missing
                .as_ref()
                .is_err_and(|e| e.contains("cargo build --release -p agent-bridge")),
            "{missing:?}"
        );
    }

    #[test]
    fn a_missing_cli_is_named() {
        let e = pinned_cli("no-such-cli-here").map_err(|e| e.to_string());
        assert!(
            e.as_ref()
                .is_err_and(|e| e.contains("the pinned no-such-cli-here is not installed")),
            "{e:?}"
        );
    }
}
