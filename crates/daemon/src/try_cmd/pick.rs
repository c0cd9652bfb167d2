//! Which provider `try` runs: the one asked for (it must be available), else the first one
//! that is available *and* logged in, else the demo agent — saying in one line why each
//! skipped provider was skipped. The providers are asked at once, the answers taken in order.
//! When the one picked cannot reach its model, `try` goes on to the next available one, down
//! to the demo agent.

use super::client::Client;
use super::render::Renderer;
use agent_bridge_core::login;
use agent_bridge_protocol::wire::{ProviderInfo, METHOD_AVAILABILITY};
use agent_bridge_protocol::{AvailabilityStatus, ProviderAvailability};
use anyhow::bail;
use futures_util::stream::{FuturesOrdered, StreamExt};
use serde_json::json;
use std::io::Write;

const AVAILABILITY_TIMEOUT_MS: u64 = 10_000;
/// How many more times a provider whose login check could not tell yet is asked (the check
/// goes on in the bridge meanwhile).
const UNCHECKED_RETRIES: usize = 2;

/// The provider of each id, and its agent family (`demo`, `claude`, ...).
pub struct Candidates<'a> {
    pub providers: &'a [ProviderInfo],
    pub agents: &'a [(String, String)],
}

impl Candidates<'_> {
    pub fn agent_of(&self, id: &str) -> &str {
        self.agents
            .iter()
            .find(|(p, _)| p == id)
            .map(|(_, a)| a.as_str())
            .unwrap_or("")
    }
}

async fn availability(client: &Client, provider_id: &str) -> anyhow::Result<ProviderAvailability> {
    let params =
        json!({ "providerId": provider_id, "options": {}, "timeoutMs": AVAILABILITY_TIMEOUT_MS });
    let mut a: ProviderAvailability = client.request(METHOD_AVAILABILITY, &params).await?;
    for _ in 0..UNCHECKED_RETRIES {
        if !login::is_unchecked(&a) {
            break;
        }
        a = client.request(METHOD_AVAILABILITY, &params).await?;
    }
    Ok(a)
}

pub fn status_name(status: AvailabilityStatus) -> &'static str {
    match status {
        AvailabilityStatus::Available => "available",
        AvailabilityStatus::Missing => "missing",
        AvailabilityStatus::Unrunnable => "unrunnable",
        AvailabilityStatus::Incompatible => "incompatible",
    }
}

/// How a "not found" diagnostic names the `PATH` it searched (`SpawnError::NotFound`).
const SEARCHED_PATH: &str = " (searched PATH: ";

/// `why` without the `PATH` it names, and that `PATH`: a skip line says "not found on the
/// PATH", the `PATH` itself is printed once.
pub fn without_path(why: &str) -> (String, Option<String>) {
    let Some(at) = why.find(SEARCHED_PATH) else {
        return (why.to_string(), None);
    };
    let rest = &why[at + SEARCHED_PATH.len()..];
    let Some(end) = rest.find(')') else {
        return (why.to_string(), None);
    };
    let text = format!("{} on the PATH{}", &why[..at], &rest[end + 1..]);
    (text, Some(rest[..end].to_string()))
}

/// The line saying why `id` is skipped.
pub fn skip_line(id: &str, a: &ProviderAvailability) -> String {
    let why = a.diagnostic.as_deref().unwrap_or_default().trim();
    let (why, _) = without_path(why);
    let why = why.as_str();
    if why.is_empty() {
        format!("skipping {id} ({})", status_name(a.status))
    } else {
        format!("skipping {id} ({}): {why}", status_name(a.status))
    }
}

/// The providers `try` runs, in order (see the module doc): the one asked for alone, else
/// each available one in turn (when the one before could not reach its model), down to the
/// demo agent.
pub struct Picker<'a> {
    /// Availability answers still to take, in plugin.json's order (`None`: a provider was
    /// asked for by name).
    asked: Option<FuturesOrdered<Asked<'a>>>,
    demo: Option<ProviderInfo>,
    wanted: Option<ProviderInfo>,
    /// The `PATH`s printed so far (each once, not in every skip line).
    paths_said: Vec<String>,
}

