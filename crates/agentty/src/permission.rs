//! A permission the agent waits for, as panel rows with the actions `allow`, `deny` and
//! `allow_always` (where the agent offers it); a question as one row per question with its
//! options. The panel never answers by itself: only these actions do.

use crate::limits::{cut, QUESTION_OPTIONS, SUBTITLE_CHARS, TITLE_CHARS};
use crate::ui::{ItemAction, ListItem, Tone};
use agent_bridge_protocol::{
    Json, JsonMap, PermissionBehavior, PermissionKind, ProviderPermissionAction,
    ProviderPermissionRequest, ProviderPermissionResponse, ToolCall,
};
use serde_json::Value;

pub const ALLOW: &str = "allow";
pub const DENY: &str = "deny";
pub const ALLOW_ALWAYS: &str = "allow_always";
/// A question answered with the text typed in `prompt`.
pub const TYPED: &str = "typed";
const OPTION: &str = "option-";

/// One question of a `question` permission.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    pub question: String,
    pub header: String,
    pub options: Vec<(String, Option<String>)>,
    pub other: bool,
}

/// A permission waiting for the user, with the answers picked so far (questions).
#[derive(Debug, Clone, PartialEq)]
pub struct Pending {
    pub request: ProviderPermissionRequest,
    pub questions: Vec<Question>,
    pub picks: Vec<Option<String>>,
}

/// What an action on a permission row does.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// Send this response.
    Respond(ProviderPermissionResponse),
    /// A question was answered; others of the same request are still open.
    Picked,
    /// The action cannot be used (why, for the status line).
    Refused(String),
}

fn questions_of(request: &ProviderPermissionRequest) -> Vec<Question> {
    let list = request
        .input
        .as_ref()
        .and_then(|i| i.get("questions"))
        .and_then(Value::as_array);
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).unwrap_or("").to_string();
    list.into_iter()
        .flatten()
        .filter(|q| !text(q, "question").is_empty())
        .map(|q| Question {
            question: text(q, "question"),
            header: text(q, "header"),
            options: q
                .get("options")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|o| {
                    let label = o.get("label").and_then(Value::as_str)?;
                    let description = o.get("description").and_then(Value::as_str);
                    Some((label.to_string(), description.map(str::to_string)))
                })
                .collect(),
            other: q.get("isOther").and_then(Value::as_bool).unwrap_or(false),
        })
        .collect()
}

impl Pending {
    pub fn new(request: ProviderPermissionRequest) -> Pending {
        let questions = if request.kind == PermissionKind::Question {
            questions_of(&request)
        } else {
            Vec::new()
        };
        let picks = vec![None; questions.len()];
        Pending {
            request,
            questions,
            picks,
        }
    }

    fn row_id(&self) -> String {
        format!("perm:{}", self.request.id)
    }

    /// Whether `row` is one of this permission's rows.
    pub fn owns(&self, row: &str) -> bool {
        let id = self.row_id();
        row == id || row.strip_prefix(&id).is_some_and(|r| r.starts_with(':'))
    }

    fn allows(&self) -> Vec<&ProviderPermissionAction> {
        self.actions(PermissionBehavior::Allow)
    }

    fn actions(&self, behavior: PermissionBehavior) -> Vec<&ProviderPermissionAction> {
        self.request
            .actions
            .iter()
            .flatten()
            .filter(|a| a.behavior == behavior)
            .collect()
    }

