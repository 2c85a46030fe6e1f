// SPDX-License-Identifier: MIT OR Apache-2.0
//! The guest image: a static x86-64 ELF executable, linked at [`IMAGE_BASE`] or above, whose
//! `PT_LOAD` segments are copied into guest RAM. No relocation, no dynamic linking, no
//! interpreter: what the guest runtime's linker script produces.

use object::elf;
use object::read::elf::{FileHeader, ProgramHeader};
use partita_abi::vm::{IMAGE_BASE, PAGE_SIZE};

/// Why an ELF file cannot be a guest image.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    /// Not a readable 64-bit ELF file.
    #[error("not a 64-bit ELF file: {0}")]
    Elf(String),
    /// Built for another machine.
    #[error("ELF machine {0}, expected x86-64 (62)")]
    Machine(u16),
    /// Not a static executable (`ET_EXEC`): a shared object or position-independent one.
    #[error("ELF type {0}, expected a static executable (ET_EXEC = 2)")]
    Kind(u16),
    /// Asks for an interpreter or dynamic linking.
    #[error("the image is dynamically linked (PT_INTERP or PT_DYNAMIC)")]
    Dynamic,
    /// A segment's file range is outside the file.
    #[error("segment {index}: its bytes are outside the file")]
    SegmentBytes {
        /// Index of the program header.
        index: usize,
    },
    /// A segment lies (partly) outside the guest's user memory.
    #[error("segment {index} at {vaddr:#x}..{end:#x} is outside user memory {lo:#x}..{hi:#x}")]
    SegmentOutside {
        /// Index of the program header.
        index: usize,
        /// Its first address.
        vaddr: u64,
        /// One past its last address.
        end: u64,
        /// Lowest user address.
        lo: u64,
        /// End of guest memory less the stack room.
        hi: u64,
    },
    /// No `PT_LOAD` segment.
    #[error("the image has no loadable segment")]
    Empty,
    /// The entry point is in no loaded segment.
    #[error("entry point {0:#x} is in no loaded segment")]
    Entry(u64),
}

/// One loadable segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// Guest address of its first byte.
    pub addr: u64,
    /// The bytes from the file.
    pub bytes: Vec<u8>,
    /// Size in memory (at least `bytes.len()`; the rest is zero).
    pub mem_size: u64,
}

/// A parsed guest image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// Entry point (guest address).
    pub entry: u64,
    /// The loadable segments.
    pub segments: Vec<Segment>,
}

impl Image {
    /// Parses a static x86-64 ELF executable.
    pub fn parse(data: &[u8]) -> Result<Image, ImageError> {
        let header = elf::FileHeader64::<object::Endianness>::parse(data)
            .map_err(|e| ImageError::Elf(e.to_string()))?;
        let endian = header
            .endian()
            .map_err(|e| ImageError::Elf(e.to_string()))?;
        let machine = header.e_machine(endian);
        if machine != elf::EM_X86_64 {
            return Err(ImageError::Machine(machine));
        }
        let kind = header.e_type(endian);
        if kind != elf::ET_EXEC {
            return Err(ImageError::Kind(kind));
        }
        let headers = header
            .program_headers(endian, data)
            .map_err(|e| ImageError::Elf(e.to_string()))?;
        let mut segments = Vec::new();
        for (index, ph) in headers.iter().enumerate() {
            match ph.p_type(endian) {
                elf::PT_INTERP | elf::PT_DYNAMIC => return Err(ImageError::Dynamic),
                elf::PT_LOAD => {}
                _ => continue,
            }
            let bytes = ph
                .data(endian, data)
                .map_err(|()| ImageError::SegmentBytes { index })?;
            let mem_size = ph.p_memsz(endian).max(bytes.len() as u64);
            segments.push(Segment {
                addr: ph.p_vaddr(endian),
                bytes: bytes.to_vec(),
                mem_size,
            });
        }
        if segments.is_empty() {
            return Err(ImageError::Empty);
        }
        let entry = header.e_entry(endian);
        if !segments
            .iter()
            .any(|s| entry >= s.addr && entry - s.addr < s.mem_size)
        {
            return Err(ImageError::Entry(entry));
        }
        Ok(Image { entry, segments })
    }

    /// Checks that every segment lies in `IMAGE_BASE..limit`.
    pub fn check_fits(&self, limit: u64) -> Result<(), ImageError> {
        for (index, s) in self.segments.iter().enumerate() {
            let end = s.addr.checked_add(s.mem_size);
            match end {
                Some(end) if s.addr >= IMAGE_BASE && end <= limit => {}
                _ => {
                    return Err(ImageError::SegmentOutside {
                        index,
                        vaddr: s.addr,
                        end: end.unwrap_or(u64::MAX),
                        lo: IMAGE_BASE,
                        hi: limit,
                    })
                }
            }
        }
        Ok(())
    }

