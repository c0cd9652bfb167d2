//! The per-session Claude options (`providerOptions` keys):
//! - `maxThinkingTokens` (select `default | 0 | 4000 | 16000 | 32000`, or any whole number up
//!   to [`MAX_BUDGET`]): the thinking budget. At start `--max-thinking-tokens`; live the
//!   control request `set_max_thinking_tokens` (`default` sends `null`: the CLI's own choice).
//!   `0` turns thinking off for every model; a number is the budget of models that take one
//!   (claude 2.1.197 sends `budget_tokens` for haiku; models with adaptive thinking stay
//!   adaptive).
//! - `additionalDirectories` (a list of absolute paths of folders, no control: Paseo draws only
//!   toggles and selects): folders the tools may use besides the working folder, `--add-dir`.
//!   A change restarts the CLI with `--resume`: `apply_flag_settings` adds folders live but
//!   neither removes one given at start nor updates the system prompt's list.
//!
//! A value of `null` resets a key; an unknown key or a bad value refuses the whole change.

use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{ControlChoice, JsonMap, ProviderControl, ProviderError};
use serde_json::{json, Value};

pub const MAX_THINKING_TOKENS: &str = "maxThinkingTokens";
pub const ADDITIONAL_DIRECTORIES: &str = "additionalDirectories";

/// The largest thinking budget accepted.
pub const MAX_BUDGET: u64 = 128_000;

const BUDGETS: [(&str, &str); 5] = [
    ("default", "Default"),
    ("0", "Off"),
    ("4000", "4k tokens"),
    ("16000", "16k tokens"),
    ("32000", "32k tokens"),
];

/// The values a session runs with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// `None`: the CLI's default budget.
    pub max_thinking_tokens: Option<u64>,
    pub additional_directories: Vec<String>,
}

fn invalid(message: String) -> ProviderError {
    ProviderError::new(message).with_code(ErrorCode::InvalidProviderOption)
}

fn budget(value: &Value) -> Result<Option<u64>, ProviderError> {
    let n = match value {
        Value::String(s) if s == "default" => return Ok(None),
        Value::String(s) => s.trim().parse::<u64>().ok(),
        Value::Number(n) => n.as_u64(),
        _ => None,
    };
    match n {
        Some(n) if n <= MAX_BUDGET => Ok(Some(n)),
        _ => Err(invalid(format!(
            "providerOptions.{MAX_THINKING_TOKENS} must be `default` or a whole number of tokens from 0 to {MAX_BUDGET}, not {value}"
        ))),
    }
}

fn directories(value: &Value) -> Result<Vec<String>, ProviderError> {
    let bad = || {
        invalid(format!(
            "providerOptions.{ADDITIONAL_DIRECTORIES} must be a list of absolute folder paths, not {value}"
        ))
    };
    let list = value.as_array().ok_or_else(bad)?;
    let mut dirs: Vec<String> = Vec::new();
    for v in list {
        let path = v.as_str().filter(|p| p.starts_with('/')).ok_or_else(bad)?;
        if !dirs.iter().any(|d| d == path) {
            dirs.push(path.to_string());
        }
    }
    Ok(dirs)
}

impl Options {
    /// These options with `changes` applied (`null` resets a key), or the error for the first
    /// unknown key or bad value.
    pub fn changed(&self, changes: &JsonMap) -> Result<Options, ProviderError> {
        let mut next = self.clone();
        for (key, value) in changes {
            match key.as_str() {
                MAX_THINKING_TOKENS if value.is_null() => next.max_thinking_tokens = None,
                MAX_THINKING_TOKENS => next.max_thinking_tokens = budget(value)?,
                ADDITIONAL_DIRECTORIES if value.is_null() => next.additional_directories.clear(),
                ADDITIONAL_DIRECTORIES => next.additional_directories = directories(value)?,
                other => {
                    return Err(invalid(format!(
                        "unknown provider option `{other}` (Claude takes `{MAX_THINKING_TOKENS}` and `{ADDITIONAL_DIRECTORIES}`)"
                    )))
                }
            }
        }
        Ok(next)
    }

    /// The values as `providerOptions` (echoed in `session.config`).
    pub fn provider_options(&self) -> JsonMap {
        let mut m = JsonMap::new();
        let budget = match self.max_thinking_tokens {
            None => json!("default"),
            Some(n) if BUDGETS.iter().any(|(v, _)| *v == n.to_string()) => json!(n.to_string()),
            Some(n) => json!(n),
        };
        m.insert(MAX_THINKING_TOKENS.into(), budget);
        m.insert(
            ADDITIONAL_DIRECTORIES.into(),
            json!(self.additional_directories),
        );
        m
    }

