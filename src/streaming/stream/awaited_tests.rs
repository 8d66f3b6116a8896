//! A subscriber the client announced (`get_sensor_token`) gets the frame
//! sent while it was connecting, and nothing sent before the announcement.

use super::tests::{header, send, server, wait_for, T};
use super::AWAIT_JOIN;
use crate::client::StreamClient;
use std::time::Duration;

#[test]
fn an_announced_subscriber_gets_the_frame_sent_before_it_joined() {
    let server = server();
    let stream = server.create_stream();
    // A synchronous client: listen (token, then an asynchronous connect),
    // then tick at once: the tick's frame goes out before the join.
    stream.expect_subscriber();
    send(&stream, 7, b"tick seven").unwrap();
    let mut sub = StreamClient::subscribe(server.addr(), stream.id(), T).unwrap();
    wait_for("the subscriber", || stream.stats().subscribers == 1);
    let first = sub.next_message().unwrap();
    assert_eq!(
        first.header(),
        header(7),
        "the frame sent while it connected"
    );
    send(&stream, 8, b"tick eight").unwrap();
    assert_eq!(
        sub.next_message().unwrap().header(),
        header(8),
        "then every frame once"
    );
    // Only the newest frame is held, for as many subscribers as announced.
    stream.expect_subscriber();
    stream.expect_subscriber();
    for f in 9..=11 {
        send(&stream, f, b"later").unwrap();
        assert_eq!(sub.next_message().unwrap().header(), header(f));
    }
    let mut late: Vec<StreamClient> = (0..2)
        .map(|_| StreamClient::subscribe(server.addr(), stream.id(), T).unwrap())
        .collect();
    wait_for("three subscribers", || stream.stats().subscribers == 3);
    for s in &mut late {
        assert_eq!(s.next_message().unwrap().header(), header(11), "the newest");
    }
    send(&stream, 12, b"all").unwrap();
    for s in late.iter_mut().chain([&mut sub]) {
        assert_eq!(s.next_message().unwrap().header(), header(12));
    }
}

#[test]
fn a_frame_sent_before_the_announcement_or_past_its_wait_is_not_held() {
    let server = server();
    let stream = server.create_stream();
    // Listening after a tick: that tick's frame is not this client's (CARLA
    // sends it to no one), its first is the next tick's.
    send(&stream, 1, b"before").unwrap();
    stream.expect_subscriber();
    let mut sub = StreamClient::subscribe(server.addr(), stream.id(), T).unwrap();
    wait_for("the subscriber", || stream.stats().subscribers == 1);
    send(&stream, 2, b"after").unwrap();
    assert_eq!(sub.next_message().unwrap().header(), header(2));
    // A client that announced itself and never came: past the wait nothing
    // is held, and a later subscriber starts at the next frame.
    stream.expect_subscriber();
    send(&stream, 3, b"held").unwrap();
    assert_eq!(sub.next_message().unwrap().header(), header(3));
    std::thread::sleep(AWAIT_JOIN + Duration::from_millis(100));
    send(&stream, 4, b"too late to hold").unwrap();
    assert_eq!(sub.next_message().unwrap().header(), header(4));
    let mut other = StreamClient::subscribe(server.addr(), stream.id(), T).unwrap();
    wait_for("two subscribers", || stream.stats().subscribers == 2);
    send(&stream, 5, b"next").unwrap();
    assert_eq!(other.next_message().unwrap().header(), header(5));
    assert_eq!(sub.next_message().unwrap().header(), header(5));
}
