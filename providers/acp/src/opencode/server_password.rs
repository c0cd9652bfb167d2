//! A password for the HTTP server an agent runs beside ACP. `opencode acp` (and Kilo, its
//! fork) serves OpenCode's whole HTTP API on a loopback port while it runs: sessions, files,
//! shell commands and terminals. Without a password any local process, another user's
//! included, can use it (measured on the pinned CLIs: `GET /session` answered 200 with no
//! credentials). With the variable the profile names (`serverPasswordEnv`:
//! `OPENCODE_SERVER_PASSWORD`, `KILO_SERVER_PASSWORD`) set, the server asks for HTTP basic
//! auth (401 without it) and ACP works as before.
//!
//! The bridge draws the password once per run (122 random bits from the OS, per variable), so
//! every process of a launch gets the same one and sessions still share processes. It goes to
//! the agent through its environment only: never in arguments, never logged. A password the
//! user already set (the bridge's environment, the launch's or the session's) is left as is.

use crate::profile::Profile;
use agent_bridge_core::supervisor::SpawnSpec;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, OnceLock};

/// This run's password for variable `name`.
fn password(name: &str) -> String {
    static DRAWN: OnceLock<Mutex<HashMap<String, String>>> = OnceLock::new();
    let drawn = DRAWN.get_or_init(Mutex::default);
    let mut drawn = drawn.lock().unwrap_or_else(|p| p.into_inner());
    drawn
        .entry(name.to_string())
        .or_insert_with(|| uuid::Uuid::new_v4().simple().to_string())
        .clone()
}

/// Whether `name` is set in what `spec` will run with.
fn is_set(spec: &SpawnSpec, name: &str) -> bool {
    value(spec, name).is_some()
}

/// The value of `name` in what `spec` will run with (the session's, the launch's or the
/// bridge's own environment).
pub fn value(spec: &SpawnSpec, name: &str) -> Option<String> {
    spec.var(name)
}

/// `spec` with the profile's server password variable set, unless it is set already.
pub fn guard(profile: &Profile, spec: SpawnSpec) -> SpawnSpec {
    let Some(name) = profile.server_password_env.as_deref() else {
        return spec;
    };
    if is_set(&spec, name) {
        return spec;
    }
    let var = BTreeMap::from([(name.to_string(), password(name))]);
    spec.envs(&var)
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_bridge_core::supervisor::LaunchOverride;

    fn profile(var: Option<&str>) -> Profile {
        let mut p = crate::profile::builtin("opencode").expect("the opencode profile");
        p.server_password_env = var.map(str::to_string);
        p
    }

    fn spec(base: Option<BTreeMap<String, String>>, session: &[(&str, &str)]) -> SpawnSpec {
        let launch = LaunchOverride {
            env: base,
            ..LaunchOverride::default()
        };
        let env: BTreeMap<String, String> = session
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        launch.spec("opencode", vec!["acp".into()]).envs(&env)
    }

    #[test]
    fn a_password_is_drawn_once_per_run_and_kept_out_of_the_arguments() {
        let p = profile(Some("AB_TEST_SERVER_PASSWORD"));
        let a = guard(&p, spec(Some(BTreeMap::new()), &[]));
        let b = guard(&p, spec(Some(BTreeMap::new()), &[("X", "1")]));
        let pw = a.env.get("AB_TEST_SERVER_PASSWORD").cloned().expect("set");
        assert_eq!(pw.len(), 32);
        assert_eq!(
            b.env.get("AB_TEST_SERVER_PASSWORD"),
            Some(&pw),
            "one per run"
        );
        assert!(!a.args.iter().any(|x| x.contains(&pw)));
        assert!(!format!("{:?}", a.args).contains(&pw));
    }

    #[test]
    fn a_password_the_user_set_is_kept_and_profiles_without_one_get_none() {
        let p = profile(Some("AB_TEST_SERVER_PASSWORD_2"));
        let mine = BTreeMap::from([("AB_TEST_SERVER_PASSWORD_2".to_string(), "mine".to_string())]);
        let from_launch = guard(&p, spec(Some(mine), &[]));
        assert_eq!(from_launch.env.get("AB_TEST_SERVER_PASSWORD_2"), None);
        let from_session = guard(&p, spec(None, &[("AB_TEST_SERVER_PASSWORD_2", "mine")]));
        assert_eq!(
            from_session
                .env
                .get("AB_TEST_SERVER_PASSWORD_2")
                .map(String::as_str),
            Some("mine")
        );
        let none = guard(&profile(None), spec(Some(BTreeMap::new()), &[]));
        assert!(none.env.is_empty(), "{:?}", none.env);
    }
}
