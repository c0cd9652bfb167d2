//! Liberal inputs, end to end through the real binary and the demo: a field the bridge does not
//! know, in any input (top level, `config`, `prompt`, `changes`, catalog and list options,
//! permission responses, connect and availability params), is ignored and logged once per field
//! name at debug; a known field of the wrong type is still `-32602`, naming the field.

mod common;
use common::*;
use pretty_assertions::assert_eq;

/// A demo bridge logging the core's debug lines (where ignored fields are noted).
async fn debug_demo() -> Demo {
    demo_with(HostOptions::default().env("AGENT_BRIDGE_LOG", "info,agent_bridge_core=debug")).await
}

/// How many times the bridge logged that it ignored `field`.
fn ignored_lines(d: &Demo, field: &str) -> usize {
    d.host
        .stderr()
        .lines()
        .filter(|l| l.contains("ignored a field the bridge does not know"))
        .filter(|l| l.contains(&format!("field={field}")))
        .count()
}

fn refused(result: Result<(), agent_bridge_conformance::RpcError>, field: &str) {
    let err = refusal(result);
    assert_eq!(err.code, -32602, "{field}: {err:?}");
    assert!(
        err.message.contains(&format!("{field}: ")),
        "the error names `{field}`: {}",
        err.message
    );
}

#[tokio::test]
async fn open_ignores_unknown_fields_at_the_top_and_in_config() {
    let d = debug_demo().await;
    let rid = d.host.unique("open");
    let mut open = input::open(
        &rid,
        "s",
        d.config(json!({"futureConfigField": {"x": 1},
            "mcpServers": {"m": {"type": "stdio", "command": "true", "futureMcpField": 1}}})),
    );
    open["futureOpenField"] = json!("later");
    let events = d
        .host
        .open_session(&d.conn, open)
        .await
        .expect("the open is admitted");
    assert!(events.iter().any(|e| e.is("session.ready")), "{events:?}");
    for field in [
        "input.futureOpenField",
        "input.config.futureConfigField",
        "input.config.mcpServers.m.futureMcpField",
    ] {
        assert_eq!(ignored_lines(&d, field), 1, "{field}\n{}", d.host.stderr());
    }
    // A known field of the wrong type is refused, named.
    let mut bad = input::open("open-bad", "s2", d.config(json!({})));
    bad["config"]["cwd"] = json!(5);
    refused(d.host.send(&d.conn, bad).await, "input.config.cwd");
    let mut bad = input::open("open-bad-2", "s3", d.config(json!({})));
    bad["history"] = json!("everything");
    refused(d.host.send(&d.conn, bad).await, "input.history");
    d.host.assert_invariants();
}

#[tokio::test]
async fn prompts_ignore_unknown_fields_and_log_each_name_once() {
    let d = debug_demo().await;
    d.open("s", json!({})).await;
    for n in 0..2 {
        let mut prompt = input::message("s", &format!("m{n}"), "say hi");
        prompt["prompt"]["futurePromptField"] = json!(n);
        prompt["prompt"]["input"]["content"][0]["futurePartField"] = json!(true);
        d.send(prompt).await;
        let result = d
            .host
            .prompt_result("s", &format!("m{n}"), T)
            .await
            .expect("prompt result");
        let turn = result["turnId"].as_str().expect("a turn").to_string();
        let end = d.host.wait_turn_end("s", &turn, T).await.expect("turn end");
        assert_eq!(end.turn_state(), Some("completed"), "{end}");
    }
    assert_eq!(ignored_lines(&d, "input.prompt.futurePromptField"), 1);
    assert_eq!(
        ignored_lines(&d, "input.prompt.input.content[].futurePartField"),
        1,
        "{}",
        d.host.stderr()
    );
    let mut bad = input::message("s", "m-bad", "hi");
    bad["prompt"]["input"]["content"][0]["text"] = json!(["not", "text"]);
    refused(
        d.host.send(&d.conn, bad).await,
        "input.prompt.input.content[0].text",
    );
    d.host.assert_invariants();
}

