// SPDX-License-Identifier: MIT OR Apache-2.0
//! Shared-memory channel tests, including processes stopped (SIGSTOP) at random points.

use super::*;

fn sampling(max: usize) -> (Sampling, Sampling) {
    let w = create_memfd("test-sampling", sampling_len(max), None).unwrap();
    let ro = readonly_fd(w.fd()).unwrap();
    let r = SharedMapping::map(ro, sampling_len(max), false).unwrap();
    let w = Sampling::new(w, max).unwrap();
    w.init();
    (w, Sampling::new(r, max).unwrap())
}

/// (writer view, reader view) of a fresh queue.
fn queue(max: usize, cap: usize) -> (Queue, Queue) {
    let data = create_memfd("test-queue", queue_len(max, cap), None).unwrap();
    let state = create_memfd("test-state", READ_STATE_LEN, None).unwrap();
    let data_ro = SharedMapping::map(readonly_fd(data.fd()).unwrap(), data.len(), false).unwrap();
    let state_ro =
        SharedMapping::map(readonly_fd(state.fd()).unwrap(), state.len(), false).unwrap();
    let w = Queue::new(data, state_ro, max, cap).unwrap();
    let r = Queue::new(data_ro, state, max, cap).unwrap();
    r.init_reader_only_for_tests();
    (w, r)
}

impl Queue {
    fn init_reader_only_for_tests(&self) {
        self.read_state()
            .magic
            .store(READ_STATE_MAGIC, Ordering::Release);
    }
}

