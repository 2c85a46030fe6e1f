// SPDX-License-Identifier: MIT OR Apache-2.0
//! How early to freeze a partition before the end of its window (the *freeze lead*).
//!
//! Freezing a cgroup is not instantaneous: the kernel marks every task at once, but a task
//! that is runnable (preempted, or woken) must still be scheduled once to reach the freezer.
//! If the leaving partition still has such tasks at the boundary, and they are at the
//! priority of the entering partition's threads or above, they run first, in the entering
//! partition's time: a partition with 128 spinning real-time threads (a thread bomb) delayed
//! its successor's window start by ~0.45 ms on the reference machine.
//!
//! So each scheduler thread freezes the leaving partition `lead` before the boundary, sleeps
//! while its tasks reach the freezer, and watches for the moment it is frozen. The lead
//! adapts per partition to what its freeze took last time; a partition with many runnable
//! tasks pays for them in its own window, and its successor starts on time. A partition
//! whose freeze is quick (the usual case: at most the one task the scheduler preempted) gets
//! no lead at all, as before: it is frozen when the scheduler wakes for the boundary, and its
//! one straggler costs the successor a few microseconds. Such a partition is re-probed now and
//! then (and at once when its freeze request itself was slow, a sign of many tasks); and a
//! partition whose task count crosses a multiple of [`HINT_TASKS`] gets a lead at once
//! ([`FreezeLead::hint`]: its creation thread, which answers every task creation, wakes the
//! scheduler thread), so the window in which it turns into a bomb is covered too.
//!
//! A second term, the *wake guard*, covers the scheduler's own wake-up: on a kernel without
//! full preemption a partition in a long system call keeps its core until the call reaches a
//! preemption point, and kernel work the partition caused runs in softirq context ahead of
//! the scheduler (RCU callbacks freeing a thread bomb's failed `clone()`s: up to ~3 ms); the
//! scheduler then wakes that much late, too late to freeze the partition in time. The guard is
//! the largest recent excess of that wake-up lateness beyond the planned wake-up latency and
//! ordinary timer jitter ([`WAKE_SLACK_NS`]) that was the partition's doing, once confirmed by
//! a second one within a few windows (a single late wake-up has many possible causes),
//! decaying by 1/8 a window: the scheduler wakes that much earlier for it. Lateness is the
//! partition's doing only as far as the partition had the CPU: the wall time of its window
//! that its CPU time does not cover (a real-time throttling hole, another module's thread, an
//! interrupt storm: the partition did not run) is taken off the excess first
//! ([`FreezeLead::note_wake`]), so a throttling hole no longer holds the partition early for
//! the windows after it.
//!
//! The wake-up itself is planned by [`WakePredictor`]: instead of waking a whole spin margin
//! before every boundary (a fixed loss of the leaving partition), the scheduler wakes a low
//! quantile of its recently measured wake-up latency before it and spins only what is left.
//!
//! How the scheduler learns what a hold takes depends on the backend. A freezer says when it
//! is done (`FROZEN`, `frozen 1`), and the lead is found by checking it (halving when early,
//! growing when late). The signals backend cannot tell cheaply when a partition is stopped (a
//! task stops only when it runs, each thread on its own; a runtime partition's threads wake up
//! to stop, 30-60 us of CPU on the reference VM), but the partition's CPU time says exactly
//! what its stop cost: the stop request, plus the CPU time the partition used from the request
//! to the boundary, plus what it used after the boundary (its *spill*, the successor's loss,
//! measured anyway as its overrun). The lead then follows that cost directly
//! ([`FreezeLead::after_stop`]), without checks that would wake the scheduler in the middle.
//!
//! This module is the pure policy; [`crate::scheduler`] measures and applies it.

/// Lead tried when a partition was not frozen at the boundary (a probe).
pub(crate) const PROBE_NS: u64 = 60_000;
/// A freeze that completes within this time needs no lead.
pub(crate) const QUICK_NS: u64 = 50_000;
/// Upper bound of the lead (it is also bounded by a quarter of the leaving window).
pub(crate) const MAX_NS: u64 = 2_000_000;
/// A partition found unfrozen at the boundary without lead is probed again after this many
/// such boundaries.
pub(crate) const PROBE_EVERY: u32 = 16;
/// A freeze request (the write to the freezer) taking at least this long means many tasks:
/// probe at once, with a longer probe.
pub(crate) const SLOW_REQUEST_NS: u64 = 50_000;

