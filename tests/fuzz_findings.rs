//! Regression tests for what fuzzing found. Each crashing input is
//! also kept in `fuzz/regressions/<target>/`, replayed by the unit test in `src/fuzzing/`.

use carla_server::client::StreamClient;
use std::io::{ErrorKind, Read, Write};
use std::net::TcpListener;
use std::time::Duration;

/// A fake streaming port: accepts one subscriber, checks its id, sends
/// `bytes` and closes; returns the subscriber's client.
fn stream_client_fed(bytes: &[u8]) -> StreamClient {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let client =
        StreamClient::subscribe(listener.local_addr().unwrap(), 7, Duration::from_secs(5)).unwrap();
    let (mut port, _) = listener.accept().unwrap();
    let mut id = [0u8; 4];
    port.read_exact(&mut id).unwrap();
    assert_eq!(u32::from_le_bytes(id), 7);
    port.write_all(bytes).unwrap();
    client
}

fn message(payload: &[u8]) -> Vec<u8> {
    let size = (48 + payload.len()) as u32;
    [&size.to_le_bytes()[..], &[3u8; 48], payload].concat()
}

/// fuzz/regressions/stream_client/truncated-body: a message cut short by
/// the connection closing ended the iteration as if the stream had closed
/// cleanly, so a client silently lost data.
#[test]
fn stream_client_reports_a_message_cut_short_as_an_error() {
    let whole = message(b"payload!");
    for cut in [2, 4, 30, whole.len() - 1] {
        let mut client = stream_client_fed(&[&whole[..], &whole[..cut]].concat());
        assert_eq!(client.next().unwrap().unwrap().payload(), b"payload!");
        let err = match client.next() {
            Some(Err(e)) => e,
            other => panic!("cut at {cut}: {:?}", other.map(|r| r.map(|_| ()))),
        };
        assert_eq!(err.kind(), ErrorKind::InvalidData, "cut at {cut}: {err}");
    }
}

#[test]
fn stream_client_still_ends_cleanly_between_messages() {
    let mut client = stream_client_fed(&message(b"last"));
    assert_eq!(client.next().unwrap().unwrap().payload(), b"last");
    assert!(client.next().is_none());
    let err = client.next_message().err().expect("still closed");
    assert_eq!(err.kind(), ErrorKind::UnexpectedEof);
}

/// fuzz/regressions/settings_ini/fov-1e-50-rounds-to-zero: a value inside
/// an open bound as a decimal but on it once stored as f32 was accepted
/// (`FOV=1e-50` gave a 0° camera, `Range=1e-50` a 0 m lidar), so a host that
/// passed it on to the 0.9 blueprint (as `carla-host` does) failed the
/// episode with an unrelated error.
#[test]
fn settings_refuse_values_that_round_onto_an_open_bound() {
    use carla_server::legacy::settings::{SensorSettings, Settings, SettingsError};
    let sensor = |kind: &str, key: &str, value: &str| {
        format!("[CARLA/Sensor]\nSensors=S\n[CARLA/Sensor/S]\nSensorType={kind}\n{key}={value}\n")
    };
    let refused = [
        ("CAMERA", "FOV", "1e-50"),
        ("CAMERA", "FOV", "179.99999999"),
        ("LIDAR_RAY_CAST", "Range", "1e-50"),
        ("LIDAR_RAY_CAST", "RotationFrequency", "-1e-46"),
    ];
    for (kind, key, value) in refused {
        let err = sensor(kind, key, value).parse::<Settings>().unwrap_err();
        assert!(
            matches!(err, SettingsError::OutOfRange { .. }) && err.line() == 5,
            "{key}={value}: {err}"
        );
    }
    let accepted = sensor("CAMERA", "FOV", "179.99")
        .parse::<Settings>()
        .unwrap();
    let SensorSettings::Camera(camera) = &accepted.sensors[0] else {
        panic!("a camera");
    };
    assert_eq!(camera.fov, 179.99);
    let tiny = sensor("LIDAR_RAY_CAST", "Range", "1e-3")
        .parse::<Settings>()
        .unwrap();
    let SensorSettings::Lidar(lidar) = &tiny.sensors[0] else {
        panic!("a lidar");
    };
    assert_eq!(lidar.range_m, 1e-3);
}

/// fuzz/regressions/rpc/nested-56-deep-refused-by-the-decoder: the RPC
/// port's framer lets a request nest 64 containers deep, but the decoder
/// after it had 64 as its own recursion bound, which rmpv spends two at a
/// time (three on a string), so a request nested 31 to 64 deep was framed
/// as within bounds, then closed as "bytes that are not msgpack". The
/// framer's bound is now the one that refuses, with its own message.
#[test]
fn rpc_requests_nested_as_deep_as_the_framer_allows_are_decoded() {
    use carla_server::Server;
    use std::io::BufReader;
    let server = Server::new();
    server.listen_streaming(0).unwrap();
    let port = server.listen_rpc(0).unwrap().port();
    // `[0, id, "version", [[false], [[[... "deep" ...]]]]]`: the request
    // and its params are 2 levels, `levels` arrays of one value inside.
    let request = |id: u8, levels: usize| {
        let mut bytes = vec![0x94, 0x00, id, 0xa7];
        bytes.extend_from_slice(b"version");
        bytes.extend_from_slice(&[0x92, 0x91, 0xc2]);
        bytes.extend(std::iter::repeat_n(0x91, levels));
        bytes.extend_from_slice(&[0xa4, b'd', b'e', b'e', b'p']);
        bytes
    };
    let socket = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut writer = socket.try_clone().unwrap();
    let mut reader = BufReader::new(socket);
    for (id, levels) in [(1, 30), (2, 40), (3, 62)] {
        writer.write_all(&request(id, levels)).unwrap();
        // Answered: `version` takes no argument, so an rpclib error.
        let reply = rmpv::decode::read_value(&mut reader).unwrap();
        assert_eq!(reply[1].as_u64(), Some(u64::from(id)), "{levels} levels");
        assert_eq!(
            reply[2].as_str(),
            Some("rpclib: server could not find function 'version' with argument count 1."),
            "{levels} levels"
        );
    }
    // One level more is refused by the framer: the connection closes
    // without a reply.
    writer.write_all(&request(4, 63)).unwrap();
    let mut rest = Vec::new();
    let _ = reader.read_to_end(&mut rest);
    assert!(rest.is_empty(), "a reply to a request 65 levels deep");
}
