//! Paseo's `deniedTools` as Codex config: the tools `codex app-server` (0.171) can switch off
//! for one thread become `thread/start` / `thread/resume` `config` overrides; the names it has no
//! switch for are reported to the user in a warning notice, never dropped silently.
//!
//! What Codex can switch off (checked against the tool list the CLI sends the model):
//!
//! | denied name (case-insensitive) | Codex tools removed | override |
//! |---|---|---|
//! | `Bash`, `shell`, `exec_command`, `local_shell`, `unified_exec` | `exec_command`, `write_stdin` (or `shell`) | `features.shell_tool = false` |
//! | `WebSearch`, `web_search`, `web_search_preview` | `web_search` | `web_search = "disabled"` |
//! | `view_image`, `ViewImage` | `view_image` | `features.view_image = false` |
//! | `Task`, `Agent`, `spawn_agent`, `multi_agent`, `multi_agent_v1` | the sub-agent tools | `features.multi_agent(_v2) = false` |
//! | `get_goal`, `create_goal`, `update_goal`, `goals` | the three goal tools | `features.goals = false` |
//! | `request_user_input`, `AskUserQuestion` | `request_user_input` | `tools.experimental_request_user_input.enabled = false` |
//! | `update_plan`, `TodoWrite` | `update_plan` | `tools.update_plan.enabled = false` |
//! | `image_generation`, `image_gen`, `ImageGen` | `image_generation` | `features.image_generation = false` |
//! | `mcp__SERVER__TOOL` (SERVER configured) | that tool | `mcp_servers.SERVER.disabled_tools += [TOOL]` |
//! | `mcp__SERVER`, `mcp__SERVER__*` (SERVER configured) | the whole server | `mcp_servers.SERVER.enabled = false` |
//!
//! A switch removes its whole group (denying `create_goal` removes all goal tools). Everything
//! else is unenforced: `apply_patch` / `Edit` / `Write` (0.171 has no switch for the patch tool),
//! `write_stdin` alone, the MCP resource tools, tools of MCP servers that are not in the config
//! (apps, plugins), Claude tools Codex does not have (`Read`, `Grep`, `WebFetch`, ...) and rules
//! with a specifier (`Bash(rm:*)`: Codex cannot deny single commands).

use agent_bridge_protocol::{McpServerConfig, ProviderNotice, Severity};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// MCP servers of the effective `config.toml` (from `config/read`): name → the tools its
/// `disabled_tools` already lists.
pub type ConfiguredServers = BTreeMap<String, Vec<String>>;

/// `deniedTools` split into what Codex enforces and what it cannot.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolDenial {
    /// Nested `config.toml` overrides for the thread (merged into `thread/start`'s `config`).
    pub config: Map<String, Value>,
    /// Denied names Codex cannot enforce, in the order given, without repeats.
    pub unenforced: Vec<String>,
}

/// One Codex switch: the denied names it answers to and the settings that turn it off.
struct Switch {
    names: &'static [&'static str],
    settings: &'static [(&'static [&'static str], Setting)],
}

#[derive(Clone, Copy)]
enum Setting {
    Off,
    Disabled,
}

impl Setting {
    fn value(self) -> Value {
        match self {
            Setting::Off => Value::Bool(false),
            Setting::Disabled => Value::String("disabled".into()),
        }
    }
}

const SWITCHES: &[Switch] = &[
    Switch {
        names: &[
            "bash",
            "shell",
            "exec_command",
            "local_shell",
            "unified_exec",
        ],
        settings: &[(&["features", "shell_tool"], Setting::Off)],
    },
    Switch {
        names: &["websearch", "web_search", "web_search_preview"],
        settings: &[(&["web_search"], Setting::Disabled)],
    },
    Switch {
        names: &["view_image", "viewimage"],
        settings: &[(&["features", "view_image"], Setting::Off)],
    },
    Switch {
        names: &[
            "task",
            "agent",
            "spawn_agent",
            "multi_agent",
            "multi_agent_v1",
        ],
        settings: &[
            (&["features", "multi_agent"], Setting::Off),
            (&["features", "multi_agent_v2"], Setting::Off),
        ],
    },
    Switch {
        names: &["get_goal", "create_goal", "update_goal", "goals"],
        settings: &[(&["features", "goals"], Setting::Off)],
    },
    Switch {
        names: &["request_user_input", "askuserquestion"],
        settings: &[(
            &["tools", "experimental_request_user_input", "enabled"],
            Setting::Off,
        )],
    },
    Switch {
        names: &["update_plan", "todowrite"],
        settings: &[(&["tools", "update_plan", "enabled"], Setting::Off)],
    },
    Switch {
        names: &["image_generation", "image_gen", "imagegen"],
        settings: &[(&["features", "image_generation"], Setting::Off)],
    },
];

/// What Codex does with `denied`, given the session's MCP servers and those of `config.toml`.
/// Whether [`plan`] needs the MCP servers `config.toml` configures: only for a denied
/// `mcp__server...` name whose server the session does not bring itself.
pub fn needs_configured_servers(
    denied: &[String],
    session_servers: &BTreeMap<String, McpServerConfig>,
) -> bool {
    denied.iter().any(|name| {
        mcp_target(name.trim()).is_some_and(|(server, _)| !session_servers.contains_key(server))
    })
}

