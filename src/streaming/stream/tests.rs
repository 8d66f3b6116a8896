//! The 0.9-style streams end to end over loopback: handshake, fan-out,
//! per-subscriber policies, closing, bad subscribers, pool reuse.

use super::{Stream, StreamServer};
use crate::client::StreamClient;
use crate::Error;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::thread;
use std::time::{Duration, Instant};

pub(super) const T: Duration = Duration::from_secs(3);

pub(super) fn server() -> StreamServer {
    StreamServer::bind("127.0.0.1".parse().unwrap(), 0, T).unwrap()
}

pub(super) fn header(frame: u64) -> [u8; 48] {
    let mut h = [0u8; 48];
    h[..8].copy_from_slice(&23u64.to_le_bytes());
    h[8..16].copy_from_slice(&frame.to_le_bytes());
    h[16..24].copy_from_slice(&(frame as f64 * 0.05).to_le_bytes());
    h
}

pub(super) fn send(stream: &Stream, frame: u64, payload: &[u8]) -> Result<(), Error> {
    let mut buf = stream.pop_buffer();
    buf.copy_from(0, payload);
    stream.send(&header(frame), buf)
}

pub(super) fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let started = Instant::now();
    while !cond() {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "timed out waiting for {what}"
        );
        thread::sleep(Duration::from_millis(2));
    }
}

fn ids(frame: u64) -> Vec<u8> {
    (0..3u32)
        .flat_map(|i| (frame as u32 * 10 + i).to_le_bytes())
        .collect()
}

#[test]
fn two_subscribers_get_every_message_byte_for_byte_from_another_thread() {
    let server = server();
    let stream = server.create_stream();
    assert_eq!(stream.id(), 1, "ids start at 1");
    stream.set_synchronous(Some(T));
    let subs: Vec<StreamClient> = (0..2)
        .map(|_| StreamClient::subscribe(server.addr(), stream.id(), T).unwrap())
        .collect();
    wait_for("two subscribers", || stream.stats().subscribers == 2);
    let sender = {
        let stream = stream.clone();
        thread::spawn(move || {
            for f in 1..=200 {
                send(&stream, f, &ids(f)).unwrap();
            }
        })
    };
    for mut sub in subs {
        for f in 1..=200u64 {
            let msg = sub.next_message().unwrap();
            assert_eq!(msg.bytes().len(), 48 + 12);
            assert_eq!(msg.header(), header(f));
            assert_eq!(
                (msg.sensor_type(), msg.frame(), msg.timestamp()),
                (23, f, f as f64 * 0.05)
            );
            let view: &[u32] = msg.payload_as().unwrap();
            assert_eq!(view, [f as u32 * 10, f as u32 * 10 + 1, f as u32 * 10 + 2]);
        }
    }
    sender.join().unwrap();
    // The writer counts a message after its write returns, which can be
    // after the client already read it.
    wait_for("delivery counters", || stream.stats().delivered == 400);
    let stats = stream.stats();
    assert_eq!(
        (stats.messages, stats.dropped, stats.delivered),
        (200, 0, 400)
    );
    assert!(
        stats.pool_allocations <= 9,
        "payload blocks were reused: {stats:?}"
    );
}

#[test]
fn a_subscriber_that_stops_reading_never_blocks_asynchronous_sends() {
    let server = server();
    let stream = server.create_stream();
    let stalled = TcpStream::connect(server.addr()).unwrap();
    (&stalled).write_all(&stream.id().to_le_bytes()).unwrap();
    let mut live = StreamClient::subscribe(server.addr(), stream.id(), T).unwrap();
    wait_for("two subscribers", || stream.stats().subscribers == 2);
    let big = vec![7u8; 1 << 20];
    for f in 1..=300 {
        // Would hang here if a full socket blocked the sender.
        send(&stream, f, &big).unwrap();
    }
    send(&stream, 301, b"last").unwrap();
    let stats = stream.stats();
    assert!(
        stats.dropped > 0,
        "the stalled subscriber's backlog was dropped: {stats:?}"
    );
    // The live subscriber still gets the newest message, in order.
    let mut last = 0;
    loop {
        let msg = live.next_message().unwrap();
        assert!(msg.frame() > last);
        last = msg.frame();
        if last == 301 {
            assert_eq!(msg.payload(), b"last");
            break;
        }
    }
    drop(stalled);
}

