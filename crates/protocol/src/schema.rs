//! JSON Schema of the wire, printed by `agent-bridge schema` and checked in under `schema/`.

use crate::{wire, ProviderEvent, ProviderInput};
use serde_json::{json, Value};

/// One document holding the schema of every input, event and bridge method payload.
pub fn wire_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "agent-bridge wire v1",
        "providerInput": schemars::schema_for!(ProviderInput),
        "providerEvent": schemars::schema_for!(ProviderEvent),
        "methods": {
            "initialize": {
                "params": schemars::schema_for!(wire::InitializeParams),
                "result": schemars::schema_for!(wire::InitializeResponse),
            },
            "provider/availability": {
                "params": schemars::schema_for!(wire::AvailabilityParams),
                "result": schemars::schema_for!(wire::AvailabilityResponse),
            },
            "provider/catalogCacheKey": {
                "params": schemars::schema_for!(wire::CatalogCacheKeyParams),
                "result": schemars::schema_for!(wire::CatalogCacheKeyResponse),
            },
            "provider/connect": {
                "params": schemars::schema_for!(wire::ConnectParams),
                "result": schemars::schema_for!(wire::ConnectResponse),
            },
            "provider/send": {
                "params": schemars::schema_for!(wire::SendParams),
                "result": { "type": "null" },
            },
            "provider/close": {
                "params": schemars::schema_for!(wire::CloseParams),
                "result": { "type": "null" },
            },
            "provider/readSessionHistory": {
                "params": schemars::schema_for!(wire::ReadSessionHistoryParams),
                "result": schemars::schema_for!(wire::ReadSessionHistoryResponse),
            },
            "provider/event": {
                "params": schemars::schema_for!(wire::EventNotification),
            },
        }
    })
}

/// The schema of a single `ProviderEvent`, for validating emitted events.
pub fn event_schema() -> Value {
    serde_json::to_value(schemars::schema_for!(ProviderEvent)).unwrap_or(Value::Null)
}

/// The schema of a single `ProviderInput`.
pub fn input_schema() -> Value {
    serde_json::to_value(schemars::schema_for!(ProviderInput)).unwrap_or(Value::Null)
}
