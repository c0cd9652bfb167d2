//! Where `bench --claude` (and `--codex`) finds what it runs: the pinned CLIs, claude-agent-acp,
//! the mock model server, and their versions.

use super::ClaudeArgs;
use anyhow::anyhow;
use serde_json::Value;
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

/// A pinned CLI's bin by name (`claude`, `codex`, `codex-acp`), looked up as [`locate_claude`].
pub fn locate_pinned(name: &str, plugin_dir: Option<&Path>, exe: &Path) -> anyhow::Result<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(bin) = std::env::var_os("AGENT_BRIDGE_CLI_BIN") {
        dirs.push(PathBuf::from(bin));
    }
    if let Some(cache) = std::env::var_os("AGENT_BRIDGE_CLI_CACHE") {
        dirs.push(PathBuf::from(cache).join("node_modules/.bin"));
    }
    let roots = [
        plugin_dir.map(Path::to_path_buf),
        std::env::current_dir().ok(),
        exe.ancestors().nth(3).map(Path::to_path_buf),
    ];
    dirs.extend(
        roots
            .into_iter()
            .flatten()
            .map(|r| r.join(".cache/clis/node_modules/.bin")),
    );
    dirs.iter()
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            anyhow!(
                "the pinned {name} is not installed (run tests/clis/install.sh or pass its path)"
            )
        })
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

/// An npm package's version, from the package.json behind its bin.
pub fn npm_package_version(bin: &Path) -> String {
    let mut dir = std::fs::canonicalize(bin).unwrap_or_else(|_| bin.to_path_buf());
    while dir.pop() {
        if let Ok(text) = std::fs::read_to_string(dir.join("package.json")) {
            let v: Value = serde_json::from_str(&text).unwrap_or_default();
            return v["version"].as_str().unwrap_or("unknown").to_string();
        }
    }
    "unknown".into()
}

pub fn locate_mock(args: &ClaudeArgs, exe: &Path) -> anyhow::Result<PathBuf> {
    if let Some(bin) = &args.mock_llm {
        return Ok(bin.clone());
    }
    exe.parent()
        .map(|d| d.join("mock-llm"))
        .filter(|p| p.is_file())
        .ok_or_else(|| anyhow!("mock-llm not found next to this binary: cargo build --release -p mock-llm (or pass --mock-llm)"))
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
            locate_mock(&missing, Path::new("/x/agent-bridge")).ok(),
            Some(PathBuf::from("/opt/mock-llm"))
        );
    }
}
