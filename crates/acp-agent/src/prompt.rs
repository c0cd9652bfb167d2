//! ACP prompt content blocks as the core's prompt input.
//!
//! - `text` → a text part; a prompt that is one text block `/name args` naming one of the
//!   session's commands is sent as that command (ACP clients send slash commands as text);
//! - `image` → an image part (only when the provider takes images: `promptCapabilities.image`);
//! - `resource` (embedded context) with text → a text attachment titled by its URI; with a
//!   blob → an image part when its MIME type is an image, else a reference line;
//! - `resource_link` → a line naming the resource and its URI;
//! - `audio` is refused (the bridge's agents take none; `promptCapabilities.audio` is false).

use agent_bridge_protocol::{
    PlainTextMime, PromptInput, ProviderCommand, ProviderContent, TaggedContent,
    TextAttachmentPart, TextTag,
};
use agent_client_protocol_schema::v1::{ContentBlock, EmbeddedResourceResource};

/// Why a prompt could not be sent.
#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    #[error("audio prompts are not supported by this agent")]
    Audio,
    #[error("this agent does not take images")]
    Image,
    #[error("the prompt is empty")]
    Empty,
    #[error("unsupported content block")]
    Unknown,
}

/// The core's input for `blocks`.
pub fn input(
    blocks: &[ContentBlock],
    commands: &[ProviderCommand],
    images: bool,
) -> Result<PromptInput, PromptError> {
    if let [ContentBlock::Text(t)] = blocks {
        if let Some(command) = command_of(&t.text, commands) {
            return Ok(command);
        }
    }
    let mut content = Vec::with_capacity(blocks.len());
    for block in blocks {
        content.push(match block {
            ContentBlock::Text(t) => ProviderContent::text(t.text.clone()),
            ContentBlock::Image(i) => {
                if !images {
                    return Err(PromptError::Image);
                }
                ProviderContent::Tagged(TaggedContent::Image {
                    data: i.data.clone(),
                    mime_type: i.mime_type.clone(),
                })
            }
            ContentBlock::Audio(_) => return Err(PromptError::Audio),
            ContentBlock::ResourceLink(link) => {
                ProviderContent::text(format!("[{}]({})", link.name, link.uri))
            }
            ContentBlock::Resource(r) => match &r.resource {
                EmbeddedResourceResource::TextResourceContents(t) => {
                    ProviderContent::TextAttachment(TextAttachmentPart {
                        kind: TextTag::Text,
                        mime_type: PlainTextMime::TextPlain,
                        context_kind: None,
                        title: Some(t.uri.clone()),
                        text: t.text.clone(),
                        external_resource: None,
                    })
                }
                EmbeddedResourceResource::BlobResourceContents(b) => {
                    match b.mime_type.as_deref().filter(|m| m.starts_with("image/")) {
                        Some(mime) if images => ProviderContent::Tagged(TaggedContent::Image {
                            data: b.blob.clone(),
                            mime_type: mime.to_string(),
                        }),
                        _ => ProviderContent::text(format!("[resource {}]", b.uri)),
                    }
                }
                _ => return Err(PromptError::Unknown),
            },
            _ => return Err(PromptError::Unknown),
        });
    }
    if content.is_empty() {
        return Err(PromptError::Empty);
    }
    Ok(PromptInput::Message { content })
}

fn command_of(text: &str, commands: &[ProviderCommand]) -> Option<PromptInput> {
    let rest = text.trim().strip_prefix('/')?;
    let (name, arguments) = match rest.split_once(char::is_whitespace) {
        Some((n, a)) => (n, a.trim()),
        None => (rest, ""),
    };
    commands.iter().find(|c| c.name == name)?;
    Some(PromptInput::Command {
        name: name.to_string(),
        arguments: arguments.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol_schema::v1::{ImageContent, TextContent};
    use pretty_assertions::assert_eq;

    fn text(t: &str) -> ContentBlock {
        ContentBlock::Text(TextContent::new(t))
    }

    #[test]
    fn a_known_slash_command_is_a_command() {
        let commands = vec![ProviderCommand {
            name: "echo".into(),
            description: String::new(),
            argument_hint: None,
        }];
        assert_eq!(
            input(&[text("/echo hi there")], &commands, false).unwrap(),
            PromptInput::Command {
                name: "echo".into(),
                arguments: "hi there".into()
            }
        );
        assert!(matches!(
            input(&[text("/nope")], &commands, false).unwrap(),
            PromptInput::Message { .. }
        ));
    }

    #[test]
    fn images_only_when_the_agent_takes_them() {
        let image = ContentBlock::Image(ImageContent::new("aGk=", "image/png"));
        assert!(matches!(
            input(std::slice::from_ref(&image), &[], false),
            Err(PromptError::Image)
        ));
        assert!(input(&[image], &[], true).unwrap().has_image());
    }
}