/// A message of `len` bytes whose content follows from `seq`, with a checksum at the end.
fn message(seq: u64, len: usize, out: &mut [u8]) {
    let len = len.max(16);
    out[..8].copy_from_slice(&seq.to_le_bytes());
    let mut x = seq.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    for b in &mut out[8..len - 8] {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    let sum = checksum(&out[..len - 8]);
    out[len - 8..len].copy_from_slice(&sum.to_le_bytes());
}

fn checksum(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &c| {
        (h ^ c as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// Checks a message built by [`message`]; returns its sequence number.
fn verify(m: &[u8]) -> u64 {
    assert!(m.len() >= 16, "message of {} bytes", m.len());
    let n = m.len();
    let sum = u64::from_le_bytes(m[n - 8..].try_into().unwrap());
    assert_eq!(sum, checksum(&m[..n - 8]), "torn or corrupt message");
    u64::from_le_bytes(m[..8].try_into().unwrap())
}

fn len_of(seq: u64, max: usize) -> usize {
    16 + (seq.wrapping_mul(2_654_435_761) % (max as u64 - 15)) as usize
}

#[test]
fn sampling_keeps_the_latest() {
    let (w, r) = sampling(64);
    let mut out = [0u8; 64];
    assert_eq!(r.read(&mut out), None);
    assert_eq!(w.write(b"first", 10), 1);
    assert_eq!(w.write(b"second!", 20), 2);
    let m = r.read(&mut out).unwrap();
    assert_eq!((m.number, m.len, m.time, m.consistent), (2, 7, 20, true));
    assert_eq!(&out[..7], b"second!");
    for i in 0..10u8 {
        w.write(&[i; 64], i as i64);
    }
    let m = r.read(&mut out).unwrap();
    assert_eq!((m.number, m.len), (12, 64));
    assert_eq!(out, [9u8; 64]);
}

/// Reads on another thread; fails if the read does not return within 5 s.
fn read_with_deadline(r: Sampling) -> SampledMessage {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut out = [0u8; 16];
        let _ = tx.send(r.read(&mut out));
    });
    rx.recv_timeout(std::time::Duration::from_secs(5))
        .expect("the reader hangs on a hostile writer")
        .expect("a message")
}

#[test]
fn a_writer_that_publishes_an_inconsistent_slot_cannot_hold_its_reader() {
    // Message 7 published in slot 1, whose counter says message 1.
    let (w, r) = sampling(16);
    w.write(b"hello", 1);
    w.header().latest.store(7 << 8 | 1, Ordering::SeqCst);
    let m = read_with_deadline(r);
    assert!(!m.consistent);
    assert_eq!(m.number, 7);
    assert!(m.len <= 16);
    // A slot index out of range stays inside the area.
    let (w, r) = sampling(16);
    w.write(b"hello", 1);
    w.header().latest.store(9 << 8 | 200, Ordering::SeqCst);
    let m = read_with_deadline(r);
    assert!(!m.consistent && m.len <= 16, "{m:?}");
}

#[test]
fn a_writer_that_keeps_rewriting_the_published_slot_cannot_hold_its_reader() {
    let (w, r) = sampling(16);
    w.write(b"hello", 1);
    let latest = w.header().latest.load(Ordering::SeqCst);
    let slot = (latest & 0xff) as usize;
    // A thread flips the published slot's counter between odd and even forever, without
    // publishing a new number.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flipper = {
        let stop = stop.clone();
        let seq_at = w.mapping().as_ptr() as usize + HEADER + slot * sampling_stride(16);
        std::thread::spawn(move || {
            // SAFETY: (test) the writer's mapping outlives the thread (joined below) and
            // the slot counter is an AtomicU64 at that aligned address.
            let seq = unsafe { &*(seq_at as *const AtomicU64) };
            let mut i = 0u64;
            while !stop.load(Ordering::Relaxed) {
                seq.store(2 + (i & 1), Ordering::SeqCst);
                i += 1;
            }
        })
    };
    let m = read_with_deadline(r);
    stop.store(true, Ordering::Relaxed);
    flipper.join().unwrap();
    assert_eq!(m.number, 1);
    assert!(m.len <= 16);
    // Whether a copy happened to fall between two flips or not, the read returned.
    drop(w);
}

#[test]
fn queue_fifo_full_clear_overflow() {
    let (w, r) = queue(32, 3);
    let mut out = [0u8; 32];
    assert_eq!(r.pop(&mut out), None);
    assert!(w.push(b"a"));
    assert!(w.push(b"bb"));
    assert!(w.push(b"ccc"));
    assert!(!w.push(b"dddd"), "full queue refuses");
    assert_eq!(w.len(), 3);
    assert_eq!(
        r.pop(&mut out),
        Some(Popped {
            len: 1,
            overflow: false
        })
    );
    assert_eq!(&out[..1], b"a");
    assert!(w.push(b"dddd"));
    w.count_overflow();
    assert_eq!(
        r.pop(&mut out).map(|p| (p.len, p.overflow)),
        Some((2, true))
    );
    assert_eq!(
        r.pop(&mut out).map(|p| (p.len, p.overflow)),
        Some((3, false))
    );
    assert_eq!(r.clear(), 1);
    assert!(r.is_empty() && w.is_empty());
    // Indices wrap around (modulo twice the capacity) without loss.
    w.header().head.store(5, Ordering::SeqCst);
    r.read_state().tail.store(5, Ordering::SeqCst);
    for i in 0..3u8 {
        assert!(w.push(&[i]));
    }
    for i in 0..3u8 {
        assert_eq!(r.pop(&mut out).map(|p| p.len), Some(1));
        assert_eq!(out[0], i);
    }
}

#[test]
fn queue_counts_sent_and_received_across_wraps() {
    let (w, r) = queue(8, 3);
    let mut out = [0u8; 8];
    assert_eq!(w.traffic(), (0, 0));
    for i in 0..10u8 {
        assert!(w.push(&[i]));
        assert_eq!(r.pop(&mut out).unwrap().len, 1);
    }
    for i in 0..3u8 {
        assert!(w.push(&[i, i]));
    }
    assert!(!w.push(&[9]), "full");
    // Seen alike from both views: a refused push is not sent, a cleared message not received.
    assert_eq!(w.traffic(), (13, 10));
    assert_eq!(r.traffic(), (13, 10));
    assert_eq!(r.clear(), 3);
    assert_eq!(r.traffic(), (13, 10));
}

#[test]
fn corrupt_peer_indices_stay_in_bounds() {
    let (w, r) = queue(8, 4);
    let mut out = [0u8; 8];
    // A hostile writer claims a billion messages: the reader stays inside the slots.
    w.header().head.store(1_000_000_003, Ordering::SeqCst);
    assert!(r.len() <= 4);
    assert!(r.pop(&mut out).is_some_and(|p| p.len <= 8));
    // A hostile reader moves its index anywhere: the writer sees a full queue, never an
    // overrun of a slot the reader may still be reading.
    r.read_state().tail.store(8_006, Ordering::SeqCst);
    assert_eq!(w.len(), 4);
    assert!(!w.push(b"x"));
}

#[test]
fn readonly_descriptor_cannot_be_mapped_writable() {
    let m = create_memfd("test-ro", PAGE, None).unwrap();
    let ro = readonly_fd(m.fd()).unwrap();
    let e = SharedMapping::map(ro, PAGE, true)
        .err()
        .expect("writable map of O_RDONLY fd");
    assert_eq!(e.errno(), Some(libc::EACCES));
}

/// Forks a child running `f` (which must not allocate) and returns its pid.
fn fork_child(f: impl FnOnce() -> i32) -> i32 {
    // SAFETY: the child only touches memory that exists before the fork (mappings, stack) and
    // leaves with _exit; it allocates nothing.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork");
    if pid == 0 {
        let code = f();
        // SAFETY: ends the child without running the parent's destructors.
        unsafe { libc::_exit(code) };
    }
    pid
}

fn signal(pid: i32, sig: i32) {
    // SAFETY: signals our own child.
    unsafe { libc::kill(pid, sig) };
}

fn wait_exit(pid: i32) -> i32 {
    let mut st = 0;
    // SAFETY: waits for our own child.
    unsafe { libc::waitpid(pid, &mut st, 0) };
    assert!(libc::WIFEXITED(st), "child did not exit normally: {st:#x}");
    libc::WEXITSTATUS(st)
}

/// xorshift for stop points.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Sleeps `us` microseconds.
fn pause_us(us: u64) {
    std::thread::sleep(std::time::Duration::from_micros(us));
}

#[test]
fn sampling_writer_stopped_at_random_points_never_tears() {
    const MAX: usize = 200;
    const N: u64 = 200_000;
    let (w, r) = sampling(MAX);
    let child = fork_child(|| {
        let mut buf = [0u8; MAX];
        for seq in 1..=N {
            let len = len_of(seq, MAX);
            message(seq, len, &mut buf);
            w.write(&buf[..len], seq as i64);
        }
        0
    });
    let mut rng = Rng(0x1234_5678);
    let mut out = [0u8; MAX];
    let (mut last, mut reads, mut stops) = (0u64, 0u64, 0u64);
    while last < N {
        if rng.next().is_multiple_of(512) {
            signal(child, libc::SIGSTOP);
            stops += 1;
            // While the writer is stopped (possibly mid-write) reads still succeed.
            for _ in 0..3 {
                if let Some(m) = r.read(&mut out) {
                    assert!(m.consistent, "{m:?}");
                    assert_eq!(verify(&out[..m.len]), m.number);
                }
            }
            pause_us(rng.next() % 200);
            signal(child, libc::SIGCONT);
        }
        if let Some(m) = r.read(&mut out) {
            assert!(m.consistent, "{m:?}");
            let seq = verify(&out[..m.len]);
            assert_eq!(seq, m.number);
            assert_eq!(m.time, seq as i64);
            assert!(seq >= last, "sampling went backwards: {seq} after {last}");
            last = seq;
            reads += 1;
        }
    }
    assert_eq!(wait_exit(child), 0);
    assert!(reads > 0 && stops > 0, "reads {reads} stops {stops}");
}

#[test]
fn queue_with_writer_or_reader_stopped_at_random_points_loses_nothing() {
    const MAX: usize = 120;
    const N: u64 = 100_000;
    // Child writes, parent reads and stops the child at random points.
    let (w, r) = queue(MAX, 16);
    let child = fork_child(|| {
        let mut buf = [0u8; MAX];
        let mut seq = 1;
        while seq <= N {
            let len = len_of(seq, MAX);
            message(seq, len, &mut buf);
            if w.push(&buf[..len]) {
                seq += 1;
            } else {
                std::hint::spin_loop();
            }
        }
        0
    });
    let mut rng = Rng(0xfeed_beef);
    let mut out = [0u8; MAX];
    let mut expect = 1;
    while expect <= N {
        if rng.next().is_multiple_of(256) {
            signal(child, libc::SIGSTOP);
            pause_us(rng.next() % 100);
            signal(child, libc::SIGCONT);
        }
        if let Some(p) = r.pop(&mut out) {
            assert!(!p.overflow);
            assert_eq!(
                verify(&out[..p.len]),
                expect,
                "loss, duplication or reordering"
            );
            expect += 1;
        }
    }
    assert_eq!(wait_exit(child), 0);
    assert!(r.is_empty());

    // Child reads (and checks), parent writes and stops the child at random points.
    let (w, r) = queue(MAX, 16);
    let child = fork_child(|| {
        let mut out = [0u8; MAX];
        let mut expect = 1;
        while expect <= N {
            if let Some(p) = r.pop(&mut out) {
                let n = p.len;
                let sum = u64::from_le_bytes(out[n - 8..n].try_into().unwrap_or([0; 8]));
                if sum != checksum(&out[..n - 8])
                    || u64::from_le_bytes(out[..8].try_into().unwrap_or([0; 8])) != expect
                {
                    return 1;
                }
                expect += 1;
            }
        }
        0
    });
    let mut buf = [0u8; MAX];
    let mut seq = 1;
    while seq <= N {
        if rng.next().is_multiple_of(256) {
            signal(child, libc::SIGSTOP);
            // A stopped reader only makes the queue fill up: the writer never blocks.
            for _ in 0..40 {
                let len = len_of(seq, MAX);
                message(seq, len, &mut buf);
                if w.push(&buf[..len]) {
                    seq += 1;
                }
            }
            signal(child, libc::SIGCONT);
        }
        let len = len_of(seq, MAX);
        message(seq, len, &mut buf);
        if seq <= N && w.push(&buf[..len]) {
            seq += 1;
        }
    }
    assert_eq!(
        wait_exit(child),
        0,
        "the reader saw loss, duplication, reordering or tearing"
    );
}

#[test]
fn blocked_reader_is_woken_by_the_writer() {
    let (w, r) = queue(8, 2);
    let r = std::sync::Arc::new(r);
    let r2 = r.clone();
    let t = std::thread::spawn(move || {
        let mut out = [0u8; 8];
        loop {
            r2.set_rx_waiting(true);
            let seen = r2.head_word().load(Ordering::SeqCst);
            if let Some(p) = r2.pop(&mut out) {
                r2.set_rx_waiting(false);
                return p.len;
            }
            crate::futex::wait_any(&[(r2.head_word(), seen, true)], None).unwrap();
        }
    });
    pause_us(20_000);
    assert!(w.push(b"wake"));
    assert_eq!(t.join().unwrap(), 4);
}
