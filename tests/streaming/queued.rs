//! Queued delivery of a 0.9 stream (`Sensor::set_queued`, C:
//! `carla_sensor_set_queued`), for a render thread that must never wait on
//! a subscriber: every subscriber gets every message in order through its
//! own queue; a send never waits; a subscriber whose queue is full misses
//! the new message alone (counted, logged once per stall). Large messages
//! (2–4 MiB) fill a stalled subscriber's socket at once, so its queue is
//! what holds the rest.

use crate::common::wait_for;
use carla_server::client::StreamClient;
use carla_server::log::{self, Level};
use carla_server::sensor::CaptureContext;
use carla_server::{Config, Error, Sensor, Server};
use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

const MIB: usize = 1 << 20;
/// "At once": far below any wait on a subscriber (the write time-out is
/// 30 s here), with room for a loaded machine's scheduling.
const AT_ONCE: Duration = Duration::from_millis(50);

fn server() -> Server {
    Server::with_config(Config {
        bind_ip: IpAddr::V4(Ipv4Addr::LOCALHOST),
        // Long: the stalled subscriber stays connected for the whole test.
        stream_timeout: Duration::from_secs(30),
        ..Config::default()
    })
}

fn ctx(frame: u64) -> CaptureContext {
    CaptureContext {
        frame,
        ..Default::default()
    }
}

/// A subscriber that sends the stream id and reads nothing (yet).
fn stalled(addr: SocketAddr, id: u32) -> TcpStream {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.write_all(&id.to_le_bytes()).expect("handshake");
    s
}

/// The frame of the next message on a raw subscriber (its payload checked
/// to start with that frame), or None after `idle` without data.
fn next_frame(s: &mut TcpStream, buf: &mut Vec<u8>, idle: Duration) -> Option<u64> {
    s.set_read_timeout(Some(idle)).unwrap();
    let mut size = [0u8; 4];
    match s.read_exact(&mut size) {
        Ok(()) => {}
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            return None
        }
        Err(e) => panic!("stalled subscriber: {e}"),
    }
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    buf.resize(u32::from_le_bytes(size) as usize, 0);
    s.read_exact(buf).expect("a whole message");
    let frame = u64::from_le_bytes(buf[8..16].try_into().unwrap());
    assert_eq!(buf[48..56], frame.to_le_bytes(), "payload of frame {frame}");
    Some(frame)
}

/// A payload of `size` bytes starting with `frame`.
fn payload(frame: u64, size: usize, bytes: &mut Vec<u8>) {
    bytes.resize(size, 0xA5);
    bytes[..8].copy_from_slice(&frame.to_le_bytes());
}

/// Sends `frames` with `size`-byte payloads, `pause` apart; returns the
/// longest send.
fn send_all(
    sensor: &Sensor<'_>,
    frames: std::ops::RangeInclusive<u64>,
    size: usize,
    pause: Duration,
) -> Duration {
    let mut bytes = Vec::new();
    let mut longest = Duration::ZERO;
    for f in frames {
        payload(f, size, &mut bytes);
        let started = Instant::now();
        sensor
            .send_raw(&ctx(f), &bytes)
            .unwrap_or_else(|e| panic!("send {f}: {e}"));
        longest = longest.max(started.elapsed());
        thread::sleep(pause);
    }
    longest
}

/// A reading subscriber on its own thread: the frames of the first `n`
/// messages (payloads checked to start with their frame), read once `go`
/// fires (at once when `go` is None).
fn reader(
    addr: SocketAddr,
    id: u32,
    n: usize,
    go: Option<mpsc::Receiver<()>>,
) -> thread::JoinHandle<Vec<u64>> {
    let mut sub = StreamClient::subscribe(addr, id, Duration::from_secs(30)).expect("subscribe");
    thread::spawn(move || {
        if let Some(go) = go {
            go.recv().unwrap();
        }
        (0..n)
            .map(|_| {
                let m = sub.next_message().expect("a message");
                assert_eq!(m.payload()[..8], m.frame().to_le_bytes());
                m.frame()
            })
            .collect()
    })
}

