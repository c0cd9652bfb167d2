//! A text field of the panel as Agentty keeps it across trees (`PluginInput`, `sync_field` and
//! `should_apply` in `crates/agentty-app/src/workbench/plugin_panel.rs`; Enter and paste in
//! `crates/agentty-app/src/text_input.rs`): what it shows, what the plugin has seen (`applied`),
//! the value of the plugin's last tree, and whether Enter (or a control's flush) went out since.
//! A tree replaces what the user typed only by those rules, so a plugin that clears its field
//! after a prompt is tested against what the user would really see.

/// One field.
#[derive(Debug, Clone, Default)]
pub struct Field {
    /// What the field shows.
    pub shown: String,
    /// What the plugin has seen or set (typing not yet sent differs from it).
    pub applied: String,
    /// The value of the plugin's last tree.
    pub from_plugin: String,
    /// Enter was pressed, or a control of the panel flushed the typing, since the last tree
    /// that looked at it.
    pub submitted: bool,
    /// `rows` as drawn: more than one is a text area.
    pub rows: u64,
    /// The user is in this field.
    pub focused: bool,
}

impl Field {
    /// The field made from its first tree: built empty and filled with the plugin's value.
    pub fn new(value: &str, rows: u64) -> Field {
        Field {
            shown: value.to_string(),
            applied: value.to_string(),
            from_plugin: value.to_string(),
            rows,
            ..Field::default()
        }
    }

    /// Whether Enter adds a line rather than submitting (`TextInput::is_multiline`: rows > 1).
    pub fn multiline(&self) -> bool {
        self.rows > 1
    }

    /// The user typed: the field shows `text`, and its `change` goes out (the host sends it once
    /// typing pauses; the emulator at once).
    pub fn typed(&mut self, text: &str) {
        self.shown = text.to_string();
        self.submitted = false;
        self.applied = text.to_string();
        self.focused = true;
    }

    /// Enter in a one-line field: the plugin now has what it shows.
    pub fn entered(&mut self) {
        self.applied = self.shown.clone();
        self.submitted = true;
    }

    /// A button, row action, choice or toggle of the panel: pending typing is sent first and
    /// every field counts as submitted (`flush_plugin_inputs`).
    pub fn flushed(&mut self) {
        self.submitted = true;
    }

    /// A tree carrying `value` for this field (`sync_field`): whether what it shows is replaced.
    pub fn sync(&mut self, value: &str) -> bool {
        let changed = self.from_plugin != value;
        self.from_plugin = value.to_string();
        if self.shown == value {
            self.applied = value.to_string();
            return false;
        }
        let pending = self.applied != self.shown;
        if !changed && pending {
            return false;
        }
        let was_submitted = std::mem::take(&mut self.submitted);
        let apply = !self.focused
            || was_submitted && value.is_empty()
            || changed && !self.shown.starts_with(value);
        if apply {
            self.applied = value.to_string();
            self.shown = value.to_string();
        }
        apply
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_replaces_typing_only_as_the_host_lets_it() {
        let mut f = Field::new("", 0);
        f.typed("hello");
        // A tree drawn for another reason, still with the old value: the typing stays.
        assert!(!f.sync(""));
        assert_eq!(f.shown, "hello");
        // Enter, then the plugin clears its field: applied.
        f.entered();
        assert!(f.sync(""));
        assert_eq!(f.shown, "");
        // Typing again: an empty value the plugin sends for other reasons is not a clear.
        f.typed("next");
        assert!(!f.sync(""));
        assert_eq!(f.shown, "next");
        // A button's flush counts as a submit: a changed value that empties the field clears it.
        f.flushed();
        assert!(!f.sync("next"), "the echo of what is shown");
        assert!(f.sync(""));
        assert_eq!(f.shown, "");
        // A field the user is not in always shows the plugin's value.
        let mut other = Field::new("a", 0);
        other.shown = "b".into();
        assert!(other.sync("c"));
        assert_eq!(other.shown, "c");
    }
}
