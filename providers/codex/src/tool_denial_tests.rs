use super::*;
use pretty_assertions::assert_eq;

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn stdio(command: &str) -> McpServerConfig {
    McpServerConfig::Stdio {
        command: command.into(),
        args: None,
        env: None,
        always_load: None,
    }
}

fn object(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

#[test]
fn nothing_denied_is_no_override_and_no_notice() {
    let denial = plan(&[], &BTreeMap::new(), &ConfiguredServers::new());
    assert_eq!(denial, ToolDenial::default());
    assert_eq!(notice(&denial.unenforced), None);
}

#[test]
fn built_in_names_of_paseo_claude_and_codex_map_to_codex_switches() {
    let denied = names(&[
        "Bash",
        "WebSearch",
        "view_image",
        "Task",
        "create_goal",
        "AskUserQuestion",
        "TodoWrite",
        "image_gen",
    ]);
    let denial = plan(&denied, &BTreeMap::new(), &ConfiguredServers::new());
    assert_eq!(
        denial,
        ToolDenial {
            config: object(json!({
                "features": {
                    "shell_tool": false,
                    "view_image": false,
                    "multi_agent": false,
                    "multi_agent_v2": false,
                    "goals": false,
                    "image_generation": false,
                },
                "web_search": "disabled",
                "tools": {
                    "experimental_request_user_input": {"enabled": false},
                    "update_plan": {"enabled": false},
                },
            })),
            unenforced: Vec::new(),
        }
    );
}

#[test]
fn codex_and_lower_case_names_hit_the_same_switch() {
    for name in [
        "shell",
        "exec_command",
        "bash",
        "local_shell",
        "unified_exec",
    ] {
        let denial = plan(&names(&[name]), &BTreeMap::new(), &ConfiguredServers::new());
        assert_eq!(
            denial.config,
            object(json!({"features": {"shell_tool": false}})),
            "{name}"
        );
        assert!(denial.unenforced.is_empty(), "{name}");
    }
    let denial = plan(
        &names(&["web_search"]),
        &BTreeMap::new(),
        &ConfiguredServers::new(),
    );
    assert_eq!(denial.config, object(json!({"web_search": "disabled"})));
}

#[test]
fn what_codex_cannot_switch_off_is_listed_once_in_order() {
    let denied = names(&[
        "Edit",
        "apply_patch",
        "Bash(rm:*)",
        "Read",
        "Edit",
        "write_stdin",
        "list_mcp_resources",
        "  ",
        "mcp__",
    ]);
    let denial = plan(&denied, &BTreeMap::new(), &ConfiguredServers::new());
    assert_eq!(denial.config, Map::new());
    assert_eq!(
        denial.unenforced,
        names(&[
            "Edit",
            "apply_patch",
            "Bash(rm:*)",
            "Read",
            "write_stdin",
            "list_mcp_resources",
            "mcp__",
        ])
    );
    let notice = notice(&denial.unenforced).expect("a notice");
    assert_eq!(notice.severity, Severity::Warning);
    assert_eq!(
        notice.description.as_deref(),
        Some(
            "Codex has no switch for these denied tools, so they are not enforced in this session: \
             `Edit`, `apply_patch`, `Bash(rm:*)`, `Read`, `write_stdin`, `list_mcp_resources`, `mcp__`."
        )
    );
}

#[test]
fn mcp_tools_of_configured_servers_are_disabled_per_server() {
    let session = BTreeMap::from([("sess".to_string(), stdio("node"))]);
    let configured = ConfiguredServers::from([
        ("usersrv".to_string(), names(&["already_off"])),
        ("other".to_string(), Vec::new()),
        ("whole".to_string(), Vec::new()),
    ]);
    let denied = names(&[
        "mcp__sess__echo",
        "mcp__usersrv__echo",
        "mcp__usersrv__echo",
        "mcp__usersrv__ping",
        "mcp__whole__*",
        "mcp__other",
        "mcp__ghost__echo",
        "mcp__ghost",
    ]);
    let denial = plan(&denied, &session, &configured);
    assert_eq!(
        denial,
        ToolDenial {
            config: object(json!({"mcp_servers": {
                "sess": {"disabled_tools": ["echo"]},
                "usersrv": {"disabled_tools": ["already_off", "echo", "ping"]},
                "whole": {"enabled": false},
                "other": {"enabled": false},
            }})),
            unenforced: names(&["mcp__ghost__echo", "mcp__ghost"]),
        }
    );
}

#[test]
fn a_whole_server_denial_wins_over_single_tools() {
    let configured = ConfiguredServers::from([("s".to_string(), Vec::new())]);
    let denial = plan(
        &names(&["mcp__s__a", "mcp__s", "mcp__s__b"]),
        &BTreeMap::new(),
        &configured,
    );
    assert_eq!(
        denial.config,
        object(json!({"mcp_servers": {"s": {"enabled": false}}}))
    );
}

#[test]
fn the_denial_merges_into_the_session_servers_table_by_table() {
    let servers = object(json!({"mcp_servers": {
        "sess": {"command": "node", "args": [], "env": {}},
    }}));
    let denial = object(json!({
        "mcp_servers": {"sess": {"disabled_tools": ["echo"]}, "usersrv": {"enabled": false}},
        "features": {"shell_tool": false},
    }));
    assert_eq!(
        merge(Some(servers.clone()), denial),
        Some(object(json!({
            "mcp_servers": {
                "sess": {"command": "node", "args": [], "env": {}, "disabled_tools": ["echo"]},
                "usersrv": {"enabled": false},
            },
            "features": {"shell_tool": false},
        })))
    );
    assert_eq!(merge(None, Map::new()), None);
    assert_eq!(merge(Some(servers.clone()), Map::new()), Some(servers));
}

#[test]
fn configured_servers_come_from_config_read() {
    let config = json!({"mcp_servers": {
        "usersrv": {"command": "node", "disabled_tools": ["zzz", 3], "enabled_tools": ["echo"]},
        "web": {"url": "http://127.0.0.1:1/mcp"},
    }});
    assert_eq!(
        configured_servers(&config),
        ConfiguredServers::from([
            ("usersrv".to_string(), names(&["zzz"])),
            ("web".to_string(), Vec::new()),
        ])
    );
    assert_eq!(
        configured_servers(&json!({"mcp_servers": null})),
        ConfiguredServers::new()
    );
}

#[test]
fn only_a_denied_mcp_name_outside_the_session_needs_the_configured_servers() {
    let session = BTreeMap::from([("paseo".to_string(), stdio("paseo-mcp"))]);
    assert!(!needs_configured_servers(&[], &session));
    assert!(!needs_configured_servers(
        &names(&["Bash", "WebSearch"]),
        &session
    ));
    assert!(!needs_configured_servers(
        &names(&["mcp__paseo__x"]),
        &session
    ));
    assert!(needs_configured_servers(
        &names(&["mcp__docs__search"]),
        &session
    ));
    assert!(needs_configured_servers(
        &names(&[" mcp__docs__* "]),
        &session
    ));
    // Without the configured servers the plan of the others is the same.
    let configured = configured_servers(&json!({"mcp_servers": {"docs": {"command": "d"}}}));
    for denied in [names(&["Bash", "mcp__paseo__x"]), names(&["WebSearch"])] {
        assert_eq!(
            plan(&denied, &session, &configured),
            plan(&denied, &session, &ConfiguredServers::new())
        );
    }
    assert_ne!(
        plan(&names(&["mcp__docs__search"]), &session, &configured),
        plan(
            &names(&["mcp__docs__search"]),
            &session,
            &ConfiguredServers::new()
        )
    );
}
