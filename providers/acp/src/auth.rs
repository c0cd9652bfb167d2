//! How to tell, cheaply, that an ACP agent is logged in: the `auth` entry of a profile in
//! `profiles.json` (data, not code). Any one piece of evidence is enough: a set of environment
//! variables all set, a settings file naming a login method, a credentials file. Without
//! evidence, a profile with `status` asks the CLI that holds the login ([`crate::auth_status`]),
//! one with `probe` asks the agent itself (see [`crate::auth_probe`]);
//! otherwise the agent is taken as not logged in, with the profile's `hint`.

use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A profile's `auth` entry.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AuthSpec {
    /// Each entry: variables that, all set and non-empty, log the agent in.
    #[serde(default)]
    pub env: Vec<Vec<String>>,
    /// JSON settings files whose value at `pointer` (non-empty) names a login method.
    #[serde(default)]
    pub settings: Vec<SettingsEvidence>,
    /// Files whose existence shows a login (`~/…` under HOME, `$VAR/…` under a variable).
    #[serde(default)]
    pub files: Vec<String>,
    /// Without evidence, ask another CLI's status command (the agent's login is that CLI's,
    /// see [`crate::auth_status`]).
    #[serde(default)]
    pub status: Option<crate::auth_status::StatusCommand>,
    /// Without evidence, start the agent and try `session/new` (auth_required = not logged in).
    #[serde(default)]
    pub probe: bool,
    /// What to do when not logged in.
    pub hint: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SettingsEvidence {
    pub file: String,
    /// A JSON pointer (`/security/auth/selectedType`).
    pub pointer: String,
}