/// Signals backend: added to a measured stop for the lead (the scheduler's wake-up lateness,
/// which delays the stop request; 20-40 us on the reference VM).
pub(crate) const STOP_SLACK_NS: u64 = 40_000;

/// A partition whose task count reaches a multiple of this (its creation thread sees every
/// creation) gets a lead for its next boundary at once, before any freeze of it was too slow:
/// the window in which it turns into a bomb is covered too.
pub(crate) const HINT_TASKS: u32 = 32;
/// Lead per task of such a partition (128 runnable threads took ~450 us to freeze).
pub(crate) const HINT_PER_TASK_NS: u64 = 4_000;

/// Wake-up lateness beyond the spin margin that does not feed the wake guard: ordinary timer
/// jitter (on the development VM, p99 wake-up latency is 100-120 us against an 80 us margin).
/// The guard is for the millisecond delays of non-preemptible kernel work.
pub(crate) const WAKE_SLACK_NS: u64 = 100_000;
/// A wake guard that faded below this is dropped (below the timer's own jitter).
pub(crate) const GUARD_MIN_NS: u64 = 10_000;
/// Upper bound of the wake guard.
pub(crate) const GUARD_MAX_NS: u64 = 5_000_000;

/// The freeze lead of one partition on one core.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct FreezeLead {
    lead: u64,
    countdown: u32,
    guard: u64,
    /// Recent wake-up lateness excess, halving every window: a second late wake-up while it
    /// lasts confirms the first (one alone, from anything on the machine, costs nothing).
    recent: u64,
}

impl FreezeLead {
    /// The lead to use for a window that started `window_ns` before its end.
    pub fn lead(&self, window_ns: u64) -> u64 {
        self.lead.min(MAX_NS).min(window_ns / 4)
    }

    /// The partition now has `tasks` tasks (a multiple of [`HINT_TASKS`]): a lead of
    /// [`HINT_PER_TASK_NS`] each, unless it has a longer one; the usual checks then adjust it.
    pub fn hint(&mut self, tasks: u32) {
        self.lead = self
            .lead
            .max(u64::from(tasks) * HINT_PER_TASK_NS)
            .min(MAX_NS);
    }

    /// The wake guard to add to the lead, so that both take at most a quarter of the window.
    pub fn guard(&self, window_ns: u64) -> u64 {
        self.guard
            .min(GUARD_MAX_NS)
            .min((window_ns / 4).saturating_sub(self.lead(window_ns)))
    }

    /// The scheduler woke `late_ns` after it meant to, at a boundary ending this partition's
    /// window; it had planned for a wake-up latency of `planned_ns` (the spin it left itself).
    /// `foreign_ns`: the wall time of the partition's window its CPU time does not cover (it
    /// did not run then: not its doing), taken off the excess; `None` when unknown (no CPU
    /// accounting), and the whole excess counts.
    pub fn note_wake(&mut self, late_ns: u64, planned_ns: u64, foreign_ns: Option<u64>) {
        let excess = late_ns
            .saturating_sub(planned_ns + WAKE_SLACK_NS)
            .saturating_sub(foreign_ns.unwrap_or(0))
            .min(GUARD_MAX_NS);
        let confirmed = excess.min(self.recent);
        self.recent = (self.recent / 2).max(excess);
        self.guard = (self.guard - self.guard / 8).max(confirmed);
        if self.guard < GUARD_MIN_NS {
            self.guard = 0;
        }
    }

    /// Whether the boundary just made without lead should check that the partition is frozen
    /// (a check costs the successor a system call, so it is made every [`PROBE_EVERY`]
    /// boundaries, or at once when the freeze request took `request_ns` >= [`SLOW_REQUEST_NS`]).
    pub fn check_due(&self, request_ns: u64) -> bool {
        self.countdown == 0 || request_ns >= SLOW_REQUEST_NS
    }

    /// After a boundary at which the partition was frozen without lead: whether it was found
    /// frozen when the successor was let in (`None`: not checked), and how long the freeze
    /// request took (a slow one, a sign of many tasks, gets a longer probe).
    pub fn after_lazy(&mut self, frozen: Option<bool>, request_ns: u64) {
        match frozen {
            None => self.countdown = self.countdown.saturating_sub(1),
            Some(true) => self.countdown = PROBE_EVERY,
            Some(false) => {
                self.lead = if request_ns >= SLOW_REQUEST_NS {
                    4 * PROBE_NS
                } else {
                    PROBE_NS
                };
                self.countdown = PROBE_EVERY;
            }
        }
    }