type Asked<'a> = std::pin::Pin<
    Box<
        dyn std::future::Future<Output = (&'a ProviderInfo, anyhow::Result<ProviderAvailability>)>
            + Send
            + 'a,
    >,
>;

impl<'a> Picker<'a> {
    /// Asks every provider's availability at once (a login probe can take seconds), or checks
    /// the one asked for (`wanted`: a provider id or an agent name), which must be available.
    pub async fn new(
        client: &'a Client,
        candidates: &Candidates<'a>,
        wanted: Option<&str>,
    ) -> anyhow::Result<Picker<'a>> {
        let providers = candidates.providers;
        if let Some(wanted) = wanted {
            let found = providers.iter().find(|p| p.id == wanted).or_else(|| {
                providers
                    .iter()
                    .find(|p| candidates.agent_of(&p.id) == wanted)
            });
            let Some(found) = found else {
                let ids: Vec<&str> = providers.iter().map(|p| p.id.as_str()).collect();
                bail!(
                    "no provider `{wanted}` in plugin.json (providers: {})",
                    ids.join(", ")
                );
            };
            let a = availability(client, &found.id).await?;
            if a.status != AvailabilityStatus::Available {
                bail!(
                    "provider `{}` is {}: {}",
                    found.id,
                    status_name(a.status),
                    a.diagnostic.unwrap_or_default()
                );
            }
            return Ok(Picker {
                asked: None,
                demo: None,
                wanted: Some(found.clone()),
                paths_said: Vec::new(),
            });
        }
        let asked: FuturesOrdered<Asked<'a>> = providers
            .iter()
            .filter(|p| candidates.agent_of(&p.id) != "demo")
            .map(|p| -> Asked<'a> {
                Box::pin(async move { (p, availability(client, &p.id).await) })
            })
            .collect();
        let demo = providers
            .iter()
            .find(|p| candidates.agent_of(&p.id) == "demo")
            .cloned();
        Ok(Picker {
            asked: Some(asked),
            demo,
            wanted: None,
            paths_said: Vec::new(),
        })
    }

    /// True when `try` may go on to another provider after this one (none was asked for).
    pub fn may_fall_back(&self) -> bool {
        self.asked.is_some()
    }

    /// After a model out of reach: the demo agent runs next, the other providers are not
    /// waited for (offline, their models are out of reach too). Returns the demo agent, or
    /// `None` (nothing changes) when plugin.json has none or no fall-back is allowed.
    pub fn demo_only(&mut self) -> Option<ProviderInfo> {
        let demo = self.demo.clone()?;
        self.asked.as_mut()?;
        self.asked = Some(FuturesOrdered::new());
        Some(demo)
    }

    /// The next provider to run, saying in one line why each one skipped was skipped; the
    /// answers after it are not waited for. `None` once there is none left.
    pub async fn next<W: Write>(
        &mut self,
        renderer: &mut Renderer<W>,
    ) -> anyhow::Result<Option<ProviderInfo>> {
        if let Some(wanted) = self.wanted.take() {
            return Ok(Some(wanted));
        }
        let Some(asked) = self.asked.as_mut() else {
            return Ok(None);
        };
        while let Some((p, a)) = asked.next().await {
            let a = a?;
            if a.status == AvailabilityStatus::Available {
                if let Some(note) = a.diagnostic.as_deref().filter(|d| !d.trim().is_empty()) {
                    renderer.info(&format!("{}: {}", p.id, note.trim()));
                }
                return Ok(Some(p.clone()));
            }
            let why = a.diagnostic.as_deref().unwrap_or_default();
            if let (_, Some(path)) = without_path(why) {
                if !self.paths_said.contains(&path) {
                    renderer.info(&format!("searched PATH: {path}"));
                    self.paths_said.push(path);
                }
            }
            renderer.info(&skip_line(&p.id, &a));
        }
        Ok(self.demo.take())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_skip_says_why_in_one_line() {
        let out = ProviderAvailability::with(
            AvailabilityStatus::Unrunnable,
            "Claude Code is not logged in: run `claude /login` or set ANTHROPIC_API_KEY",
        );
        assert_eq!(
            skip_line("claude-bridge", &out),
            "skipping claude-bridge (unrunnable): Claude Code is not logged in: run `claude /login` or set ANTHROPIC_API_KEY"
        );
        let bare = ProviderAvailability {
            status: AvailabilityStatus::Missing,
            diagnostic: None,
        };
        assert_eq!(skip_line("x", &bare), "skipping x (missing)");
    }

    #[test]
    fn a_skip_line_leaves_the_searched_path_out() {
        let missing = ProviderAvailability::with(
            AvailabilityStatus::Missing,
            "`kilo` was not found (searched PATH: /opt/a:/usr/bin); install Kilo Code CLI or set its command in plugin.json",
        );
        assert_eq!(
            skip_line("kilo-bridge", &missing),
            "skipping kilo-bridge (missing): `kilo` was not found on the PATH; install Kilo Code CLI or set its command in plugin.json"
        );
        assert_eq!(
            without_path(missing.diagnostic.as_deref().unwrap_or_default()).1,
            Some("/opt/a:/usr/bin".to_string())
        );
        assert_eq!(
            without_path("no path here"),
            ("no path here".to_string(), None)
        );
    }
}
