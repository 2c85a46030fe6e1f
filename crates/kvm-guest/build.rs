// SPDX-License-Identifier: MIT OR Apache-2.0
//! Links the test guests freestanding: no C runtime start files, no libc, static, at the
//! addresses of `guest.ld`.

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    println!("cargo:rerun-if-changed=guest.ld");
    for arg in [
        "-nostartfiles",
        "-nostdlib",
        "-static",
        "-no-pie",
        "-Wl,--build-id=none",
        "-Wl,--gc-sections",
    ] {
        println!("cargo:rustc-link-arg-bins={arg}");
    }
    println!("cargo:rustc-link-arg-bins=-Wl,-T,{dir}/guest.ld");
}
