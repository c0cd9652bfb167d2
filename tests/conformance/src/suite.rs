//! The provider-agnostic scenarios ([`crate::scenarios`]) for every provider, from one macro:
//! a provider's test file names its rig and gets the same tests as every other provider.
//!
//! ```text
//! async fn rig() -> Option<AgentRig> { AgentRig::start(SPEC).await }
//! agent_bridge_conformance::agnostic_scenarios!(cli rig);
//! // with a hook run after each scenario (the ACP traffic record):
//! agent_bridge_conformance::agnostic_scenarios!(cli rig, after acp::record_traffic);
//! ```
//!
//! Real-CLI scenarios are `#[ignore]`d like every real-CLI test (a plain `cargo test` lists
//! them as not run; the README test command runs them), run on a two-thread runtime, and
//! report their CLI and version when they ran.

/// Expands the provider-agnostic scenarios; see the [module](self).
#[macro_export]
macro_rules! agnostic_scenarios {
    (cli $rig:ident) => {
        $crate::agnostic_scenarios!(cli $rig, after |_r: &$crate::AgentRig, _n: &str| {});
    };
    (cli $rig:ident, after $after:expr) => {
        $crate::agnostic_scenarios!(@cli $rig, $after,
            open_prompt_completes => |r| $crate::scenarios::open_prompt_completes(&r);
            interrupt_cancels_a_running_turn => |r| $crate::scenarios::interrupt_cancels_a_running_turn(&r);
            close_during_a_turn => |r| $crate::scenarios::close_during_a_turn(&r);
            provider_close_during_a_turn => |r| $crate::scenarios::provider_close_during_a_turn(&r);
            close_during_open => |r| $crate::scenarios::close_during_open(&r, Some(&r.cli));
        );
    };
    // The built-in demo: `$rig()` -> `(Bridge, TempDir)`; `$slow_open()` the same with an open
    // slow enough for a close to land during it.
    (demo $rig:ident, $slow_open:ident) => {
        $crate::agnostic_scenarios!(@demo $rig,
            open_prompt_completes => |b| $crate::scenarios::open_prompt_completes(&b);
            interrupt_cancels_a_running_turn => |b| $crate::scenarios::interrupt_cancels_a_running_turn(&b);
            close_during_a_turn => |b| $crate::scenarios::close_during_a_turn(&b);
            provider_close_during_a_turn => |b| $crate::scenarios::provider_close_during_a_turn(&b);
        );
        $crate::agnostic_scenarios!(@demo $slow_open,
            close_during_open => |b| $crate::scenarios::close_during_open(&b, None);
        );
    };
    (@demo $rig:ident, $($name:ident => |$b:ident| $body:expr;)*) => {$(
        #[tokio::test]
        async fn $name() {
            let ($b, _dir) = $rig().await;
            $body.await;
        }
    )*};
    (@cli $rig:ident, $after:expr, $($name:ident => |$r:ident| $body:expr;)*) => {$(
        #[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $name() {
            let Some($r) = $rig().await else { return };
            $body.await;
            $r.report(stringify!($name));
            ($after)(&$r, stringify!($name));
        }
    )*};
}

/// Expands scenarios of a module of this crate that take a per-provider case ([`crate::kill`]
/// with a [`crate::kill::KillCase`], [`crate::elicitation`] with an
/// [`crate::elicitation::ElicitationCase`]) for a provider's rig, one `#[ignore]`d real-CLI
/// test per name:
///
/// ```text
/// agent_bridge_conformance::case_scenarios!(rig, kill, KILL; kill_9_mid_turn, kill_9_after_a_completed_turn);
/// ```
#[macro_export]
macro_rules! case_scenarios {
    ($rig:ident, $module:ident, $case:expr; $($name:ident),* $(,)?) => {$(
        #[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $name() {
            let Some(r) = $rig().await else { return };
            $crate::$module::$name(&r, $case).await;
            r.report(stringify!($name));
        }
    )*};
}
