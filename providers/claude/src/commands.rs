//! The CLI's slash commands: the `initialize` answer's list, replaced whenever the CLI pushes
//! `system/commands_changed` (skills or commands added while the session runs, MCP prompts
//! appearing, `/reload-skills`), and the text a command is run with.
//!
//! `system/init`'s `slash_commands` (names only) is not used: it lags behind
//! `commands_changed` (claude 2.1.197 prints an init without a command it announced just
//! before), so following it would drop commands that exist and bring back removed ones.

use crate::state::SessionState;
use agent_bridge_core::AgentEvent;
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{ProviderCommand, ProviderError};
use serde_json::Value;

/// Commands of a list as the CLI prints it (`initialize.commands`, `commands_changed.commands`):
/// `{name, description, argumentHint}` objects; entries without a name are skipped.
pub fn from_list(list: &[Value]) -> Vec<ProviderCommand> {
    list.iter()
        .filter_map(|c| {
            Some(ProviderCommand {
                name: c
                    .get("name")?
                    .as_str()
                    .filter(|n| !n.is_empty())?
                    .to_string(),
                description: c
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                argument_hint: c
                    .get("argumentHint")
                    .and_then(Value::as_str)
                    .filter(|h| !h.is_empty())
                    .map(str::to_string),
            })
        })
        .collect()
}

/// The commands of an `initialize` answer.
pub fn of_initialize(answer: &Value) -> Vec<ProviderCommand> {
    answer
        .get("commands")
        .and_then(Value::as_array)
        .map(|l| from_list(l))
        .unwrap_or_default()
}

/// The user line that runs `/name arguments` (the CLI expands it itself).
pub fn text(name: &str, arguments: &str) -> String {
    let name = name.trim_start_matches('/');
    if arguments.trim().is_empty() {
        format!("/{name}")
    } else {
        format!("/{name} {arguments}")
    }
}

/// Records `list` as the session's commands; the event to publish when it changed.
pub fn replace(s: &mut SessionState, list: Vec<ProviderCommand>) -> Option<AgentEvent> {
    if s.commands == list {
        return None;
    }
    s.commands = list.clone();
    Some(AgentEvent::Commands(list))
}

/// The line that runs `/name arguments`, if the CLI lists `name` now (any name when the CLI
/// listed none).
pub fn command_line(
    s: &SessionState,
    name: &str,
    arguments: &str,
) -> Result<String, ProviderError> {
    let bare = name.trim_start_matches('/');
    if !s.commands.is_empty() && !s.commands.iter().any(|c| c.name == bare) {
        return Err(
            ProviderError::new(format!("unknown Claude Code command `/{bare}`"))
                .with_code(ErrorCode::UnknownCommand),
        );
    }
    Ok(text(bare, arguments))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn lists_keep_order_hints_and_skip_nameless_entries() {
        let list = from_list(&[
            json!({"name": "fresh", "description": "Brand new (project)", "argumentHint": ""}),
            json!({"description": "no name"}),
            json!({"name": "review", "description": "Review a PR", "argumentHint": "[pr number]", "aliases": ["r"]}),
        ]);
        assert_eq!(
            list,
            vec![
                ProviderCommand {
                    name: "fresh".into(),
                    description: "Brand new (project)".into(),
                    argument_hint: None,
                },
                ProviderCommand {
                    name: "review".into(),
                    description: "Review a PR".into(),
                    argument_hint: Some("[pr number]".into()),
                },
            ]
        );
        assert_eq!(of_initialize(&json!({"models": []})), vec![]);
    }

    #[test]
    fn command_text_is_a_slash_line() {
        assert_eq!(text("compact", ""), "/compact");
        assert_eq!(text("/review", "12"), "/review 12");
    }
}
