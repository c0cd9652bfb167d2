//! The hand-written JSON Schema of Paseo's `ProviderEvent` (`schema/paseo-events.schema.json`),
//! transcribed from the protocol spec and the newest provider guide rather than generated from
//! `agent_bridge_protocol`: a check of the bridge that does not share its types.

use serde_json::Value;
use std::sync::OnceLock;

/// The schema document as checked in.
pub const SOURCE: &str = include_str!("../schema/paseo-events.schema.json");

/// The path of the schema file, relative to the conformance crate (for messages).
pub const PATH: &str = "tests/conformance/schema/paseo-events.schema.json";

/// The parsed schema document.
pub fn document() -> Value {
    serde_json::from_str(SOURCE).unwrap_or(Value::Null)
}

fn validator() -> Result<&'static jsonschema::Validator, String> {
    static VALIDATOR: OnceLock<Result<jsonschema::Validator, String>> = OnceLock::new();
    VALIDATOR
        .get_or_init(|| {
            let schema: Value =
                serde_json::from_str(SOURCE).map_err(|e| format!("{PATH} is not JSON: {e}"))?;
            jsonschema::draft202012::new(&schema)
                .map_err(|e| format!("{PATH} does not compile: {e}"))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Every way `event` breaks the hand-written schema, each naming the instance path and the
/// schema path of the failing keyword (empty when the event is valid).
pub fn check(event: &Value) -> Vec<String> {
    match validator() {
        Ok(v) => v
            .iter_errors(event)
            .map(|err| {
                format!(
                    "paseo schema: {err} (at `{}`, schema `{}`)",
                    err.instance_path, err.schema_path
                )
            })
            .collect(),
        Err(e) => vec![e],
    }
}
