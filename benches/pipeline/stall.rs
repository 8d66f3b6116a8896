//! A stalled subscriber: one 800x600 camera sent zero-copy as an engine's
//! render thread does, with one reader that keeps up and one subscriber
//! that reads nothing (a 4 KiB receive buffer), in each delivery mode. The
//! game thread's time in the library per frame says whether the stalled
//! subscriber reaches the sender.

use crate::sensors::{ctx, Host, Reader};
use crate::stats::{spread, Spread};
use carla_server::ffi::*;
use std::ffi::c_void;
use std::io::Write;
use std::net::TcpStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// A stream's delivery mode, as the C API sets it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Mode {
    Asynchronous,
    /// `carla_sensor_set_queued(depth)`.
    Queued(u32),
    /// `carla_sensor_set_synchronous(wait_ms)`.
    Synchronous(u32),
}

pub(crate) struct StallOutcome {
    /// The game thread's time in acquire + commit, per frame.
    pub api: Spread,
    /// Sends that returned 110 (a synchronous wait ran out).
    pub timed_out: u32,
    /// Frames the reader that keeps up received, of all those sent.
    pub healthy: u64,
}

/// A subscriber of `stream` that never reads.
fn stalled_subscriber(port: u32, stream: u32) -> TcpStream {
    let socket =
        socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).expect("socket");
    socket.set_recv_buffer_size(4096).expect("SO_RCVBUF");
    let addr: std::net::SocketAddr = ([127, 0, 0, 1], port as u16).into();
    socket.connect(&addr.into()).expect("connect");
    let mut s: TcpStream = socket.into();
    s.write_all(&stream.to_le_bytes()).expect("stream id");
    s
}

/// Frames sent before the timing starts: the stalled subscriber's queue
/// and the stream's buffer pool fill during these (a new 1.9 MB buffer's
/// first touch costs page faults once).
const WARM_UP: u64 = 50;

/// Sends `WARM_UP + frames` frames; times the last `frames`.
pub(crate) fn stalled(mode: Mode, frames: u32) -> StallOutcome {
    let host = Host::new();
    let id = host.sensor(
        "sensor.camera.rgb",
        &[("image_size_x", "800"), ("image_size_y", "600")],
    );
    let rc = match mode {
        Mode::Asynchronous => 0,
        // SAFETY: a live server and a sensor it made.
        Mode::Queued(depth) => unsafe { carla_sensor_set_queued(host.server, id, depth) },
        // SAFETY: a live server and a sensor it made.
        Mode::Synchronous(ms) => unsafe { carla_sensor_set_synchronous(host.server, id, ms) },
    };
    assert_eq!(rc, 0);
    let newest = Arc::new(AtomicU64::new(0));
    let healthy = Reader::start(host.port, id, newest.clone());
    let stalled = stalled_subscriber(host.port, id);
    host.wait_subscribers(id, 2);
    let engine_image = vec![0x42u8; 800 * 600 * 4];
    let mut api = Vec::with_capacity(frames as usize);
    let mut timed_out = 0;
    for f in 1..=WARM_UP + u64::from(frames) {
        let (mut image, mut pixels, mut size) =
            (std::ptr::null_mut(), std::ptr::null_mut::<c_void>(), 0u32);
        let t = Instant::now();
        // SAFETY: live server; the outputs are writable locals.
        let rc = unsafe {
            carla_sensor_acquire_image(host.server, id, &mut image, &mut pixels, &mut size)
        };
        assert_eq!(rc, 0);
        let mut spent = t.elapsed();
        // SAFETY: `pixels` is writable for `size` bytes until commit.
        let dst = unsafe { std::slice::from_raw_parts_mut(pixels as *mut u8, size as usize) };
        dst.copy_from_slice(&engine_image);
        let t = Instant::now();
        // SAFETY: `image` came from acquire and is used once.
        match unsafe { carla_sensor_commit_image(host.server, image, &ctx(f)) } {
            0 => {}
            110 => timed_out += 1,
            rc => panic!("commit returned {rc}"),
        }
        spent += t.elapsed();
        if f > WARM_UP {
            api.push(spent);
        }
        // A pause between frames, so that the reader that keeps up can.
        thread::sleep(Duration::from_millis(2));
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while newest.load(Ordering::Relaxed) < WARM_UP + u64::from(frames) && Instant::now() < deadline
    {
        thread::sleep(Duration::from_millis(1));
    }
    drop(host);
    drop(stalled);
    StallOutcome {
        api: spread(&mut api),
        timed_out,
        healthy: healthy.join().0,
    }
}
