//! Where `bench --claude` finds claude and claude-agent-acp (the pinned CLIs in general:
//! `crate::host::locate`).

use super::ClaudeArgs;
use crate::host::locate::pinned_cli;
use anyhow::anyhow;
use std::path::{Path, PathBuf};

/// The pinned claude: `--claude-bin`, else found as the tests find it
/// ([`crate::host::locate::pinned_cli`]).
pub fn locate_claude(args: &ClaudeArgs) -> anyhow::Result<PathBuf> {
    if let Some(bin) = &args.claude_bin {
        return Ok(bin.clone());
    }
    pinned_cli("claude")
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

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn args(claude_bin: Option<&str>, claude_acp_bin: Option<&str>) -> ClaudeArgs {
        ClaudeArgs {
            claude: true,
            claude_turns: 1,
            claude_rounds: 1,
            claude_gap_ms: 0,
            claude_bridge_arg: Vec::new(),
            claude_acp_bin: claude_acp_bin.map(PathBuf::from),
            claude_opens: 1,
            claude_bin: claude_bin.map(PathBuf::from),
            long_session: false,
            long_turns: 1,
        }
    }

    #[test]
    fn explicit_paths_win() {
        let explicit = args(Some("/opt/claude"), Some("/opt/acp"));
        assert_eq!(
            locate_claude(&explicit).ok(),
            Some(PathBuf::from("/opt/claude"))
        );
        assert_eq!(
            locate_claude_acp(&explicit, Path::new("/x/claude")).ok(),
            Some(PathBuf::from("/opt/acp"))
        );
        let beside = locate_claude_acp(&args(None, None), Path::new("/nowhere/bin/claude"));
        assert!(beside.is_err_and(|e| e
            .to_string()
            .contains("not installed beside /nowhere/bin/claude")));
    }
}
