//! Where the `agent-bridge` binary is, building it once when it is missing.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The workspace root (it holds `plugin.json`): this crate lives in `<root>/tests/conformance`.
pub fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| manifest.to_path_buf())
}

/// `$AGENT_BRIDGE_BIN`, else `<target>/debug/agent-bridge` (`<target>` = `$CARGO_TARGET_DIR` or
/// `<root>/target`). A default binary that is missing, or older than a source file of the
/// workspace (`crates/`, `providers/`, `Cargo.toml`, `Cargo.lock`), is built with
/// `cargo build -p agent-bridge`, once per test process (`cargo test` of this crate does not
/// rebuild the binary by itself).
pub fn bridge_binary() -> anyhow::Result<PathBuf> {
    static BUILT: OnceLock<Result<(), String>> = OnceLock::new();
    let root = workspace_root();
    let sources = [
        root.join("crates"),
        root.join("providers"),
        root.join("Cargo.toml"),
        root.join("Cargo.lock"),
    ];
    built_binary("AGENT_BRIDGE_BIN", "agent-bridge", &sources, &BUILT)
}

/// The fake ACP agent (`tests/fake-acp`): `$FAKE_ACP_BIN`, else `<target>/debug/fake-acp`, built
/// with `cargo build -p fake-acp` as [`bridge_binary`] builds the bridge.
pub fn fake_acp_binary() -> anyhow::Result<PathBuf> {
    static BUILT: OnceLock<Result<(), String>> = OnceLock::new();
    let root = workspace_root();
    let sources = [root.join("tests").join("fake-acp"), root.join("Cargo.lock")];
    built_binary("FAKE_ACP_BIN", "fake-acp", &sources, &BUILT)
}

/// `$<env>`, else `<target>/debug/<package>`, built (once per test process, `built`) when
/// missing or older than a file under `sources`.
fn built_binary(
    env: &str,
    package: &str,
    sources: &[PathBuf],
    built: &OnceLock<Result<(), String>>,
) -> anyhow::Result<PathBuf> {
    if let Some(bin) = std::env::var_os(env) {
        let bin = PathBuf::from(bin);
        anyhow::ensure!(bin.is_file(), "{env}={} is not a file", bin.display());
        return Ok(bin);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|t| {
            if t.is_relative() {
                workspace_root().join(t)
            } else {
                t
            }
        })
        .unwrap_or_else(|| workspace_root().join("target"));
    let bin = target.join("debug").join(package);
    if bin.is_file() && !stale(&bin, sources) {
        return Ok(bin);
    }
    built
        .get_or_init(|| {
            let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
            let status = std::process::Command::new(cargo)
                .args(["build", "-p", package])
                .current_dir(workspace_root())
                .status()
                .map_err(|e| format!("cannot run cargo: {e}"))?;
            if status.success() {
                Ok(())
            } else {
                Err(format!("`cargo build -p {package}` failed: {status}"))
            }
        })
        .clone()
        .map_err(anyhow::Error::msg)?;
    anyhow::ensure!(
        bin.is_file(),
        "`cargo build -p {package}` did not produce {}",
        bin.display()
    );
    Ok(bin)
}

/// True when a file under `sources` is newer than `bin`.
fn stale(bin: &Path, sources: &[PathBuf]) -> bool {
    let Some(built) = std::fs::metadata(bin).and_then(|m| m.modified()).ok() else {
        return true;
    };
    let mut stack: Vec<PathBuf> = sources.to_vec();
    while let Some(path) = stack.pop() {
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            if path
                .file_name()
                .is_some_and(|n| n == "target" || n == "node_modules")
            {
                continue;
            }
            if let Ok(entries) = std::fs::read_dir(&path) {
                stack.extend(entries.filter_map(|e| e.ok()).map(|e| e.path()));
            }
        } else if meta.modified().is_ok_and(|m| m > built) {
            return true;
        }
    }
    false
}
