//! Answering permission requests: at the prompt on a terminal, `--yes` to allow everything,
//! otherwise deny (a script cannot be asked).

use agent_bridge_protocol::{
    PermissionBehavior, ProviderPermissionRequest, ProviderPermissionResponse,
};
use std::io::{BufRead, Write};

/// How `try` answers permission requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Ask y/n on the terminal.
    Ask,
    /// `--yes`: allow every request.
    AllowAll,
    /// stdin is not a terminal and `--yes` was not given.
    DenyAll,
}

pub fn policy(yes: bool, stdin_is_terminal: bool) -> Policy {
    match (yes, stdin_is_terminal) {
        (true, _) => Policy::AllowAll,
        (false, true) => Policy::Ask,
        (false, false) => Policy::DenyAll,
    }
}

/// Reads a y/n answer: `Some(true)` for yes, `Some(false)` for no or an empty line (the
/// default), `None` for anything else.
pub fn parse_answer(line: &str) -> Option<bool> {
    match line.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => Some(true),
        "" | "n" | "no" => Some(false),
        _ => None,
    }
}

/// The response for a decision, naming the request's own allow/deny action when it has one.
pub fn response(request: &ProviderPermissionRequest, allow: bool) -> ProviderPermissionResponse {
    let wanted = if allow {
        PermissionBehavior::Allow
    } else {
        PermissionBehavior::Deny
    };
    let action = request
        .actions
        .as_ref()
        .and_then(|a| a.iter().find(|a| a.behavior == wanted))
        .map(|a| a.id.clone());
    if allow {
        ProviderPermissionResponse::Allow {
            selected_action_id: action,
            updated_input: None,
            updated_permissions: None,
        }
    } else {
        ProviderPermissionResponse::Deny {
            selected_action_id: action,
            message: Some("denied in agent-bridge try".into()),
            interrupt: None,
        }
    }
}

/// Asks on the terminal until the answer is y or n (stderr carries the question). Blocking:
/// run it off the async threads. End of input counts as no.
pub fn ask_blocking(question: &str) -> bool {
    let stdin = std::io::stdin();
    loop {
        {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "{question} [y/N] ");
            let _ = err.flush();
        }
        let mut line = String::new();
        match stdin.lock().read_line(&mut line) {
            Ok(0) | Err(_) => return false,
            Ok(_) => {
                if let Some(answer) = parse_answer(&line) {
                    return answer;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_bridge_protocol::{PermissionKind, ProviderPermissionAction};

    fn request(actions: bool) -> ProviderPermissionRequest {
        ProviderPermissionRequest {
            id: "p1".into(),
            name: "shell".into(),
            kind: PermissionKind::Tool,
            title: None,
            description: None,
            input: None,
            detail: None,
            suggestions: None,
            actions: actions.then(|| {
                vec![
                    ProviderPermissionAction {
                        id: "ok".into(),
                        label: "Run".into(),
                        behavior: PermissionBehavior::Allow,
                        variant: None,
                        intent: None,
                    },
                    ProviderPermissionAction {
                        id: "no".into(),
                        label: "Stop".into(),
                        behavior: PermissionBehavior::Deny,
                        variant: None,
                        intent: None,
                    },
                ]
            }),
            metadata: None,
        }
    }

    #[test]
    fn answers_default_to_no() {
        assert_eq!(parse_answer("y\n"), Some(true));
        assert_eq!(parse_answer(" YES "), Some(true));
        assert_eq!(parse_answer("\n"), Some(false));
        assert_eq!(parse_answer("no"), Some(false));
        assert_eq!(parse_answer("maybe"), None);
    }

    #[test]
    fn policy_never_asks_without_a_terminal() {
        assert_eq!(policy(false, false), Policy::DenyAll);
        assert_eq!(policy(true, false), Policy::AllowAll);
        assert_eq!(policy(false, true), Policy::Ask);
    }

    #[test]
    fn responses_select_the_matching_action() {
        match response(&request(true), true) {
            ProviderPermissionResponse::Allow {
                selected_action_id, ..
            } => assert_eq!(selected_action_id.as_deref(), Some("ok")),
            other => panic!("unexpected {other:?}"),
        }
        match response(&request(true), false) {
            ProviderPermissionResponse::Deny {
                selected_action_id, ..
            } => assert_eq!(selected_action_id.as_deref(), Some("no")),
            other => panic!("unexpected {other:?}"),
        }
        assert!(response(&request(false), true).is_allow());
    }
}
