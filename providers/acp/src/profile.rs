//! Where ACP agents differ: the profile table (`profiles.json`, data, not code) and the
//! profile of one plugin.json entry.
//!
//! An entry picks a built-in profile with `options.profile` (`"gemini"`), or by its id
//! (`gemini-bridge` -> `gemini`); any other entry is a user's own ACP agent, launched by its
//! `command` as is. `options.args`, `options.unattendedModes`, `options.unattendedOptions` and
//! `options.unusableMethods` override the profile's.

use crate::auth::AuthSpec;
use crate::process_modes::ProcessModes;
use agent_bridge_core::lifecycle::ProcessOptions;
use agent_bridge_core::registry::ProviderManifest;
use agent_bridge_protocol::Capability;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

const PROFILES: &str = include_str!("../profiles.json");

/// The capabilities of a user's own ACP agent: the ones every ACP v1 agent has (prompt,
/// session/set_mode or config options, session/request_permission), exercised end to end with
/// a pinned agent declared under another id.
pub const GENERIC_CAPABILITIES: &[Capability] = &[
    Capability::PromptMessage,
    Capability::SessionConfigure,
    Capability::Permission,
];

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Table {
    profiles: BTreeMap<String, Entry>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    label: String,
    program: String,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    tested_version: Option<String>,
    #[serde(default)]
    version_args: Vec<String>,
    #[serde(default)]
    unattended_modes: Vec<String>,
    #[serde(default)]
    unattended_options: Vec<String>,
    #[serde(default)]
    process_modes: ProcessModes,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    private_dir_env: Vec<String>,
    capabilities: Vec<Capability>,
    #[serde(default)]
    unusable_methods: BTreeMap<String, String>,
    #[serde(default)]
    auth: Option<AuthSpec>,
    #[serde(default)]
    retry_log: Option<RetryLog>,
    #[serde(default)]
    spare_warmup: bool,
    #[serde(default)]
    server_password_env: Option<String>,
    #[serde(default)]
    embedded_server: Option<EmbeddedServer>,
}

/// Which stderr lines of the agent are model retries (OpenCode's and Kilo's; what is done
/// with them: [`crate::opencode::retry_log`]).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RetryLog {
    /// A line containing this is one retry.
    pub contains: String,
    /// The logfmt key whose (quoted) value is the retry's words; else the whole line.
    #[serde(default)]
    pub words: Option<String>,
}

/// How an agent is told where the HTTP server it runs beside ACP listens, and who it lets in
/// (OpenCode's and Kilo's; how the bridge uses it: [`crate::opencode::embedded_server`]).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EmbeddedServer {
    /// The flag that sets the port (`--port`).
    pub port_flag: String,
    /// The flag that sets the address it listens on (`--hostname`).
    pub hostname_flag: String,
    /// The basic-auth user the server expects (`opencode`)...
    pub user: String,
    /// ...unless this variable names another.
    #[serde(default)]
    pub user_env: Option<String>,
}

