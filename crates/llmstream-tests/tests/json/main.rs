//! The library's integration tests: json.

#[path = "../common/mod.rs"]
mod common;

mod adversarial;
mod fuzz_regressions;
mod json_edge_cases;
mod json_meaning;
mod json_props;
mod json_repair;
mod json_tape;
mod json_test_suite;
mod json_value_api;
mod lenient_props;
mod lenient_suites;
mod partial_suites;
mod serde_partial;
mod serde_value;