    /// Signals backend: what an early stop of the partition cost (measured when it entered
    /// again, so one boundary late). A spill beyond [`QUICK_NS`] asks for a lead that covers
    /// the cost with a quarter more and [`STOP_SLACK_NS`] (and at least the lead that spilled
    /// plus its spill). A stop made with a lead that did not spill lets the lead fade by 1/8 a
    /// window, never below what that stop needed, and drop after a stop within twice
    /// [`QUICK_NS`]: a runtime partition's ordinary stop (30-80 us, its threads waking to
    /// stop) spills at most about that without a lead, and a lead would cost it more than it
    /// saves its successor. A stop made without a lead that did not spill changes nothing: the
    /// lead in force may have come since ([`FreezeLead::hint`]) and is not its to judge.
    pub fn after_stop(&mut self, c: StopCost) {
        let need = c.took + c.took / 4 + STOP_SLACK_NS;
        let faded = self.lead - self.lead / 8;
        self.lead = if c.spill > QUICK_NS {
            need.max(c.lead + c.spill)
        } else if c.lead == 0 {
            self.lead
        } else if c.took <= 2 * QUICK_NS {
            0
        } else {
            faded.max(need)
        }
        .min(MAX_NS);
    }

    /// After a boundary at which the partition was frozen `lead` early: when it was found
    /// frozen.
    pub fn after_lead(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Half => {
                // Frozen within half the lead: half of it still covers the freeze.
                self.lead /= 2;
                if self.lead < QUICK_NS {
                    self.lead = 0;
                    self.countdown = PROBE_EVERY;
                }
            }
            Outcome::Full => self.lead = (self.lead + self.lead / 8).min(MAX_NS),
            Outcome::Late => self.lead = (self.lead * 4).clamp(PROBE_NS, MAX_NS),
        }
    }
}

/// Wake-up latencies a scheduler thread keeps ([`WakePredictor`]).
pub(crate) const WAKE_HISTORY: usize = 64;
/// The rank (from 0, smallest first) among them the scheduler plans for: the 5th smallest of
/// the last 64 (about the 7th percentile). Waking earlier than needed costs the leaving
/// partition the spin (dead time at the switch); waking later than needed delays the entering
/// partition's start by as much. A low quantile keeps the first small and bounded and the
/// second about the timer's ordinary jitter above its floor.
pub(crate) const WAKE_RANK: usize = 4;

/// The wake-up latency a scheduler thread plans for, learnt online from its own wake-ups: the
/// one of rank [`WAKE_RANK`] (from 0, smallest first) of the last [`WAKE_HISTORY`] latencies
/// measured (of all of them while fewer were measured, in proportion). The scheduler
/// wakes that long before a boundary (never more than the spin margin, which is now a bound)
/// and spins the rest. Millisecond outliers (throttling holes, another module) do not move a
/// low quantile.
#[derive(Debug, Clone)]
pub(crate) struct WakePredictor {
    recent: [u64; WAKE_HISTORY],
    len: usize,
    next: usize,
    predicted: u64,
}

impl Default for WakePredictor {
    fn default() -> Self {
        WakePredictor {
            recent: [0; WAKE_HISTORY],
            len: 0,
            next: 0,
            predicted: 0,
        }
    }
}

impl WakePredictor {
    /// The latency to plan for, at most `bound_ns` (the spin margin); the bound itself until
    /// a first wake-up was measured.
    pub fn planned(&self, bound_ns: u64) -> u64 {
        if self.len == 0 {
            bound_ns
        } else {
            self.predicted.min(bound_ns)
        }
    }

    /// A wake-up `late_ns` after the instant asked for.
    pub fn note(&mut self, late_ns: u64) {
        self.recent[self.next] = late_ns;
        self.next = (self.next + 1) % WAKE_HISTORY;
        self.len = (self.len + 1).min(WAKE_HISTORY);
        let mut v = self.recent;
        let seen = &mut v[..self.len];
        let rank = (self.len * WAKE_RANK / WAKE_HISTORY).min(self.len - 1);
        self.predicted = *seen.select_nth_unstable(rank).1;
    }
}