/// How the bridge runs one ACP agent: data only (the table's values); the behaviour of the
/// OpenCode/Kilo server quirks it names lives in [`crate::opencode`].
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// The profile's name (`gemini`), or the entry id for a user's agent.
    pub name: String,
    pub label: String,
    /// The default program (the entry's `command` or a `launch` replaces it).
    pub program: String,
    /// Arguments always appended (`--acp`).
    pub args: Vec<String>,
    /// The version the profile was tested with, for diagnostics.
    pub tested_version: Option<String>,
    /// Arguments that print the version (empty: no version flag).
    pub version_args: Vec<String>,
    /// Mode ids that run tools without asking.
    pub unattended_modes: Vec<String>,
    /// Ids of config options that run tools without asking when on ([`crate::unattended`]).
    pub unattended_options: Vec<String>,
    /// Modes that are process flags: each mode's session runs on a process started with its
    /// arguments ([`crate::process_modes`]).
    pub process_modes: ProcessModes,
    /// Variables every start of the agent gets (over the launch's and the session's).
    pub env: BTreeMap<String, String>,
    /// Variables every start of the agent gets set to a directory of that process alone,
    /// removed with it (the core's `SpawnSpec::private_dirs`): OpenHands' `TMUX_TMPDIR`, so its
    /// daemonized tmux server is the process's own and goes with it.
    pub private_dir_env: Vec<String>,
    pub capabilities: Vec<Capability>,
    /// Session methods the agent advertises but that do not work (method -> why): treated as
    /// not advertised ([`crate::wire::AgentCapabilities::withdraw`]).
    pub unusable_methods: BTreeMap<String, String>,
    /// How to tell that the agent is logged in (`None`: the bridge does not check).
    pub auth: Option<AuthSpec>,
    /// How the agent's stderr says it retries the model (it says nothing over ACP).
    pub retry_log: Option<RetryLog>,
    /// A fresh spare resumes and closes the last session before it is offered
    /// ([`crate::opencode::spare_warmup`]).
    pub spare_warmup: bool,
    /// The variable that sets the password of the HTTP server the agent runs beside ACP
    /// ([`crate::opencode::server_password`]).
    pub server_password_env: Option<String>,
    /// How to reach the HTTP server the agent runs beside ACP ([`crate::opencode::embedded_server`]).
    pub embedded_server: Option<EmbeddedServer>,
    /// A built-in profile (else a user's own agent).
    pub builtin: bool,
}

fn table() -> Table {
    // The file is part of the crate and checked by a test; an unreadable table is a build bug.
    serde_json::from_str(PROFILES).unwrap_or_else(|e| {
        tracing::error!("profiles.json is invalid: {e}");
        Table {
            profiles: BTreeMap::new(),
        }
    })
}

/// The built-in profile `name`.
pub fn builtin(name: &str) -> Option<Profile> {
    let entry = table().profiles.remove(name)?;
    Some(Profile {
        name: name.to_string(),
        label: entry.label,
        program: entry.program,
        args: entry.args,
        tested_version: entry.tested_version,
        version_args: entry.version_args,
        unattended_modes: entry.unattended_modes,
        unattended_options: entry.unattended_options,
        process_modes: entry.process_modes,
        env: entry.env,
        private_dir_env: entry.private_dir_env,
        capabilities: entry.capabilities,
        unusable_methods: entry.unusable_methods,
        auth: entry.auth,
        retry_log: entry.retry_log,
        spare_warmup: entry.spare_warmup,
        server_password_env: entry.server_password_env,
        embedded_server: entry.embedded_server,
        builtin: true,
    })
}

/// Names of the built-in profiles.
pub fn builtin_names() -> Vec<String> {
    table().profiles.into_keys().collect()
}

fn strings(v: &Value) -> Option<Vec<String>> {
    v.as_array().map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    })
}