    /// The first page-aligned address after every segment (where the guest's free memory
    /// starts).
    pub fn end(&self) -> u64 {
        let end = self
            .segments
            .iter()
            .map(|s| s.addr.saturating_add(s.mem_size))
            .max()
            .unwrap_or(IMAGE_BASE);
        end.div_ceil(PAGE_SIZE).saturating_mul(PAGE_SIZE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal ELF64 executable: header, one program header, `code` at file offset 0x78
    /// mapped at `vaddr`.
    fn elf_file(kind: u16, machine: u16, vaddr: u64, code: &[u8], mem_size: u64) -> Vec<u8> {
        let mut f = vec![0u8; 0x78];
        f[0..4].copy_from_slice(b"\x7fELF");
        f[4] = 2; // 64-bit
        f[5] = 1; // little-endian
        f[6] = 1; // version
        f[16..18].copy_from_slice(&kind.to_le_bytes());
        f[18..20].copy_from_slice(&machine.to_le_bytes());
        f[20..24].copy_from_slice(&1u32.to_le_bytes());
        f[24..32].copy_from_slice(&vaddr.to_le_bytes()); // entry
        f[32..40].copy_from_slice(&0x40u64.to_le_bytes()); // phoff
        f[52..54].copy_from_slice(&64u16.to_le_bytes()); // ehsize
        f[54..56].copy_from_slice(&56u16.to_le_bytes()); // phentsize
        f[56..58].copy_from_slice(&1u16.to_le_bytes()); // phnum
        let ph = &mut f[0x40..0x78];
        ph[0..4].copy_from_slice(&elf::PT_LOAD.to_le_bytes());
        ph[4..8].copy_from_slice(&5u32.to_le_bytes()); // R X
        ph[8..16].copy_from_slice(&0x78u64.to_le_bytes()); // offset
        ph[16..24].copy_from_slice(&vaddr.to_le_bytes());
        ph[24..32].copy_from_slice(&vaddr.to_le_bytes());
        ph[32..40].copy_from_slice(&(code.len() as u64).to_le_bytes());
        ph[40..48].copy_from_slice(&mem_size.to_le_bytes());
        ph[48..56].copy_from_slice(&0x1000u64.to_le_bytes());
        f.extend_from_slice(code);
        f
    }

    #[test]
    fn a_static_executable_parses_into_its_segment() {
        let img = Image::parse(&elf_file(2, 62, IMAGE_BASE, &[0x90, 0xf4], 0x3000)).expect("parse");
        assert_eq!(img.entry, IMAGE_BASE);
        assert_eq!(img.segments.len(), 1);
        assert_eq!(img.segments[0].bytes, vec![0x90, 0xf4]);
        assert_eq!(img.segments[0].mem_size, 0x3000);
        assert_eq!(img.end(), IMAGE_BASE + 0x3000);
        assert_eq!(img.check_fits(IMAGE_BASE + 0x3000), Ok(()));
    }

    #[test]
    fn other_files_are_refused_by_name() {
        assert!(matches!(
            Image::parse(b"not an elf"),
            Err(ImageError::Elf(_))
        ));
        assert_eq!(
            Image::parse(&elf_file(2, 183, IMAGE_BASE, &[0], 1)),
            Err(ImageError::Machine(183))
        );
        assert_eq!(
            Image::parse(&elf_file(3, 62, IMAGE_BASE, &[0], 1)),
            Err(ImageError::Kind(3))
        );
        let mut truncated = elf_file(2, 62, IMAGE_BASE, &[0; 64], 64);
        truncated.truncate(0x80);
        assert_eq!(
            Image::parse(&truncated),
            Err(ImageError::SegmentBytes { index: 0 })
        );
    }

    #[test]
    fn a_segment_outside_user_memory_is_refused() {
        let low = Image::parse(&elf_file(2, 62, 0x1000, &[0x90], 1)).expect("parse");
        assert!(matches!(
            low.check_fits(8 << 20),
            Err(ImageError::SegmentOutside { vaddr: 0x1000, .. })
        ));
        let big = Image::parse(&elf_file(2, 62, IMAGE_BASE, &[0x90], 8 << 20)).expect("parse");
        assert!(matches!(
            big.check_fits(4 << 20),
            Err(ImageError::SegmentOutside { .. })
        ));
    }
}