#[tokio::test]
async fn configure_catalog_and_list_ignore_unknown_fields() {
    let d = debug_demo().await;
    d.open("s", json!({})).await;
    let answer = d
        .ask(input::configure(
            "cfg",
            "s",
            json!({"model": "demo-smart", "futureChangesField": 1}),
        ))
        .await;
    assert_eq!(answer.kind(), "request.completed", "{answer}");
    assert_eq!(d.config_state("s")["model"], "demo-smart");
    let mut catalog = input::catalog("cat");
    catalog["futureCatalogOption"] = json!({"a": 1});
    assert_eq!(d.ask(catalog).await.kind(), "catalog");
    let mut sessions = input::sessions("ls");
    sessions["futureListOption"] = json!(true);
    assert_eq!(d.ask(sessions).await.kind(), "sessions");
    for field in [
        "input.changes.futureChangesField",
        "input.futureCatalogOption",
        "input.futureListOption",
    ] {
        assert_eq!(ignored_lines(&d, field), 1, "{field}\n{}", d.host.stderr());
    }
    refused(
        d.host
            .send(
                &d.conn,
                input::configure("cfg-bad", "s", json!({"model": 7})),
            )
            .await,
        "input.changes.model",
    );
    let mut sessions = input::sessions("ls-bad");
    sessions["query"] = json!(false);
    refused(d.host.send(&d.conn, sessions).await, "input.query");
    d.host.assert_invariants();
}

#[tokio::test]
async fn permission_responses_ignore_unknown_fields() {
    let d = debug_demo().await;
    d.open("s", json!({"mode": "ask"})).await;
    let file = d.path("allowed.txt");
    let (_, turn) = d
        .start_turn("s", &format!("run `touch {}`", file.display()))
        .await;
    let asked = d.wait(|e| e.is_for("session.permission", "s")).await;
    let pid = asked.event["request"]["id"]
        .as_str()
        .expect("permission id")
        .to_string();
    refused(
        d.host
            .send(
                &d.conn,
                input::permission("s", &pid, json!({"behavior": "allow", "updatedInput": 3})),
            )
            .await,
        "input.response.updatedInput",
    );
    d.send(input::permission(
        "s",
        &pid,
        json!({"behavior": "allow", "futureResponseField": "x"}),
    ))
    .await;
    let end = d.host.wait_turn_end("s", &turn, T).await.expect("turn end");
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    assert!(file.exists(), "the allowed command ran");
    assert_eq!(ignored_lines(&d, "input.response.futureResponseField"), 1);
    d.host.assert_invariants();
}

#[tokio::test]
async fn bridge_methods_ignore_unknown_fields() {
    let host = BridgeHost::spawn_with(
        HostOptions::default().env("AGENT_BRIDGE_LOG", "info,agent_bridge_core=debug"),
    )
    .await
    .expect("spawn");
    host.request(
        "initialize",
        json!({"apiVersion": 1, "host": {"name": "t", "version": "0", "futureHostField": 1},
            "futureInitField": true}),
    )
    .await
    .expect("initialize with unknown fields");
    let answer = host
        .request(
            "provider/availability",
            json!({"providerId": DEMO, "options": {"futureOption": 1}, "futureParam": 2}),
        )
        .await
        .expect("availability");
    assert_eq!(answer["status"], "available");
    let connected = host
        .request(
            "provider/connect",
            json!({"providerId": DEMO, "request": {"versions": [1],
                "capabilities": ["prompt.message"], "futureRequestField": {}}}),
        )
        .await
        .expect("connect with an unknown request field");
    assert_eq!(connected["capabilities"], json!(["prompt.message"]));
    let err = refusal(
        host.request(
            "provider/connect",
            json!({"providerId": DEMO, "request": {"versions": "1", "capabilities": []}}),
        )
        .await,
    );
    assert_eq!(err.code, -32602, "{err:?}");
    assert!(
        err.message.contains("request.versions: "),
        "{}",
        err.message
    );
    for field in [
        "futureInitField",
        "host.futureHostField",
        "futureParam",
        "request.futureRequestField",
    ] {
        let lines = host
            .stderr()
            .lines()
            .filter(|l| l.contains(&format!("field={field}")))
            .count();
        assert_eq!(lines, 1, "{field}\n{}", host.stderr());
    }
    host.assert_invariants();
}

