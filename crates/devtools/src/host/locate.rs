//! Where the bench and the soak find what they run: the pinned CLIs (installed by
//! `tests/clis/install.sh`), the mock model server, and an npm-packaged CLI's version.

use anyhow::anyhow;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A pinned CLI's bin by name (`claude`, `codex`, `codex-acp`), in `$AGENT_BRIDGE_CLI_BIN`,
/// `$AGENT_BRIDGE_CLI_CACHE`, or `.cache/clis` under the plugin dir, the current dir or the checkout
/// this binary was built in.
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

/// The mock-llm binary: `explicit` (`--mock-llm`), else the one next to this binary.
pub fn locate_mock(explicit: Option<&Path>, exe: &Path) -> anyhow::Result<PathBuf> {
    if let Some(bin) = explicit {
        return Ok(bin.to_path_buf());
    }
    exe.parent()
        .map(|d| d.join("mock-llm"))
        .filter(|p| p.is_file())
        .ok_or_else(|| anyhow!("mock-llm not found next to this binary: cargo build --release -p mock-llm (or pass --mock-llm)"))
}
