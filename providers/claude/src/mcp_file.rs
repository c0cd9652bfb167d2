//! The session's MCP server config as a private file: its `env` values and HTTP `headers`
//! are secrets, and a command line is readable by any local user (`/proc/PID/cmdline`). The
//! JSON goes into a 0600 file in a fresh 0700 directory; `--mcp-config <path>` names it. The
//! runtime of the CLI owns it and removes it once the CLI answered `initialize` (claude
//! 2.1.197 reads it while starting and keeps the servers in memory: status and reconnects
//! work without it), or else when that CLI stops or its runtime is dropped.

use std::fs::{OpenOptions, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The file's name in its directory.
pub const FILE_NAME: &str = "mcp-config.json";

/// A private MCP config file; dropping it removes the file and its directory.
#[derive(Debug)]
pub struct McpConfigFile {
    path: PathBuf,
    _dir: tempfile::TempDir,
}

impl McpConfigFile {
    /// Writes `json` into a new 0600 file in a new 0700 directory under the temp dir.
    pub fn write(json: &str) -> io::Result<McpConfigFile> {
        let dir = tempfile::Builder::new()
            .prefix("agent-bridge-claude-mcp-")
            .tempdir()?;
        std::fs::set_permissions(dir.path(), Permissions::from_mode(0o700))?;
        let path = dir.path().join(FILE_NAME);
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)?;
        file.write_all(json.as_bytes())?;
        file.flush()?;
        Ok(McpConfigFile { path, _dir: dir })
    }

    /// [`McpConfigFile::write`] on a blocking thread (for async callers).
    pub async fn create(json: String) -> io::Result<McpConfigFile> {
        tokio::task::spawn_blocking(move || McpConfigFile::write(&json))
            .await
            .map_err(io::Error::other)?
    }

    /// Removes the file and its directory on a blocking thread.
    pub async fn remove(self) {
        let _ = tokio::task::spawn_blocking(move || drop(self)).await;
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_file_is_private_and_goes_with_its_owner() {
        let file = McpConfigFile::write(r#"{"mcpServers":{}}"#).expect("written");
        let path = file.path().to_path_buf();
        let dir = path.parent().expect("a dir").to_path_buf();
        let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            r#"{"mcpServers":{}}"#
        );
        drop(file);
        assert!(!path.exists() && !dir.exists());
    }
}
