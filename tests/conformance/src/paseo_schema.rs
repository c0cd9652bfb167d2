//! The hand-written JSON Schema of Paseo's `ProviderEvent` (`schema/paseo-events.schema.json`),
//! transcribed from the protocol spec and the newest provider guide rather than generated from
//! `agent_bridge_protocol`: a check of the bridge that does not share its types.
//!
//! One custom keyword: `maxUtf16Length: N` — a string of at most N UTF-16 code units, the
//! length zod's `.max(N)` measures (JavaScript string length), where `maxLength` counts code
//! points.

use jsonschema::paths::{LazyLocation, Location};
use jsonschema::{Keyword, ValidationError};
use serde_json::{Map, Value};
use std::sync::OnceLock;

/// The schema document as checked in.
pub const SOURCE: &str = include_str!("../schema/paseo-events.schema.json");

/// The path of the schema file, relative to the workspace root (for messages).
pub const PATH: &str = "tests/conformance/schema/paseo-events.schema.json";

/// The parsed schema document.
pub fn document() -> Value {
    serde_json::from_str(SOURCE).unwrap_or(Value::Null)
}

/// `maxUtf16Length`: at most `max` UTF-16 code units.
struct MaxUtf16Length {
    max: usize,
    at: Location,
}

impl Keyword for MaxUtf16Length {
    fn validate<'i>(
        &self,
        instance: &'i Value,
        location: &LazyLocation,
    ) -> Result<(), ValidationError<'i>> {
        match instance.as_str().map(|s| s.encode_utf16().count()) {
            Some(units) if units > self.max => Err(ValidationError::custom(
                self.at.clone(),
                location.into(),
                instance,
                format!(
                    "a string of {units} UTF-16 code units is longer than the {} Paseo allows",
                    self.max
                ),
            )),
            _ => Ok(()),
        }
    }

    fn is_valid(&self, instance: &Value) -> bool {
        instance
            .as_str()
            .is_none_or(|s| s.encode_utf16().count() <= self.max)
    }
}

// The factory signature is the jsonschema crate's (`with_keyword`), error type included.
#[allow(clippy::result_large_err)]
fn max_utf16_length<'a>(
    _parent: &'a Map<String, Value>,
    value: &'a Value,
    at: Location,
) -> Result<Box<dyn Keyword>, ValidationError<'a>> {
    match value.as_u64() {
        Some(max) => Ok(Box::new(MaxUtf16Length {
            max: max as usize,
            at,
        })),
        None => Err(ValidationError::custom(
            at,
            Location::new(),
            value,
            "maxUtf16Length takes a non-negative integer",
        )),
    }
}

fn validator() -> Result<&'static jsonschema::Validator, String> {
    static VALIDATOR: OnceLock<Result<jsonschema::Validator, String>> = OnceLock::new();
    VALIDATOR
        .get_or_init(|| {
            let schema: Value =
                serde_json::from_str(SOURCE).map_err(|e| format!("{PATH} is not JSON: {e}"))?;
            jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .with_keyword("maxUtf16Length", max_utf16_length)
                .build(&schema)
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
