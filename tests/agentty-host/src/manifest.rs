//! `agentty-plugin.json` as Agentty reads it before starting a plugin
//! (`crates/agentty-bridge/src/plugins/manifest.rs` @032fb3e, `Manifest::parse` and `validate`;
//! `store.rs`, `read_plugin`): serde fields without `deny_unknown_fields` (an unknown key is
//! ignored, as the host's own test with a command's old `when` shows); the id is 2–40 of `a-z`,
//! `0-9`, `-` and equals the folder's name; `main` is a relative path inside the folder that
//! exists; permissions are known; commands have unique ids and titles; `browser.control` comes
//! with sites and API 3, `mcp.tools` with `contributes.tools` and API 4; `apiVersion` (1 when
//! left out) is at most the host's. The host does not check `version`'s form or icon names (an
//! unknown one draws a generic icon), and neither does this. This emulator starts `executable`
//! plugins only.

use serde_json::Value;
use std::path::{Component, Path, PathBuf};

/// The protocol version this emulator speaks: the host's `API_VERSION`.
pub const API_VERSION: u32 = 4;

/// The host's `PERMISSIONS`.
pub const PERMISSIONS: &[&str] = &[
    "net.request",
    "prompt.inject",
    "terminal.write",
    "session.read",
    "workspace.read",
    "browser.control",
    "files",
    "mcp.tools",
];

/// Most tools one plugin may offer (`MAX_TOOLS`).
pub const MAX_TOOLS: usize = 32;
const MAX_TOOL_DESCRIPTION: usize = 1_000;
const MAX_TOOL_SCHEMA_BYTES: usize = 16 * 1024;

/// A manifest that passed.
#[derive(Debug, Clone)]
pub struct Manifest {
    pub id: String,
    pub name: String,
    pub version: String,
    pub api_version: u32,
    pub entry: PathBuf,
    pub permissions: Vec<String>,
    pub commands: Vec<String>,
    /// `contributes.tools`, as written.
    pub tools: Vec<Value>,
    pub raw: Value,
}

impl Manifest {
    pub fn has(&self, permission: &str) -> bool {
        self.permissions.iter().any(|p| p == permission)
    }
}

pub fn valid_id(id: &str) -> bool {
    (2..=40).contains(&id.len())
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !id.starts_with('-')
        && !id.ends_with('-')
}

/// The host's `relative_path`: not empty, not absolute, only normal parts and `.`.
pub fn relative_path(path: &str) -> Result<PathBuf, String> {
    let candidate = Path::new(path);
    let inside = !path.is_empty()
        && !candidate.is_absolute()
        && candidate
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if !inside {
        return Err(format!(
            "\"{path}\" must be a relative path inside the plugin folder"
        ));
    }
    Ok(candidate.to_path_buf())
}

fn web(url: &str) -> bool {
    url.starts_with("https://") && url.len() < 300 && !url.chars().any(char::is_whitespace)
}

/// A required string field, as serde reads it.
fn required(raw: &Value, key: &str) -> Result<String, String> {
    match raw.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(format!("invalid agentty-plugin.json: `{key}` is {other}")),
        None => Err(format!(
            "invalid agentty-plugin.json: missing field `{key}`"
        )),
    }
}

/// An optional enum field: one of `values` or absent.
fn one_of(v: Option<&Value>, key: &str, values: &[&str]) -> Result<(), String> {
    match v {
        None => Ok(()),
        Some(Value::String(s)) if values.contains(&s.as_str()) => Ok(()),
        Some(other) => Err(format!(
            "invalid agentty-plugin.json: `{key}` is {other}, not one of {values:?}"
        )),
    }
}

fn array<'a>(v: Option<&'a Value>, key: &str) -> Result<&'a [Value], String> {
    match v {
        None => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(other) => Err(format!(
            "invalid agentty-plugin.json: `{key}` must be an array, not {other}"
        )),
    }
}

fn strings(v: Option<&Value>, key: &str) -> Result<Vec<String>, String> {
    array(v, key)?
        .iter()
        .map(|s| {
            s.as_str().map(str::to_string).ok_or(format!(
                "invalid agentty-plugin.json: `{key}` holds {s}, not a string"
            ))
        })
        .collect()
}

/// The host's `ToolContribution::validate`.
fn tool(t: &Value) -> Result<String, String> {
    let name = required(t, "name")?;
    let description = required(t, "description")?;
    let name_ok = (1..=48).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !name_ok {
        return Err(format!("tool \"{name}\": a name is 1–48 lower-case letters, digits or '_', starting with a letter"));
    }
    let chars = description.chars().count();
    if description.trim().is_empty() || chars > MAX_TOOL_DESCRIPTION {
        return Err(format!(
            "tool {name}: a description of 1–{MAX_TOOL_DESCRIPTION} characters"
        ));
    }
    if let Some(schema) = t.get("inputSchema").filter(|s| !s.is_null()) {
        if schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(format!(
                "tool {name}: inputSchema must be an object schema (\"type\": \"object\")"
            ));
        }
        if schema.to_string().len() > MAX_TOOL_SCHEMA_BYTES {
            return Err(format!(
                "tool {name}: inputSchema is larger than {MAX_TOOL_SCHEMA_BYTES} bytes"
            ));
        }
    }
    if t.get("readOnly").is_some_and(|r| !r.is_boolean()) {
        return Err(format!("tool {name}: readOnly must be a boolean"));
    }
    Ok(name)
}

