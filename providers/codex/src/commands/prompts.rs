//! Custom prompts: the Markdown files of `$CODEX_HOME/prompts/` (default `~/.codex/prompts`),
//! each a command `prompts:<file stem>`, as Codex's TUI offered them (as `/prompts:<name>`)
//! until they were removed in March 2026 (openai/codex#16115; the app-server never listed or
//! expanded them). codex 0.171.0 reads the folder no more, so the bridge reads it and expands
//! the prompt itself, as the TUI did, and sends the text as the turn's prompt.
//!
//! A file may start with front matter (`---` lines) naming `description` and `argument-hint`
//! (or `argument_hint`). The body's placeholders: upper-case names (`$FILE`, filled from
//! `FILE=value` arguments, all required), else `$1`..`$9` and `$ARGUMENTS` (the arguments split
//! like a shell does, `$ARGUMENTS` all of them joined by spaces). `$$` is a literal `$$`.

use std::path::{Path, PathBuf};

/// The command prefix of a custom prompt.
pub const PREFIX: &str = "prompts:";

/// One prompt file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomPrompt {
    /// The file stem.
    pub name: String,
    /// The body, without the front matter.
    pub content: String,
    pub description: Option<String>,
    pub argument_hint: Option<String>,
}

/// Why a prompt's arguments do not fit it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExpandError {
    #[error("a quote is not closed in `{0}`")]
    UnclosedQuote(String),
    #[error("expected NAME=value, found `{0}` (quote values with spaces)")]
    NotAnAssignment(String),
    #[error("`{0}` names no placeholder (expected NAME=value)")]
    EmptyName(String),
    #[error("missing {}: give each as NAME=value", .0.join(", "))]
    Missing(Vec<String>),
}

/// The prompts folder of a Codex whose environment has `codex_home` / `home`.
pub fn dir(codex_home: Option<&str>, home: Option<&str>) -> Option<PathBuf> {
    match codex_home.filter(|h| !h.is_empty()) {
        Some(h) => Some(PathBuf::from(h).join("prompts")),
        None => home
            .filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join(".codex").join("prompts")),
    }
}

/// The `.md` files of `dir` (not sub-folders, not unreadable or non-UTF-8 files), by name.
/// A missing folder has none.
pub fn discover(dir: &Path) -> Vec<CustomPrompt> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<CustomPrompt> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| {
            let path = e.path();
            let is_md = path
                .extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| x.eq_ignore_ascii_case("md"));
            let name = path.file_stem()?.to_str()?.to_string();
            let text = std::fs::read_to_string(&path).ok()?;
            is_md.then(|| parse(&name, &text))
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// A prompt file's front matter and body.
pub fn parse(name: &str, text: &str) -> CustomPrompt {
    let plain = CustomPrompt {
        name: name.to_string(),
        content: text.to_string(),
        description: None,
        argument_hint: None,
    };
    let mut lines = text.lines();
    if lines.next().map(str::trim) != Some("---") {
        return plain;
    }
    let mut prompt = CustomPrompt {
        content: String::new(),
        ..plain.clone()
    };
    let mut body = Vec::new();
    let mut closed = false;
    for line in lines {
        if closed {
            body.push(line);
            continue;
        }
        let line = line.trim();
        if line == "---" {
            closed = true;
        } else if let Some((key, value)) = line.split_once(':') {
            let value = unquote(value.trim()).to_string();
            match key.trim().to_ascii_lowercase().as_str() {
                "description" => prompt.description = Some(value),
                "argument-hint" | "argument_hint" => prompt.argument_hint = Some(value),
                _ => {}
            }
        }
    }
    if !closed {
        // Not front matter after all: the whole file is the prompt.
        return plain;
    }
    prompt.content = body.join("\n");
    prompt
}

fn unquote(v: &str) -> &str {
    for q in ['"', '\''] {
        if let Some(inner) = v.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner;
        }
    }
    v
}

/// The placeholders `$NAME` (upper case, digits, `_`; not `$ARGUMENTS`, not after a `$`) of
/// `content`, in order of first use.
pub fn named_placeholders(content: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (_, name) in scan_names(content) {
        if name != "ARGUMENTS" && !out.iter().any(|n| n == name) {
            out.push(name.to_string());
        }
    }
    out
}

