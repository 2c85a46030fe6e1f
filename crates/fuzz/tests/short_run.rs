// SPDX-License-Identifier: MIT OR Apache-2.0
//! The short fuzz run of the test suite (the long run is in `docs/fuzzing.md`), and the proof
//! that the harness catches what it is meant to catch.

use partita_fuzz::{exercise, guarded, input, run, Broken, Campaign, Corpus, Target, Verdict};
use partita_sys::alloc_meter::AllocMeter;
use std::time::Duration;

#[global_allocator]
static METER: AllocMeter = AllocMeter::new();

/// Inputs of the short run: 20 000 with `cargo test --release -p partita-fuzz` (a few
/// seconds), 2 000 in the unoptimised build of the ordinary test suite (where one input takes
/// a few milliseconds).
const INPUTS: u64 = if cfg!(debug_assertions) {
    2_000
} else {
    20_000
};

#[test]
fn short_run_finds_no_panic_hang_or_runaway_allocation() {
    let corpus = Corpus::load(&Corpus::default_dirs()).expect("corpus");
    assert!(
        corpus.xml.len() >= 60 && corpus.plans.len() >= 5,
        "corpus: {} xml, {} plans",
        corpus.xml.len(),
        corpus.plans.len()
    );
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-failures");
    let campaign = Campaign {
        seed: 20_261_126,
        start: 0,
        inputs: INPUTS,
        time_limit: Duration::from_secs(5),
        alloc_limit: 256 << 20,
        failures_dir: dir,
    };
    let r = run(&campaign, &corpus, &METER);
    assert_eq!(r.inputs, INPUTS);
    assert_eq!(r.failures(), 0, "{r:#?}");
    // The run exercised both targets, and some inputs got through to a plan.
    assert!(
        r.config_inputs > INPUTS / 2 && r.plan_inputs > INPUTS / 10,
        "{r:#?}"
    );
    assert!(r.accepted > 0, "{r:#?}");
    assert!(
        r.peak_allocation > 0 && r.peak_allocation < 256 << 20,
        "{r:#?}"
    );
}

#[test]
fn inputs_are_reproducible_from_seed_and_index() {
    let corpus = Corpus::load(&Corpus::default_dirs()).expect("corpus");
    for index in [0, 1, 17, 12_345] {
        assert_eq!(input(3, index, &corpus), input(3, index, &corpus));
    }
    assert_ne!(input(3, 0, &corpus), input(4, 0, &corpus));
}

#[test]
fn the_harness_catches_panics_and_broken_invariants() {
    assert_eq!(
        guarded(|| panic!("boom {}", 1)),
        Verdict::Panic("boom 1".into())
    );
    assert_eq!(
        guarded(|| Err(Broken::CompiledPlanChanged)),
        Verdict::Invariant(Broken::CompiledPlanChanged)
    );
    // A good module is accepted through the whole pipeline and the plan file round trip.
    let good = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../config/tests/fixtures/good/extensions.xml"),
    )
    .expect("fixture");
    assert_eq!(
        guarded(|| exercise(Target::Config, &good)),
        Verdict::Passed(true)
    );
    assert_eq!(
        guarded(|| exercise(Target::Plan, b"PARTPLAN")),
        Verdict::Passed(false)
    );
}

#[test]
fn the_meter_sees_allocations() {
    // Other tests allocate and reset the peak concurrently: only what holds regardless.
    let v = vec![1u8; 64 << 20];
    assert!(METER.current() >= 64 << 20);
    assert!(METER.peak() >= 64 << 20);
    drop(v);
}
