//! Driving the plugin the way a user does in Agentty: by the element ids of the panel it drew.
//! An action on something the panel does not show (a missing or disabled button, a choice
//! option or row action that is not there) fails the test, as the user could not do it either.

use crate::host::AgenttyHost;
use crate::state::{State, Stats};
use agent_bridge_conformance::procs::{descendants, survivors, ProcInfo};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// How a shutdown went.
#[derive(Debug, Clone)]
pub struct Shutdown {
    /// From `shutdown` to the plugin's exit.
    pub elapsed: Duration,
    /// The signals Agentty had to send (none when the plugin exits within 1.5 s).
    pub signals: Vec<&'static str>,
    /// Processes the plugin had started, before the shutdown.
    pub recorded: Vec<ProcInfo>,
    /// Those still alive a second after the plugin exited.
    pub survivors: Vec<ProcInfo>,
}

impl AgenttyHost {
    /// `initialize` then `panel/open` (what opening the panel does to a stopped plugin);
    /// waits for the answer and the first tree. `apiVersion` is the host's own (4), whatever the
    /// manifest declares (`ensure_started` in Agentty's `plugins/mod.rs`).
    pub fn initialize(&self) -> Value {
        let params = json!({
            "apiVersion": crate::manifest::API_VERSION,
            "agentty": {"version": crate::AGENTTY_VERSION},
            "plugin": {
                "id": self.manifest.id, "name": self.manifest.name,
                "version": self.manifest.version,
                "dir": self.options.plugin_dir, "dataDir": self.options.data_dir,
            },
            "language": "en",
            "utcOffsetMinutes": 0,
            "context": self.context(),
        });
        let id = self.request("initialize", params);
        self.open_panel();
        let answer = self.wait_for("the answer to initialize", Duration::from_secs(20), |s| {
            s.answers.get(&id).cloned()
        });
        assert!(answer.get("error").is_none(), "initialize failed: {answer}");
        self.wait_for("the first panel", Duration::from_secs(20), |s| {
            s.panel.clone()
        });
        answer
    }

    /// The context as this plugin may see it.
    fn context(&self) -> Value {
        self.with(State::context_for)
    }

    pub fn open_panel(&self) {
        self.notify("panel/open", json!({"context": self.context()}));
    }

    pub fn close_panel(&self) {
        self.notify("panel/close", json!({"context": self.context()}));
    }

    /// `context/changed` with a new context.
    pub fn change_context(&self, context: Value) {
        self.with_mut(|s| s.set_context(context));
        self.notify("context/changed", json!({"context": self.context()}));
    }

    /// A palette command.
    pub fn command(&self, command: &str) {
        assert!(
            self.manifest.commands.iter().any(|c| c == command),
            "the manifest contributes no command {command}"
        );
        self.notify(
            "command/execute",
            json!({"command": command, "args": {}, "context": self.context()}),
        );
    }

    /// A control of the panel was used: Agentty sends pending typing first and counts every
    /// field as submitted (`flush_plugin_inputs`; the emulator sends typing at once).
    fn flush(&self) {
        self.with_mut(|s| s.fields.values_mut().for_each(|f| f.flushed()));
    }

