// SPDX-License-Identifier: MIT OR Apache-2.0
//! Little-endian field access over byte slices, bounds-checked (never panics).

use crate::{DecodeError, EncodeError};

/// Reads fields in order; every read checks the length.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, at: 0 }
    }

    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        match end {
            Some(end) => {
                let s = &self.bytes[self.at..end];
                self.at = end;
                Ok(s)
            }
            None => Err(DecodeError::Truncated {
                needed: self.at.saturating_add(n),
                available: self.bytes.len(),
            }),
        }
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    pub(crate) fn u16(&mut self) -> Result<u16, DecodeError> {
        self.array().map(u16::from_le_bytes)
    }

    pub(crate) fn u32(&mut self) -> Result<u32, DecodeError> {
        self.array().map(u32::from_le_bytes)
    }

    pub(crate) fn i32(&mut self) -> Result<i32, DecodeError> {
        self.array().map(i32::from_le_bytes)
    }

    pub(crate) fn u64(&mut self) -> Result<u64, DecodeError> {
        self.array().map(u64::from_le_bytes)
    }

    pub(crate) fn i64(&mut self) -> Result<i64, DecodeError> {
        self.array().map(i64::from_le_bytes)
    }

    /// Bytes consumed so far.
    pub(crate) fn position(&self) -> usize {
        self.at
    }
}

/// Writes fields in order into a caller's buffer.
pub(crate) struct Writer<'a> {
    out: &'a mut [u8],
    at: usize,
}

impl<'a> Writer<'a> {
    /// A writer for a record of `len` bytes; fails when `out` is smaller.
    pub(crate) fn new(out: &'a mut [u8], len: usize) -> Result<Self, EncodeError> {
        if out.len() < len {
            return Err(EncodeError::Room {
                needed: len,
                available: out.len(),
            });
        }
        Ok(Writer { out, at: 0 })
    }

    /// Puts `b`; the record length was checked by [`Writer::new`].
    pub(crate) fn put(&mut self, b: &[u8]) {
        self.out[self.at..self.at + b.len()].copy_from_slice(b);
        self.at += b.len();
    }

    pub(crate) fn u16(&mut self, v: u16) {
        self.put(&v.to_le_bytes());
    }

    pub(crate) fn u32(&mut self, v: u32) {
        self.put(&v.to_le_bytes());
    }

    pub(crate) fn i32(&mut self, v: i32) {
        self.put(&v.to_le_bytes());
    }

    pub(crate) fn u64(&mut self, v: u64) {
        self.put(&v.to_le_bytes());
    }

    pub(crate) fn i64(&mut self, v: i64) {
        self.put(&v.to_le_bytes());
    }

    /// Bytes written.
    pub(crate) fn len(&self) -> usize {
        self.at
    }
}
