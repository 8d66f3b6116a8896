//! Fuzz target bodies, shared by the `cargo fuzz` targets in `fuzz/`
//! (one-line wrappers; cargo fuzz builds with `--cfg fuzzing`) and by this
//! module's unit test, which replays the committed corpus and every past
//! finding through the same functions. Compiled only in those two builds,
//! never into the shipped library.
//!
//! Each function takes arbitrary bytes, drives one decoder the way the
//! network or a C host would, and panics when an invariant breaks (a wrong
//! return code, a message that differs from the reference decoder's, ...).
//! A panic, crash, hang or sanitizer report is a finding. Not part of the
//! library's API.

mod c_api;
mod c_api_data;
mod c_api_legacy;
mod c_api_model;
mod codes;
mod framing;
mod proto;
mod rpc;
mod settings;
mod stream;
mod stream_client;

pub use c_api::c_api;
pub use framing::framing;
pub use proto::protobuf;
pub use rpc::rpc_stream;
pub use settings::settings_ini;
pub use stream::stream_handshake;
pub use stream_client::stream_client;

use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Once, OnceLock};

/// A fuzz target's body.
pub type Target = fn(&[u8]);

/// Every target, by the name of its fuzz target and corpus directory.
pub fn targets() -> [(&'static str, Target); 7] {
    [
        ("framing", framing),
        ("protobuf", protobuf),
        ("settings_ini", settings_ini),
        ("stream_handshake", stream_handshake),
        ("stream_client", stream_client),
        ("c_api", c_api),
        ("rpc", rpc_stream),
    ]
}

/// Sends log lines to a sink that formats but discards them (every level,
/// so the formatting of every message runs), once per process.
fn quiet_logs() {
    static ONCE: Once = Once::new();
    ONCE.call_once(install_quiet_sink);
}

fn install_quiet_sink() {
    crate::log::LIMIT_SITES.store(false, std::sync::atomic::Ordering::Relaxed);
    crate::log::set_max_level(crate::log::Level::Debug);
    crate::log::set_sink(Some(Arc::new(|_, line: &str| {
        assert!(!line.is_empty(), "empty log line");
    })));
}

/// Reads fuzz bytes as a stream of small decisions; past the end every
/// read yields zeros, so any input is a complete script.
struct Input<'a> {
    data: &'a [u8],
}

impl<'a> Input<'a> {
    fn new(data: &'a [u8]) -> Self {
        Input { data }
    }

    fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Up to `n` bytes (fewer at the end).
    fn bytes(&mut self, n: usize) -> &'a [u8] {
        let (head, tail) = self.data.split_at(n.min(self.data.len()));
        self.data = tail;
        head
    }

    /// Everything left.
    fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.data)
    }

    fn u8(&mut self) -> u8 {
        self.bytes(1).first().copied().unwrap_or(0)
    }

    fn u16(&mut self) -> u16 {
        let mut b = [0u8; 2];
        let src = self.bytes(2);
        b[..src.len()].copy_from_slice(src);
        u16::from_le_bytes(b)
    }

    fn u32(&mut self) -> u32 {
        let mut b = [0u8; 4];
        let src = self.bytes(4);
        b[..src.len()].copy_from_slice(src);
        u32::from_le_bytes(b)
    }

    fn f32(&mut self) -> f32 {
        f32::from_bits(self.u32())
    }

    fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }

    /// One of `choices` (which must not be empty).
    fn pick<T: Copy>(&mut self, choices: &[T]) -> T {
        choices[usize::from(self.u8()) % choices.len()]
    }

    /// A length-prefixed chunk of at most `max` bytes.
    fn chunk(&mut self, max: usize) -> &'a [u8] {
        let n = usize::from(self.u16()) % (max + 1);
        self.bytes(n)
    }
}

/// A connected TCP pair on loopback: (accepted side, connecting side).
fn tcp_pair() -> (TcpStream, TcpStream) {
    static LISTENER: OnceLock<TcpListener> = OnceLock::new();
    let listener =
        LISTENER.get_or_init(|| TcpListener::bind("127.0.0.1:0").expect("bind a loopback port"));
    let client = TcpStream::connect(listener.local_addr().expect("listener address"))
        .expect("connect on loopback");
    let (server, _) = listener.accept().expect("accept on loopback");
    (server, client)
}

#[cfg(test)]
mod tests {
    use super::Input;
    use std::path::Path;

    // The committed corpus (`fuzz/corpus/<target>/`) and every past finding
    // (`fuzz/regressions/<target>/`) replay through the bodies in normal
    // CI; the heavy fuzzing itself is `scripts/fuzz.sh`.
    fn files(dir: &Path) -> Vec<std::path::PathBuf> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut files: Vec<_> = entries
            .map(|e| e.expect("directory entry").path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        files
    }

    #[test]
    fn corpus_and_regressions_replay_cleanly() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
        let mut replayed = 0;
        for (target, run) in super::targets() {
            let corpus = files(&root.join("corpus").join(target));
            assert!(!corpus.is_empty(), "no seed corpus for {target}");
            for file in corpus
                .iter()
                .chain(&files(&root.join("regressions").join(target)))
            {
                let data = std::fs::read(file).expect("read a corpus file");
                let outcome = std::panic::catch_unwind(|| run(&data));
                assert!(outcome.is_ok(), "{target}: {} fails", file.display());
                replayed += 1;
            }
        }
        assert!(replayed >= 6);
    }

    #[test]
    fn input_reads_zeros_past_the_end() {
        let mut input = Input::new(&[1, 2, 3]);
        assert_eq!(input.u16(), 0x0201);
        assert_eq!(input.u32(), 3);
        assert!(input.is_empty());
        assert_eq!((input.u8(), input.u32(), input.rest()), (0, 0, &[][..]));
    }

    #[test]
    fn chunk_is_bounded_by_its_maximum_and_the_input() {
        let mut input = Input::new(&[200, 0, 7, 7, 7]);
        assert_eq!(input.chunk(2), &[7, 7][..]);
        let mut input = Input::new(&[9, 0, 1]);
        assert_eq!(input.chunk(100), &[1][..]);
    }
}
