//! `ProviderPrompt` and the content parts a message carries.

use crate::Json;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProviderPrompt {
    pub client_message_id: String,
    pub delivery: PromptDelivery,
    pub input: PromptInput,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Json>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clear_pending_permissions: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PromptDelivery {
    Auto,
    Steer,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum PromptInput {
    Message { content: Vec<ProviderContent> },
    Command { name: String, arguments: String },
}

impl PromptInput {
    /// The prompt as plain text: text parts and text attachments joined by blank lines; other
    /// parts rendered as a short reference line.
    pub fn to_text(&self) -> String {
        match self {
            PromptInput::Message { content } => {
                let parts: Vec<String> = content
                    .iter()
                    .filter_map(ProviderContent::as_text)
                    .collect();
                parts.join("\n\n")
            }
            PromptInput::Command { name, arguments } => {
                if arguments.is_empty() {
                    format!("/{name}")
                } else {
                    format!("/{name} {arguments}")
                }
            }
        }
    }

    pub fn has_image(&self) -> bool {
        match self {
            PromptInput::Message { content } => content
                .iter()
                .any(|c| matches!(c, ProviderContent::Tagged(TaggedContent::Image { .. }))),
            PromptInput::Command { .. } => false,
        }
    }
}

/// A content part. Two variants share `type: "text"`; they are told apart by `mimeType`: the
/// attachment (which requires `mimeType: "text/plain"`) is tried first, because unknown fields
/// are ignored and a plain text part would otherwise swallow an attachment's fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ProviderContent {
    TextAttachment(TextAttachmentPart),
    Text(TextPart),
    Tagged(TaggedContent),
}

impl ProviderContent {
    pub fn text(text: impl Into<String>) -> Self {
        ProviderContent::Text(TextPart {
            kind: TextTag::Text,
            text: text.into(),
        })
    }

    pub fn as_text(&self) -> Option<String> {
        match self {
            ProviderContent::Text(t) => Some(t.text.clone()),
            ProviderContent::TextAttachment(a) => Some(match &a.title {
                Some(title) => format!("{title}\n{}", a.text),
                None => a.text.clone(),
            }),
            ProviderContent::Tagged(TaggedContent::Image { mime_type, .. }) => {
                Some(format!("[image: {mime_type}]"))
            }
            ProviderContent::Tagged(TaggedContent::ForgeChangeRequest { title, url, .. })
            | ProviderContent::Tagged(TaggedContent::ForgeIssue { title, url, .. })
            | ProviderContent::Tagged(TaggedContent::GithubPr { title, url, .. })
            | ProviderContent::Tagged(TaggedContent::GithubIssue { title, url, .. }) => {
                Some(format!("{title} ({url})"))
            }
            ProviderContent::Tagged(TaggedContent::Review { cwd, .. }) => {
                Some(format!("[review of {cwd}]"))
            }
            ProviderContent::Tagged(TaggedContent::UploadedFile {
                file_name, path, ..
            }) => Some(format!("[file {file_name}: {path}]")),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum TextTag {
    #[serde(rename = "text")]
    Text,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TextPart {
    #[serde(rename = "type")]
    pub kind: TextTag,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TextAttachmentPart {
    #[serde(rename = "type")]
    pub kind: TextTag,
    pub mime_type: PlainTextMime,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_resource: Option<ExternalResource>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum PlainTextMime {
    #[serde(rename = "text/plain")]
    TextPlain,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExternalResource {
    pub provider: String,
    pub provider_label: String,
    pub resource_type: String,
    pub id: String,
    pub identifier: String,
    pub title: String,
    pub url: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TaggedContent {
    #[serde(rename_all = "camelCase")]
    Image { data: String, mime_type: String },
    #[serde(rename_all = "camelCase")]
    ForgeChangeRequest {
        mime_type: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        forge: Option<String>,
        number: u64,
        title: String,
        url: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<Option<String>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        project_path: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        base_ref_name: Option<Option<String>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        head_ref_name: Option<Option<String>>,
    },
    #[serde(rename_all = "camelCase")]
    ForgeIssue {
        mime_type: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        forge: Option<String>,
        number: u64,
        title: String,
        url: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<Option<String>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        project_path: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    GithubPr {
        mime_type: String,
        number: u64,
        title: String,
        url: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<Option<String>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        base_ref_name: Option<Option<String>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        head_ref_name: Option<Option<String>>,
    },
    #[serde(rename_all = "camelCase")]
    GithubIssue {
        mime_type: String,
        number: u64,
        title: String,
        url: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<Option<String>>,
    },
    #[serde(rename_all = "camelCase")]
    Review {
        mime_type: String,
        cwd: String,
        mode: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        base_ref: Option<String>,
        comments: Vec<Json>,
    },
    #[serde(rename_all = "camelCase")]
    UploadedFile {
        id: String,
        file_name: String,
        mime_type: String,
        size: u64,
        path: String,
    },
}
