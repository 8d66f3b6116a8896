//! What DDS discovery reports, driven by hand-made RTPS announcements
//! (RTPS 2.3: DATA submessage 9.4.5.3, parameter ids 9.6.2): a peer that
//! stops announcing itself is dropped when its lease ends, and only a peer
//! with a reader of our topics counts as a lost reading peer. Linux only:
//! the announcements go to every port of the domain on loopback.

use super::{Dds, Ros2Options};
use std::net::UdpSocket;
use std::time::{Duration, Instant};

fn param(out: &mut Vec<u8>, pid: u16, value: &[u8]) {
    let padded = value.len().div_ceil(4) * 4;
    out.extend_from_slice(&pid.to_le_bytes());
    out.extend_from_slice(&(padded as u16).to_le_bytes());
    out.extend_from_slice(value);
    out.resize(out.len() + padded - value.len(), 0);
}

fn cdr_string(text: &str) -> Vec<u8> {
    let mut out = ((text.len() + 1) as u32).to_le_bytes().to_vec();
    out.extend_from_slice(text.as_bytes());
    out.push(0);
    out
}

/// One datagram: a DATA submessage (sequence number 1) from `writer` to
/// `reader` of the participant `prefix`, carrying a parameter list.
fn datagram(prefix: &[u8; 12], reader: [u8; 4], writer: [u8; 4], params: &[u8]) -> Vec<u8> {
    let mut body = vec![0, 0, 16, 0]; // extra flags; inline QoS after 16 bytes
    body.extend_from_slice(&reader);
    body.extend_from_slice(&writer);
    body.extend_from_slice(&[0, 0, 0, 0, 1, 0, 0, 0]);
    body.extend_from_slice(&[0, 3, 0, 0]); // PL_CDR_LE
    body.extend_from_slice(params);
    body.extend_from_slice(&[1, 0, 0, 0]); // sentinel
    let mut out = b"RTPS\x02\x03\x01\x10".to_vec();
    out.extend_from_slice(prefix);
    out.extend_from_slice(&[0x15, 0x05]);
    out.extend_from_slice(&(body.len() as u16).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

/// A peer announcing a lease of 1 s, and, if `topic`, its reliable reader
/// of that topic; it never speaks again.
fn short_lived_peer(id: u8, topic: Option<&str>) -> Vec<Vec<u8>> {
    let prefix = [0x7e, 0x57, id, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    let mut locator = 1i32.to_le_bytes().to_vec(); // UDPv4
    locator.extend_from_slice(&9u32.to_le_bytes()); // the discard port
    locator.extend_from_slice(&[0; 12]);
    locator.extend_from_slice(&[127, 0, 0, 1]);
    let mut guid = prefix.to_vec();
    guid.extend_from_slice(&[0, 0, 1, 0xc1]);
    let mut p = Vec::new();
    param(&mut p, 0x0015, &[2, 3]); // protocol version
    param(&mut p, 0x0016, &[1, 0x10]); // vendor
    param(&mut p, 0x0050, &guid); // participant GUID
    param(&mut p, 0x0032, &locator); // metatraffic unicast
    param(&mut p, 0x0031, &locator); // default unicast
    param(&mut p, 0x0058, &0x3fu32.to_le_bytes()); // discovery endpoints
    param(&mut p, 0x0002, &[1, 0, 0, 0, 0, 0, 0, 0]); // lease 1 s
    let mut out = vec![datagram(&prefix, [0, 1, 0, 0xc7], [0, 1, 0, 0xc2], &p)];
    if let Some(topic) = topic {
        let mut reader = prefix.to_vec();
        reader.extend_from_slice(&[0, 0, 1, 0x04]);
        let mut r = Vec::new();
        param(&mut r, 0x005a, &reader); // endpoint GUID
        param(&mut r, 0x0005, &cdr_string(topic));
        param(&mut r, 0x0007, &cdr_string("std_msgs::msg::dds_::String_"));
        param(&mut r, 0x001a, &[2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]); // reliable
        out.push(datagram(&prefix, [0, 0, 4, 0xc7], [0, 0, 4, 0xc2], &r));
    }
    out
}

/// Announces `peer` on every port of `domain` a few times, then polls
/// `dds` for up to `wait`: whether it reported a lost reading peer.
fn lost_within(dds: &mut Dds, domain: u16, peer: &[Vec<u8>], wait: Duration) -> bool {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    let base = 7400 + 250 * domain;
    for _ in 0..3 {
        for d in peer {
            for port in base..base + 250 {
                let _ = socket.send_to(d, ("127.0.0.1", port));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    let end = Instant::now() + wait;
    while Instant::now() < end {
        if dds.lost_a_reading_peer() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[test]
fn a_peer_whose_lease_ends_counts_only_if_it_read_our_topics() {
    let domain = 50 + (std::process::id() % 50) as u16;
    let mut dds = Dds::new(Ros2Options::domain(domain)).expect("joins a DDS domain");
    let mut writer = dds
        .writer("rt/probe", "std_msgs::msg::dds_::String_")
        .unwrap();
    assert!(
        writer.write(vec![1, 0, 0, 0, 0, 0, 0, 0]),
        "nothing to wait for yet"
    );

    // A peer with no reader of our topics: its end (within 3 s: a lease of
    // 1 s, checked every 2 s) is no concern of ours.
    let quiet = short_lived_peer(1, None);
    assert!(!lost_within(
        &mut dds,
        domain,
        &quiet,
        Duration::from_secs(8)
    ));
    // A peer reading rt/probe: matched, then dropped at the end of its lease.
    let reading = short_lived_peer(2, Some("rt/probe"));
    assert!(lost_within(
        &mut dds,
        domain,
        &reading,
        Duration::from_secs(30)
    ));
}
