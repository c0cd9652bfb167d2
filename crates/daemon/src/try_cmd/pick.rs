//! Which provider `try` runs: the one asked for (it must be available), else the first one
//! that is available *and* logged in, else the demo agent — saying in one line why each
//! skipped provider was skipped. The providers are asked at once, the answers taken in order.

use super::client::Client;
use super::render::Renderer;
use agent_bridge_core::login;
use agent_bridge_protocol::wire::{ProviderInfo, METHOD_AVAILABILITY};
use agent_bridge_protocol::{AvailabilityStatus, ProviderAvailability};
use anyhow::{anyhow, bail};
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

/// The line saying why `id` is skipped.
pub fn skip_line(id: &str, a: &ProviderAvailability) -> String {
    let why = a.diagnostic.as_deref().unwrap_or_default().trim();
    if why.is_empty() {
        format!("skipping {id} ({})", status_name(a.status))
    } else {
        format!("skipping {id} ({}): {why}", status_name(a.status))
    }
}

/// Picks the provider (see the module doc).
pub async fn choose<W: Write>(
    client: &Client,
    renderer: &mut Renderer<W>,
    candidates: &Candidates<'_>,
    wanted: Option<&str>,
) -> anyhow::Result<ProviderInfo> {
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
        return Ok(found.clone());
    }
    // Every provider is asked at once (a login probe can take seconds); the answers are taken
    // in plugin.json's order, and the ones after the pick are not waited for.
    let mut asked: FuturesOrdered<_> = providers
        .iter()
        .filter(|p| candidates.agent_of(&p.id) != "demo")
        .map(|p| async move { (p, availability(client, &p.id).await) })
        .collect();
    while let Some((p, a)) = asked.next().await {
        let a = a?;
        if a.status == AvailabilityStatus::Available {
            if let Some(note) = a.diagnostic.as_deref().filter(|d| !d.trim().is_empty()) {
                renderer.info(&format!("{}: {}", p.id, note.trim()));
            }
            return Ok(p.clone());
        }
        renderer.info(&skip_line(&p.id, &a));
    }
    providers
        .iter()
        .find(|p| candidates.agent_of(&p.id) == "demo")
        .cloned()
        .ok_or_else(|| anyhow!("no provider is available and plugin.json has no demo provider"))
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
}