    /// The "allow every time" choice the agent offers: a second allow action, or the
    /// permission rules Claude Code suggests.
    fn always(&self) -> Option<Always<'_>> {
        let allows = self.allows();
        if allows.len() > 1 {
            return allows.get(1).map(|a| Always::Action(a));
        }
        self.request
            .suggestions
            .as_ref()
            .filter(|s| !s.is_empty())
            .map(Always::Rules)
    }

    /// The rows this permission shows.
    pub fn rows(&self) -> Vec<ListItem> {
        if !self.questions.is_empty() {
            return self.question_rows();
        }
        let r = &self.request;
        let label = |a: Option<&&ProviderPermissionAction>, default: &str| {
            a.map(|a| a.label.clone()).unwrap_or_else(|| default.into())
        };
        let mut actions = vec![ItemAction::new(
            ALLOW,
            label(self.allows().first(), "Allow"),
        )];
        match self.always() {
            Some(Always::Action(a)) => actions.push(ItemAction::new(ALLOW_ALWAYS, a.label.clone())),
            Some(Always::Rules(_)) => actions.push(ItemAction::new(ALLOW_ALWAYS, "Always allow")),
            None => {}
        }
        let deny = self.actions(PermissionBehavior::Deny);
        actions.push(ItemAction::new(DENY, label(deny.first(), "Deny")));
        let what = r.detail.clone().map(|d| {
            let (what, _, _) = crate::rows::tool_parts(&ToolCall::running("", &r.name, d));
            what
        });
        let subtitle = r
            .description
            .clone()
            .or(what)
            .filter(|s| !s.trim().is_empty());
        vec![ListItem {
            id: self.row_id(),
            title: cut(r.title.as_deref().unwrap_or(&r.name), TITLE_CHARS),
            subtitle: subtitle.map(|s| cut(s.trim(), SUBTITLE_CHARS)),
            detail: Some("waiting for you".into()),
            icon: Some("shield-alert".into()),
            tone: Some(Tone::Warning),
            actions,
        }]
    }

    fn question_rows(&self) -> Vec<ListItem> {
        self.questions
            .iter()
            .enumerate()
            .map(|(i, q)| {
                let mut actions: Vec<ItemAction> = q
                    .options
                    .iter()
                    .take(QUESTION_OPTIONS)
                    .enumerate()
                    .map(|(j, (label, description))| ItemAction {
                        id: format!("{OPTION}{j}"),
                        label: Some(label.clone()),
                        icon: None,
                        tooltip: description.clone(),
                    })
                    .collect();
                if q.other || q.options.is_empty() {
                    actions.push(ItemAction::new(TYPED, "Answer with the prompt's text"));
                }
                if i == 0 {
                    actions.push(ItemAction::new(DENY, "Dismiss"));
                }
                let picked = self.picks.get(i).cloned().flatten();
                ListItem {
                    id: format!("{}:{i}", self.row_id()),
                    title: cut(&q.question, TITLE_CHARS),
                    subtitle: Some(match &picked {
                        Some(p) => cut(&format!("Answered: {p}"), SUBTITLE_CHARS),
                        None if q.header.is_empty() => "A question for you".into(),
                        None => cut(&q.header, SUBTITLE_CHARS),
                    }),
                    detail: None,
                    icon: Some("message-circle-question".into()),
                    tone: Some(if picked.is_some() {
                        Tone::Success
                    } else {
                        Tone::Info
                    }),
                    actions,
                }
            })
            .collect()
    }

    /// The answer of `action` on `row`; `typed` is the text in `prompt`.
    pub fn answer(&mut self, row: &str, action: &str, typed: &str) -> Answer {
        if action == DENY {
            let deny = self.actions(PermissionBehavior::Deny);
            return Answer::Respond(ProviderPermissionResponse::Deny {
                selected_action_id: deny.first().map(|a| a.id.clone()),
                message: Some("Denied in the Agentty panel".into()),
                interrupt: None,
            });
        }
        if !self.questions.is_empty() {
            return self.pick(row, action, typed);
        }
        let allow = |id: Option<String>, rules: Option<Vec<Json>>| {
            Answer::Respond(ProviderPermissionResponse::Allow {
                selected_action_id: id,
                updated_input: None,
                updated_permissions: rules,
            })
        };
        match action {
            ALLOW => allow(self.allows().first().map(|a| a.id.clone()), None),
            ALLOW_ALWAYS => match self.always() {
                Some(Always::Action(a)) => allow(Some(a.id.clone()), None),
                Some(Always::Rules(rules)) => allow(
                    self.allows().first().map(|a| a.id.clone()),
                    Some(rules.iter().cloned().map(Value::Object).collect()),
                ),
                None => Answer::Refused("the agent offers no \"always\" for this".into()),
            },
            other => Answer::Refused(format!("no action `{other}` on a permission")),
        }
    }

    fn pick(&mut self, row: &str, action: &str, typed: &str) -> Answer {
        let Some(index) = row
            .rsplit(':')
            .next()
            .and_then(|i| i.parse::<usize>().ok())
            .filter(|i| *i < self.questions.len())
        else {
            return Answer::Refused("no such question".into());
        };
        let q = &self.questions[index];
        let value = if action == TYPED {
            let t = typed.trim();
            if t.is_empty() {
                return Answer::Refused("type the answer in the prompt first".into());
            }
            t.to_string()
        } else {
            let option = action
                .strip_prefix(OPTION)
                .and_then(|j| j.parse::<usize>().ok())
                .and_then(|j| q.options.get(j));
            match option {
                Some((label, _)) => label.clone(),
                None => return Answer::Refused(format!("no option `{action}`")),
            }
        };
        self.picks[index] = Some(value);
        if self.picks.iter().any(Option::is_none) {
            return Answer::Picked;
        }
        let mut answers = JsonMap::new();
        for (q, pick) in self.questions.iter().zip(&self.picks) {
            if let Some(p) = pick {
                answers.insert(q.question.clone(), Value::String(p.clone()));
            }
        }
        let mut input = JsonMap::new();
        input.insert("answers".into(), Value::Object(answers));
        Answer::Respond(ProviderPermissionResponse::Allow {
            selected_action_id: self.allows().first().map(|a| a.id.clone()),
            updated_input: Some(input),
            updated_permissions: None,
        })
    }
}

enum Always<'a> {
    Action(&'a ProviderPermissionAction),
    Rules(&'a Vec<JsonMap>),
}

#[cfg(test)]
#[path = "permission_tests.rs"]
mod tests;
