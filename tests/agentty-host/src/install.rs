//! Installing a plugin from a folder as Agentty does (`crates/agentty-bridge/src/plugins/store.rs`
//! @c9009a1: `install_from_folder`, `copy_tree`, `finish_install`): the folder's manifest is read
//! and checked, the folder is copied into `<plugins>/.staging-<id>-<pid>`, the copy's manifest
//! and entry point are checked again, and the copy replaces `<plugins>/<id>`.
//!
//! What the copy leaves out: `.git` and `.DS_Store` anywhere, `target/` at the top of a folder
//! that has a `Cargo.toml` (a Rust plugin's build output), and every symbolic link (not
//! followed: a plugin must not pull in files from elsewhere). `node_modules` is kept. A folder
//! nested deeper than 12 levels is refused. Files keep their mode (`std::fs::copy`).

use crate::manifest;
use std::path::{Path, PathBuf};

/// Deepest folder a plugin may have (`copy_tree`'s `depth > 12`).
pub const MAX_FOLDER_DEPTH: usize = 12;

/// Copies `from` into `to` with the host's rules.
pub fn copy_tree(from: &Path, to: &Path, depth: usize) -> Result<(), String> {
    if depth > MAX_FOLDER_DEPTH {
        return Err("plugin folder is nested too deeply".into());
    }
    let rust_build = depth == 0 && from.join("Cargo.toml").exists();
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    let entries = std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))?;
    for entry in entries.flatten() {
        let name = entry.file_name();
        if name == ".git" || name == ".DS_Store" || (rust_build && name == "target") {
            continue;
        }
        let kind = entry.file_type().map_err(|e| e.to_string())?;
        let target = to.join(&name);
        if kind.is_dir() {
            copy_tree(&entry.path(), &target, depth + 1)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)
                .map_err(|e| format!("{}: {e}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// "Install from a folder": `folder` copied into `plugins/<id>`; the installed folder.
pub fn install_folder(plugins: &Path, folder: &Path) -> Result<PathBuf, String> {
    let text = std::fs::read_to_string(folder.join("agentty-plugin.json"))
        .map_err(|e| format!("no agentty-plugin.json in {}: {e}", folder.display()))?;
    let raw =
        serde_json::from_str(&text).map_err(|e| format!("invalid agentty-plugin.json: {e}"))?;
    let id = manifest::parse(raw)?.id;
    let staging = plugins.join(format!(".staging-{id}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    let staged = copy_tree(folder, &staging, 0).and_then(|()| {
        // `finish_install`: the copy is checked as it will be loaded, entry point included.
        let text = std::fs::read_to_string(staging.join("agentty-plugin.json"))
            .map_err(|e| e.to_string())?;
        let raw = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        let m = manifest::parse(raw)?;
        if !staging.join(&m.entry).exists() {
            return Err(format!("entry point {} is missing", m.entry.display()));
        }
        Ok(())
    });
    if let Err(e) = staged {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    let target = plugins.join(&id);
    if target.exists() {
        std::fs::remove_dir_all(&target).map_err(|e| e.to_string())?;
    }
    std::fs::rename(&staging, &target).map_err(|e| e.to_string())?;
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("folder");
        std::fs::write(path, text).expect("write");
    }

    #[test]
    fn a_folder_install_copies_what_the_host_copies() {
        let root = tempfile::tempdir().expect("root");
        let src = root.path().join("checkout");
        write(
            &src.join("agentty-plugin.json"),
            r#"{"id": "demo-plugin", "name": "Demo", "version": "1.0.0", "main": "run.sh",
                "runtime": "executable"}"#,
        );
        write(&src.join("run.sh"), "#!/bin/sh\n");
        std::fs::set_permissions(src.join("run.sh"), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        write(&src.join("Cargo.toml"), "[package]\n");
        write(&src.join("target/release/agent-bridge"), "binary");
        write(&src.join(".git/HEAD"), "ref");
        write(&src.join(".DS_Store"), "");
        write(&src.join("node_modules/@x/linux-x64/bin/x"), "binary");
        write(&src.join("docs/target/kept.md"), "a nested target/ is kept");
        std::os::unix::fs::symlink("/etc/hostname", src.join("linked")).expect("symlink");

        let plugins = root.path().join("plugins");
        let dir = install_folder(&plugins, &src).expect("installed");
        assert_eq!(
            dir,
            plugins.join("demo-plugin"),
            "named by the manifest's id"
        );
        let exists = |p: &str| dir.join(p).exists() || dir.join(p).symlink_metadata().is_ok();
        for kept in [
            "run.sh",
            "Cargo.toml",
            "node_modules/@x/linux-x64/bin/x",
            "docs/target/kept.md",
        ] {
            assert!(exists(kept), "{kept} is copied");
        }
        for left in ["target", ".git", ".DS_Store", "linked"] {
            assert!(!exists(left), "{left} is left out");
        }
        let mode = std::fs::metadata(dir.join("run.sh"))
            .expect("run.sh")
            .permissions()
            .mode();
        assert_eq!(mode & 0o111, 0o111, "the launcher stays executable");
        assert!(
            std::fs::read_dir(&plugins)
                .expect("plugins")
                .flatten()
                .all(|e| !e.file_name().to_string_lossy().starts_with(".staging")),
            "no staging folder left"
        );

        // A main the copy does not have (it was a symlink) fails the install.
        std::fs::remove_file(src.join("run.sh")).expect("rm");
        std::os::unix::fs::symlink("/bin/true", src.join("run.sh")).expect("symlink");
        let err = install_folder(&plugins, &src).expect_err("entry point not copied");
        assert!(err.contains("entry point"), "{err}");
    }
}
