//! The content blocks of a prompt's stdin line.

use agent_bridge_core::TurnRequest;
use agent_bridge_protocol::{PromptInput, ProviderContent, TaggedContent};
use serde_json::{json, Value};

/// The CLI content blocks of a prompt.
pub fn prompt_content(turn: &TurnRequest) -> Vec<Value> {
    let PromptInput::Message { content } = &turn.prompt.input else {
        return vec![json!({"type": "text", "text": turn.text})];
    };
    let mut out = Vec::new();
    for part in content {
        match part {
            ProviderContent::Tagged(TaggedContent::Image {
                data, mime_type, ..
            }) => out.push(json!({
                "type": "image",
                "source": {"type": "base64", "media_type": mime_type, "data": data},
            })),
            other => {
                if let Some(text) = other.as_text() {
                    out.push(json!({"type": "text", "text": text}));
                }
            }
        }
    }
    if out.is_empty() {
        out.push(json!({"type": "text", "text": turn.text}));
    }
    out
}
