//! The registry manifests against the ACP registry's own schema (`registry/agent.schema.json`,
//! vendored from agentclientprotocol/registry, see registry/README.md), and the committed files
//! against what plugin.json gives.

use super::*;
use pretty_assertions::assert_eq;

fn validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(source_root().join("registry/agent.schema.json"))
        .expect("registry/agent.schema.json");
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft7)
        .should_validate_formats(true)
        .build(&schema)
        .expect("the schema compiles")
}

fn problems(v: &jsonschema::Validator, manifest: &Value) -> Vec<String> {
    v.iter_errors(manifest)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect()
}

fn generated() -> BTreeMap<PathBuf, String> {
    files(&source_root()).expect("the manifests build from plugin.json")
}

#[test]
fn every_manifest_is_valid_against_the_registry_schema() {
    let v = validator();
    let manifests: Vec<(PathBuf, Value)> = generated()
        .into_iter()
        .filter(|(p, _)| p.ends_with("agent.json"))
        .map(|(p, text)| (p, serde_json::from_str(&text).expect("JSON")))
        .collect();
    assert!(manifests.len() >= 12, "one per bridged provider");
    for (path, m) in &manifests {
        assert_eq!(problems(&v, m), Vec::<String>::new(), "{}", path.display());
        assert_eq!(
            m["id"].as_str().map(|id| path.starts_with(id)),
            Some(true),
            "the folder is named after the id, as the registry's build requires"
        );
    }
}

#[test]
fn the_schema_refuses_a_broken_manifest() {
    let v = validator();
    let plugin = PluginManifest::load(&source_root()).expect("plugin.json");
    let platforms: Platforms = serde_json::from_str(
        &std::fs::read_to_string(source_root().join("npm/platforms.json")).expect("platforms"),
    )
    .expect("platforms.json");
    let good = manifest(&plugin, &plugin.providers[1], &platforms, "MIT");
    assert_eq!(problems(&v, &good), Vec::<String>::new());

    let mut bad_id = good.clone();
    bad_id["id"] = json!("Claude_Bridge");
    let mut no_cmd = good.clone();
    if let Some(targets) = no_cmd["distribution"]["binary"].as_object_mut() {
        for t in targets.values_mut() {
            t.as_object_mut().map(|o| o.remove("cmd"));
        }
    }
    let mut unknown_target = good.clone();
    unknown_target["distribution"]["binary"]["plan9-mips"] =
        json!({"archive": "https://example.com/a.tgz", "cmd": "./a"});
    for broken in [bad_id, no_cmd, unknown_target] {
        assert!(!problems(&v, &broken).is_empty(), "{broken}");
    }
}

#[test]
fn the_committed_manifests_match_plugin_json() {
    let dir = source_root().join("registry");
    for (path, text) in generated() {
        let on_disk = std::fs::read_to_string(dir.join(&path)).unwrap_or_default();
        assert_eq!(
            on_disk,
            text,
            "registry/{} is stale: run `cargo run -p agent-bridge-devtools -- acp-registry`",
            path.display()
        );
    }
}

#[test]
fn a_manifest_runs_the_platform_package_as_the_acp_agent_of_its_provider() {
    let m: Value =
        serde_json::from_str(&generated()[&PathBuf::from("agent-bridge-claude/agent.json")])
            .expect("JSON");
    assert_eq!(m["name"], "Claude Code (agent-bridge)");
    assert_eq!(
        m["distribution"]["binary"]["linux-x86_64"],
        json!({
            "archive": format!(
                "https://registry.npmjs.org/@agent-bridge/linux-x64/-/linux-x64-{}.tgz",
                m["version"].as_str().unwrap_or_default()
            ),
            "cmd": "./package/bin/agent-bridge",
            "args": ["acp", "--provider", "claude-bridge"],
        })
    );
    assert_eq!(
        m["distribution"]["binary"]["windows-x86_64"]["cmd"],
        "./package/bin/agent-bridge.exe"
    );
}
