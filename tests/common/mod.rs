//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub(crate) mod capi_host;
#[cfg(any(target_os = "linux", windows))]
pub(crate) mod chost;
#[cfg(any(target_os = "linux", windows))]
pub(crate) mod legacy_host;
pub(crate) mod rpc_host;
pub(crate) mod stalled;

// Also compiled into the demo world's tests (carla-host/tests), by path.
mod basics;
#[allow(unused_imports)] // each test binary uses some of them
pub(crate) use basics::{carla_python, carla_python_of, free_port_base, ini};

/// What [`collect_messages`] hands back: the subscriber and its messages.
pub(crate) type Received = std::io::Result<(
    carla_server::client::StreamClient,
    Vec<carla_server::client::SensorMessage>,
)>;

/// Reads `n` messages of a 0.9 stream on a thread of its own (a
/// synchronous stream's subscribers must keep reading for the sender to go
/// on).
pub(crate) fn collect_messages(
    mut client: carla_server::client::StreamClient,
    n: u32,
) -> std::thread::JoinHandle<Received> {
    std::thread::spawn(move || {
        let started = std::time::Instant::now();
        let mut messages = Vec::with_capacity(n as usize);
        for i in 0..n {
            // A failure says which message it waited for, and how long.
            let m =
                client.next_message().map_err(|e| {
                    std::io::Error::new(
                        e.kind(),
                        format!(
                        "message {} of {n} (frame of the last: {:?}), {:?} after subscribing: {e}",
                        i + 1,
                        messages.last().map(|m: &carla_server::client::SensorMessage| m.frame()),
                        started.elapsed()
                    ),
                    )
                })?;
            messages.push(m);
        }
        Ok((client, messages))
    })
}

/// Polls `cond` every millisecond for up to 10 s; fails naming `what`.
pub(crate) fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let started = std::time::Instant::now();
    while !cond() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "timed out waiting for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// Reads `s` until the server closes it: true on end of file or a reset,
/// false when the read times out (the stream's own read time-out, which
/// the caller sets) or fails otherwise: the connection is still open.
pub(crate) fn closed_by_server(s: &mut std::net::TcpStream) -> bool {
    use std::io::Read;
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return true,
            Err(_) => return false,
        }
    }
}