    fn ui(&self, element: &str, event: &str, extra: Value) {
        let mut params = json!({"element": element, "event": event, "context": self.context()});
        if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
            p.extend(e.clone());
        }
        self.notify("ui/event", params);
    }

    /// The node `id` of the current panel, of type `kind`; panics when the panel has none.
    pub fn element(&self, id: &str, kind: &str) -> Value {
        let node = self.with(|s| s.find(id).cloned());
        let node = node.unwrap_or_else(|| panic!("the panel has no element `{id}`"));
        assert_eq!(node["type"], kind, "`{id}` is a {}", node["type"]);
        node
    }

    pub fn click(&self, id: &str) {
        let button = self.element(id, "button");
        assert_ne!(button["disabled"], true, "`{id}` is disabled");
        self.flush();
        self.ui(id, "click", json!({}));
    }

    /// Types `text` into the input `id` (its `change` event).
    pub fn type_text(&self, id: &str, text: &str) {
        self.element(id, "input");
        self.with_mut(|s| {
            for (fid, f) in s.fields.iter_mut() {
                f.focused = fid == id;
            }
            s.fields.entry(id.to_string()).or_default().typed(text);
        });
        self.ui(id, "change", json!({"value": text}));
    }

    /// What the input `id` shows now.
    pub fn field(&self, id: &str) -> String {
        self.with(|s| {
            s.fields
                .get(id)
                .map(|f| f.shown.clone())
                .unwrap_or_default()
        })
    }

    /// Presses Enter in the input `id`: a one-line field sends `submit` with what it shows; a
    /// text area (`rows` > 1) adds a line instead, which the plugin hears as a `change`, and
    /// nothing is submitted (Agentty's `text_input.rs`, `Confirm`).
    pub fn submit(&self, id: &str) {
        self.element(id, "input");
        let multiline = self.with(|s| s.fields.get(id).is_some_and(|f| f.multiline()));
        if multiline {
            let text = format!("{}\n", self.field(id));
            self.type_text(id, &text);
            return;
        }
        let value = self.field(id);
        self.with_mut(|s| s.fields.entry(id.to_string()).or_default().entered());
        self.ui(id, "submit", json!({"value": value}));
    }

    /// Pastes `text` at the end of the input `id`, as Agentty's text field does (`paste` in
    /// `text_input.rs`): a text area keeps the line breaks; a one-line field turns each `\n` into
    /// a space (a `\r` stays). The plugin hears a `change`.
    pub fn paste(&self, id: &str, text: &str) {
        self.element(id, "input");
        let multiline = self.with(|s| s.fields.get(id).is_some_and(|f| f.multiline()));
        let pasted = if multiline {
            text.to_string()
        } else {
            text.replace('\n', " ")
        };
        let shown = format!("{}{pasted}", self.field(id));
        self.type_text(id, &shown);
    }

    pub fn choose(&self, id: &str, value: &str) {
        let choice = self.element(id, "choice");
        let offered = choice["options"]
            .as_array()
            .is_some_and(|o| o.iter().any(|o| o["value"] == value));
        assert!(offered, "`{id}` offers no `{value}`: {choice}");
        self.flush();
        self.ui(id, "change", json!({"value": value}));
    }

    /// Clicks row `item` of list `list`.
    pub fn select_row(&self, list: &str, item: &str) {
        self.element(list, "list");
        let rows = self.with(|s| s.rows(list));
        assert!(
            rows.iter().any(|r| r["id"] == item),
            "`{list}` has no row `{item}`"
        );
        self.flush();
        self.ui(list, "select", json!({"item": item}));
    }

    /// Presses the button `action` of row `item` of list `list`.
    pub fn act(&self, list: &str, item: &str, action: &str) {
        let rows = self.with(|s| s.rows(list));
        let row = rows.iter().find(|r| r["id"] == item);
        let row = row.unwrap_or_else(|| panic!("`{list}` has no row `{item}`"));
        let has = row["actions"]
            .as_array()
            .is_some_and(|a| a.iter().any(|a| a["id"] == action));
        assert!(has, "row `{item}` has no action `{action}`: {row}");
        self.flush();
        self.ui(list, "action", json!({"item": item, "action": action}));
    }

    /// Waits for a row of `list` that `pred` accepts; returns it.
    pub fn wait_row(
        &self,
        list: &str,
        what: &str,
        timeout: Duration,
        pred: impl Fn(&Value) -> bool,
    ) -> Value {
        self.wait_for(what, timeout, |s| {
            s.rows(list).into_iter().find(|r| pred(r))
        })
    }

    /// Waits until the panel satisfies `pred`.
    pub fn wait_panel(&self, what: &str, timeout: Duration, pred: impl Fn(&State) -> bool) {
        self.wait_for(what, timeout, |s| pred(s).then_some(()));
    }

    /// Whether button `id` is shown and enabled.
    pub fn enabled(s: &State, id: &str) -> bool {
        s.find(id).is_some_and(|b| b["disabled"] != true)
    }

    /// Asks the plugin to stop as Agentty does (`shutdown`, then SIGTERM after 1.5 s, SIGKILL
    /// after 1.5 s more) and checks that nothing it started outlives it.
    pub fn shutdown(&self) -> Shutdown {
        self.stop_with(|h| h.notify("shutdown", json!({})))
    }

    /// Closes stdin instead of saying `shutdown`.
    pub fn close_input(&self) -> Shutdown {
        self.stop_with(|h| h.close_stdin())
    }

    /// SIGTERM first (what Agentty does when it quits, SIGKILL following).
    pub fn terminate(&self) -> Shutdown {
        self.stop_with(|h| h.signal(libc::SIGTERM))
    }

    /// What Agentty does when it quits (`PluginProcess::kill`): SIGTERM, and SIGKILL 150 ms
    /// later, without waiting for the plugin to agree.
    pub fn quit(&self) -> Shutdown {
        self.stop_with(|h| {
            h.signal(libc::SIGTERM);
            std::thread::sleep(Duration::from_millis(150));
            h.signal(libc::SIGKILL);
        })
    }

    fn stop_with(&self, how: impl FnOnce(&AgenttyHost)) -> Shutdown {
        let recorded = descendants(self.pid);
        let start = Instant::now();
        how(self);
        let mut signals = Vec::new();
        for (signal, name) in [(libc::SIGTERM, "SIGTERM"), (libc::SIGKILL, "SIGKILL")] {
            let deadline = Instant::now() + Duration::from_millis(1_500);
            let exited = self.with_exit(deadline);
            if exited {
                break;
            }
            self.signal(signal);
            signals.push(name);
        }
        self.wait_for("the plugin's exit", Duration::from_secs(5), |s| s.exited);
        let (at, _) = self.with(|s| s.exited).unwrap_or((Instant::now(), None));
        let deadline = Instant::now() + Duration::from_secs(1);
        let mut alive = survivors(&recorded);
        while !alive.is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(25));
            alive = survivors(&recorded);
        }
        Shutdown {
            elapsed: at.duration_since(start),
            signals,
            recorded,
            survivors: alive,
        }
    }

    fn with_exit(&self, deadline: Instant) -> bool {
        loop {
            if self.with(|s| s.exited.is_some()) {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    pub fn stats(&self) -> Stats {
        self.with(|s| s.stats)
    }

    /// No rule of Agentty was broken, and nothing was drawn otherwise than written.
    pub fn assert_clean(&self) {
        let (violations, notes, logs) =
            self.with(|s| (s.violations.clone(), s.notes.clone(), s.logs.clone()));
        assert!(
            violations.is_empty() && notes.is_empty(),
            "violations: {violations:#?}\nnotes: {notes:#?}\nlog: {logs:#?}"
        );
    }
}