/// Collects the log lines containing `needle` (names the test's own peer).
fn count_lines(needle: String) -> Arc<Mutex<Vec<String>>> {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let l = lines.clone();
    log::set_sink(Some(Arc::new(move |_: Level, line: &str| {
        if line.contains(&needle) {
            l.lock().unwrap().push(line.to_owned());
        }
    })));
    lines
}

/// (a) One stalled and one reading subscriber on a queued stream: every
/// send returns at once, the reader gets every message in order, the
/// stalled one gets its queue's worth in order and misses the rest
/// (counted, one log line), and memory stays bounded by the depth.
#[test]
fn a_stalled_subscriber_never_delays_a_send_nor_the_other_subscriber() {
    const DEPTH: u32 = 16;
    const N: u64 = 80;
    let server = server();
    let addr = server.listen_streaming(0).unwrap();
    let id = server.create_sensor("sensor.other.gnss", &[]).unwrap();
    let sensor = server.sensor(id).unwrap();
    sensor.set_queued(DEPTH).unwrap();

    let mut stuck = stalled(addr, id);
    let lines = count_lines(format!("stream subscriber {}", stuck.local_addr().unwrap()));
    let reading = reader(addr, id, N as usize, None);
    wait_for("two subscribers", || sensor.stats().subscribers == 2);

    // 60 frames a second of 2 MiB: the stalled socket is full after one.
    let longest = send_all(&sensor, 1..=N, 2 * MIB, Duration::from_millis(10));
    let got = reading.join().expect("reader");
    let stats = sensor.stats();
    eprintln!("{N} sends of 2 MiB, queued {DEPTH}, one stalled subscriber: longest {longest:?}, {stats:?}");
    assert!(longest < AT_ONCE, "a send took {longest:?}");
    assert_eq!(
        got,
        (1..=N).collect::<Vec<_>>(),
        "the reader got every message, in order"
    );

    let stats = sensor.stats();
    assert_eq!((stats.messages, stats.subscribers), (N, 2));
    // The stalled subscriber got its queue, the message being written and
    // what its socket holds (a few MiB); the rest is counted dropped.
    assert!(
        stats.dropped >= N / 2,
        "the stalled subscriber's drops were not counted: {stats:?}"
    );
    // Blocks: its queue, one being written, the reader's few, one being
    // filled; an allocation per message would be N.
    assert!(
        stats.pool_allocations <= 2 * u64::from(DEPTH) + 6,
        "{stats:?}"
    );
    let stalls = lines.lock().unwrap().clone();
    assert_eq!(
        stalls.len(),
        1,
        "one line per stall, not per message: {stalls:?}"
    );
    assert!(stalls[0].contains("queued and unsent"), "{stalls:?}");

    // Reading now, it gets the oldest messages of the stall, in order, with
    // no gap: every message it missed was counted dropped.
    let mut buf = Vec::new();
    let mut frames = Vec::new();
    while let Some(f) = next_frame(&mut stuck, &mut buf, Duration::from_millis(500)) {
        frames.push(f);
    }
    let k = frames.len() as u64;
    assert_eq!(frames, (1..=k).collect::<Vec<_>>(), "in order");
    assert!(k > u64::from(DEPTH), "its whole queue: {k}");
    assert_eq!(
        k + stats.dropped,
        N,
        "each message delivered or counted dropped"
    );
    // Caught up: the next message reaches it, and the stall's end is logged.
    send_all(&sensor, N + 1..=N + 1, 64, Duration::ZERO);
    assert_eq!(
        next_frame(&mut stuck, &mut buf, Duration::from_secs(10)),
        Some(N + 1)
    );
    let lines = lines.lock().unwrap().clone();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[1].contains("reads again"), "{lines:?}");
    log::set_sink(None);
}

