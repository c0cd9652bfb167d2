//! A tool call as the bridge keeps it: the crate's [`ToolCallUpdate`] (every field optional,
//! so "not given" stays apart from "pending" or "other"), the `tool_call` and later
//! `tool_call_update`s of one `toolCallId` merged into it.

use super::acp::{
    ContentBlock, EmbeddedResourceResource, ToolCallUpdate, ToolCallUpdateFields, ToolKind,
};

/// The merged fields of one tool call.
pub type ToolSnapshot = ToolCallUpdate;

/// An empty snapshot of `id`.
pub fn empty(id: &str) -> ToolSnapshot {
    ToolCallUpdate::new(id.to_string(), ToolCallUpdateFields::default())
}

/// The `toolCallId` as text.
pub fn id(f: &ToolSnapshot) -> String {
    f.tool_call_id.0.to_string()
}

/// Merges a `tool_call_update` into a snapshot: given fields replace (content and locations
/// wholesale), absent ones stay; `_meta` keys are merged.
pub fn merge(snapshot: &mut ToolSnapshot, update: ToolCallUpdate) {
    let (mine, theirs) = (&mut snapshot.fields, update.fields);
    macro_rules! take {
        ($($f:ident),*) => { $( if theirs.$f.is_some() { mine.$f = theirs.$f; } )* };
    }
    take!(title, name, kind, status, content, locations, raw_input, raw_output);
    if let Some(meta) = update.meta {
        match &mut snapshot.meta {
            Some(kept) => kept.extend(meta),
            slot => *slot = Some(meta),
        }
    }
}

/// The wire name of a tool kind (`execute`, `read`, ...); `other` for the crate's catch-all.
pub fn kind_name(kind: &ToolKind) -> &'static str {
    match kind {
        ToolKind::Read => "read",
        ToolKind::Edit => "edit",
        ToolKind::Delete => "delete",
        ToolKind::Move => "move",
        ToolKind::Search => "search",
        ToolKind::Execute => "execute",
        ToolKind::Think => "think",
        ToolKind::Fetch => "fetch",
        ToolKind::SwitchMode => "switch_mode",
        _ => "other",
    }
}

/// The text of one content block: a text block, an embedded text resource, a resource link's
/// URI; nothing for images, audio and blobs.
pub fn content_text(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(t) => t.text.clone(),
        ContentBlock::Resource(r) => match &r.resource {
            EmbeddedResourceResource::TextResourceContents(t) => t.text.clone(),
            _ => String::new(),
        },
        ContentBlock::ResourceLink(l) => l.uri.clone(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn update(v: serde_json::Value) -> ToolCallUpdate {
        serde_json::from_value(v).expect("a tool call update")
    }

    #[test]
    fn an_update_replaces_given_fields_and_merges_meta() {
        let mut s = update(json!({"toolCallId": "t", "title": "ls", "kind": "execute",
            "status": "pending", "_meta": {"a": 1}}));
        merge(
            &mut s,
            update(json!({"toolCallId": "t", "status": "completed", "_meta": {"b": 2}})),
        );
        assert_eq!(
            serde_json::to_value(&s).expect("json"),
            json!({"toolCallId": "t", "title": "ls", "kind": "execute", "status": "completed",
                "_meta": {"a": 1, "b": 2}})
        );
    }

    #[test]
    fn a_newer_agents_kind_and_status_degrade_instead_of_failing() {
        let s = update(
            json!({"toolCallId": "t", "kind": "browse", "status": "paused",
            "content": [{"type": "hologram"}, {"type": "content", "content": {"type": "text", "text": "ok"}}],
            "futureField": true}),
        );
        assert_eq!(s.fields.kind.as_ref().map(kind_name), Some("other"));
        assert_eq!(s.fields.status, None, "an unknown status is not given");
        assert_eq!(
            s.fields.content.as_ref().map(Vec::len),
            Some(1),
            "the unknown item skipped"
        );
    }
}