/// `~/x` under HOME, `$VAR/x` under VAR, an absolute path as is; `None` when the variable is
/// unset (that place does not exist for this environment).
pub fn expand(path: &str, env: &BTreeMap<String, String>) -> Option<PathBuf> {
    let var = |k: &str| env.get(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(rest) = path.strip_prefix("~/") {
        return var("HOME").map(|h| h.join(rest));
    }
    if let Some(rest) = path.strip_prefix('$') {
        let (name, tail) = rest.split_once('/').unwrap_or((rest, ""));
        return var(name).map(|d| if tail.is_empty() { d } else { d.join(tail) });
    }
    Some(PathBuf::from(path))
}

impl AuthSpec {
    /// The variables set that log the agent in (names only), if a set of them is complete.
    pub fn env_evidence(&self, env: &BTreeMap<String, String>) -> Option<String> {
        self.env
            .iter()
            .find(|set| {
                !set.is_empty()
                    && set
                        .iter()
                        .all(|k| env.get(k).is_some_and(|v| !v.trim().is_empty()))
            })
            .map(|set| set.join(" + "))
    }

    /// Every file the evidence may read, for the cache key of a probe.
    pub fn paths(&self, env: &BTreeMap<String, String>) -> Vec<PathBuf> {
        self.settings
            .iter()
            .map(|s| s.file.as_str())
            .chain(self.files.iter().map(String::as_str))
            .filter_map(|p| expand(p, env))
            .collect()
    }

    /// The first piece of evidence of a login, described (`GEMINI_API_KEY`,
    /// `security.auth.selectedType in ~/.gemini/settings.json`, ...). Reads files off the
    /// async runtime.
    pub async fn evidence(&self, env: &BTreeMap<String, String>) -> Option<String> {
        if let Some(vars) = self.env_evidence(env) {
            return Some(vars);
        }
        for s in &self.settings {
            let Some(path) = expand(&s.file, env) else {
                continue;
            };
            let Ok(text) = tokio::fs::read_to_string(&path).await else {
                continue;
            };
            if settings_name_a_method(&text, &s.pointer) {
                return Some(format!("{} in {}", s.pointer, path.display()));
            }
        }
        for f in &self.files {
            if let Some(path) = expand(f, env) {
                if tokio::fs::metadata(&path).await.is_ok() {
                    return Some(path.display().to_string());
                }
            }
        }
        None
    }
}

/// True when the JSON `text` has a non-empty value at `pointer`.
pub fn settings_name_a_method(text: &str, pointer: &str) -> bool {
    let Ok(json) = serde_json::from_str::<Value>(text) else {
        return false;
    };
    match json.pointer(pointer) {
        None | Some(Value::Null) => false,
        Some(Value::String(s)) => !s.trim().is_empty(),
        Some(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn spec(json: &str) -> AuthSpec {
        serde_json::from_str(json).expect("auth spec")
    }

    #[test]
    fn paths_expand_under_home_and_variables() {
        let e = env(&[("HOME", "/h"), ("CODEX_HOME", "/c")]);
        assert_eq!(
            expand("~/.gemini/settings.json", &e),
            Some("/h/.gemini/settings.json".into())
        );
        assert_eq!(
            expand("$CODEX_HOME/auth.json", &e),
            Some("/c/auth.json".into())
        );
        assert_eq!(expand("$NOPE/auth.json", &e), None);
        assert_eq!(expand("/etc/x.json", &e), Some("/etc/x.json".into()));
        assert_eq!(expand("~/x", &env(&[])), None);
    }

    #[test]
    fn a_complete_set_of_variables_is_evidence() {
        let s =
            spec(r#"{"env": [["QWEN_OAUTH"], ["OPENAI_API_KEY", "OPENAI_MODEL"]], "hint": "h"}"#);
        assert_eq!(s.env_evidence(&env(&[("OPENAI_API_KEY", "sk")])), None);
        assert_eq!(
            s.env_evidence(&env(&[("OPENAI_API_KEY", "sk"), ("OPENAI_MODEL", " ")])),
            None
        );
        assert_eq!(
            s.env_evidence(&env(&[("OPENAI_API_KEY", "sk"), ("OPENAI_MODEL", "m")]))
                .as_deref(),
            Some("OPENAI_API_KEY + OPENAI_MODEL")
        );
        assert_eq!(
            s.env_evidence(&env(&[("QWEN_OAUTH", "1")])).as_deref(),
            Some("QWEN_OAUTH")
        );
    }

    #[test]
    fn settings_need_a_value_at_the_pointer() {
        let p = "/security/auth/selectedType";
        assert!(settings_name_a_method(
            r#"{"security":{"auth":{"selectedType":"gemini-api-key"}}}"#,
            p
        ));
        assert!(!settings_name_a_method(
            r#"{"security":{"auth":{"selectedType":""}}}"#,
            p
        ));
        assert!(!settings_name_a_method(r#"{"security":{}}"#, p));
        assert!(!settings_name_a_method("not json", p));
    }

    #[tokio::test]
    async fn evidence_is_read_from_settings_and_files() {
        let home = tempfile::tempdir().unwrap();
        let e = env(&[("HOME", &home.path().display().to_string())]);
        let s = spec(
            r#"{"settings": [{"file": "~/.tool/settings.json", "pointer": "/auth/type"}],
                "files": ["~/.tool/creds.json"], "probe": true, "hint": "log in"}"#,
        );
        assert_eq!(s.evidence(&e).await, None);
        std::fs::create_dir_all(home.path().join(".tool")).unwrap();
        std::fs::write(home.path().join(".tool/settings.json"), r#"{"auth":{}}"#).unwrap();
        assert_eq!(s.evidence(&e).await, None, "no method named yet");
        std::fs::write(home.path().join(".tool/creds.json"), "{}").unwrap();
        let found = s.evidence(&e).await.expect("a credentials file");
        assert!(found.ends_with(".tool/creds.json"), "{found}");
        std::fs::write(
            home.path().join(".tool/settings.json"),
            r#"{"auth":{"type":"key"}}"#,
        )
        .unwrap();
        let found = s.evidence(&e).await.expect("settings");
        assert!(found.starts_with("/auth/type in "), "{found}");
        assert_eq!(s.paths(&e).len(), 2);
    }
}
