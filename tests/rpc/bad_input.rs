//! Hostile and broken clients on the 0.9.16 RPC port, as raw TCP peers
//! speaking msgpack: garbage, huge declared sizes, wrong argument types and
//! counts, unknown ids, half requests, clients that vanish mid-call, too
//! many connections, notifications and non-RPC objects. After each attack a
//! fresh well-behaved client must still get `version` answered.

use crate::common;

use carla_server::rpc::EngineCall;
use carla_server::{Config, Server};
use common::rpc_host::{vehicle_blueprint, RpcHost};
use rmpv::Value;
use std::io::{BufReader, ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

/// Bounds every wait for the server; only a broken server takes this long.
const PATIENCE: Duration = Duration::from_secs(10);
/// The default RPC time-out of the servers in these tests (RpcHost's) is
/// 10 s; "at once" means well before it.
const AT_ONCE: Duration = Duration::from_secs(5);

/// A raw msgpack-RPC peer.
struct Peer {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Peer {
    fn connect(port: u16) -> Peer {
        let socket = TcpStream::connect(("127.0.0.1", port)).expect("connect to the RPC port");
        socket.set_nodelay(true).unwrap();
        socket.set_read_timeout(Some(PATIENCE)).unwrap();
        let writer = socket.try_clone().unwrap();
        Peer {
            reader: BufReader::new(socket),
            writer,
        }
    }

    /// Sends bytes; the server may already have closed the connection.
    fn send_raw(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.writer.write_all(bytes)
    }

    fn send(&mut self, value: &Value) {
        self.send_raw(&encode(value)).expect("send a request");
    }

    /// The next object the server sends.
    fn read(&mut self) -> Value {
        rmpv::decode::read_value(&mut self.reader).expect("a reply")
    }

    /// Sends request `id` and returns its reply (checked to be for `id`).
    fn call(&mut self, id: u32, method: &str, args: Vec<Value>) -> Value {
        self.send(&request(id, method, args));
        let reply = self.read();
        let fields = reply.as_array().expect("a reply is an array");
        assert_eq!(fields.len(), 4, "{reply}");
        assert_eq!(fields[0].as_u64(), Some(1), "{reply}");
        assert_eq!(fields[1].as_u64(), Some(u64::from(id)), "{reply}");
        reply
    }

    /// Waits until the server closes the connection (end of file or reset)
    /// and returns how long that took; panics if it sends a byte or keeps
    /// the connection open for `within`.
    fn expect_closed(&mut self, within: Duration) -> Duration {
        let started = Instant::now();
        assert!(
            self.reader.buffer().is_empty(),
            "unread bytes from the server: {:02x?}",
            self.reader.buffer()
        );
        let socket = self.reader.get_mut();
        socket.set_read_timeout(Some(within)).unwrap();
        let mut byte = [0u8; 256];
        match socket.read(&mut byte) {
            Ok(0) => {}
            Ok(n) => panic!("the server sent {:02x?} instead of closing", &byte[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted
                ) => {}
            Err(e) => panic!("the server kept the connection open ({e})"),
        }
        started.elapsed()
    }

    /// Whether the server still has the connection open after `wait` (it
    /// neither sent anything nor closed).
    fn is_open_after(&mut self, wait: Duration) -> bool {
        let socket = self.reader.get_mut();
        socket.set_read_timeout(Some(wait)).unwrap();
        let mut byte = [0u8; 1];
        let open = match socket.read(&mut byte) {
            Ok(0) => false,
            Ok(_) => panic!("the server sent a byte unasked"),
            Err(e) => matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
        };
        socket.set_read_timeout(Some(PATIENCE)).unwrap();
        open
    }
}

fn encode(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    rmpv::encode::write_value(&mut out, value).unwrap();
    out
}

/// `[0, id, method, [[false], args...]]`, as the 0.9.16 client sends.
fn request(id: u32, method: &str, args: Vec<Value>) -> Value {
    let mut params = vec![Value::Array(vec![false.into()])];
    params.extend(args);
    Value::Array(vec![
        0.into(),
        id.into(),
        method.into(),
        Value::Array(params),
    ])
}

fn arr(items: Vec<Value>) -> Value {
    Value::Array(items)
}

/// `[uid, blueprint id, []]`.
fn description(blueprint: &str) -> Value {
    arr(vec![0.into(), blueprint.into(), arr(vec![])])
}

fn transform() -> Value {
    let v = || arr(vec![0.0f32.into(), 0.0f32.into(), 0.0f32.into()]);
    arr(vec![v(), v()])
}

/// The value of a successful `Response<T>`: `[[1, value]]`.
fn ok_value(reply: &Value) -> &Value {
    assert!(reply[2].is_nil(), "rpclib error in {reply}");
    let variant = reply[3][0].as_array().expect("[[index, value]]");
    assert_eq!(variant.len(), 2, "{reply}");
    assert_eq!(variant[0].as_u64(), Some(1), "a failed response: {reply}");
    &variant[1]
}

/// The message of a failed `Response<T>`: `[[0, [message]]]`.
fn failed_message(reply: &Value) -> String {
    assert!(reply[2].is_nil(), "rpclib error in {reply}");
    let result = reply[3].as_array().expect("result is [variant]");
    assert_eq!(result.len(), 1, "{reply}");
    let variant = result[0].as_array().expect("[index, value]");
    assert_eq!(variant.len(), 2, "{reply}");
    assert_eq!(
        variant[0].as_u64(),
        Some(0),
        "not a failed response: {reply}"
    );
    let error = variant[1].as_array().expect("ResponseError is [what]");
    assert_eq!(error.len(), 1, "{reply}");
    error[0].as_str().expect("a message").to_owned()
}

/// The message of a failed `Response<void>`: `[[true, [message]]]`.
fn void_failed_message(reply: &Value) -> String {
    assert!(reply[2].is_nil(), "rpclib error in {reply}");
    let optional = reply[3][0].as_array().expect("[[true, [message]]]");
    assert_eq!(optional.first(), Some(&Value::Boolean(true)), "{reply}");
    optional[1][0].as_str().expect("a message").to_owned()
}

/// The rpclib-level error of a reply: `[1, id, "text", nil]`.
fn rpclib_error(reply: &Value) -> String {
    assert!(reply[3].is_nil(), "a result with an rpclib error: {reply}");
    reply[2]
        .as_str()
        .expect("a non-nil error string")
        .to_owned()
}

/// A fresh well-behaved client gets `version` answered.
fn assert_serving(port: u16) {
    let mut peer = Peer::connect(port);
    let reply = peer.call(1, "version", vec![]);
    assert_eq!(ok_value(&reply).as_str(), Some("0.9.16"));
}

fn version_request_bytes() -> Vec<u8> {
    let bytes = encode(&request(1, "version", vec![]));
    // rpclib's request for `version()`, byte for byte.
    assert_eq!(
        bytes,
        [0x94, 0x00, 0x01, 0xa7, b'v', b'e', b'r', b's', b'i', b'o', b'n', 0x91, 0x91, 0xc2]
    );
    bytes
}

#[test]
fn garbage_bytes_close_the_connection_and_the_server_keeps_serving() {
    let host = RpcHost::start();
    let port = host.port();
    let version = version_request_bytes();
    let mut lcg = 0x2545_f491_4f6c_dd1du64;
    let noise: Vec<u8> = (0..512)
        .map(|_| {
            lcg = lcg.wrapping_mul(6364136223846793005).wrapping_add(1);
            (lcg >> 56) as u8
        })
        .collect();
    let attacks: Vec<(&str, Vec<u8>)> = vec![
        ("a reserved marker", vec![0xc1; 64]),
        (
            "a reserved marker inside a request",
            vec![0x94, 0x00, 0x01, 0xc1, 0x90],
        ),
        (
            "an HTTP request",
            b"GET / HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
        ),
        ("negative fixints", vec![0xff; 16]),
        // Starts with 0xc1 so it is refused whatever the rest would frame.
        ("noise", [&[0xc1][..], &noise].concat()),
    ];
    for (what, bytes) in attacks {
        let mut peer = Peer::connect(port);
        let _ = peer.send_raw(&bytes);
        let took = peer.expect_closed(AT_ONCE);
        assert!(took < AT_ONCE, "{what}: closed after {took:?}");
        assert_serving(port);
    }
    // A good request is answered, then the garbage after it closes.
    let mut peer = Peer::connect(port);
    peer.send_raw(&[&version[..], &[0xc1, 0xc1]].concat())
        .unwrap();
    assert_eq!(ok_value(&peer.read()).as_str(), Some("0.9.16"));
    peer.expect_closed(AT_ONCE);
    assert_serving(port);
}

/// Peak resident memory of this process (linux: VmHWM), in bytes.
#[cfg(target_os = "linux")]
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .expect("VmHWM in /proc/self/status");
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("VmHWM in kB");
    kib * 1024
}

#[test]
fn headers_declaring_4_gib_are_refused_at_once_without_allocating() {
    // Peak memory is the process's: no test that allocates megabytes runs
    // meanwhile (see main.rs).
    let _alone = crate::measuring_memory();
    let host = RpcHost::start();
    let port = host.port();
    assert_serving(port);
    #[cfg(target_os = "linux")]
    let before = peak_rss();
    // `[0, 1, "version", [[false], <header>...`: a bin32, str32 or ext32
    // of 4 GiB, an array32 or map32 of 4 G values.
    let headers: [(&str, &[u8]); 5] = [
        ("bin32", &[0xc6, 0xff, 0xff, 0xff, 0xff]),
        ("str32", &[0xdb, 0xff, 0xff, 0xff, 0xff]),
        ("ext32", &[0xc9, 0xff, 0xff, 0xff, 0xff, 0x01]),
        ("array32", &[0xdd, 0xff, 0xff, 0xff, 0xff]),
        ("map32", &[0xdf, 0xff, 0xff, 0xff, 0xff]),
    ];
    let prefix = [
        0x94, 0x00, 0x01, 0xa7, b'v', b'e', b'r', b's', b'i', b'o', b'n', 0x92, 0x91, 0xc2,
    ];
    for (what, header) in headers {
        let mut peer = Peer::connect(port);
        let _ = peer.send_raw(&[&prefix[..], header].concat());
        // Whatever follows (the server should not be reading it anyway).
        let _ = peer.send_raw(&[0u8; 64 << 10]);
        let took = peer.expect_closed(AT_ONCE);
        assert!(took < AT_ONCE, "{what}: closed after {took:?}");
        // The same header alone, as the whole object.
        let mut peer = Peer::connect(port);
        let _ = peer.send_raw(header);
        peer.expect_closed(AT_ONCE);
        assert_serving(port);
    }
    #[cfg(target_os = "linux")]
    {
        let grown = peak_rss().saturating_sub(before);
        assert!(grown < 64 << 20, "peak memory grew by {grown} bytes");
    }
}

#[test]
fn wrong_argument_types_get_a_failed_response_naming_what_was_expected() {
    let host = RpcHost::start();
    let port = host.port();
    let mut peer = Peer::connect(port);
    let cases: Vec<(&str, Vec<Value>, &str)> = vec![
        (
            "get_sensor_token",
            vec!["abc".into()],
            "stream id: expected an unsigned 32-bit integer",
        ),
        (
            "destroy_actor",
            vec![arr(vec![1.into()])],
            "actor id: expected an unsigned 32-bit integer",
        ),
        (
            "destroy_actor",
            vec![(-5).into()],
            "actor id: expected an unsigned 32-bit integer",
        ),
        (
            "get_actor_bounding_box",
            vec![Value::F64(1.5)],
            "actor id: expected an unsigned 32-bit integer",
        ),
        (
            "set_episode_settings",
            vec![arr(vec![1.into()])],
            "expected a boolean",
        ),
        (
            "set_episode_settings",
            vec!["sync".into()],
            "settings: expected an array",
        ),
        (
            "spawn_actor",
            vec!["vehicle.test.box".into(), transform()],
            "actor description: expected an array",
        ),
        (
            "spawn_actor",
            vec![description("vehicle.test.box"), "here".into()],
            "transform: expected an array",
        ),
        (
            "spawn_actor_with_parent",
            vec![
                description("vehicle.test.box"),
                transform(),
                1.into(),
                7.into(),
            ],
            "attachment type must be 0, 1 or 2",
        ),
        (
            "get_actors_by_id",
            vec![5.into()],
            "actor ids: expected an array",
        ),
        ("request_file", vec![3.into()], "file: expected a string"),
    ];
    for (k, (method, args, expected)) in cases.into_iter().enumerate() {
        let reply = peer.call(k as u32 + 1, method, args);
        let message = failed_message(&reply);
        assert!(message.contains(expected), "{method}: {message:?}");
    }
    // A `Response<void>` method fails as `[[true, [message]]]`.
    let reply = peer.call(100, "set_weather_parameters", vec!["sunny".into()]);
    let message = void_failed_message(&reply);
    assert!(
        message.contains("weather: expected an array"),
        "{message:?}"
    );
    // The same connection still works, and so does a fresh one.
    let reply = peer.call(101, "version", vec![]);
    assert_eq!(ok_value(&reply).as_str(), Some("0.9.16"));
    assert_serving(port);
}

#[test]
fn wrong_argument_counts_and_unknown_methods_get_an_rpclib_error() {
    let host = RpcHost::start();
    let port = host.port();
    let mut peer = Peer::connect(port);
    let cases: Vec<(&str, Vec<Value>)> = vec![
        ("version", vec![1.into()]),
        ("destroy_actor", vec![]),
        ("destroy_actor", vec![1.into(), 2.into()]),
        ("spawn_actor", vec![description("vehicle.test.box")]),
        (
            "get_episode_settings",
            vec![Value::Nil, Value::Nil, Value::Nil],
        ),
        ("no_such_method", vec![]),
        ("no_such_method", vec![1.into(), "two".into()]),
        ("", vec![]),
    ];
    for (k, (method, args)) in cases.into_iter().enumerate() {
        let n = args.len();
        let reply = peer.call(k as u32 + 1, method, args);
        assert_eq!(
            rpclib_error(&reply),
            format!("rpclib: server could not find function '{method}' with argument count {n}.")
        );
    }
    // Without the metadata element the arguments are counted as they come.
    let bare = arr(vec![
        0.into(),
        50.into(),
        "version".into(),
        arr(vec![7.into()]),
    ]);
    peer.send(&bare);
    let reply = peer.read();
    assert_eq!(reply[1].as_u64(), Some(50));
    assert_eq!(
        rpclib_error(&reply),
        "rpclib: server could not find function 'version' with argument count 1."
    );
    let reply = peer.call(51, "version", vec![]);
    assert_eq!(ok_value(&reply).as_str(), Some("0.9.16"));
    assert_serving(port);
}

#[test]
fn unknown_actor_ids_and_blueprints_get_a_failed_response_naming_them_but_an_empty_box() {
    let host = RpcHost::start();
    let port = host.port();
    let mut peer = Peer::connect(port);
    let reply = peer.call(1, "destroy_actor", vec![999_999.into()]);
    let message = failed_message(&reply);
    assert!(message.contains("actor 999999 not found"), "{message:?}");
    // As CARLA's server: the box of an actor it does not know is empty,
    // not an error (the Traffic Manager's thread reads boxes of vehicles
    // destroyed a moment ago and would abort on an error).
    let reply = peer.call(2, "get_actor_bounding_box", vec![999_999.into()]);
    let zero = |v: &Value| {
        v.as_array()
            .unwrap()
            .iter()
            .all(|c| c.as_f64() == Some(0.0))
    };
    let bbox = ok_value(&reply);
    assert!(zero(&bbox[0]) && zero(&bbox[1]), "{reply:?}");
    assert_eq!(bbox[3].as_u64(), Some(0), "{reply:?}");
    let with_parent = vec![
        description("vehicle.test.box"),
        transform(),
        999_999.into(),
        0.into(),
    ];
    let reply = peer.call(3, "spawn_actor_with_parent", with_parent);
    let message = failed_message(&reply);
    assert!(
        message.contains("cannot attach to actor 999999"),
        "{message:?}"
    );
    let reply = peer.call(
        4,
        "spawn_actor",
        vec![description("vehicle.no_such.model"), transform()],
    );
    let message = failed_message(&reply);
    assert!(
        message.contains("unknown blueprint") && message.contains("vehicle.no_such.model"),
        "{message:?}"
    );
    let reply = peer.call(5, "set_actor_transform", vec![999_999.into(), transform()]);
    let message = void_failed_message(&reply);
    assert!(message.contains("actor 999999 not found"), "{message:?}");
    // The spectator exists but is not the client's to destroy.
    let reply = peer.call(6, "get_spectator", vec![]);
    let spectator = ok_value(&reply)[0].as_u64().expect("the spectator's id");
    let reply = peer.call(7, "destroy_actor", vec![spectator.into()]);
    let message = failed_message(&reply);
    assert!(message.contains("spectator"), "{message:?}");
    // Nothing was spawned by all that: a real spawn gets a new actor that
    // can be destroyed once, then is unknown.
    let reply = peer.call(
        8,
        "spawn_actor",
        vec![description("vehicle.test.box"), transform()],
    );
    let id = ok_value(&reply)[0].as_u64().expect("the new actor's id");
    let reply = peer.call(9, "destroy_actor", vec![id.into()]);
    assert_eq!(ok_value(&reply), &Value::Boolean(true));
    let reply = peer.call(10, "destroy_actor", vec![id.into()]);
    let message = failed_message(&reply);
    assert!(
        message.contains(&format!("actor {id} not found")),
        "{message:?}"
    );
    assert_serving(port);
}

/// A server with a short RPC time-out and no host thread.
fn quick_server(timeout: Duration) -> (Server, u16) {
    let server = Server::with_config(Config {
        stream_timeout: timeout,
        ..Default::default()
    });
    server.listen_streaming(0).expect("streaming port");
    let port = server.listen_rpc(0).expect("rpc port").port();
    server.rpc().unwrap().add_blueprint(vehicle_blueprint());
    (server, port)
}

#[test]
fn half_requests_are_closed_after_the_time_out_while_others_are_served() {
    let timeout = Duration::from_millis(300);
    let (_server, port) = quick_server(timeout);
    let version = version_request_bytes();
    // An idle connection (no request begun) is never timed out.
    let mut idle = Peer::connect(port);

    // Half a request, then gone.
    let mut vanished = Peer::connect(port);
    vanished.send_raw(&version[..6]).unwrap();
    drop(vanished);
    assert_serving(port);

    // Half a request, then silence: closed once the time-out passes.
    let mut stalled = Peer::connect(port);
    let started = Instant::now();
    stalled.send_raw(&version[..6]).unwrap();
    let mut other = Peer::connect(port);
    for id in 1..=3 {
        let reply = other.call(id, "version", vec![]);
        assert_eq!(ok_value(&reply).as_str(), Some("0.9.16"));
    }
    stalled.expect_closed(PATIENCE);
    let took = started.elapsed();
    assert!(
        took >= timeout - Duration::from_millis(50),
        "closed after {took:?}"
    );
    // The rest of that request comes too late.
    let _ = stalled.send_raw(&version[6..]);

    let reply = other.call(4, "version", vec![]);
    assert_eq!(ok_value(&reply).as_str(), Some("0.9.16"));
    assert!(idle.is_open_after(Duration::from_millis(100)));
    let reply = idle.call(1, "version", vec![]);
    assert_eq!(ok_value(&reply).as_str(), Some("0.9.16"));
    assert_serving(port);
}

#[test]
fn a_client_that_vanishes_mid_spawn_does_not_wedge_the_server() {
    let (server, port) = quick_server(Duration::from_secs(10));
    let spawn = |id| {
        request(
            id,
            "spawn_actor",
            vec![description("vehicle.test.box"), transform()],
        )
    };
    let mut gone = Peer::connect(port);
    gone.send(&spawn(1));
    // The host holds the request, unanswered, while its client leaves.
    let held = server
        .rpc()
        .unwrap()
        .poll(PATIENCE)
        .expect("the spawn reaches the host");
    assert!(matches!(held.call(), EngineCall::SpawnActor { .. }));
    assert!(held.expects_answer());
    gone.writer.shutdown(Shutdown::Both).unwrap();
    drop(gone);
    assert_serving(port);
    // A second client's spawn is queued and answered while the first is
    // still held.
    let mut next = Peer::connect(port);
    next.send(&spawn(2));
    let second = server
        .rpc()
        .unwrap()
        .poll(PATIENCE)
        .expect("the second spawn reaches the host");
    second.succeed(0);
    let reply = next.read();
    assert_eq!(reply[1].as_u64(), Some(2));
    let id = ok_value(&reply)[0].as_u64().expect("an actor id");
    // Answering the vanished client's request now is harmless.
    held.succeed(0);
    assert_serving(port);
    let reply = next.call(3, "get_actor_bounding_box", vec![id.into()]);
    assert_eq!(ok_value(&reply)[3].as_u64(), Some(id));
    // Same with a request the host drops unanswered.
    let mut gone = Peer::connect(port);
    gone.send(&spawn(1));
    let held = server.rpc().unwrap().poll(PATIENCE).expect("a third spawn");
    drop(gone);
    drop(held);
    assert_serving(port);
    assert!(server.rpc().unwrap().poll(Duration::ZERO).is_none());
}

#[test]
fn connections_beyond_64_are_closed_and_served_again_once_others_leave() {
    let host = RpcHost::start();
    // The server-wide cap: every connection comes from one address here,
    // whose own share (32 by default) is lifted to the whole server's.
    host.server
        .rpc()
        .unwrap()
        .set_client_budget(carla_server::rpc::ClientBudget {
            max_connections_per_address: 64,
            ..Default::default()
        });
    let port = host.port();
    let mut peers: Vec<Peer> = (0..70).map(|_| Peer::connect(port)).collect();
    let (mut served, mut refused) = (Vec::new(), 0);
    for (k, mut peer) in peers.drain(..).enumerate() {
        let id = k as u32 + 1;
        if peer
            .send_raw(&encode(&request(id, "version", vec![])))
            .is_err()
        {
            refused += 1;
            continue;
        }
        match rmpv::decode::read_value(&mut peer.reader) {
            Ok(reply) => {
                assert_eq!(reply[1].as_u64(), Some(u64::from(id)));
                assert_eq!(ok_value(&reply).as_str(), Some("0.9.16"));
                served.push(peer);
            }
            Err(e) => {
                let kind = e.kind();
                assert!(
                    matches!(
                        kind,
                        ErrorKind::UnexpectedEof
                            | ErrorKind::ConnectionReset
                            | ErrorKind::ConnectionAborted
                    ),
                    "connection {k}: neither served nor closed ({e})"
                );
                refused += 1;
            }
        }
    }
    assert_eq!((served.len(), refused), (64, 6));
    // Still full: a newcomer is closed.
    let mut newcomer = Peer::connect(port);
    let _ = newcomer.send_raw(&version_request_bytes());
    newcomer.expect_closed(AT_ONCE);
    // Four leave; a newcomer is served as soon as the server sees it.
    served.truncate(60);
    let deadline = Instant::now() + PATIENCE;
    loop {
        let mut peer = Peer::connect(port);
        let _ = peer.send_raw(&version_request_bytes());
        if let Ok(reply) = rmpv::decode::read_value(&mut peer.reader) {
            assert_eq!(ok_value(&reply).as_str(), Some("0.9.16"));
            break;
        }
        assert!(Instant::now() < deadline, "no room after four clients left");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Those who stayed are still served.
    for (k, peer) in served.iter_mut().enumerate() {
        let reply = peer.call(1000 + k as u32, "version", vec![]);
        assert_eq!(ok_value(&reply).as_str(), Some("0.9.16"));
    }
    drop(served);
    assert_serving(port);
}

#[test]
fn notifications_get_no_reply_and_the_connection_stays_usable() {
    let host = RpcHost::start();
    let port = host.port();
    let mut peer = Peer::connect(port);
    let notification = |method: &str, args: Vec<Value>| {
        let mut params = vec![arr(vec![false.into()])];
        params.extend(args);
        arr(vec![2.into(), method.into(), arr(params)])
    };
    peer.send(&notification("version", vec![]));
    peer.send(&notification("no_such_method", vec![]));
    peer.send(&notification("destroy_actor", vec!["x".into()]));
    peer.send(&notification("destroy_actor", vec![999_999.into()]));
    // Replies come in order: the first one is the request's, so none of
    // the notifications got one.
    let reply = peer.call(7, "version", vec![]);
    assert_eq!(ok_value(&reply).as_str(), Some("0.9.16"));
    assert!(peer.is_open_after(Duration::from_millis(200)));
    let reply = peer.call(8, "version", vec![]);
    assert_eq!(ok_value(&reply).as_str(), Some("0.9.16"));
    assert_serving(port);
}

#[test]
fn msgpack_objects_that_are_not_rpc_requests_close_the_connection() {
    let host = RpcHost::start();
    let port = host.port();
    let attacks: Vec<(&str, Value)> = vec![
        ("an unknown message type", arr(vec![5.into(), 1.into()])),
        ("a string", "version".into()),
        ("an integer", 0.into()),
        ("a map", Value::Map(vec![("version".into(), 1.into())])),
        ("an empty array", arr(vec![])),
        (
            "a response",
            arr(vec![1.into(), 1.into(), Value::Nil, Value::Nil]),
        ),
        (
            "a string message id",
            arr(vec![0.into(), "1".into(), "version".into(), arr(vec![])]),
        ),
        (
            "a message id above u32",
            arr(vec![
                0.into(),
                (1u64 << 32).into(),
                "version".into(),
                arr(vec![]),
            ]),
        ),
        (
            "a method that is not a string",
            arr(vec![0.into(), 1.into(), 7.into(), arr(vec![])]),
        ),
        (
            "params that are not an array",
            arr(vec![0.into(), 1.into(), "version".into(), Value::Nil]),
        ),
        (
            "a request with a fifth field",
            arr(vec![
                0.into(),
                1.into(),
                "version".into(),
                arr(vec![]),
                Value::Nil,
            ]),
        ),
    ];
    for (what, value) in attacks {
        let mut peer = Peer::connect(port);
        let _ = peer.send_raw(&encode(&value));
        let took = peer.expect_closed(AT_ONCE);
        assert!(took < AT_ONCE, "{what}: closed after {took:?}");
        assert_serving(port);
    }
    // A method name that is not UTF-8.
    let mut peer = Peer::connect(port);
    let _ = peer.send_raw(&[0x94, 0x00, 0x01, 0xa2, 0xff, 0xfe, 0x91, 0x91, 0xc2]);
    peer.expect_closed(AT_ONCE);
    assert_serving(port);
}

/// `[0, id, method, [[async], args...]]`.
fn request_with(id: u32, method: &str, asynchronous: bool, args: Vec<Value>) -> Value {
    let mut params = vec![arr(vec![asynchronous.into()])];
    params.extend(args);
    arr(vec![0.into(), id.into(), method.into(), arr(params)])
}

fn over_limit(method: &str, bytes: usize) -> String {
    format!("{method}: a request of {bytes} bytes is over this server's limit of 16 MiB")
}

#[test]
fn requests_over_16_mib_are_dropped_unread_and_answered_naming_the_limit() {
    let _gate = crate::allocating_megabytes();
    let host = RpcHost::start();
    let port = host.port();
    let mut peer = Peer::connect(port);
    let text: Value = "a".repeat(20 << 20).into();
    let params = arr(vec![2.0f64.into()]);

    // A Response<void> method: `[[true, [message]]]`; the host never saw it.
    let big = encode(&request(
        1,
        "copy_opendrive_to_file",
        vec![text.clone(), params.clone()],
    ));
    peer.send_raw(&big).unwrap();
    let reply = peer.read();
    assert_eq!(reply[1].as_u64(), Some(1), "{reply}");
    let message = void_failed_message(&reply);
    assert_eq!(message, over_limit("copy_opendrive_to_file", big.len()));
    // The same connection goes on.
    let reply = peer.call(2, "version", vec![]);
    assert_eq!(ok_value(&reply).as_str(), Some("0.9.16"));

    // A Response<T> method (a spawn with a 17 MiB attribute), followed in
    // the same write by a small request: both answered, in order.
    let attribute = arr(vec![
        "role_name".into(),
        4.into(),
        "x".repeat(17 << 20).into(),
    ]);
    let desc = arr(vec![
        0.into(),
        "vehicle.test.box".into(),
        arr(vec![attribute]),
    ]);
    let mut both = encode(&request(3, "spawn_actor", vec![desc, transform()]));
    let spawn_bytes = both.len();
    both.extend(encode(&request(4, "version", vec![])));
    peer.send_raw(&both).unwrap();
    let reply = peer.read();
    assert_eq!(reply[1].as_u64(), Some(3), "{reply}");
    assert_eq!(
        failed_message(&reply),
        over_limit("spawn_actor", spawn_bytes)
    );
    let reply = peer.read();
    assert_eq!(reply[1].as_u64(), Some(4), "{reply}");
    assert_eq!(ok_value(&reply).as_str(), Some("0.9.16"));

    // Asynchronous: answered as every asynchronous call (`[[false]]`,
    // which the client discards); a notification: not answered.
    let call = request_with(
        5,
        "copy_opendrive_to_file",
        true,
        vec![text.clone(), params],
    );
    peer.send(&call);
    let reply = peer.read();
    assert_eq!(reply[1].as_u64(), Some(5), "{reply}");
    assert_eq!(reply[3], arr(vec![arr(vec![false.into()])]), "{reply}");
    let notification = arr(vec![2.into(), "apply_batch".into(), arr(vec![text])]);
    peer.send(&notification);
    let reply = peer.call(6, "version", vec![]);
    assert_eq!(ok_value(&reply).as_str(), Some("0.9.16"));
    assert!(host.noted.lock().unwrap().is_empty(), "the host was asked");
    assert_serving(port);
}

#[test]
fn a_request_over_16_mib_that_stalls_is_closed_after_the_time_out() {
    let _gate = crate::allocating_megabytes();
    let timeout = Duration::from_millis(300);
    let (_server, port) = quick_server(timeout);
    let big = encode(&request(
        1,
        "copy_opendrive_to_file",
        vec!["a".repeat(17 << 20).into(), arr(vec![])],
    ));
    // 4 MiB of it, then silence: the request is being dropped, but must
    // keep coming (16 MiB per time-out).
    let mut stalled = Peer::connect(port);
    let started = Instant::now();
    stalled.send_raw(&big[..4 << 20]).unwrap();
    let mut other = Peer::connect(port);
    let reply = other.call(1, "version", vec![]);
    assert_eq!(ok_value(&reply).as_str(), Some("0.9.16"));
    stalled.expect_closed(PATIENCE);
    let took = started.elapsed();
    assert!(
        took >= timeout - Duration::from_millis(50),
        "closed after {took:?}"
    );
    let reply = other.call(2, "version", vec![]);
    assert_eq!(ok_value(&reply).as_str(), Some("0.9.16"));
}
