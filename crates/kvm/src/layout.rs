// SPDX-License-Identifier: MIT OR Apache-2.0
//! The system area the monitor builds below [`IMAGE_BASE`]: GDT and TSS, IDT, fault stubs,
//! the stack faults arrive on, and the page tables; and the register state the vCPU starts
//! with. Pure: [`system_area`] returns the bytes and where they go, [`start_state`] the
//! registers, so both are tested without KVM.
//!
//! The guest never runs kernel code of its own. The only ring-0 code is the 256 fault stubs,
//! reached only when user code faults: each stores its vector to [`FAULT_DOORBELL`] (one
//! instruction, an MMIO exit) and halts. The monitor then reads the exception frame the CPU
//! pushed on the fault stack.

use partita_abi::vm::{
    FAULT_DOORBELL, HYPERCALL_DOORBELL, IMAGE_BASE, MEMORY_ALIGN, PAGE_SIZE, TIME_PAGE,
};

/// The GDT (7 descriptors) at the start of its page; the TSS follows at [`TSS`].
pub(crate) const GDT: u64 = 0x1000;
/// The 64-bit TSS (only `rsp0` is used: the fault stack).
pub(crate) const TSS: u64 = 0x1080;
/// The IDT: 256 interrupt gates.
pub(crate) const IDT: u64 = 0x2000;
/// The fault stubs, [`STUB_SIZE`] bytes each, one per vector.
pub(crate) const STUBS: u64 = 0x3000;
/// Bytes per fault stub.
pub(crate) const STUB_SIZE: u64 = 16;
/// Top of the fault stack (its page is `0x4000..0x5000`): `rsp0` of the TSS.
pub(crate) const FAULT_STACK_TOP: u64 = 0x5000;
/// Page tables: PML4, the PDPT, the page directory of RAM, the page table of the first 2 MiB,
/// the page directory and page table of the doorbells.
const PML4: u64 = 0x8000;
const PDPT: u64 = 0x9000;
const PD_RAM: u64 = 0xA000;
const PT_LOW: u64 = 0xB000;
const PD_DOORBELLS: u64 = 0xC000;
const PT_DOORBELLS: u64 = 0xD000;

/// Selectors: kernel code and data, user data and code (the `syscall`/`sysret` order), TSS.
pub(crate) const KERNEL_CS: u16 = 0x08;
const KERNEL_DS: u16 = 0x10;
pub(crate) const USER_DS: u16 = 0x18 | 3;
pub(crate) const USER_CS: u16 = 0x20 | 3;
pub(crate) const TSS_SELECTOR: u16 = 0x28;
/// Bytes of the GDT (null, 4 segments, a 16-byte TSS descriptor).
pub(crate) const GDT_SIZE: u64 = 7 * 8;
/// Bytes of the TSS.
pub(crate) const TSS_SIZE: u64 = 104;

// Page table entry bits.
const PRESENT: u64 = 1;
const WRITABLE: u64 = 1 << 1;
const USER: u64 = 1 << 2;
const HUGE: u64 = 1 << 7;

// Control register bits.
pub(crate) const CR0_PE: u64 = 1;
pub(crate) const CR0_MP: u64 = 1 << 1;
pub(crate) const CR0_ET: u64 = 1 << 4;
pub(crate) const CR0_NE: u64 = 1 << 5;
pub(crate) const CR0_WP: u64 = 1 << 16;
pub(crate) const CR0_PG: u64 = 1 << 31;
pub(crate) const CR4_PAE: u64 = 1 << 5;
pub(crate) const CR4_OSFXSR: u64 = 1 << 9;
pub(crate) const CR4_OSXMMEXCPT: u64 = 1 << 10;
pub(crate) const EFER_LME: u64 = 1 << 8;
pub(crate) const EFER_LMA: u64 = 1 << 10;

/// The page-table root (CR3).
pub(crate) const CR3: u64 = PML4;

/// Vectors for which the CPU pushes an error code.
pub(crate) fn has_error_code(vector: u8) -> bool {
    matches!(vector, 8 | 10..=14 | 17 | 21 | 29 | 30)
}

/// One piece of the system area: its guest physical address and bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Piece {
    pub(crate) addr: u64,
    pub(crate) bytes: Vec<u8>,
}

/// A segment descriptor's 8 bytes: `access` is the type/S/DPL/P byte, `flags` the G/DB/L
/// nibble. Base 0, limit 0xfffff (ignored in 64-bit mode except for the flags).
fn segment(access: u8, flags: u8) -> u64 {
    0xffff | (u64::from(access) << 40) | (0xf << 48) | (u64::from(flags) << 52)
}