#[test]
fn synchronous_mode_waits_for_a_slow_subscriber_up_to_its_bound_then_errs() {
    let server = server();
    let stream = server.create_stream();
    stream.set_synchronous(Some(Duration::from_millis(200)));
    let stalled = TcpStream::connect(server.addr()).unwrap();
    (&stalled).write_all(&stream.id().to_le_bytes()).unwrap();
    wait_for("a subscriber", || stream.stats().subscribers == 1);
    let big = vec![1u8; 4 << 20];
    let mut outcome = Ok(());
    for f in 1..=50 {
        outcome = send(&stream, f, &big);
        if outcome.is_err() {
            break;
        }
    }
    assert_eq!(
        outcome,
        Err(Error::SubscriberBusy {
            stream: stream.id()
        }),
        "a stalled subscriber must surface as an error"
    );
    assert_eq!(stream.stats().dropped, 0, "synchronous mode never drops");
    drop(stalled);
}

#[test]
fn unknown_ids_garbage_and_closed_streams_end_the_connection() {
    let server = server();
    let stream = server.create_stream();
    let closed_by_server = |mut s: TcpStream| {
        s.set_read_timeout(Some(T)).unwrap();
        let mut b = [0u8; 16];
        matches!(s.read(&mut b), Ok(0) | Err(_))
    };
    let unknown = TcpStream::connect(server.addr()).unwrap();
    (&unknown).write_all(&999u32.to_le_bytes()).unwrap();
    assert!(closed_by_server(unknown));
    let quick =
        StreamServer::bind("127.0.0.1".parse().unwrap(), 0, Duration::from_millis(200)).unwrap();
    let garbage = TcpStream::connect(quick.addr()).unwrap();
    (&garbage).write_all(&[0xff, 0xfe]).unwrap(); // short handshake, then silence
    assert!(
        closed_by_server(garbage),
        "no handshake within the time-out"
    );

    let mut sub = StreamClient::subscribe(server.addr(), stream.id(), T).unwrap();
    wait_for("a subscriber", || stream.stats().subscribers == 1);
    send(&stream, 1, b"before close").unwrap();
    stream.close();
    assert_eq!(
        send(&stream, 2, b"after"),
        Err(Error::StreamClosed {
            stream: stream.id()
        })
    );
    assert_eq!(sub.next_message().unwrap().payload(), b"before close");
    assert!(
        sub.next().is_none(),
        "end of file after the last whole message"
    );
    assert_eq!(server.stream_count(), 0);
    let late = TcpStream::connect(server.addr()).unwrap();
    (&late).write_all(&stream.id().to_le_bytes()).unwrap();
    assert!(
        closed_by_server(late),
        "a closed stream takes no subscribers"
    );
}

#[test]
fn streams_are_independent_and_sends_from_many_threads_are_safe() {
    let server = server();
    let streams: Vec<Stream> = (0..4).map(|_| server.create_stream()).collect();
    let mut subs: Vec<StreamClient> = streams
        .iter()
        .map(|s| StreamClient::subscribe(server.addr(), s.id(), T).unwrap())
        .collect();
    for s in &streams {
        s.set_synchronous(Some(T));
        wait_for("subscriber", || s.stats().subscribers == 1);
    }
    let senders: Vec<_> = streams
        .iter()
        .cloned()
        .map(|s| {
            thread::spawn(move || {
                for f in 1..=100 {
                    send(&s, f, &s.id().to_le_bytes()).unwrap();
                }
            })
        })
        .collect();
    for (sub, s) in subs.iter_mut().zip(&streams) {
        for f in 1..=100 {
            let msg = sub.next_message().unwrap();
            assert_eq!(
                (msg.frame(), msg.payload_as::<u32>().unwrap()),
                (f, &[s.id()][..])
            );
        }
    }
    for t in senders {
        t.join().unwrap();
    }
}

