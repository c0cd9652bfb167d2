//! Codex's skills (`skills/list` of the session's folder): each enabled skill is a command named
//! by the skill. Running it is what Codex's own composer sends for a `$name` mention: the text
//! `$name arguments` and a `skill` input item with the skill's `SKILL.md` path, which makes
//! Codex hand the skill's instructions to the model.

use crate::launch::SETUP_TIMEOUT;
use crate::wire::notify::method;
use agent_bridge_core::rpc::{PeerError, PeerHandle};
use serde_json::{json, Value};

/// One skill as `skills/list` describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    pub name: String,
    /// Its `SKILL.md`.
    pub path: String,
    pub description: String,
}

/// The enabled skills of a `skills/list` answer (`data[].skills[]`), the first of each name.
pub fn of_list(answer: &Value) -> Vec<Skill> {
    let mut out: Vec<Skill> = Vec::new();
    let entries = answer["data"].as_array().into_iter().flatten();
    for skill in entries.flat_map(|e| e["skills"].as_array().into_iter().flatten()) {
        if skill["enabled"] == Value::Bool(false) {
            continue;
        }
        let (Some(name), Some(path)) = (skill["name"].as_str(), skill["path"].as_str()) else {
            continue;
        };
        if name.is_empty() || out.iter().any(|s| s.name == name) {
            continue;
        }
        // The short line the pickers show, else the (model-facing) description.
        let description = [
            &skill["interface"]["shortDescription"],
            &skill["shortDescription"],
            &skill["description"],
        ]
        .into_iter()
        .find_map(|v| v.as_str().filter(|d| !d.trim().is_empty()))
        .unwrap_or_default();
        out.push(Skill {
            name: name.to_string(),
            path: path.to_string(),
            description: description.to_string(),
        });
    }
    out
}

/// `skills/list` for `cwd`.
pub async fn list(rpc: &PeerHandle, cwd: &str) -> Result<Vec<Skill>, PeerError> {
    let answer = rpc
        .call_within(method::SKILLS_LIST, json!({ "cwds": [cwd] }), SETUP_TIMEOUT)
        .await?;
    Ok(of_list(&answer))
}

/// The text of a turn that runs `name` (Codex's mention syntax).
pub fn mention(name: &str, arguments: &str) -> String {
    if arguments.trim().is_empty() {
        format!("${name}")
    } else {
        format!("${name} {}", arguments.trim())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn enabled_skills_with_their_short_descriptions() {
        let answer = json!({"data": [{"cwd": "/w", "errors": [], "skills": [
            {"name": "repo-skill", "description": "Long text for the model", "path": "/w/.agents/skills/repo-skill/SKILL.md", "scope": "repo", "enabled": true},
            {"name": "imagegen", "description": "Generate images", "path": "/h/imagegen/SKILL.md", "scope": "system", "enabled": true,
             "interface": {"displayName": "Image Gen", "shortDescription": "Make images"}},
            {"name": "off", "description": "d", "path": "/p", "scope": "user", "enabled": false},
            {"name": "repo-skill", "description": "shadowed", "path": "/h/repo-skill/SKILL.md", "scope": "user", "enabled": true},
            {"description": "nameless", "path": "/q", "enabled": true}
        ]}]});
        assert_eq!(
            of_list(&answer),
            vec![
                Skill {
                    name: "repo-skill".into(),
                    path: "/w/.agents/skills/repo-skill/SKILL.md".into(),
                    description: "Long text for the model".into(),
                },
                Skill {
                    name: "imagegen".into(),
                    path: "/h/imagegen/SKILL.md".into(),
                    description: "Make images".into(),
                },
            ]
        );
        assert_eq!(of_list(&json!({})), vec![]);
    }

    #[test]
    fn a_skill_runs_as_a_mention() {
        assert_eq!(mention("figma", ""), "$figma");
        assert_eq!(
            mention("figma", " the login page "),
            "$figma the login page"
        );
    }
}
