//! How far WebKitGTK's JavaScript engine (JavaScriptCore) optimizes the window's code, chosen
//! before WebKit starts (Linux only; the other platforms' webviews read no such setting).
//!
//! JavaScriptCore runs code in four tiers: the interpreter, the baseline JIT, and the optimizing
//! DFG and FTL JITs, which compile hot functions again with profiling data and keep both the
//! data and the code. Measured on a release build under Xvfb with the 2,000-message session open
//! (`scripts/bench-desktop.sh`, and `cargo bench --bench webview` for the 20,000-token stream):
//!
//! | tiers | web process (PSS) | streaming frame gap: median, over 50 ms | opening the session |
//! |---|---|---|---|
//! | all four (WebKit's default) | 134 MB | 45 ms, 81 frames | 109 ms |
//! | interpreter and baseline JIT | 127 MB | 44 ms, 57 frames | 117 ms |
//! | interpreter only (`JSC_useJIT=false`) | 120 MB | 54 ms, 123 frames, 7 tasks over 50 ms | 169 ms |
//!
//! The chat's work is layout and painting, not hot JavaScript: the optimizing tiers cost 7 MB
//! and buy nothing measurable, while the interpreter alone stutters. So the optimizing tiers are
//! off unless the user set any `JSC_use*JIT` variable, which then stands as they set it. The
//! memory floor (`examples/memory_floor`) takes the same choice.

use std::ffi::OsString;

/// The variables JavaScriptCore reads for its tiers (`JSC_` + the option's name).
pub const TIER_VARIABLES: &[&str] = &[
    "JSC_useJIT",
    "JSC_useBaselineJIT",
    "JSC_useDFGJIT",
    "JSC_useFTLJIT",
];

/// What this module sets to turn the optimizing tiers off.
pub const OPTIMIZING_OFF: &[(&str, &str)] =
    &[("JSC_useDFGJIT", "false"), ("JSC_useFTLJIT", "false")];

/// The choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TierChoice {
    /// The user set a tier variable: theirs stand, none is added.
    UserSet,
    /// The interpreter and the baseline JIT only.
    WithoutOptimizingTiers,
}

/// The choice, given the environment (`env` answers a variable's value).
pub fn decide(env: impl Fn(&str) -> Option<OsString>) -> TierChoice {
    if TIER_VARIABLES.iter().any(|name| env(name).is_some()) {
        TierChoice::UserSet
    } else {
        TierChoice::WithoutOptimizingTiers
    }
}

/// Decides and sets the variables WebKit's web process reads. Call it first in `main`, before
/// any thread starts (the environment is process-wide) and before Tauri creates a window.
pub fn choose() -> TierChoice {
    let choice = decide(|name| std::env::var_os(name));
    if choice == TierChoice::WithoutOptimizingTiers && cfg!(target_os = "linux") {
        for (name, value) in OPTIMIZING_OFF {
            std::env::set_var(name, value);
        }
    }
    choice
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_optimizing_tiers_are_off_unless_the_user_set_a_tier() {
        assert_eq!(decide(|_| None), TierChoice::WithoutOptimizingTiers);
        // Other JavaScriptCore options do not count as a choice of tiers.
        assert_eq!(
            decide(|name| (name == "JSC_logGC").then(|| OsString::from("true"))),
            TierChoice::WithoutOptimizingTiers
        );
        for tier in TIER_VARIABLES {
            for value in ["true", "false", ""] {
                assert_eq!(
                    decide(|name| (name == *tier).then(|| OsString::from(value))),
                    TierChoice::UserSet,
                    "{tier}={value}"
                );
            }
        }
    }

    #[test]
    fn what_is_set_is_what_javascriptcore_reads() {
        for (name, value) in OPTIMIZING_OFF {
            assert!(TIER_VARIABLES.contains(name), "{name}");
            assert_eq!(*value, "false");
        }
    }
}