/// Every `$NAME` of `content` not preceded by another `$`: (byte offset of the `$`, name).
fn scan_names(content: &str) -> Vec<(usize, &str)> {
    let bytes = content.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'$'
            && bytes.get(i + 1).is_some_and(u8::is_ascii_uppercase)
            && (i == 0 || bytes[i - 1] != b'$')
        {
            let end = (i + 1..bytes.len())
                .find(|&j| {
                    !(bytes[j].is_ascii_uppercase()
                        || bytes[j].is_ascii_digit()
                        || bytes[j] == b'_')
                })
                .unwrap_or(bytes.len());
            out.push((i, &content[i + 1..end]));
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

/// The prompt's text for `arguments` (see the module's doc for the placeholder rules).
pub fn expand(prompt: &CustomPrompt, arguments: &str) -> Result<String, ExpandError> {
    let words = split(arguments)?;
    let required = named_placeholders(&prompt.content);
    if required.is_empty() {
        return Ok(expand_positional(&prompt.content, &words));
    }
    let mut values = std::collections::HashMap::new();
    for word in words {
        let Some((key, value)) = word.split_once('=') else {
            return Err(ExpandError::NotAnAssignment(word));
        };
        if key.is_empty() {
            return Err(ExpandError::EmptyName(word));
        }
        values.insert(key.to_string(), value.to_string());
    }
    let missing: Vec<String> = required
        .into_iter()
        .filter(|k| !values.contains_key(k))
        .collect();
    if !missing.is_empty() {
        return Err(ExpandError::Missing(missing));
    }
    let content = &prompt.content;
    let mut out = String::with_capacity(content.len());
    let mut at = 0;
    for (start, name) in scan_names(content) {
        out.push_str(&content[at..start]);
        match values.get(name) {
            Some(v) => out.push_str(v),
            None => out.push_str(&content[start..start + 1 + name.len()]),
        }
        at = start + 1 + name.len();
    }
    out.push_str(&content[at..]);
    Ok(out)
}

/// `$1`..`$9` (missing ones empty) and `$ARGUMENTS` (all, joined by spaces); `$$` stays.
fn expand_positional(content: &str, words: &[String]) -> String {
    let mut out = String::with_capacity(content.len());
    let mut rest = content;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let next = tail.as_bytes().get(1).copied();
        match next {
            Some(b'$') => {
                out.push_str("$$");
                rest = &tail[2..];
            }
            Some(d @ b'1'..=b'9') => {
                if let Some(w) = words.get(usize::from(d - b'1')) {
                    out.push_str(w);
                }
                rest = &tail[2..];
            }
            _ if tail[1..].starts_with("ARGUMENTS") => {
                out.push_str(&words.join(" "));
                rest = &tail[1 + "ARGUMENTS".len()..];
            }
            _ => {
                out.push('$');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `arguments` split into words like a POSIX shell does (blanks separate; `'…'` is literal;
/// `"…"` and bare words take `\` escapes).
pub fn split(arguments: &str) -> Result<Vec<String>, ExpandError> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = arguments.chars();
    let unclosed = || ExpandError::UnclosedQuote(arguments.to_string());
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => words.extend(word.take()),
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next().ok_or_else(unclosed)? {
                        '\'' => break,
                        c => w.push(c),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next().ok_or_else(unclosed)? {
                        '"' => break,
                        '\\' => match chars.next().ok_or_else(unclosed)? {
                            c @ ('"' | '\\' | '$' | '`') => w.push(c),
                            '\n' => {}
                            c => {
                                w.push('\\');
                                w.push(c);
                            }
                        },
                        c => w.push(c),
                    }
                }
            }
            '\\' => {
                let w = word.get_or_insert_with(String::new);
                match chars.next() {
                    Some('\n') | None => {}
                    Some(c) => w.push(c),
                }
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Ok(words)
}

#[cfg(test)]
#[path = "prompts_tests.rs"]
mod tests;
