//! The same suite as an ordinary user (see [`gantry_test_gate::AsNobody`]).

#[test]
fn the_suite_passes_as_an_ordinary_user() {
    gantry_test_gate::AsNobody {
        this_test: "the_suite_passes_as_an_ordinary_user",
        rerun_variable: "GANTRY_SANDBOX_TEST_RERUN",
        at_least: 15,
    }
    .run();
}