/// What one early stop of a partition by signals cost ([`FreezeLead::after_stop`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StopCost {
    /// The request, and the CPU time the partition used from then on, before and after the
    /// boundary.
    pub took: u64,
    /// The part after the boundary: the successor's loss.
    pub spill: u64,
    /// The lead the stop was made with.
    pub lead: u64,
}

/// When a partition frozen with a lead was found frozen. The scheduler checks twice only
/// (each check wakes it, and a wake-up interrupts the partition's tasks on their way to the
/// freezer): half-way, and at the end of the lead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Within the first half of the lead: the lead halves (still at least the freeze time).
    Half,
    /// Within the second half: the lead fits, and grows a little (towards twice the freeze
    /// time, a margin for a freeze that takes a little longer next time).
    Full,
    /// Not at the end of the lead: the successor was let in while the partition still had
    /// tasks on their way to the freezer; the lead grows.
    Late,
}

#[cfg(test)]
mod tests {
    use super::*;

    const WINDOW: u64 = 30_000_000;

    /// What the scheduler does with a partition frozen without lead (see `scheduler`).
    fn lazy(l: &mut FreezeLead, frozen: bool, request_ns: u64) {
        let checked = l.check_due(request_ns).then_some(frozen);
        l.after_lazy(checked, request_ns);
    }

    /// What the scheduler does with a partition frozen with a lead: the outcome of a freeze
    /// that takes `took`.
    fn with_lead(l: &mut FreezeLead, took: u64) {
        let lead = l.lead(WINDOW);
        l.after_lead(if took <= lead / 2 {
            Outcome::Half
        } else if took <= lead {
            Outcome::Full
        } else {
            Outcome::Late
        });
    }

    #[test]
    fn a_quick_partition_gets_no_lead_and_is_checked_now_and_then() {
        let mut l = FreezeLead::default();
        lazy(&mut l, true, 10_000);
        assert_eq!(l.lead(WINDOW), 0);
        for _ in 0..PROBE_EVERY {
            assert!(!l.check_due(10_000));
            lazy(&mut l, false, 10_000);
            assert_eq!(l.lead(WINDOW), 0);
        }
        assert!(l.check_due(10_000));
        // One straggler at the boundary: probed once, quick, then left alone for a while.
        lazy(&mut l, false, 10_000);
        assert_eq!(l.lead(WINDOW), PROBE_NS);
        with_lead(&mut l, 5_000);
        assert_eq!(l.lead(WINDOW), 0);
        assert!(!l.check_due(10_000));
    }

    #[test]
    fn a_bomb_is_late_twice_and_then_gets_the_lead_its_freeze_takes() {
        let mut l = FreezeLead::default();
        lazy(&mut l, true, 10_000);
        // The window in which the bomb went off: caught at the boundary, where the freeze
        // request took long (128 tasks): a longer probe.
        lazy(&mut l, false, 65_000);
        assert_eq!(l.lead(WINDOW), 4 * PROBE_NS);
        // Too short for a 450 us freeze: four times more.
        with_lead(&mut l, 450_000);
        assert_eq!(l.lead(WINDOW), 16 * PROBE_NS);
        // It freezes in 450 us: the lead shrinks until the freeze takes more than half of it
        // and then stays, never below what the freeze takes.
        for _ in 0..20 {
            with_lead(&mut l, 450_000);
            assert!(l.lead(WINDOW) >= 450_000, "{}", l.lead(WINDOW));
        }
        let lead = l.lead(WINDOW);
        assert!(lead <= 1_000_000, "{lead}");
        // A slower freeze: late once, then covered.
        with_lead(&mut l, 1_500_000);
        assert!(l.lead(WINDOW) >= 1_500_000);
        // Quick again: back to no lead.
        for _ in 0..20 {
            if l.lead(WINDOW) > 0 {
                with_lead(&mut l, 10_000);
            }
        }
        assert_eq!(l.lead(WINDOW), 0);
    }

    #[test]
    fn a_probe_that_is_too_short_grows_fast() {
        let mut l = FreezeLead::default();
        lazy(&mut l, false, 10_000);
        assert_eq!(l.lead(WINDOW), PROBE_NS);
        with_lead(&mut l, 400_000);
        assert_eq!(l.lead(WINDOW), 4 * PROBE_NS);
        with_lead(&mut l, 400_000);
        assert!(l.lead(WINDOW) >= 400_000);
    }