/// `Manifest::parse` and `validate` of the host, on the manifest's JSON.
pub fn parse(raw: Value) -> Result<Manifest, String> {
    let id = required(&raw, "id")?;
    let name = required(&raw, "name")?;
    let version = required(&raw, "version")?;
    let main = required(&raw, "main")?;
    let fail = |why: String| format!("plugin \"{id}\": {why}");
    if !valid_id(&id) {
        return Err(format!(
            "plugin id \"{id}\" must be 2–40 lower-case letters, digits or '-'"
        ));
    }
    if name.trim().is_empty() {
        return Err(fail("has no name".into()));
    }
    let api = match raw.get("apiVersion") {
        None => 1,
        Some(v) => match v.as_u64().and_then(|v| u32::try_from(v).ok()) {
            Some(v) => v,
            None => return Err(fail(format!("apiVersion {v} is not a version"))),
        },
    };
    if api > API_VERSION {
        return Err(fail(format!(
            "needs a newer Agentty (plugin API {api} > {API_VERSION})"
        )));
    }
    let runtimes = ["node", "python", "executable", "wasm"];
    one_of(raw.get("runtime"), "runtime", &runtimes)?;
    let runtime = raw.get("runtime").and_then(Value::as_str).unwrap_or("node");
    let main_path = relative_path(&main).map_err(|e| fail(format!("invalid main: {e}")))?;
    if runtime == "wasm" && main_path.extension().is_none_or(|e| e != "wasm") {
        return Err(fail("a wasm plugin's main must be a .wasm module".into()));
    }
    let contributes = raw.get("contributes").cloned().unwrap_or(Value::Null);
    let mut commands = Vec::new();
    for c in array(contributes.get("commands"), "contributes.commands")? {
        let (cid, title) = (required(c, "id")?, required(c, "title")?);
        if cid.trim().is_empty() || title.trim().is_empty() {
            return Err(fail("every command needs an id and a title".into()));
        }
        if commands.contains(&cid) {
            return Err(fail(format!("duplicate command {cid}")));
        }
        commands.push(cid);
    }
    if let Some(panel) = contributes.get("panel").filter(|p| !p.is_null()) {
        required(panel, "title")?;
        one_of(
            panel.get("surface"),
            "surface",
            &["sidebar", "pane", "status"],
        )?;
        let modes = ["push", "overlay", "window", "full", "workspace"];
        one_of(panel.get("mode"), "mode", &modes)?;
    }
    if let Some(home) = raw.get("homepage").filter(|h| !h.is_null()) {
        if !home.as_str().is_some_and(web) {
            return Err(fail("homepage must be an https:// URL".into()));
        }
    }
    let links = array(raw.get("links"), "links")?;
    if links.len() > 6 {
        return Err(fail("at most 6 links".into()));
    }
    for link in links {
        let (label, url) = (required(link, "label")?, required(link, "url")?);
        if label.trim().is_empty() || label.chars().count() > 40 || !web(&url) {
            return Err(fail(
                "every link needs a short label and an https:// URL".into(),
            ));
        }
    }
    if let Some(requires) = raw.get("requires").filter(|r| !r.is_null()) {
        let name = required(requires, "name")?;
        let url = requires.get("url").and_then(Value::as_str);
        if name.trim().is_empty() || url.is_some_and(|u| !web(u)) {
            return Err(fail(
                "\"requires\" needs a name and, if given, an https:// URL".into(),
            ));
        }
    }
    let permissions = strings(raw.get("permissions"), "permissions")?;
    if let Some(p) = permissions
        .iter()
        .find(|p| !PERMISSIONS.contains(&p.as_str()))
    {
        return Err(fail(format!("unknown permission {p}")));
    }
    let has = |p: &str| permissions.iter().any(|x| x == p);
    let sites = raw
        .get("browser")
        .and_then(|b| b.get("sites"))
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    if has("browser.control") != (sites > 0) {
        return Err(fail(
            "browser.control and browser.sites come together".into(),
        ));
    }
    if has("browser.control") && api < 3 {
        return Err(fail("browser.control needs apiVersion 3".into()));
    }
    let tools = array(contributes.get("tools"), "contributes.tools")?.to_vec();
    if has("mcp.tools") == tools.is_empty() {
        return Err(fail("mcp.tools and contributes.tools come together".into()));
    }
    if has("mcp.tools") && api < 4 {
        return Err(fail("mcp.tools needs apiVersion 4".into()));
    }
    if tools.len() > MAX_TOOLS {
        return Err(fail(format!("at most {MAX_TOOLS} tools")));
    }
    let mut names = Vec::new();
    for t in &tools {
        let name = tool(t).map_err(fail)?;
        if names.contains(&name) {
            return Err(fail(format!("duplicate tool {name}")));
        }
        names.push(name);
    }
    let agents = strings(raw.get("agents"), "agents")?;
    for (i, a) in agents.iter().enumerate() {
        one_of(
            Some(&Value::String(a.clone())),
            "agents",
            &["claude", "codex"],
        )?;
        if agents[..i].contains(a) {
            return Err(fail("an agent is listed twice in \"agents\"".into()));
        }
    }
    strings(raw.get("keywords"), "keywords")?;
    strings(raw.get("activationEvents"), "activationEvents")?;
    Ok(Manifest {
        id,
        name,
        version,
        api_version: api,
        entry: main_path,
        permissions,
        commands,
        tools,
        raw,
    })
}