/// (b) A subscriber that reads nothing for fewer sends than the depth gets
/// every message once it reads; the same pause on an asynchronous stream
/// loses messages (so the queue is what kept them).
#[test]
fn a_brief_pause_shorter_than_the_depth_loses_nothing() {
    const DEPTH: u32 = 8;
    const PAUSED: u64 = 6;
    const N: u64 = 12;
    let server = server();
    let addr = server.listen_streaming(0).unwrap();
    for queued in [true, false] {
        let id = server.create_sensor("sensor.other.gnss", &[]).unwrap();
        let sensor = server.sensor(id).unwrap();
        if queued {
            sensor.set_queued(DEPTH).unwrap();
        }
        let (go, wait) = mpsc::channel();
        let n = if queued { N } else { 1 };
        let reading = reader(addr, id, n as usize, Some(wait));
        wait_for("the subscriber", || sensor.stats().subscribers == 1);
        // 4 MiB each: the socket is full after the first.
        let longest = send_all(&sensor, 1..=PAUSED, 4 * MIB, Duration::ZERO);
        assert!(longest < AT_ONCE, "a send took {longest:?}");
        let stats = sensor.stats();
        assert!(
            stats.delivered + 3 <= PAUSED,
            "the pause kept nothing back: {stats:?}"
        );
        if !queued {
            assert!(stats.dropped >= 2, "asynchronous: newest wins, {stats:?}");
            go.send(()).unwrap();
            assert_eq!(reading.join().unwrap().len(), 1);
            continue;
        }
        go.send(()).unwrap();
        send_all(&sensor, PAUSED + 1..=N, 4 * MIB, Duration::from_millis(20));
        let got = reading.join().expect("reader");
        assert_eq!(got, (1..=N).collect::<Vec<_>>(), "every message, in order");
        assert_eq!(sensor.stats().dropped, 0, "{:?}", sensor.stats());
    }
}

/// Depths: 1..=64, 0 back to asynchronous, more refused; a later
/// `set_synchronous` switches modes (a send then waits for a slow
/// subscriber and reports the time-out, which a queued one never does).
#[test]
fn depth_bounds_and_switching_modes() {
    let server = server();
    let addr = server.listen_streaming(0).unwrap();
    let id = server.create_sensor("sensor.other.gnss", &[]).unwrap();
    let sensor = server.sensor(id).unwrap();
    for depth in [1, 64, 0] {
        sensor.set_queued(depth).unwrap();
    }
    let over = sensor.set_queued(65).unwrap_err();
    assert!(matches!(over, Error::InvalidArgument(_)), "{over}");
    let _stuck = stalled(addr, id);
    wait_for("the subscriber", || sensor.stats().subscribers == 1);
    sensor.set_queued(2).unwrap();
    let longest = send_all(&sensor, 1..=8, 2 * MIB, Duration::ZERO);
    assert!(longest < AT_ONCE, "queued: a send took {longest:?}");
    // Synchronous now: once the stalled socket holds all it can (it may
    // still take a message or two), a send waits its 100 ms and fails.
    sensor.set_synchronous(Some(Duration::from_millis(100)));
    let mut bytes = Vec::new();
    let busy = (9..=14).find_map(|f| {
        payload(f, 2 * MIB, &mut bytes);
        let started = Instant::now();
        match sensor.send_raw(&ctx(f), &bytes) {
            Ok(()) => None,
            Err(e) => Some((e, started.elapsed())),
        }
    });
    match busy {
        Some((Error::SubscriberBusy { .. }, waited)) => {
            assert!(waited >= Duration::from_millis(100), "{waited:?}")
        }
        other => panic!("synchronous after queued never waited: {other:?}"),
    }
    sensor.set_queued(0).unwrap();
    let longest = send_all(&sensor, 20..=22, 2 * MIB, Duration::ZERO);
    assert!(
        longest < AT_ONCE,
        "asynchronous again: a send took {longest:?}"
    );
}