pub fn plan(
    denied: &[String],
    session_servers: &BTreeMap<String, McpServerConfig>,
    configured: &ConfiguredServers,
) -> ToolDenial {
    let mut out = ToolDenial::default();
    // Per server: `None` = the whole server is off, `Some(tools)` = these tools are off.
    let mut mcp: BTreeMap<&str, Option<Vec<String>>> = BTreeMap::new();
    for name in denied {
        let trimmed = name.trim();
        if trimmed.is_empty() {
            continue;
        }
        let enforced = match mcp_target(trimmed) {
            Some((server, tool)) => {
                let known = session_servers.contains_key(server) || configured.contains_key(server);
                if known {
                    let entry = mcp.entry(server).or_insert_with(|| Some(Vec::new()));
                    match (tool, entry.as_mut()) {
                        (None, _) => *entry = None,
                        (Some(tool), Some(tools)) if !tools.iter().any(|t| t == tool) => {
                            tools.push(tool.to_string())
                        }
                        _ => {}
                    }
                }
                known
            }
            None => match switch_of(trimmed) {
                Some(switch) => {
                    for (path, setting) in switch.settings {
                        set_path(&mut out.config, path, setting.value());
                    }
                    true
                }
                None => false,
            },
        };
        if !enforced && !out.unenforced.iter().any(|u| u == trimmed) {
            out.unenforced.push(trimmed.to_string());
        }
    }
    for (server, off) in mcp {
        let setting = match off {
            None => ("enabled", Value::Bool(false)),
            Some(tools) => {
                // config.toml's own list stays in force: the override replaces the array.
                let mut all = if session_servers.contains_key(server) {
                    Vec::new()
                } else {
                    configured.get(server).cloned().unwrap_or_default()
                };
                for tool in tools {
                    if !all.contains(&tool) {
                        all.push(tool);
                    }
                }
                ("disabled_tools", json!(all))
            }
        };
        set_path(
            &mut out.config,
            &["mcp_servers", server, setting.0],
            setting.1,
        );
    }
    out
}

/// `mcp__SERVER__TOOL` → (SERVER, Some(TOOL)); `mcp__SERVER` and `mcp__SERVER__*` → (SERVER,
/// None); anything else (or an empty part) → `None`.
fn mcp_target(name: &str) -> Option<(&str, Option<&str>)> {
    let rest = name.strip_prefix("mcp__")?;
    let (server, tool) = match rest.split_once("__") {
        Some((server, "*")) => (server, None),
        Some((server, tool)) => (server, Some(tool)),
        None => (rest, None),
    };
    if server.is_empty() || tool.is_some_and(str::is_empty) {
        return None;
    }
    Some((server, tool))
}

fn switch_of(name: &str) -> Option<&'static Switch> {
    let lower = name.to_ascii_lowercase();
    SWITCHES.iter().find(|s| s.names.contains(&lower.as_str()))
}

/// Sets `path` in a nested JSON object, creating (or replacing non-object) tables on the way.
fn set_path(map: &mut Map<String, Value>, path: &[&str], value: Value) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut at = map;
    for key in parents {
        let slot = at
            .entry(key.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        if !slot.is_object() {
            *slot = Value::Object(Map::new());
        }
        let Value::Object(next) = slot else { return };
        at = next;
    }
    at.insert(last.to_string(), value);
}

/// `extra` merged into `base` (tables merged key by key, anything else replaced).
pub fn merge(
    base: Option<Map<String, Value>>,
    extra: Map<String, Value>,
) -> Option<Map<String, Value>> {
    fn into(base: &mut Map<String, Value>, extra: Map<String, Value>) {
        for (key, value) in extra {
            match (base.get_mut(&key), value) {
                (Some(Value::Object(b)), Value::Object(e)) => into(b, e),
                (_, value) => {
                    base.insert(key, value);
                }
            }
        }
    }
    if extra.is_empty() {
        return base;
    }
    let mut out = base.unwrap_or_default();
    into(&mut out, extra);
    Some(out)
}

/// The MCP servers of a `config/read` answer's `config` (name → its `disabled_tools`).
pub fn configured_servers(config: &Value) -> ConfiguredServers {
    let Some(servers) = config.get("mcp_servers").and_then(Value::as_object) else {
        return ConfiguredServers::new();
    };
    servers
        .iter()
        .map(|(name, server)| {
            let disabled = server
                .get("disabled_tools")
                .and_then(Value::as_array)
                .map(|tools| {
                    tools
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            (name.clone(), disabled)
        })
        .collect()
}

/// The warning a session opens with when some denied tools are not enforced.
pub fn notice(unenforced: &[String]) -> Option<ProviderNotice> {
    if unenforced.is_empty() {
        return None;
    }
    let names = unenforced
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    Some(ProviderNotice {
        id: "codex-denied-tools-unenforced".into(),
        severity: Severity::Warning,
        title: "Codex cannot deny some tools".into(),
        description: Some(format!(
            "Codex has no switch for these denied tools, so they are not enforced in this session: {names}."
        )),
        dismissed: None,
    })
}

#[cfg(test)]
#[path = "tool_denial_tests.rs"]
mod tests;