fn gdt() -> Vec<u8> {
    let kernel_code = segment(0x9b, 0xa); // present, DPL 0, code exec/read accessed; G, L
    let kernel_data = segment(0x93, 0xc); // present, DPL 0, data read/write accessed; G, DB
    let user_data = segment(0xf3, 0xc); // DPL 3
    let user_code = segment(0xfb, 0xa); // DPL 3
    let limit = TSS_SIZE - 1;
    // 64-bit TSS descriptor, type 0xb (busy: the vCPU starts with TR loaded), present.
    let tss_low = (limit & 0xffff)
        | ((TSS & 0xff_ffff) << 16)
        | (0x8b << 40)
        | (((limit >> 16) & 0xf) << 48)
        | (((TSS >> 24) & 0xff) << 56);
    let tss_high = TSS >> 32;
    let mut descriptors = [0u64; (GDT_SIZE / 8) as usize];
    for (selector, d) in [
        (KERNEL_CS, kernel_code),
        (KERNEL_DS, kernel_data),
        (USER_DS, user_data),
        (USER_CS, user_code),
        (TSS_SELECTOR, tss_low),
        (TSS_SELECTOR + 8, tss_high),
    ] {
        descriptors[usize::from(selector >> 3)] = d;
    }
    descriptors.iter().flat_map(|d| d.to_le_bytes()).collect()
}

fn tss() -> Vec<u8> {
    let mut out = vec![0u8; TSS_SIZE as usize];
    out[4..12].copy_from_slice(&FAULT_STACK_TOP.to_le_bytes());
    // I/O map base at the end of the TSS: no I/O permission bitmap, so port I/O from user
    // mode faults.
    out[102..104].copy_from_slice(&(TSS_SIZE as u16).to_le_bytes());
    out
}

fn idt() -> Vec<u8> {
    let mut out = Vec::with_capacity(256 * 16);
    for vector in 0..256u64 {
        let handler = STUBS + vector * STUB_SIZE;
        let mut gate = [0u8; 16];
        gate[0..2].copy_from_slice(&((handler & 0xffff) as u16).to_le_bytes());
        gate[2..4].copy_from_slice(&KERNEL_CS.to_le_bytes());
        gate[4] = 0; // no IST: the TSS's rsp0
        gate[5] = 0x8e; // present, DPL 0, 64-bit interrupt gate
        gate[6..8].copy_from_slice(&(((handler >> 16) & 0xffff) as u16).to_le_bytes());
        gate[8..12].copy_from_slice(&((handler >> 32) as u32).to_le_bytes());
        out.extend_from_slice(&gate);
    }
    out
}

/// The stub of `vector`: `mov byte ptr [FAULT_DOORBELL], vector` (absolute address as a
/// sign-extended 32-bit displacement), then `hlt` in a loop; padded with `int3`.
pub(crate) fn stub(vector: u8) -> [u8; STUB_SIZE as usize] {
    let mut s = [0xccu8; STUB_SIZE as usize];
    s[0..3].copy_from_slice(&[0xc6, 0x04, 0x25]);
    s[3..7].copy_from_slice(&(FAULT_DOORBELL as u32).to_le_bytes());
    s[7] = vector;
    s[8] = 0xf4; // hlt
    s[9..11].copy_from_slice(&[0xeb, 0xfd]); // jmp to the hlt
    s
}

fn stubs() -> Vec<u8> {
    (0..=255u8).flat_map(stub).collect()
}

fn table(entries: &[(usize, u64)]) -> Vec<u8> {
    let mut out = vec![0u8; PAGE_SIZE as usize];
    for &(i, e) in entries {
        out[i * 8..i * 8 + 8].copy_from_slice(&e.to_le_bytes());
    }
    out
}

