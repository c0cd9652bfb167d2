//! `agent-bridge doctor --json`: the findings as a JSON array, one object per provider, for
//! scripts: `id`, `label`, `agent`, `status` (`available`, `missing`, `unrunnable`,
//! `incompatible`, or `unknown agent` when this build lacks the agent), `version` (the CLI's
//! version line, or `null`), `cli` (its path, or `null`), `diagnostic` (or `null`) and `spares`:
//! the provider's idle warm spares in the running bridges of this user, each with `bridgePid`,
//! `pid`, `kind` (`shared`: a shared process all of whose sessions left; `prestarted`: a
//! process started ahead of the next session), `idleSinceMs` (Unix epoch) and `rssBytes` (the
//! resident memory of its process tree).

use crate::doctor::{status_word, CliState, Finding};
use agent_bridge_core::spares::RunningSpare;
use serde::Serialize;

#[derive(Debug, Serialize, PartialEq)]
pub struct JsonFinding<'a> {
    pub id: &'a str,
    pub label: &'a str,
    pub agent: &'a str,
    pub status: &'static str,
    pub version: Option<&'a str>,
    pub cli: Option<String>,
    pub diagnostic: Option<String>,
    pub spares: Vec<&'a RunningSpare>,
}

/// `f` as JSON, with the spares of `spares` that are its provider's.
pub fn finding<'a>(f: &'a Finding, spares: &'a [RunningSpare]) -> JsonFinding<'a> {
    let (version, cli) = match &f.cli {
        Some(CliState::Found { path, version }) => {
            (version.as_deref().ok(), Some(path.display().to_string()))
        }
        _ => (None, None),
    };
    let (status, diagnostic) = match &f.availability {
        Some(a) => (status_word(a.status), a.diagnostic.clone()),
        None => (
            "unknown agent",
            Some(format!(
                "this build of agent-bridge has no agent `{}`; fix plugin.json or update agent-bridge",
                f.agent
            )),
        ),
    };
    JsonFinding {
        id: &f.id,
        label: &f.label,
        agent: &f.agent,
        status,
        version,
        cli,
        diagnostic: diagnostic.filter(|d| !d.trim().is_empty()),
        spares: spares
            .iter()
            .filter(|s| s.record.provider == f.id)
            .collect(),
    }
}

/// The findings, each with its provider's idle spares among `spares`.
pub fn render(findings: &[Finding], spares: &[RunningSpare]) -> serde_json::Result<String> {
    let all: Vec<JsonFinding<'_>> = findings.iter().map(|f| finding(f, spares)).collect();
    serde_json::to_string_pretty(&all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_bridge_core::spares::SpareRecord;
    use agent_bridge_protocol::{AvailabilityStatus, ProviderAvailability};
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn findings_become_one_object_each() {
        let findings = vec![
            Finding {
                id: "claude-bridge".into(),
                label: "Claude Code".into(),
                agent: "claude".into(),
                cli: Some(CliState::Found {
                    path: "/bin/claude".into(),
                    version: Ok("2.1.197 (Claude Code)".into()),
                }),
                availability: Some(ProviderAvailability::with(
                    AvailabilityStatus::Unrunnable,
                    "Claude Code is not logged in: run `claude /login` or set ANTHROPIC_API_KEY",
                )),
            },
            Finding {
                id: "demo".into(),
                label: "Demo".into(),
                agent: "demo".into(),
                cli: Some(CliState::BuiltIn),
                availability: Some(ProviderAvailability::available()),
            },
            Finding {
                id: "x".into(),
                label: "X".into(),
                agent: "nope".into(),
                cli: None,
                availability: None,
            },
        ];
        let spares = vec![RunningSpare {
            bridge_pid: 7,
            record: SpareRecord {
                provider: "demo".into(),
                pid: 42,
                kind: "shared".into(),
                idle_since_ms: 1_000,
            },
            rss_bytes: 2_048,
        }];
        let out: serde_json::Value =
            serde_json::from_str(&render(&findings, &spares).expect("render")).expect("JSON");
        assert_eq!(
            out,
            json!([
                {"id": "claude-bridge", "label": "Claude Code", "agent": "claude",
                 "status": "unrunnable", "version": "2.1.197 (Claude Code)", "cli": "/bin/claude",
                 "diagnostic": "Claude Code is not logged in: run `claude /login` or set ANTHROPIC_API_KEY",
                 "spares": []},
                {"id": "demo", "label": "Demo", "agent": "demo", "status": "available",
                 "version": null, "cli": null, "diagnostic": null,
                 "spares": [{"bridgePid": 7, "provider": "demo", "pid": 42, "kind": "shared",
                             "idleSinceMs": 1000, "rssBytes": 2048}]},
                {"id": "x", "label": "X", "agent": "nope", "status": "unknown agent",
                 "version": null, "cli": null,
                 "diagnostic": "this build of agent-bridge has no agent `nope`; fix plugin.json or update agent-bridge",
                 "spares": []}
            ])
        );
    }
}
