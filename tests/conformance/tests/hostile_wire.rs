//! Hostile input at the wire, through the real `agent-bridge serve`: JSON nested 100,000 deep,
//! invalid UTF-8 inside strings, numbers out of range, duplicate request ids. Each gets the
//! contract's error (or is handled), and a session opened before keeps completing turns.
//! 1 MiB strings: `hostile_strings.rs`; a flood of requests nobody reads: `hostile_flood.rs`.

mod common;
use common::hostile::*;
use common::*;

const DEEP: usize = 100_000;

#[tokio::test]
async fn json_nested_100000_deep_is_a_parse_error_and_nothing_runs() {
    let d = with_bystander().await;
    let input = format!("{}1{}", r#"{"a":"#.repeat(DEEP), "}".repeat(DEEP));
    let cases = [
        (
            "arrays 100,000 deep",
            format!("{}{}", "[".repeat(DEEP), "]".repeat(DEEP)),
        ),
        (
            "a request whose input is 100,000 objects deep",
            format!(
                r#"{{"jsonrpc":"2.0","id":"deep","method":"provider/send","params":{{"connectionId":"{}","input":{input}}}}}"#,
                d.conn
            ),
        ),
        ("100,000 unclosed brackets", r#"{"a":["#.repeat(DEEP)),
    ];
    for (what, line) in cases {
        let err = null_id_error_for(&d.host, line.as_bytes()).await;
        assert_eq!(err["error"]["code"], -32700, "{what}: {err}");
        let message = err["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("recursion limit"), "{what}: {message}");
        bystander_completes_a_turn(&d, what).await;
    }
    assert_eq!(answers_with_id(&d.host, &json!("deep")), 0);
    // Nesting within serde_json's limit of 128 is parsed and served.
    let mut nested = json!("bottom");
    for _ in 0..100 {
        nested = json!({ "a": nested });
    }
    let answer = d
        .ask(input::open(
            "open-nested",
            "nested",
            d.config(json!({"settings": {"deep": nested}})),
        ))
        .await;
    assert_eq!(answer.kind(), "session.ready", "{answer}");
    bystander_completes_a_turn(&d, "settings nested 100 deep").await;
    d.host.assert_invariants();
}

#[tokio::test]
async fn invalid_utf8_inside_strings_is_a_parse_error_and_nothing_runs() {
    let d = with_bystander().await;
    let line = json!({"jsonrpc": "2.0", "id": "utf8", "method": "provider/send", "params": {
        "connectionId": d.conn, "input": input::message(BYSTANDER, "cm-utf8", "HOLE")}})
    .to_string();
    let (head, tail) = line.split_once("HOLE").expect("placeholder");
    let cases: [(&str, &[u8]); 6] = [
        ("byte 0xff", b"say \xff hi"),
        ("a lone continuation byte", b"\x80"),
        ("an overlong '/'", b"\xc0\xaf"),
        ("a surrogate encoded in UTF-8", b"\xed\xa0\x80"),
        ("a multibyte sequence cut short", b"\xe2\x82"),
        ("a code point past U+10FFFF", b"\xf4\x90\x80\x80"),
    ];
    for (what, bad) in cases {
        let bytes = [head.as_bytes(), bad, tail.as_bytes()].concat();
        let err = null_id_error_for(&d.host, &bytes).await;
        assert_eq!(err["error"]["code"], -32700, "{what}: {err}");
        bystander_completes_a_turn(&d, what).await;
    }
    // Valid UTF-8 but an escape of half a surrogate pair: not a string either.
    let lone = format!("{head}\\ud800{tail}");
    let err = null_id_error_for(&d.host, lone.as_bytes()).await;
    assert_eq!(err["error"]["code"], -32700, "lone surrogate escape: {err}");
    bystander_completes_a_turn(&d, "a lone surrogate escape").await;
    assert_eq!(answers_with_id(&d.host, &json!("utf8")), 0);
    assert!(
        d.host
            .events()
            .iter()
            .all(|e| e.at("/clientMessageId") != Some(&json!("cm-utf8"))),
        "the broken prompt must not run"
    );
    d.host.assert_invariants();
}

#[tokio::test]
async fn request_ids_out_of_range_are_echoed_or_refused() {
    let d = with_bystander().await;
    let init = r#"{"apiVersion":1,"host":{"name":"t","version":"0"}}"#;
    // Any JSON number is an id, echoed as that number.
    for id in [
        "9223372036854775807",
        "9223372036854775808",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-1",
        "0.5",
        "1e300",
    ] {
        let answer = raw_answer(&d.host, id, "initialize", init).await;
        assert_eq!(answer["result"]["apiVersion"], 1, "id {id}: {answer}");
    }
    // A number JSON cannot hold is not JSON; an id of another type is not a request.
    let err = null_id_error_for(
        &d.host,
        format!(r#"{{"jsonrpc":"2.0","id":1e400,"method":"initialize","params":{init}}}"#)
            .as_bytes(),
    )
    .await;
    assert_eq!(err["error"]["code"], -32700, "{err}");
    for id in ["true", "{}", "[1]", "null"] {
        let line =
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{init}}}"#);
        let err = null_id_error_for(&d.host, line.as_bytes()).await;
        assert_eq!(err["error"]["code"], -32600, "id {id}: {err}");
    }
    bystander_completes_a_turn(&d, "ids out of range").await;
    d.host.assert_invariants();
}

#[tokio::test]
async fn numbers_out_of_range_in_params_are_invalid_params() {
    let d = with_bystander().await;
    let host = &d.host;
    let info = json!({"name": "t", "version": "0"});
    let huge = json!(18446744073709551616.0_f64);
    for api in [json!(4294967296_u64), json!(-1), json!(1.5), huge.clone()] {
        let r = host
            .request("initialize", json!({"apiVersion": api, "host": info}))
            .await;
        assert_code(r, -32602, &format!("apiVersion {api}"));
    }
    for timeout in [json!(-1), json!(0.5), huge.clone()] {
        let params = json!({"providerId": DEMO, "options": {}, "timeoutMs": timeout});
        let r = host.request("provider/availability", params).await;
        assert_code(r, -32602, &format!("timeoutMs {timeout}"));
    }
    // The largest timeout there is: a limit that never ends, not an overflow.
    let params = json!({"providerId": DEMO, "options": {}, "timeoutMs": u64::MAX});
    let avail = host.request("provider/availability", params).await;
    assert_eq!(avail.expect("timeoutMs u64::MAX")["status"], "available");
    for versions in [json!([4294967296_u64]), json!([-1]), json!([1.0])] {
        let request = json!({"versions": versions, "capabilities": []});
        let r = host
            .request(
                "provider/connect",
                json!({"providerId": DEMO, "request": request}),
            )
            .await;
        assert_code(r, -32602, &format!("versions {versions}"));
    }
    for limit in [json!(0), json!(4294967296_u64), json!(-5), json!(2.5), huge] {
        let mut sessions = input::sessions("ls-bad");
        sessions["limit"] = limit.clone();
        assert_code(
            host.send(&d.conn, sessions).await,
            -32602,
            &format!("limit {limit}"),
        );
    }
    let mut sessions = input::sessions("ls-max");
    sessions["limit"] = json!(u32::MAX);
    let answer = d.ask(sessions).await;
    assert_eq!(answer.kind(), "sessions", "{answer}");
    let mut open = input::open("open-bad", "bad-version", d.config(json!({})));
    open["persistence"] = json!({"version": 4294967296_u64, "data": {}});
    assert_code(
        host.send(&d.conn, open).await,
        -32602,
        "persistence.version",
    );
    // Numbers JSON cannot hold make the line unparsable.
    for text in [
        r#"{"providerId":"demo","options":{},"timeoutMs":1e400}"#,
        r#"{"providerId":"demo","options":{},"timeoutMs":-1e400}"#,
    ] {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":"inf","method":"provider/availability","params":{text}}}"#
        );
        let err = null_id_error_for(host, line.as_bytes()).await;
        assert_eq!(err["error"]["code"], -32700, "{text}: {err}");
    }
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":"inf","method":"provider/send","params":{{"connectionId":"{}","input":{{"type":"sessions","requestId":"ls-inf","limit":1e400}}}}}}"#,
        d.conn
    );
    let err = null_id_error_for(host, line.as_bytes()).await;
    assert_eq!(err["error"]["code"], -32700, "limit 1e400: {err}");
    bystander_completes_a_turn(&d, "numbers out of range").await;
    host.assert_invariants();
}

