use super::*;
use agent_bridge_protocol::{
    PermissionKind, ProviderError, ProviderPermissionRequest, TimelineItem,
};
use pretty_assertions::assert_eq;

fn item(id: &str, text: &str) -> ProviderEvent {
    ProviderEvent::TimelineItem {
        session_id: "s".into(),
        item: TimelineItem::new(
            id,
            ItemBody::AssistantMessage {
                text: text.into(),
                message_id: None,
            },
        ),
        timestamp: None,
    }
}

fn ids(s: &PanelSession) -> Vec<&str> {
    s.rows.iter().map(|r| r.id.as_str()).collect()
}

#[test]
fn streamed_text_replaces_its_row_in_place() {
    let mut s = PanelSession::new("s".into(), "demo", "Demo", "/w".into());
    s.apply(item("a", "Hel"));
    s.apply(item("b", "other"));
    s.apply(item("a", "Hello"));
    assert_eq!(ids(&s), ["item:a", "item:b"]);
    let RowBody::Item(first) = &s.rows[0].body else {
        panic!("an item")
    };
    assert_eq!(first.title, "Hello");
}

#[test]
fn a_permission_row_comes_and_goes_and_the_turn_ends_once() {
    let mut s = PanelSession::new("s".into(), "demo", "Demo", "/w".into());
    s.running = Some(String::new());
    s.apply(ProviderEvent::SessionTurn {
        session_id: "s".into(),
        turn_id: "t1".into(),
        state: TurnState::Started,
        error: None,
    });
    let asked = s.apply(ProviderEvent::SessionPermission {
        session_id: "s".into(),
        request: ProviderPermissionRequest {
            id: "p1".into(),
            name: "shell".into(),
            kind: PermissionKind::Tool,
            title: Some("Run `ls`?".into()),
            description: None,
            input: None,
            detail: None,
            suggestions: None,
            actions: None,
            metadata: None,
        },
    });
    assert_eq!(asked, [Happening::Asked("Run `ls`?".into())]);
    assert_eq!(ids(&s), ["perm:p1"]);
    s.apply(ProviderEvent::SessionPermissionResolved {
        session_id: "s".into(),
        permission_id: "p1".into(),
    });
    assert!(s.rows.is_empty() && s.pending.is_empty());
    let ended = s.apply(ProviderEvent::SessionTurn {
        session_id: "s".into(),
        turn_id: "t1".into(),
        state: TurnState::Failed,
        error: Some(ProviderError::new("boom")),
    });
    assert_eq!(
        ended[0],
        Happening::TurnEnded {
            state: TurnState::Failed,
            reply: None
        }
    );
    assert!(!s.is_running());
    assert_eq!(ids(&s), ["turn:t1"]);
}