/// Loads and checks the manifest of the installed plugin folder `dir` (the host's `read_plugin`:
/// the manifest, its id against the folder's name, the entry point on disk).
pub fn load(dir: &Path) -> Result<Manifest, String> {
    let path = dir.join("agentty-plugin.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let raw: Value =
        serde_json::from_str(&text).map_err(|e| format!("invalid agentty-plugin.json: {e}"))?;
    let mut manifest = parse(raw)?;
    let folder = dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if folder != manifest.id {
        return Err(format!(
            "manifest id \"{}\" does not match the folder \"{folder}\"",
            manifest.id
        ));
    }
    manifest.entry = dir.join(&manifest.entry);
    if !manifest.entry.exists() {
        return Err(format!(
            "entry point {} is missing",
            manifest.entry.display()
        ));
    }
    if manifest.raw.get("runtime").and_then(Value::as_str) != Some("executable") {
        return Err("this emulator starts executable plugins only".into());
    }
    Ok(manifest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> Value {
        json!({"id": "hello-world", "name": "Hello", "version": "0.1.0", "main": "main.sh",
               "runtime": "executable", "permissions": ["prompt.inject"],
               "contributes": {"commands": [{"id": "hello.say", "title": "Say", "when": "agent"}],
                               "panel": {"title": "Hello", "icon": "no-such-icon"}}})
    }

    fn with(edit: impl FnOnce(&mut Value)) -> Result<Manifest, String> {
        let mut m = sample();
        edit(&mut m);
        parse(m)
    }

    #[test]
    fn lenient_where_the_host_is() {
        let m = with(|_| {}).expect("an unknown field, an unknown icon: loaded");
        assert_eq!(m.api_version, 1, "no apiVersion is API 1");
        assert!(
            with(|m| m["version"] = json!("one")).is_ok(),
            "version's form"
        );
        for v in 1..=API_VERSION {
            assert!(
                with(|m| m["apiVersion"] = json!(v)).is_ok(),
                "apiVersion {v}"
            );
        }
    }

    #[test]
    fn strict_where_the_host_is() {
        type Edit = Box<dyn FnOnce(&mut Value)>;
        let refused: Vec<(Edit, &str)> = vec![
            (
                Box::new(|m| m["apiVersion"] = json!(5)),
                "needs a newer Agentty",
            ),
            (Box::new(|m| m["id"] = json!("Hello")), "must be 2–40"),
            (Box::new(|m| m["main"] = json!("../x")), "relative path"),
            (
                Box::new(|m| m["permissions"] = json!(["root"])),
                "unknown permission",
            ),
            (
                Box::new(|m| m["contributes"]["panel"]["surface"] = json!("everywhere")),
                "surface",
            ),
            (Box::new(|m| m["homepage"] = json!("http://x")), "homepage"),
            (
                Box::new(|m| m["permissions"] = json!(["mcp.tools"])),
                "come together",
            ),
            (
                Box::new(|m| {
                    m["permissions"] = json!(["mcp.tools"]);
                    m["apiVersion"] = json!(3);
                    m["contributes"]["tools"] = json!([{"name": "x", "description": "X"}]);
                }),
                "mcp.tools needs apiVersion 4",
            ),
            (
                Box::new(|m| {
                    m["permissions"] = json!(["mcp.tools"]);
                    m["apiVersion"] = json!(4);
                    m["contributes"]["tools"] = json!([{"name": "List", "description": "X"}]);
                }),
                "a name is 1–48",
            ),
        ];
        for (edit, why) in refused {
            let err = with(edit).expect_err(why);
            assert!(err.contains(why), "{err}");
        }
        let tools = with(|m| {
            m["permissions"] = json!(["mcp.tools"]);
            m["apiVersion"] = json!(4);
            m["contributes"]["tools"] = json!([{"name": "ask_agent", "description": "Asks.",
                "inputSchema": {"type": "object"}, "readOnly": false}]);
        })
        .expect("tools with their permission and API 4");
        assert_eq!(tools.tools.len(), 1);
    }
}
