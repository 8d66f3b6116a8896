//! Gives the shared library a SONAME on Linux, so programs linked against it
//! by path record `libcarla_server.so`, not the absolute build path.
fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcarla_server.so");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
