//! Where `bench --claude` finds claude and claude-agent-acp, and claude's version (the pinned
//! CLIs in general and the mock: `crate::host::locate`).

use super::ClaudeArgs;
use crate::host::locate::locate_pinned;
use anyhow::anyhow;
use std::path::{Path, PathBuf};

/// The pinned claude: `--claude-bin`, `$AGENT_BRIDGE_CLI_BIN`, `$AGENT_BRIDGE_CLI_CACHE`, or
/// `.cache/clis` under the plugin dir, the current dir or the checkout this binary was built in.
pub fn locate_claude(
    args: &ClaudeArgs,
    plugin_dir: Option<&Path>,
    exe: &Path,
) -> anyhow::Result<PathBuf> {
    if let Some(bin) = &args.claude_bin {
        return Ok(bin.clone());
    }
    locate_pinned("claude", plugin_dir, exe)
}

/// claude-agent-acp: `--claude-acp-bin`, or the one installed beside `claude`.
pub fn locate_claude_acp(args: &ClaudeArgs, claude: &Path) -> anyhow::Result<PathBuf> {
    if let Some(bin) = &args.claude_acp_bin {
        return Ok(bin.clone());
    }
    claude
        .parent()
        .map(|d| d.join("claude-agent-acp"))
        .filter(|p| p.exists())
        .ok_or_else(|| anyhow!("claude-agent-acp is not installed beside {} (run tests/clis/install.sh or pass --claude-acp-bin)", claude.display()))
}

pub fn cli_version(claude: &Path) -> String {
    std::process::Command::new(claude)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "unknown".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::locate::locate_mock;
    use pretty_assertions::assert_eq;

    #[test]
    fn an_explicit_claude_wins() {
        let args = ClaudeArgs {
            claude: true,
            claude_turns: 1,
            claude_rounds: 1,
            claude_gap_ms: 0,
            claude_bridge_arg: Vec::new(),
            claude_acp_bin: None,
            claude_opens: 1,
            claude_bin: Some(PathBuf::from("/opt/claude")),
            mock_llm: None,
            long_session: false,
            long_turns: 1,
        };
        let found = locate_claude(&args, None, Path::new("/x/target/release/agent-bridge"));
        assert_eq!(found.ok(), Some(PathBuf::from("/opt/claude")));
        let missing = ClaudeArgs {
            claude_bin: None,
            mock_llm: Some(PathBuf::from("/opt/mock-llm")),
            ..args
        };
        assert_eq!(
            locate_mock(missing.mock_llm.as_deref(), Path::new("/x/agent-bridge")).ok(),
            Some(PathBuf::from("/opt/mock-llm"))
        );
    }
}