/// The page tables for `memory_size` bytes of RAM (a multiple of [`MEMORY_ALIGN`], at least
/// [`IMAGE_BASE`] + [`MEMORY_ALIGN`], at most 1 GiB: checked by the caller).
fn page_tables(memory_size: u64) -> Vec<Piece> {
    let link = PRESENT | WRITABLE | USER; // the leaf entry decides the access
    let pml4 = table(&[(0, PDPT | link)]);
    let pdpt = table(&[(0, PD_RAM | link), (1, PD_DOORBELLS | link)]);
    // The first 2 MiB in 4 KiB pages: the system area.
    let pt_low = table(&[
        (page(GDT), GDT | PRESENT | WRITABLE),
        (page(IDT), IDT | PRESENT),
        (page(STUBS), STUBS | PRESENT),
        (
            page(FAULT_STACK_TOP - PAGE_SIZE),
            (FAULT_STACK_TOP - PAGE_SIZE) | PRESENT | WRITABLE,
        ),
        (page(TIME_PAGE), TIME_PAGE | PRESENT | USER),
    ]);
    // The rest of RAM in 2 MiB user pages.
    let mut pd = vec![(0usize, PT_LOW | link)];
    let mut addr = IMAGE_BASE;
    while addr < memory_size {
        pd.push((
            (addr / MEMORY_ALIGN) as usize,
            addr | PRESENT | WRITABLE | USER | HUGE,
        ));
        addr += MEMORY_ALIGN;
    }
    let pd_ram = table(&pd);
    let pd_doorbells = table(&[(0, PT_DOORBELLS | link)]);
    let pt_doorbells = table(&[
        (
            page(HYPERCALL_DOORBELL),
            HYPERCALL_DOORBELL | PRESENT | WRITABLE | USER,
        ),
        (page(FAULT_DOORBELL), FAULT_DOORBELL | PRESENT | WRITABLE),
    ]);
    vec![
        Piece {
            addr: PML4,
            bytes: pml4,
        },
        Piece {
            addr: PDPT,
            bytes: pdpt,
        },
        Piece {
            addr: PD_RAM,
            bytes: pd_ram,
        },
        Piece {
            addr: PT_LOW,
            bytes: pt_low,
        },
        Piece {
            addr: PD_DOORBELLS,
            bytes: pd_doorbells,
        },
        Piece {
            addr: PT_DOORBELLS,
            bytes: pt_doorbells,
        },
    ]
}

/// Index of the 4 KiB page of `addr` in its page table.
fn page(addr: u64) -> usize {
    ((addr / PAGE_SIZE) % 512) as usize
}