#[tokio::test]
async fn a_request_reusing_the_id_of_one_in_flight_is_refused_with_id_null() {
    // The demo's availability probe takes 3 s: its request stays in flight meanwhile.
    let d = with_bystander_and(HostOptions::default().env("DEMO_PROBE_DELAY_MS", "3000")).await;
    let host = &d.host;
    let probe = r#"{"jsonrpc":"2.0","id":"dup","method":"provider/availability","params":{"providerId":"demo","options":{}}}"#;
    let init = r#"{"jsonrpc":"2.0","id":"dup","method":"initialize","params":{"apiVersion":1,"host":{"name":"t","version":"0"}}}"#;
    host.send_raw(&format!("{probe}\n{probe}\n{init}"))
        .await
        .expect("write");
    let refused = |m: &Value| {
        m["id"].is_null()
            && m["error"]["code"] == -32600
            && m["error"]["message"]
                .as_str()
                .is_some_and(|s| s.contains(r#""dup""#) && s.contains("in flight"))
    };
    host.wait_messages(refused, 2, T)
        .await
        .expect("both reuses refused");
    // A session keeps working meanwhile, and the first request gets the one answer with its id.
    bystander_completes_a_turn(&d, "duplicate ids").await;
    let answer = host
        .wait_message(|m| m["id"] == "dup", Duration::from_secs(10))
        .await
        .expect("the first request's answer");
    assert_eq!(answer["result"]["status"], "available", "{answer}");
    assert_eq!(answers_with_id(host, &json!("dup")), 1);
    // Once answered, the id is free again; requests answered at once never hold theirs.
    host.send_raw(&format!("{init}\n{init}"))
        .await
        .expect("write");
    host.wait_messages(|m| m["id"] == "dup", 3, T)
        .await
        .expect("both answered");
    assert_eq!(host.count_messages(refused), 2);
    host.assert_invariants();
}
