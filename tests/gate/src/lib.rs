//! Gated tests that cannot pass by skipping.
//!
//! Some tests need something a machine may not have: a display for the desktop suite, a Secret
//! Service for the keychain, a local Ollama, a C compiler. Without it such a test used to print
//! a note and return, and the run counted it as passed, so a green run could hide that the
//! end-to-end suite never ran. Every gated test now asks [`should_run`]: when what it needs is
//! missing it still skips, loudly (`SKIPPED`), unless the gate is *required* —
//! `GANTRY_REQUIRE_<GATE>=1`, which `scripts/test-all` (and so CI) sets for the gates it
//! provides — and then the test fails with the reason. Green means ran.
//!
//! ```no_run
//! # use gantry_test_gate::{Gate, should_run};
//! if !should_run(Gate::Keyring, keyring_available()) {
//!     return;
//! }
//! # fn keyring_available() -> Result<(), String> { Ok(()) }
//! ```

use std::fmt;

mod nobody;

pub use nobody::{AsNobody, is_root};

/// Something a gated test needs that a machine may lack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// The desktop end-to-end suite: `GANTRY_E2E=1` and a display.
    E2e,
    /// A Secret Service keychain (`scripts/with-keyring` sets `GANTRY_TEST_KEYRING=1`).
    Keyring,
    /// A session D-Bus and `dbus-daemon` (the sandbox's bus tests).
    Dbus,
    /// A C compiler at `/usr/bin/cc` (the sandbox's build test).
    Cc,
    /// A local Ollama server (`GANTRY_TEST_OLLAMA=1`).
    Ollama,
}

impl Gate {
    /// The gate's name in `GANTRY_REQUIRE_<NAME>`.
    pub fn name(self) -> &'static str {
        match self {
            Self::E2e => "E2E",
            Self::Keyring => "KEYRING",
            Self::Dbus => "DBUS",
            Self::Cc => "CC",
            Self::Ollama => "OLLAMA",
        }
    }

    /// The variable that makes this gate required.
    pub fn variable(self) -> String {
        format!("GANTRY_REQUIRE_{}", self.name())
    }
}

impl fmt::Display for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a gated test does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// What it needs is here: it runs.
    Run,
    /// It is missing and not required: it skips, saying why.
    Skip(String),
    /// It is missing and required: the test fails, saying why.
    Fail(String),
}

/// The verdict for `gate`, required or not, with `available` saying whether what it needs is
/// here (`Err(why)` when not).
pub fn verdict(gate: Gate, required: bool, available: Result<(), String>) -> Verdict {
    match available {
        Ok(()) => Verdict::Run,
        Err(why) if required => Verdict::Fail(format!(
            "{} is set, so this test must run, but it cannot: {why}",
            gate.variable()
        )),
        Err(why) => Verdict::Skip(format!(
            "SKIPPED (not run, counted as passed): {why}; set {}=1 to make this a failure",
            gate.variable()
        )),
    }
}

/// Whether `GANTRY_REQUIRE_<GATE>` asks for the gate.
pub fn required(gate: Gate) -> bool {
    std::env::var(gate.variable()).is_ok_and(|value| value == "1")
}

/// Whether the gated test runs: true when `available`; false (with a `SKIPPED` line on stderr)
/// when not and the gate is not required; a panic with the reason when it is required.
///
/// # Panics
///
/// When what the test needs is missing and `GANTRY_REQUIRE_<GATE>=1`: the test fails.
pub fn should_run(gate: Gate, available: Result<(), String>) -> bool {
    match verdict(gate, required(gate), available) {
        Verdict::Run => true,
        Verdict::Skip(message) => {
            eprintln!("{message}");
            false
        }
        Verdict::Fail(message) => panic!("{message}"),
    }
}

/// `Ok` when the environment variable `name` is `1`, else why not (for gates an environment
/// variable opens).
pub fn env_flag(name: &str, why: &str) -> Result<(), String> {
    if std::env::var(name).is_ok_and(|value| value == "1") {
        Ok(())
    } else {
        Err(format!("{name} is not 1 ({why})"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gate_that_is_open_runs_whether_required_or_not() {
        assert_eq!(verdict(Gate::E2e, false, Ok(())), Verdict::Run);
        assert_eq!(verdict(Gate::E2e, true, Ok(())), Verdict::Run);
    }

    #[test]
    fn a_missing_gate_skips_loudly_unless_required_then_fails() {
        let skipped = verdict(Gate::Keyring, false, Err("no Secret Service".into()));
        let Verdict::Skip(message) = skipped else {
            panic!("expected a skip: {skipped:?}");
        };
        assert!(message.starts_with("SKIPPED"), "{message}");
        assert!(message.contains("no Secret Service"), "{message}");
        assert!(message.contains("GANTRY_REQUIRE_KEYRING=1"), "{message}");

        let failed = verdict(Gate::Keyring, true, Err("no Secret Service".into()));
        let Verdict::Fail(message) = failed else {
            panic!("expected a failure: {failed:?}");
        };
        assert!(message.contains("GANTRY_REQUIRE_KEYRING"), "{message}");
        assert!(message.contains("no Secret Service"), "{message}");
    }

    #[test]
    fn each_gate_has_its_own_variable() {
        let gates = [Gate::E2e, Gate::Keyring, Gate::Dbus, Gate::Cc, Gate::Ollama];
        let mut names: Vec<String> = gates.iter().map(|gate| gate.variable()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), gates.len());
        assert_eq!(Gate::E2e.variable(), "GANTRY_REQUIRE_E2E");
    }

    #[test]
    #[should_panic(expected = "GANTRY_REQUIRE_OLLAMA")]
    fn should_run_panics_for_a_required_gate_that_is_missing() {
        // The process's environment is shared by the tests of this binary: decide through the
        // pure function, as `should_run` does, with `required` forced.
        match verdict(Gate::Ollama, true, Err("no server".into())) {
            Verdict::Fail(message) => panic!("{message}"),
            other => panic!("unexpected {other:?}"),
        }
    }
}