/// Everything the monitor writes below [`IMAGE_BASE`] before the guest starts (the time page
/// aside).
pub(crate) fn system_area(memory_size: u64) -> Vec<Piece> {
    let mut out = vec![
        Piece {
            addr: GDT,
            bytes: gdt(),
        },
        Piece {
            addr: TSS,
            bytes: tss(),
        },
        Piece {
            addr: IDT,
            bytes: idt(),
        },
        Piece {
            addr: STUBS,
            bytes: stubs(),
        },
    ];
    out.extend(page_tables(memory_size));
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Walks the page tables in `area` like the CPU: the physical address of `va` and whether
    /// user mode may read and write it.
    pub(crate) fn translate(area: &[Piece], va: u64) -> Option<(u64, bool, bool)> {
        let entry = |table: u64, index: u64| -> u64 {
            let p = area.iter().find(|p| p.addr == table).expect("table");
            let i = (index * 8) as usize;
            u64::from_le_bytes(p.bytes[i..i + 8].try_into().expect("8 bytes"))
        };
        let mask = 0x000f_ffff_ffff_f000;
        let (mut user, mut write) = (true, true);
        let mut table = CR3;
        for (level, shift) in [(4, 39), (3, 30), (2, 21), (1, 12)] {
            let e = entry(table, (va >> shift) & 511);
            if e & PRESENT == 0 {
                return None;
            }
            user &= e & USER != 0;
            write &= e & WRITABLE != 0;
            if level == 2 && e & HUGE != 0 {
                return Some(((e & mask & !0x1f_ffff) | (va & 0x1f_ffff), user, write));
            }
            table = e & mask;
        }
        Some((table | (va & 0xfff), user, write))
    }

    #[test]
    fn user_memory_is_mapped_one_to_one_and_nothing_else_is_open_to_user_mode() {
        let size = 8 << 20;
        let area = system_area(size);
        assert_eq!(translate(&area, IMAGE_BASE), Some((IMAGE_BASE, true, true)));
        assert_eq!(
            translate(&area, size - 8),
            Some((size - 8, true, true)),
            "the top of the stack"
        );
        assert_eq!(translate(&area, size), None, "past the end of RAM");
        assert_eq!(translate(&area, 0), None, "null guard");
        assert_eq!(translate(&area, 0x10), None);
        assert_eq!(
            translate(&area, TIME_PAGE + 8),
            Some((TIME_PAGE + 8, true, false))
        );
        assert_eq!(translate(&area, GDT), Some((GDT, false, true)));
        assert_eq!(translate(&area, IDT), Some((IDT, false, false)));
        assert_eq!(
            translate(&area, STUBS + 100),
            Some((STUBS + 100, false, false))
        );
        assert_eq!(
            translate(&area, FAULT_STACK_TOP - 8),
            Some((FAULT_STACK_TOP - 8, false, true))
        );
        assert_eq!(translate(&area, PML4), None, "page tables are not mapped");
        assert_eq!(translate(&area, PT_DOORBELLS), None);
        assert_eq!(
            translate(&area, HYPERCALL_DOORBELL),
            Some((HYPERCALL_DOORBELL, true, true))
        );
        assert_eq!(
            translate(&area, FAULT_DOORBELL),
            Some((FAULT_DOORBELL, false, true))
        );
        assert_eq!(translate(&area, FAULT_DOORBELL + PAGE_SIZE), None);
        assert_eq!(translate(&area, 1 << 39), None, "second PML4 slot");
    }

    #[test]
    fn the_largest_memory_fills_the_page_directory() {
        let size = partita_abi::vm::MAX_MEMORY;
        let area = system_area(size);
        assert_eq!(translate(&area, size - 1), Some((size - 1, true, true)));
        // RAM ends where the hypercall doorbell starts.
        assert_eq!(
            translate(&area, size),
            Some((HYPERCALL_DOORBELL, true, true))
        );
        assert_eq!(
            translate(&area, MEMORY_ALIGN),
            Some((MEMORY_ALIGN, true, true))
        );
    }

    #[test]
    fn every_gate_points_at_its_stub_and_every_stub_reports_its_vector() {
        let idt = idt();
        for v in 0..256usize {
            let g = &idt[v * 16..v * 16 + 16];
            let off = u64::from(u16::from_le_bytes([g[0], g[1]]))
                | (u64::from(u16::from_le_bytes([g[6], g[7]])) << 16)
                | (u64::from(u32::from_le_bytes([g[8], g[9], g[10], g[11]])) << 32);
            assert_eq!(off, STUBS + v as u64 * STUB_SIZE);
            assert_eq!(u16::from_le_bytes([g[2], g[3]]), KERNEL_CS);
            assert_eq!(g[5], 0x8e);
        }
        let s = stub(14);
        // mov byte [disp32], imm8 with the doorbell as the displacement.
        assert_eq!(&s[..3], &[0xc6, 0x04, 0x25]);
        assert_eq!(
            u64::from(u32::from_le_bytes([s[3], s[4], s[5], s[6]])),
            FAULT_DOORBELL
        );
        assert_eq!(s[7], 14);
        assert_eq!(stubs().len() as u64, 256 * STUB_SIZE);
    }

    #[test]
    fn the_gdt_holds_user_segments_at_privilege_3_and_the_tss() {
        let g = gdt();
        let d = |i: usize| u64::from_le_bytes(g[i * 8..i * 8 + 8].try_into().expect("8"));
        let dpl = |x: u64| (x >> 45) & 3;
        let long = |x: u64| (x >> 53) & 1;
        assert_eq!(dpl(d(usize::from(KERNEL_CS >> 3))), 0);
        assert_eq!(long(d(usize::from(KERNEL_CS >> 3))), 1);
        assert_eq!(dpl(d(usize::from(USER_CS >> 3))), 3);
        assert_eq!(long(d(usize::from(USER_CS >> 3))), 1);
        assert_eq!(dpl(d(usize::from(USER_DS >> 3))), 3);
        assert_eq!(dpl(d(usize::from(KERNEL_DS >> 3))), 0);
        let t = d(usize::from(TSS_SELECTOR >> 3));
        let base = ((t >> 16) & 0xff_ffff) | (((t >> 56) & 0xff) << 24) | (d(6) << 32);
        assert_eq!(base, TSS);
        assert_eq!((t >> 40) & 0xff, 0x8b);
        let tss = tss();
        assert_eq!(
            u64::from_le_bytes(tss[4..12].try_into().expect("8")),
            FAULT_STACK_TOP
        );
    }

    #[test]
    fn the_system_area_fits_below_the_image_and_pieces_do_not_overlap() {
        let mut area = system_area(16 << 20);
        area.sort_by_key(|p| p.addr);
        for w in area.windows(2) {
            assert!(
                w[0].addr + w[0].bytes.len() as u64 <= w[1].addr,
                "{:#x}",
                w[1].addr
            );
        }
        let last = area.last().expect("pieces");
        assert!(last.addr + (last.bytes.len() as u64) <= IMAGE_BASE);
        assert!(area.iter().all(|p| {
            let end = p.addr + p.bytes.len() as u64;
            end <= TIME_PAGE || p.addr >= TIME_PAGE + PAGE_SIZE
        }));
    }

    #[test]
    fn error_code_vectors_are_the_architectural_ones() {
        let with: Vec<u8> = (0..=255u8).filter(|&v| has_error_code(v)).collect();
        assert_eq!(with, vec![8, 10, 11, 12, 13, 14, 17, 21, 29, 30]);
    }
}