#[test]
fn a_stream_makes_blocks_only_when_a_send_needs_one() {
    let server = server();
    let stream = server.create_stream();
    let image = vec![7u8; 1 << 20];
    // No subscriber: every message is discarded at once, so one block
    // serves every send (no spare blocks are made ahead of need).
    for frame in 0..20 {
        send(&stream, frame, &image).unwrap();
    }
    assert_eq!(stream.stats().pool_allocations, 1);
    // A message kept by someone else (the 0.8 mirror) holds its block; the
    // next send makes a second one, and no more while each is let go.
    let mut kept = None;
    for frame in 20..40 {
        let mut buf = stream.pop_buffer();
        buf.copy_from(0, &image);
        kept = None;
        stream
            .send_then(&header(frame), buf, |m| kept = Some(m.clone()))
            .unwrap();
        assert_eq!(kept.as_ref().unwrap().payload_from(1 << 19).len(), 1 << 19);
    }
    drop(kept);
    assert_eq!(stream.stats().pool_allocations, 2);
}

/// Sends one message of sensor type `kind` (header otherwise as `header`).
fn send_kind(stream: &Stream, kind: u64, frame: u64, payload: &[u8]) -> Result<(), Error> {
    let mut h = header(frame);
    h[..8].copy_from_slice(&kind.to_le_bytes());
    let mut buf = stream.pop_buffer();
    buf.copy_from(0, payload);
    stream.send(&h, buf)
}

#[test]
fn a_subscriber_of_an_older_release_gets_its_ids_and_labels_on_the_same_stream() {
    use crate::release::Release;
    use crate::sensor::SensorType;
    let server = server();
    let stream = server.create_stream();
    stream.set_synchronous(Some(T));
    let mut native = StreamClient::subscribe(server.addr(), stream.id(), T).unwrap();
    let old_id = Release::V0_9_13.tag_stream(stream.id());
    assert_ne!(old_id, stream.id());
    let mut old = StreamClient::subscribe(server.addr(), old_id, T).unwrap();
    wait_for("two subscribers", || stream.stats().subscribers == 2);
    // The world state (17 in 0.9.16) is 15 for 0.9.13; payloads unchanged.
    send_kind(&stream, SensorType::WorldObserver as u64, 5, &[1, 2, 3]).unwrap();
    let (a, b) = (native.next_message().unwrap(), old.next_message().unwrap());
    assert_eq!((a.sensor_type(), b.sensor_type()), (17, 15));
    assert_eq!((a.frame(), b.frame()), (5, 5));
    assert_eq!(a.payload(), b.payload());
    assert_eq!(a.bytes()[8..48], b.bytes()[8..48]);
    // A semantic segmentation pixel: Car (14) is Vehicles (10) for 0.9.13.
    let mut image = Vec::new();
    crate::sensor::serialize::image(&mut image, 1, 1, 90.0, &[1, 2, 14, 255]).unwrap();
    let semantic = SensorType::SemanticSegmentationCamera as u64;
    send_kind(&stream, semantic, 6, &image).unwrap();
    let (a, b) = (native.next_message().unwrap(), old.next_message().unwrap());
    assert_eq!((a.sensor_type(), b.sensor_type()), (14, 13));
    assert_eq!(
        (&a.payload()[12..], &b.payload()[12..]),
        (&[1, 2, 14, 255][..], &[1, 2, 10, 255][..])
    );
    // A sensor 0.9.13 cannot decode (normals) ends its subscription only.
    send_kind(&stream, SensorType::NormalsCamera as u64, 7, &image).unwrap();
    assert_eq!(native.next_message().unwrap().sensor_type(), 2);
    assert!(old.next_message().is_err(), "the 0.9.13 subscription ended");
    wait_for("one subscriber left", || stream.stats().subscribers == 1);
    send_kind(&stream, semantic, 8, &image).unwrap();
    assert_eq!(native.next_message().unwrap().frame(), 8);
}

#[test]
fn stream_ids_stay_below_the_release_tag_bits() {
    let server = server();
    server.shared.next_id.store(
        crate::release::STREAM_ID_LIMIT - 3,
        std::sync::atomic::Ordering::Relaxed,
    );
    let ids: Vec<u32> = (0..4).map(|_| server.create_stream().id()).collect();
    assert_eq!(
        ids,
        [
            crate::release::STREAM_ID_LIMIT - 2,
            crate::release::STREAM_ID_LIMIT - 1,
            1,
            2
        ]
    );
}