/// Each bridge method's params: a known field of the wrong type that serde alone would take (a
/// struct written as a sequence, `null` for a field the wire types as absent-or-a-value, params
/// by position) is `-32602` naming it.
#[tokio::test]
async fn bridge_methods_refuse_known_fields_of_the_wrong_type() {
    let host = BridgeHost::spawn().await.expect("spawn");
    let init = |extra: Value| {
        let mut params = json!({"apiVersion": 1, "host": {"name": "t", "version": "0"}});
        if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
            p.extend(e.clone());
        }
        params
    };
    let expect_refused = |method: &'static str, params: Value, field: &'static str| {
        let host = &host;
        async move {
            let err = refusal(host.request(method, params).await);
            assert_eq!(err.code, -32602, "{method} {field}: {err:?}");
            let named = if field.is_empty() {
                format!("`{method}`: invalid type")
            } else {
                format!("`{method}`: {field}: invalid type")
            };
            assert!(
                err.message.contains(&named),
                "{method} names `{field}`: {}",
                err.message
            );
        }
    };
    expect_refused("initialize", init(json!({"host": ["t", "0"]})), "host").await;
    expect_refused("initialize", init(json!({"plugin": null})), "plugin").await;
    expect_refused(
        "initialize",
        init(json!({"plugin": {"dataDir": null}})),
        "plugin.dataDir",
    )
    .await;
    host.request("initialize", init(json!({})))
        .await
        .expect("initialize");
    let cache_key = "provider/catalogCacheKey";
    expect_refused(
        cache_key,
        json!({"providerId": DEMO, "options": []}),
        "options",
    )
    .await;
    let null_scope = json!({"providerId": DEMO, "options": {"scope": null}});
    expect_refused(cache_key, null_scope, "options.scope").await;
    let availability = "provider/availability";
    expect_refused(
        availability,
        json!({"providerId": DEMO, "options": []}),
        "options",
    )
    .await;
    for (field, params) in [
        ("options.force", json!({"options": {"force": null}})),
        (
            "options.cwd",
            json!({"options": {"scope": "workspace", "cwd": null}}),
        ),
        (
            "options.providerOptions",
            json!({"options": {"providerOptions": []}}),
        ),
        ("timeoutMs", json!({"options": {}, "timeoutMs": null})),
        ("launch", json!({"options": {}, "launch": null})),
        ("launch", json!({"options": {}, "launch": ["sh"]})),
    ] {
        let mut params = params;
        params["providerId"] = json!(DEMO);
        expect_refused(availability, params, field).await;
    }
    let connect = "provider/connect";
    expect_refused(
        connect,
        json!({"providerId": DEMO, "request": []}),
        "request",
    )
    .await;
    let null_launch = json!({"providerId": DEMO, "request": {"versions": [1],
        "capabilities": ["prompt.message"], "launch": null}});
    expect_refused(connect, null_launch, "request.launch").await;
    let connected = host
        .request(
            connect,
            json!({"providerId": DEMO, "request": {"versions": [1], "capabilities": ["prompt.message"]}}),
        )
        .await
        .expect("connect");
    let conn = connected["connectionId"]
        .as_str()
        .expect("an id")
        .to_string();
    expect_refused(
        "provider/send",
        json!({"connectionId": conn, "input": []}),
        "input",
    )
    .await;
    expect_refused("provider/close", json!([conn]), "").await;
    // What the wire allows is still taken.
    let key = host
        .request(
            cache_key,
            json!({"providerId": DEMO, "options": {"scope": "global"}}),
        )
        .await
        .expect("a cache key");
    assert!(key.get("key").is_some(), "{key}");
    host.assert_invariants();
}
