//! What the fault tests send and how their raw clients read it: a big
//! camera image stamped with its frame number, the 0.8 world handshake and
//! frame parsing over any `Read`, and a reader throttled to a byte rate.

use carla_server::client::{read_message, write_message};
use carla_server::legacy::proto;
use prost::Message;
use std::io::{self, Read};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

/// An 800 × 600 BGRA image: 1.92 MB.
pub(crate) const BIG_IMAGE: usize = 800 * 600 * 4;
/// Largest 0.8 message a test client accepts.
pub(crate) const MAX_MESSAGE: u32 = 8 << 20;

fn pattern() -> &'static [u8] {
    static PATTERN: OnceLock<Vec<u8>> = OnceLock::new();
    PATTERN.get_or_init(|| {
        (0..BIG_IMAGE)
            .map(|i| (i.wrapping_mul(7) ^ (i >> 9)) as u8)
            .collect()
    })
}

/// `len` bytes of a fixed pattern with `frame` in the first 8 bytes.
pub(crate) fn stamped(frame: u64, len: usize) -> Vec<u8> {
    let mut v = pattern()[..len].to_vec();
    v[..8].copy_from_slice(&frame.to_le_bytes());
    v
}

/// The frame stamped into `data`, if every other byte is the pattern's.
pub(crate) fn stamp_of(data: &[u8]) -> Option<u64> {
    let intact = data.len() >= 8 && data[8..] == pattern()[8..data.len()];
    intact.then(|| u64::from_le_bytes(data[..8].try_into().expect("8 bytes")))
}

/// The 24-byte 0.8 camera header: frame, width, height, type, fov.
pub(crate) fn camera_header(frame: u64) -> [u8; 24] {
    let mut h = [0u8; 24];
    h[..8].copy_from_slice(&frame.to_le_bytes());
    h[8..12].copy_from_slice(&800u32.to_le_bytes());
    h[12..16].copy_from_slice(&600u32.to_le_bytes());
    h[16..20].copy_from_slice(&1u32.to_le_bytes());
    h[20..24].copy_from_slice(&90f32.to_le_bytes());
    h
}

/// A connection with a read time-out, so a broken server fails the test
/// instead of hanging it.
pub(crate) fn connect(port: u16) -> TcpStream {
    let s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.set_nodelay(true).unwrap();
    s
}

/// The world handshake of one episode on `world`: request, scene, start,
/// ready. Returns the scene.
pub(crate) fn start_episode(
    world: &mut TcpStream,
    ini: &str,
) -> io::Result<proto::SceneDescription> {
    let request = proto::RequestNewEpisode {
        ini_file: ini.to_owned(),
    };
    write_message(world, &request.encode_to_vec())?;
    let scene = read_message(world, MAX_MESSAGE)?;
    let scene = proto::SceneDescription::decode(&scene[..]).map_err(io::Error::other)?;
    let start = proto::EpisodeStart {
        player_start_spot_index: 0,
    };
    write_message(world, &start.encode_to_vec())?;
    let ready = read_message(world, 16)?;
    if ready != [0x08, 0x01] {
        return Err(io::Error::other(format!("EpisodeReady {ready:?}")));
    }
    Ok(scene)
}

/// One 0.8 frame: the measurements and the `(id, header + data)` records.
pub(crate) struct Frame {
    pub measurements: proto::Measurements,
    pub records: Vec<(u32, Vec<u8>)>,
}

/// Reads one frame, up to its empty terminator.
pub(crate) fn read_frame(stream: &mut impl Read) -> io::Result<Frame> {
    let m = read_message(stream, MAX_MESSAGE)?;
    let measurements = proto::Measurements::decode(&m[..]).map_err(io::Error::other)?;
    let mut records = Vec::new();
    loop {
        let r = read_message(stream, MAX_MESSAGE)?;
        if r.is_empty() {
            return Ok(Frame {
                measurements,
                records,
            });
        }
        if r.len() < 4 {
            return Err(io::Error::other("record shorter than its id"));
        }
        let id = u32::from_le_bytes(r[..4].try_into().expect("4 bytes"));
        records.push((id, r[4..].to_vec()));
    }
}

/// Sends one control on the control port.
pub(crate) fn send_control(control: &mut TcpStream, throttle: f32) -> io::Result<()> {
    let c = proto::Control {
        throttle,
        ..Default::default()
    };
    write_message(control, &c.encode_to_vec())
}

/// A reader that takes at most `rate` bytes per second (in 16 KiB reads)
/// until `full_speed` is set.
pub(crate) struct Throttled<R> {
    inner: R,
    rate: f64,
    started: Instant,
    taken: u64,
    pub full_speed: Arc<AtomicBool>,
}

impl<R: Read> Throttled<R> {
    pub(crate) fn new(inner: R, bytes_per_second: u64) -> Throttled<R> {
        Throttled {
            inner,
            rate: bytes_per_second as f64,
            started: Instant::now(),
            taken: 0,
            full_speed: Arc::new(AtomicBool::new(false)),
        }
    }
}

impl<R: Read> Read for Throttled<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut len = buf.len();
        if !self.full_speed.load(Ordering::Relaxed) {
            let due = self.started + Duration::from_secs_f64(self.taken as f64 / self.rate);
            let now = Instant::now();
            if due > now {
                thread::sleep(due - now);
            }
            len = len.min(16 << 10);
        }
        let n = self.inner.read(&mut buf[..len])?;
        self.taken += n as u64;
        Ok(n)
    }
}