    /// The CLI arguments that start a process with these values.
    pub fn args(&self) -> Vec<String> {
        let mut args = Vec::new();
        if let Some(n) = self.max_thinking_tokens {
            args.push(format!("--max-thinking-tokens={n}"));
        }
        for dir in &self.additional_directories {
            args.push(format!("--add-dir={dir}"));
        }
        args
    }

    /// A change from `self` to `next` needs a restart (`--resume`) of the CLI.
    pub fn needs_restart(&self, next: &Options) -> bool {
        self.additional_directories != next.additional_directories
    }

    /// The control requests that change a running CLI from `self` to `next` (what
    /// [`Options::needs_restart`] does not cover), each with the request that undoes it.
    pub fn live_steps(&self, next: &Options) -> Vec<(Value, Value)> {
        let mut steps = Vec::new();
        if next.max_thinking_tokens != self.max_thinking_tokens {
            steps.push((
                json!({"subtype": "set_max_thinking_tokens", "max_thinking_tokens": next.max_thinking_tokens}),
                json!({"subtype": "set_max_thinking_tokens", "max_thinking_tokens": self.max_thinking_tokens}),
            ));
        }
        steps
    }
}

/// The composer controls (one: the thinking budget).
pub fn controls() -> Vec<ProviderControl> {
    vec![ProviderControl::Select {
        key: MAX_THINKING_TOKENS.into(),
        label: "Thinking budget".into(),
        icon: Some("Brain".into()),
        default_value: "default".into(),
        choices: BUDGETS
            .iter()
            .map(|(value, label)| ControlChoice {
                value: (*value).into(),
                label: (*label).into(),
            })
            .collect(),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn map(v: Value) -> JsonMap {
        match v {
            Value::Object(m) => m,
            _ => JsonMap::new(),
        }
    }

    #[test]
    fn changes_are_validated_all_or_nothing_and_null_resets() {
        let o = Options::default();
        let next = o
            .changed(&map(
                json!({"maxThinkingTokens": "16000", "additionalDirectories": ["/a", "/b", "/a"]}),
            ))
            .expect("valid");
        assert_eq!(next.max_thinking_tokens, Some(16000));
        assert_eq!(next.additional_directories, ["/a", "/b"]);
        assert_eq!(
            next.args(),
            [
                "--max-thinking-tokens=16000",
                "--add-dir=/a",
                "--add-dir=/b"
            ]
        );
        let numeric = o
            .changed(&map(json!({"maxThinkingTokens": 1234})))
            .expect("a number");
        assert_eq!(numeric.provider_options()["maxThinkingTokens"], json!(1234));
        assert_eq!(next.provider_options()["maxThinkingTokens"], json!("16000"));
        let reset = next
            .changed(&map(
                json!({"maxThinkingTokens": null, "additionalDirectories": null}),
            ))
            .expect("reset");
        assert_eq!(reset, Options::default());
        assert_eq!(
            reset.provider_options()["maxThinkingTokens"],
            json!("default")
        );
        for bad in [
            json!({"maxThinkingTokens": "lots"}),
            json!({"maxThinkingTokens": -1}),
            json!({"maxThinkingTokens": 999_999}),
            json!({"additionalDirectories": "relative"}),
            json!({"additionalDirectories": ["rel/path"]}),
            json!({"fastMode": true}),
            json!({"maxThinkingTokens": "4000", "nope": 1}),
        ] {
            let e = o.changed(&map(bad.clone())).expect_err("refused");
            assert_eq!(e.code, Some(ErrorCode::InvalidProviderOption), "{bad}");
        }
    }

    #[test]
    fn the_budget_changes_live_with_its_undo_and_folders_by_restart() {
        let o = Options::default();
        let next = o
            .changed(&map(
                json!({"maxThinkingTokens": "0", "additionalDirectories": ["/x"]}),
            ))
            .expect("valid");
        let steps = o.live_steps(&next);
        assert_eq!(
            steps,
            vec![(
                json!({"subtype": "set_max_thinking_tokens", "max_thinking_tokens": 0}),
                json!({"subtype": "set_max_thinking_tokens", "max_thinking_tokens": null}),
            )]
        );
        assert!(o.needs_restart(&next));
        assert!(!o.needs_restart(
            &o.changed(&map(json!({"maxThinkingTokens": "0"})))
                .expect("valid")
        ));
        assert!(next.live_steps(&next).is_empty());
    }
}