    #[test]
    fn late_wake_ups_are_guarded_against_and_the_guard_fades() {
        let mut l = FreezeLead::default();
        // Ordinary jitter beyond the margin does not count.
        l.note_wake(80_000 + WAKE_SLACK_NS, 80_000, None);
        assert_eq!(l.guard(WINDOW), 0);
        // One late wake-up alone costs nothing; a second one soon after confirms it.
        l.note_wake(80_000 + WAKE_SLACK_NS + 700_000, 80_000, None);
        assert_eq!(l.guard(WINDOW), 0);
        l.note_wake(10_000, 80_000, None);
        l.note_wake(80_000 + WAKE_SLACK_NS + 900_000, 80_000, None);
        assert_eq!(l.guard(WINDOW), 350_000);
        l.note_wake(80_000 + WAKE_SLACK_NS + 700_000, 80_000, None);
        assert_eq!(l.guard(WINDOW), 700_000);
        // A smaller lateness does not lower it at once; it fades by 1/8 a window.
        l.note_wake(10_000, 80_000, None);
        assert_eq!(l.guard(WINDOW), 700_000 - 700_000 / 8);
        for _ in 0..200 {
            l.note_wake(10_000, 80_000, None);
        }
        assert_eq!(l.guard(WINDOW), 0);
        // Lead and guard together stay within a quarter of the window.
        l.note_wake(GUARD_MAX_NS * 2, 80_000, None);
        l.note_wake(GUARD_MAX_NS * 2, 80_000, None);
        assert_eq!(l.guard(WINDOW), GUARD_MAX_NS);
        l.after_lead(Outcome::Late);
        assert_eq!(l.lead(8_000_000) + l.guard(8_000_000), 2_000_000);
    }

    #[test]
    fn lateness_while_the_partition_did_not_run_is_not_guarded_against() {
        let mut l = FreezeLead::default();
        let late = 20_000 + WAKE_SLACK_NS + 2_000_000;
        // A throttling hole: the scheduler woke 2 ms late, and for 3 ms of the window the
        // partition did not run either. Twice in a row: still no guard.
        for _ in 0..4 {
            l.note_wake(late, 20_000, Some(3_000_000));
            assert_eq!(l.guard(WINDOW), 0);
        }
        // The partition had the CPU but for 0.5 ms: 1.5 ms of it was its doing; confirmed by
        // a second one, guarded against.
        l.note_wake(late, 20_000, Some(500_000));
        l.note_wake(late, 20_000, Some(500_000));
        assert_eq!(l.guard(WINDOW), 1_500_000);
        // Unknown CPU time: the whole excess counts, as before.
        let mut u = FreezeLead::default();
        u.note_wake(late, 20_000, None);
        u.note_wake(late, 20_000, None);
        assert_eq!(u.guard(WINDOW), 2_000_000);
    }

    #[test]
    fn the_planned_wake_up_latency_is_a_low_quantile_of_recent_ones() {
        let mut w = WakePredictor::default();
        // Nothing measured yet: the whole bound (the spin margin).
        assert_eq!(w.planned(80_000), 80_000);
        // Latencies 10..=73 us, shuffled: the one of rank 4 (from 0) of 64; ones way out (a
        // throttling hole) change nothing.
        for i in 1..=64u64 {
            w.note(10_000 + ((i * 37) % 64) * 1_000);
        }
        assert_eq!(w.planned(80_000), 14_000);
        w.note(50_000_000);
        w.note(3_000_000);
        assert_eq!(w.planned(80_000), 14_000);
        // Never beyond the bound; zero margin, zero plan.
        assert_eq!(w.planned(12_000), 12_000);
        assert_eq!(w.planned(0), 0);
        // The machine gets slower: the plan follows within a history.
        for _ in 0..WAKE_HISTORY {
            w.note(40_000);
        }
        assert_eq!(w.planned(80_000), 40_000);
        // One sample: that one.
        let mut one = WakePredictor::default();
        one.note(7_000);
        assert_eq!(one.planned(80_000), 7_000);
    }