/// The profile of a plugin.json entry.
pub fn for_entry(entry: &ProviderManifest) -> Profile {
    let named = entry.options.get("profile").and_then(Value::as_str);
    let by_id = entry.id.strip_suffix("-bridge");
    let mut profile = named
        .and_then(builtin)
        .or_else(|| {
            if named.is_some() {
                tracing::warn!(provider = %entry.id, "unknown ACP profile {named:?}; treating the entry as a generic ACP agent");
            }
            by_id.and_then(builtin)
        })
        .unwrap_or_else(|| Profile {
            name: entry.id.clone(),
            label: entry.label.clone(),
            program: entry.command.first().cloned().unwrap_or_default(),
            args: Vec::new(),
            tested_version: None,
            version_args: Vec::new(),
            unattended_modes: Vec::new(),
            unattended_options: Vec::new(),
            process_modes: ProcessModes::default(),
            env: BTreeMap::new(),
            private_dir_env: Vec::new(),
            capabilities: GENERIC_CAPABILITIES.to_vec(),
            unusable_methods: BTreeMap::new(),
            auth: None,
            retry_log: None,
            spare_warmup: false,
            server_password_env: None,
            embedded_server: None,
            builtin: false,
        });
    for (key, value) in &entry.options {
        match key.as_str() {
            // Read by the provider (`AcpProvider::from_entry`) and the core (how sessions get
            // their process).
            "profile" => {}
            key if ProcessOptions::is_option(key) => {}
            "args" => match strings(value) {
                Some(args) => profile.args = args,
                None => {
                    tracing::warn!(provider = %entry.id, "option `args` must be a list of strings; ignored")
                }
            },
            "unattendedModes" => match strings(value) {
                Some(modes) => profile.unattended_modes = modes,
                None => {
                    tracing::warn!(provider = %entry.id, "option `unattendedModes` must be a list of strings; ignored")
                }
            },
            "unattendedOptions" => match strings(value) {
                Some(options) => profile.unattended_options = options,
                None => {
                    tracing::warn!(provider = %entry.id, "option `unattendedOptions` must be a list of strings; ignored")
                }
            },
            "processModes" => match serde_json::from_value(value.clone()) {
                Ok(modes) => profile.process_modes = modes,
                Err(_) => {
                    tracing::warn!(provider = %entry.id, "option `processModes` must map mode ids to lists of arguments; ignored")
                }
            },
            "unusableMethods" => match serde_json::from_value(value.clone()) {
                Ok(methods) => profile.unusable_methods = methods,
                Err(_) => {
                    tracing::warn!(provider = %entry.id, "option `unusableMethods` must map method names to reasons; ignored")
                }
            },
            other => tracing::warn!(provider = %entry.id, "unknown option `{other}` ignored"),
        }
    }
    profile
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn entry(json: &str) -> ProviderManifest {
        serde_json::from_str(json).expect("entry")
    }

    #[test]
    fn the_table_is_valid_and_has_the_fifteen_agents() {
        let table: Table = serde_json::from_str(PROFILES).expect("profiles.json parses");
        assert_eq!(
            table.profiles.keys().cloned().collect::<Vec<_>>(),
            vec![
                "claude-acp",
                "cline",
                "codex-acp",
                "copilot",
                "deepagents",
                "droid",
                "gemini",
                "grok",
                "kilo",
                "kimi",
                "opencode",
                "openhands",
                "pi",
                "qwen",
                "vibe"
            ]
        );
        for (name, p) in &table.profiles {
            assert!(!p.program.is_empty(), "{name}");
            assert!(
                p.capabilities.contains(&Capability::PromptMessage),
                "{name}"
            );
            assert!(p.tested_version.is_some(), "{name}");
            for method in p.unusable_methods.keys() {
                assert!(
                    crate::wire::AgentCapabilities::default()
                        .withdraw(method)
                        .is_ok(),
                    "{name}: `{method}` is no session method the bridge gates"
                );
            }
            if let Some(auth) = &p.auth {
                assert!(!auth.hint.is_empty(), "{name}");
            }
            if let Some(base) = p.process_modes.base() {
                assert!(
                    !p.unattended_modes.iter().any(|m| m == base),
                    "{name}: the default process mode `{base}` is marked unattended"
                );
            }
        }
        let with_auth: Vec<&String> = table
            .profiles
            .iter()
            .filter(|(_, p)| p.auth.is_some())
            .map(|(n, _)| n)
            .collect();
        assert_eq!(
            with_auth,
            [
                "claude-acp",
                "cline",
                "codex-acp",
                "copilot",
                "gemini",
                "openhands",
                "qwen"
            ]
        );
    }

    #[test]
    fn openhands_gets_a_tmux_dir_of_each_process_alone() {
        let profile = builtin("openhands").expect("the openhands profile");
        let spec = crate::launch::spec(
            &profile,
            &agent_bridge_core::supervisor::LaunchOverride::default(),
            None,
            &BTreeMap::new(),
        );
        assert_eq!(spec.private_dirs, vec!["TMUX_TMPDIR".to_string()]);
        assert_eq!(
            (spec.program.as_str(), spec.args.clone()),
            ("openhands", vec!["acp".to_string()])
        );
        let gemini = builtin("gemini").expect("the gemini profile");
        assert!(crate::launch::spec(
            &gemini,
            &agent_bridge_core::supervisor::LaunchOverride::default(),
            None,
            &BTreeMap::new()
        )
        .private_dirs
        .is_empty());
    }

    #[test]
    fn an_entry_finds_its_profile_by_id_or_option() {
        let by_id = for_entry(&entry(
            r#"{"id":"gemini-bridge","label":"G","agent":"acp","command":[]}"#,
        ));
        assert_eq!(
            (by_id.program.as_str(), by_id.args.clone()),
            ("gemini", vec!["--acp".to_string(), "--debug".to_string()])
        );
        let named = for_entry(&entry(
            r#"{"id":"my-qwen","label":"Q","agent":"acp","command":[],"options":{"profile":"qwen","args":["--acp","--debug"]}}"#,
        ));
        assert_eq!(named.name, "qwen");
        assert_eq!(named.args, vec!["--acp", "--debug"]);
        let cline = for_entry(&entry(
            r#"{"id":"cline-bridge","label":"C","agent":"acp","command":["cline"]}"#,
        ));
        assert_eq!(
            cline
                .env
                .get("CLINE_SESSION_BACKEND_MODE")
                .map(String::as_str),
            Some("local"),
            "never a hub daemon left behind"
        );
        assert_eq!(cline.unattended_options, vec!["auto_approve"]);
        let deep = for_entry(&entry(
            r#"{"id":"deepagents-bridge","label":"D","agent":"acp","command":["dcode"]}"#,
        ));
        assert_eq!(deep.args, vec!["--acp"]);
        assert_eq!(deep.process_modes.ids(), vec!["ask", "yolo"]);
        assert_eq!(deep.unattended_modes, vec!["yolo"]);
    }

    #[test]
    fn a_user_agent_runs_its_command_as_is() {
        let p = for_entry(&entry(
            r#"{"id":"goose","label":"Goose","agent":"acp","command":["goose","acp"],"options":{"unattendedModes":["auto"]}}"#,
        ));
        assert!(!p.builtin);
        assert_eq!(p.program, "goose");
        assert!(p.args.is_empty());
        assert_eq!(p.unattended_modes, vec!["auto"]);
        assert_eq!(p.capabilities, GENERIC_CAPABILITIES.to_vec());
        assert!(p.unusable_methods.is_empty());
        let switched = for_entry(&entry(
            r#"{"id":"my-cline","label":"Cline","agent":"acp","command":["cline","--acp"],"options":{"unattendedOptions":["auto_approve"]}}"#,
        ));
        assert_eq!(switched.unattended_options, vec!["auto_approve"]);
        assert!(
            switched.env.is_empty(),
            "a user's agent gets no profile variables"
        );
        let declared = for_entry(&entry(
            r#"{"id":"goose","label":"Goose","agent":"acp","command":["goose","acp"],"options":{"unusableMethods":{"session/resume":"loses tools"}}}"#,
        ));
        assert_eq!(
            declared.unusable_methods,
            BTreeMap::from([("session/resume".to_string(), "loses tools".to_string())])
        );
        let flagged = for_entry(&entry(
            r#"{"id":"mine","label":"M","agent":"acp","command":["m"],"options":{"processModes":{"safe":[],"wild":["--wild"]},"unattendedModes":["wild"]}}"#,
        ));
        assert_eq!(flagged.process_modes.ids(), vec!["safe", "wild"]);
        assert!(p.process_modes.is_empty());
    }
}
