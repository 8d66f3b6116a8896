//! Baselines measured in the same run as the server: memcpy of a frame's
//! bytes, raw loopback TCP throughput of the same bytes (alone, and with a
//! thread copying frames beside it, as a game thread does), and raw TCP
//! round trips for the synchronous frame time.

use crate::stats::{spread, Spread};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Instant;

fn pair() -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let a = TcpStream::connect(listener.local_addr().unwrap()).expect("connect");
    let (b, _) = listener.accept().expect("accept");
    a.set_nodelay(true).unwrap();
    b.set_nodelay(true).unwrap();
    (a, b)
}

/// Time to copy `bytes` from one warm buffer to another, over `reps` copies.
pub(crate) fn memcpy(bytes: usize, reps: usize) -> Spread {
    let src = vec![0x5au8; bytes.max(1)];
    let mut dst = vec![0u8; bytes.max(1)];
    let mut samples = Vec::with_capacity(reps);
    for i in 0..reps + 3 {
        let t = Instant::now();
        dst.copy_from_slice(std::hint::black_box(&src));
        std::hint::black_box(&mut dst);
        if i >= 3 {
            samples.push(t.elapsed());
        }
    }
    spread(&mut samples)
}

/// Megabytes per second a reader receives when a writer sends `frames`
/// messages of `bytes` each over loopback TCP (4-byte length prefix each,
/// like the protocol). With `copy_load`, a third thread copies `bytes` in
/// a loop meanwhile, as the game thread of an asynchronous server does.
pub(crate) fn tcp_throughput(bytes: usize, frames: usize, copy_load: bool) -> f64 {
    let (mut tx, mut rx) = pair();
    let stop = Arc::new(AtomicBool::new(false));
    let loader = copy_load.then(|| {
        let stop = stop.clone();
        thread::spawn(move || {
            let src = vec![1u8; bytes];
            let mut dst = vec![0u8; bytes];
            while !stop.load(Ordering::Relaxed) {
                dst.copy_from_slice(std::hint::black_box(&src));
                std::hint::black_box(&mut dst);
            }
        })
    });
    let writer = thread::spawn(move || {
        let message = vec![7u8; bytes];
        for _ in 0..frames {
            tx.write_all(&(bytes as u32).to_le_bytes()).unwrap();
            tx.write_all(&message).unwrap();
        }
    });
    let mut buf = vec![0u8; bytes];
    let mut prefix = [0u8; 4];
    let started = Instant::now();
    for _ in 0..frames {
        rx.read_exact(&mut prefix).unwrap();
        rx.read_exact(&mut buf).unwrap();
    }
    let elapsed = started.elapsed();
    writer.join().unwrap();
    stop.store(true, Ordering::Relaxed);
    if let Some(l) = loader {
        l.join().unwrap();
    }
    (bytes * frames) as f64 / elapsed.as_secs_f64() / 1e6
}

/// Round trips of `bytes` one way and a 40-byte reply back over loopback
/// TCP (a synchronous frame and its control, without a server).
pub(crate) fn tcp_round_trips(bytes: usize, n: usize) -> Spread {
    let (mut tx, mut rx) = pair();
    let echo = thread::spawn(move || {
        let mut buf = vec![0u8; bytes];
        for _ in 0..n {
            rx.read_exact(&mut buf).unwrap();
            rx.write_all(&[3u8; 40]).unwrap();
        }
    });
    let message = vec![9u8; bytes];
    let mut reply = [0u8; 40];
    let mut samples = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        tx.write_all(&message).unwrap();
        tx.read_exact(&mut reply).unwrap();
        samples.push(t.elapsed());
    }
    echo.join().unwrap();
    spread(&mut samples)
}

/// Frames the throughput baselines send, for about `target` of traffic.
pub(crate) fn frames_for(bytes: usize, target: usize) -> usize {
    (target / bytes.max(1)).clamp(50, 20_000)
}