    #[test]
    fn the_lead_never_takes_more_than_a_quarter_of_the_window() {
        let mut l = FreezeLead::default();
        for _ in 0..8 {
            l.after_lead(Outcome::Late);
        }
        assert_eq!(l.lead(WINDOW), MAX_NS);
        assert_eq!(l.lead(1_000_000), 250_000);
        assert_eq!(l.lead(0), 0);
    }

    #[test]
    fn a_stop_by_signals_gets_the_lead_its_cost_needs() {
        let stop = |took, spill, lead| StopCost { took, spill, lead };
        let mut l = FreezeLead::default();
        // An ordinary stop made at the wake-up for the boundary: no lead.
        l.after_stop(stop(70_000, 40_000, 0));
        assert_eq!(l.lead(WINDOW), 0);
        // A bomb: 450 us, most of it after the boundary.
        l.after_stop(stop(450_000, 400_000, 0));
        let first = 450_000 + 450_000 / 4 + STOP_SLACK_NS;
        assert_eq!(l.lead(WINDOW), first);
        // Spilling again despite that lead (a later wake-up): the spill adds itself.
        l.after_stop(stop(450_000, 100_000, first));
        assert_eq!(l.lead(WINDOW), first + 100_000);
        // Quicker stops with the lead: it fades slowly, never below what the last one needed.
        let before = l.lead(WINDOW);
        l.after_stop(stop(200_000, 0, before));
        assert_eq!(l.lead(WINDOW), before - before / 8);
        for _ in 0..40 {
            let lead = l.lead(WINDOW);
            l.after_stop(stop(200_000, 0, lead));
        }
        assert_eq!(l.lead(WINDOW), 200_000 + 200_000 / 4 + STOP_SLACK_NS);
        // An ordinary stop made with the lead: no lead any more.
        let lead = l.lead(WINDOW);
        l.after_stop(stop(60_000, 0, lead));
        assert_eq!(l.lead(WINDOW), 0);
        // Without a lead, only the spill counts.
        l.after_stop(stop(150_000, 40_000, 0));
        assert_eq!(l.lead(WINDOW), 0);
        // An ordinary stop that spilled a lot once gets a lead until the next ordinary stop.
        l.after_stop(stop(80_000, 60_000, 0));
        assert_eq!(l.lead(WINDOW), 80_000 + 20_000 + STOP_SLACK_NS);
        let lead = l.lead(WINDOW);
        l.after_stop(stop(60_000, 0, lead));
        assert_eq!(l.lead(WINDOW), 0);
        // Bounded like any lead.
        l.after_stop(stop(10 * MAX_NS, 10 * MAX_NS, 0));
        assert_eq!(l.lead(WINDOW), MAX_NS);
    }

    #[test]
    fn a_hint_survives_the_cost_of_the_stop_before_it() {
        // The bomb's first window: the hint gives a lead; the cost measured meanwhile is that
        // of the ordinary stop before the bomb (no lead, no spill) and must not undo it.
        let mut l = FreezeLead::default();
        l.hint(HINT_TASKS * 4);
        let hinted = l.lead(WINDOW);
        l.after_stop(StopCost {
            took: 60_000,
            spill: 0,
            lead: 0,
        });
        assert_eq!(l.lead(WINDOW), hinted);
        // Then the bomb's stop made with it: long, no spill: the lead stays.
        l.after_stop(StopCost {
            took: 450_000,
            spill: 5_000,
            lead: hinted,
        });
        assert!(l.lead(WINDOW) >= 450_000, "{}", l.lead(WINDOW));
    }

    #[test]
    fn a_partition_creating_many_tasks_gets_a_lead_at_once() {
        let mut l = FreezeLead::default();
        l.hint(HINT_TASKS * 4);
        assert_eq!(l.lead(WINDOW), u64::from(HINT_TASKS * 4) * HINT_PER_TASK_NS);
        // A longer lead stays.
        l.after_lead(Outcome::Late);
        let long = l.lead(WINDOW);
        l.hint(HINT_TASKS);
        assert_eq!(l.lead(WINDOW), long);
        // It freezes quickly after all (its tasks sleep): the lead goes.
        let mut l = FreezeLead::default();
        l.hint(HINT_TASKS);
        for _ in 0..4 {
            l.after_lead(Outcome::Half);
        }
        assert_eq!(l.lead(WINDOW), 0);
        l.hint(u32::MAX);
        assert_eq!(l.lead(WINDOW), MAX_NS);
    }
}
