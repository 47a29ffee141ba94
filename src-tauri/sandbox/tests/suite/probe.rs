//! The probe on this machine.

use gantry_sandbox::{BWRAP_LOCATIONS, MIN_BWRAP, Sandbox};

#[test]
fn this_machine_can_sandbox_and_the_answer_is_cached() {
    let first = Sandbox::probe();
    let sandbox = match first.sandbox() {
        Ok(sandbox) => sandbox,
        Err(reason) => panic!("{reason}"),
    };
    assert!(std::ptr::eq(first, Sandbox::probe()));
    assert!(
        BWRAP_LOCATIONS
            .iter()
            .any(|path| sandbox.bwrap() == std::path::Path::new(path))
    );
    assert!(sandbox.version() >= MIN_BWRAP);
    for limit in sandbox.limits() {
        eprintln!("limit on this system: {limit}");
    }
}
