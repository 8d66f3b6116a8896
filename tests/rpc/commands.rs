//! The calls a client's Traffic Manager and scripts make beyond spawning
//! and ticking: the Traffic Manager registry (per connection), actor
//! commands (as RPCs and as batch commands) reaching the host with their
//! values, kind checks with clear errors, and vehicle light states read
//! back.

use crate::common;

use carla_server::client::{RpcClient, RpcError};
use carla_server::rpc::{ActorCommand, Blueprint, EngineCall, WorldCommand};
use common::rpc_host::{origin, RpcHost};
use rmpv::Value;
use std::time::{Duration, Instant};

const PATIENCE: Duration = Duration::from_secs(10);

fn spawn(rpc: &mut RpcClient, blueprint: &str) -> u32 {
    let description = Value::Array(vec![
        Value::from(0),
        Value::from(blueprint),
        Value::Array(vec![]),
    ]);
    let actor = rpc.call("spawn_actor", &[description, origin()]).unwrap();
    actor[0].as_u64().unwrap() as u32
}

/// Waits until the host noted a request matching `want`.
fn noted(host: &RpcHost, want: impl Fn(&EngineCall) -> bool) -> EngineCall {
    let end = Instant::now() + PATIENCE;
    loop {
        if let Some(c) = host.noted.lock().unwrap().iter().find(|c| want(c)) {
            return c.clone();
        }
        assert!(Instant::now() < end, "the host never got the request");
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn pair(host: &str, port: u16) -> Value {
    Value::Array(vec![Value::from(host), Value::from(port)])
}

#[test]
fn traffic_managers_are_registered_per_connection() {
    let host = RpcHost::start();
    let mut a = host.client();
    let mut b = host.client();
    let running = |c: &mut RpcClient, port: u16| {
        c.call("is_traffic_manager_running", &[Value::from(port)])
            .unwrap()
            .as_bool()
            .unwrap()
    };
    assert!(!running(&mut b, 8000));
    let added = a.call("add_traffic_manager_running", &[pair("10.1.2.3", 8000)]);
    assert_eq!(added.unwrap(), Value::Boolean(true));
    assert!(running(&mut b, 8000));
    let got = b
        .call("get_traffic_manager_running", &[Value::from(8000)])
        .unwrap();
    assert_eq!(got, pair("10.1.2.3", 8000));
    // The port is taken: a second registration is refused.
    let again = b.call("add_traffic_manager_running", &[pair("10.9.9.9", 8000)]);
    assert_eq!(again.unwrap(), Value::Boolean(false));
    // b's own Traffic Manager on another port, then destroyed.
    b.call("add_traffic_manager_running", &[pair("10.9.9.9", 8001)])
        .unwrap();
    b.call("destroy_traffic_manager", &[Value::from(8001)])
        .unwrap();
    assert!(!running(&mut b, 8001));
    // a leaves without destroying its Traffic Manager: it goes with it.
    drop(a);
    let end = Instant::now() + PATIENCE;
    while running(&mut b, 8000) {
        assert!(Instant::now() < end, "a's Traffic Manager outlived a");
        std::thread::sleep(Duration::from_millis(10));
    }
    let bad = b.call("is_traffic_manager_running", &[Value::from(70000)]);
    assert!(matches!(bad, Err(RpcError::Failed(m)) if m.contains("65535")));
}

#[test]
fn actor_commands_reach_the_host_with_their_values() {
    let host = RpcHost::start();
    let mut rpc = host.client();
    let car = spawn(&mut rpc, "vehicle.test.box");
    let id = Value::from(car);
    rpc.call(
        "set_actor_simulate_physics",
        &[id.clone(), Value::Boolean(false)],
    )
    .unwrap();
    noted(&host, |c| {
        c == &EngineCall::Actor {
            actor_id: car,
            command: ActorCommand::SimulatePhysics(false),
        }
    });
    let impulse = Value::Array(vec![Value::F32(100.0), Value::F32(-2.0), Value::F32(0.5)]);
    rpc.call("add_actor_impulse", &[id.clone(), impulse])
        .unwrap();
    noted(&host, |c| {
        matches!(c, EngineCall::Actor { actor_id, command: ActorCommand::Impulse { impulse, at: None } }
            if *actor_id == car && impulse.x == 100.0 && impulse.y == -2.0 && impulse.z == 0.5)
    });
    rpc.call("freeze_all_traffic_lights", &[Value::Boolean(true)])
        .unwrap();
    noted(&host, |c| {
        c == &EngineCall::World(WorldCommand::FreezeAllTrafficLights(true))
    });
    // Light states are kept and read back, one vehicle or all;
    // `rpc::VehicleLightState` is `[flags]` in the first two calls.
    let flags = Value::Array(vec![Value::from(0b101u32)]);
    rpc.call("set_vehicle_light_state", &[id.clone(), flags.clone()])
        .unwrap();
    let one = rpc
        .call("get_vehicle_light_state", std::slice::from_ref(&id))
        .unwrap();
    assert_eq!(one, flags);
    let all = rpc.call("get_vehicle_light_states", &[]).unwrap();
    assert_eq!(
        all,
        Value::Array(vec![Value::Array(vec![id.clone(), Value::from(0b101u32)])])
    );
    // Ackermann controller gains: CARLA's defaults, then what was applied
    // (kept by the library, carried to the host); a wrong count or a NaN
    // is refused by name and changes nothing.
    let gains = |v: &Value| -> Vec<f64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|g| g.as_f64().unwrap())
            .collect()
    };
    let read = |rpc: &mut RpcClient| {
        rpc.call(
            "get_ackermann_controller_settings",
            std::slice::from_ref(&id),
        )
        .unwrap()
    };
    let defaults = gains(&read(&mut rpc));
    let want = [0.15, 0.0, 0.25, 0.01, 0.0, 0.01];
    assert!(
        defaults.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-6),
        "{defaults:?}"
    );
    let applied: Vec<Value> = (1..=6).map(|i| Value::F32(i as f32 / 10.0)).collect();
    rpc.call(
        "apply_ackermann_controller_settings",
        &[id.clone(), Value::Array(applied.clone())],
    )
    .unwrap();
    noted(&host, |c| {
        matches!(c, EngineCall::Actor { actor_id, command: ActorCommand::AckermannSettings(g) }
            if *actor_id == car && g[0] == 0.1 && g[5] == 0.6)
    });
    let five = Value::Array(applied[..5].to_vec());
    let mut nan = applied.clone();
    nan[2] = Value::F32(f32::NAN);
    for bad in [five, Value::Array(nan)] {
        match rpc.call("apply_ackermann_controller_settings", &[id.clone(), bad]) {
            Err(RpcError::Failed(m)) => assert!(m.contains("ackermann controller settings"), "{m}"),
            other => panic!("bad gains answered {other:?}"),
        }
    }
    let now = gains(&read(&mut rpc));
    assert!(
        (now[0] - 0.1).abs() < 1e-6 && (now[5] - 0.6).abs() < 1e-6,
        "{now:?}"
    );
}

#[test]
fn batch_commands_are_parsed_and_checked() {
    let host = RpcHost::start();
    let walker = Blueprint {
        id: "walker.pedestrian.test".into(),
        ..common::rpc_host::vehicle_blueprint()
    };
    host.server.rpc().unwrap().add_blueprint(walker);
    let mut rpc = host.client();
    let car = spawn(&mut rpc, "vehicle.test.box");
    let person = spawn(&mut rpc, "walker.pedestrian.test");
    let command = |index: u32, fields: Vec<Value>| {
        Value::Array(vec![Value::Array(vec![
            Value::from(index),
            Value::Array(fields),
        ])])
    };
    let control = Value::Array(vec![
        Value::Array(vec![Value::F32(1.0), Value::F32(0.0), Value::F32(0.0)]),
        Value::F32(1.4),
        Value::Boolean(false),
    ]);
    let batch = Value::Array(vec![
        // ApplyWalkerControl on the walker: fine.
        command(4, vec![Value::from(person), control.clone()]),
        // ... on the car: a clear refusal.
        command(4, vec![Value::from(car), control]),
        // SetSimulatePhysics, SetVehicleLightState.
        command(14, vec![Value::from(car), Value::Boolean(false)]),
        command(18, vec![Value::from(car), Value::from(3u32)]),
        // ConsoleCommand: refused, the batch goes on.
        command(20, vec![Value::from("stat fps")]),
        // An unknown actor.
        command(15, vec![Value::from(999_999u32), Value::Boolean(true)]),
    ]);
    let replies = rpc
        .call("apply_batch", &[batch, Value::Boolean(false)])
        .unwrap();
    let replies = replies.as_array().unwrap();
    // Each reply is a Response<ActorId>: [[1, id]] or [[0, [message]]].
    let error = |i: usize| replies[i][0][1][0].as_str().map(str::to_owned);
    let ok = |i: usize| {
        replies[i][0][1]
            .as_u64()
            .filter(|_| replies[i][0][0] == Value::from(1))
    };
    assert_eq!(replies.len(), 6);
    assert_eq!(ok(0), Some(person.into()));
    assert!(
        error(1).unwrap().contains("not a walker"),
        "{:?}",
        replies[1]
    );
    assert_eq!(ok(2), Some(car.into()));
    assert_eq!(ok(3), Some(car.into()));
    assert!(error(4).unwrap().contains("console"), "{:?}", replies[4]);
    assert!(error(5).unwrap().contains("999999"), "{:?}", replies[5]);
    noted(&host, |c| {
        matches!(c, EngineCall::Actor { actor_id, command: ActorCommand::WalkerControl { speed, .. } }
            if *actor_id == person && *speed == 1.4)
    });
    noted(&host, |c| {
        c == &EngineCall::Actor {
            actor_id: car,
            command: ActorCommand::SimulatePhysics(false),
        }
    });
    let lights = rpc
        .call("get_vehicle_light_state", &[Value::from(car)])
        .unwrap();
    assert_eq!(lights, Value::Array(vec![Value::from(3u32)]));
    // The RPC form of a walker command on a car: a failed Response the
    // client raises.
    let refused = rpc.call(
        "apply_control_to_walker",
        &[Value::from(car), Value::Array(vec![])],
    );
    assert!(matches!(refused, Err(RpcError::Failed(m)) if m.contains("not a walker")));
}

#[cfg(target_os = "linux")]
#[test]
fn a_c_host_gets_actor_commands_with_their_values() {
    use common::chost;
    let exe = chost::build("rpc_host.c", "rpc_host", None);
    let mut host = chost::Host::spawn(&exe, &[]);
    let first = host.next_line();
    let port: u16 = first.split_whitespace().nth(1).unwrap().parse().unwrap();
    let mut rpc = RpcClient::connect(("127.0.0.1", port), PATIENCE).unwrap();
    let description = Value::Array(vec![
        Value::from(0),
        Value::from("vehicle.test.box"),
        Value::Array(vec![]),
    ]);
    let car = rpc.call("spawn_actor", &[description, origin()]).unwrap()[0]
        .as_u64()
        .unwrap();
    let id = Value::from(car);
    rpc.call(
        "set_actor_simulate_physics",
        &[id.clone(), Value::Boolean(false)],
    )
    .unwrap();
    let impulse = Value::Array(vec![Value::F32(100.0), Value::F32(-2.0), Value::F32(0.5)]);
    rpc.call("add_actor_impulse", &[id.clone(), impulse])
        .unwrap();
    rpc.call(
        "set_vehicle_light_state",
        &[id.clone(), Value::Array(vec![Value::from(5u32)])],
    )
    .unwrap();
    // A physics control: mass, centre of mass, wheels and the main numbers.
    let mut physics = rpc
        .call("get_physics_control", std::slice::from_ref(&id))
        .unwrap();
    *at(&mut physics, 11) = Value::F32(2200.0);
    *at(&mut physics, 13) = Value::Array(vec![Value::F32(0.0), Value::F32(0.0), Value::F32(-0.25)]);
    rpc.call("apply_physics_control", &[id, physics]).unwrap();
    // A custom V2X sensor's `send`: the text, cut to the 99 bytes the
    // client's message field holds.
    let radio = Value::Array(vec![
        Value::from(0),
        Value::from("sensor.other.v2x_custom"),
        Value::Array(vec![]),
    ]);
    let radio = rpc.call("spawn_actor", &[radio, origin()]).unwrap()[0]
        .as_u64()
        .unwrap();
    let text = format!("hello {}", "x".repeat(200));
    rpc.call("send", &[Value::from(radio), Value::from(text.as_str())])
        .unwrap();
    // Ackermann gains: `numbers` and `scalar` (the last gain).
    let gains: Vec<Value> = (1..=6).map(|i| Value::F32(i as f32 / 10.0)).collect();
    rpc.call(
        "apply_ackermann_controller_settings",
        &[Value::from(car), Value::Array(gains)],
    )
    .unwrap();
    // An Ackermann control: `numbers`, read by name.
    let ackermann: Vec<Value> = [0.25f32, 0.5, 8.0, 1.5, 0.75]
        .into_iter()
        .map(Value::F32)
        .collect();
    rpc.call(
        "apply_ackermann_control_to_vehicle",
        &[Value::from(car), Value::Array(ackermann)],
    )
    .unwrap();
    let (mut lines, mut named) = (Vec::new(), Vec::new());
    while lines.len() < 8 {
        let line = host.next_line();
        if ["OTHER KIND ", "GAINS ", "ACKERMANN "]
            .iter()
            .any(|p| line.starts_with(p))
        {
            named.push(line);
        } else if ["COMMAND ", "PHYSICS ", "V2X "]
            .iter()
            .any(|p| line.starts_with(p))
        {
            lines.push(line);
        }
    }
    assert_eq!(lines[5], format!("COMMAND 46 {radio} 0 0 0 0 0 0"));
    assert_eq!(lines[6], format!("V2X {radio} {}", &text[..99]));
    assert_eq!(lines[7], format!("COMMAND 48 {car} 0 0 0.6 0 0 0"));
    // kind actor enabled value scalar x y z
    assert_eq!(lines[0], format!("COMMAND 20 {car} 0 0 0 0 0 0"));
    assert_eq!(lines[1], format!("COMMAND 26 {car} 0 0 0 100 -2 0.5"));
    assert_eq!(lines[2], format!("COMMAND 32 {car} 0 5 0 0 0 0"));
    assert_eq!(lines[3], format!("COMMAND 43 {car} 0 4 2200 0 0 0"));
    // Largest steer angle, drag, max rpm, centre of mass z.
    assert_eq!(lines[4], "PHYSICS 70 0.3 5000 -0.25");
    // The named views of the packed numbers; a view of another kind is
    // refused (CARLA_SERVER_INVALID_ARGUMENT).
    while named.len() < 3 {
        let line = host.next_line();
        if ["OTHER KIND ", "GAINS ", "ACKERMANN "]
            .iter()
            .any(|p| line.starts_with(p))
        {
            named.push(line);
        }
    }
    let (invalid, null) = (
        carla_server::ffi::CARLA_SERVER_INVALID_ARGUMENT,
        carla_server::ffi::CARLA_SERVER_NULL_ARGUMENT,
    );
    assert_eq!(
        named[0],
        format!("OTHER KIND {invalid} {invalid} {invalid} NULL {null} {null} {null}")
    );
    assert_eq!(named[1], "GAINS 0.1 0.2 0.3 0.4 0.5 0.6");
    assert_eq!(named[2], "ACKERMANN 0.25 0.5 8 1.5 0.75");
    host.close_stdin();
    host.finish();
}

#[test]
fn traffic_light_groups_are_the_hosts() {
    let host = RpcHost::start();
    let rpc_server = host.server.rpc().unwrap();
    let light = Blueprint {
        id: "traffic.traffic_light".into(),
        ..common::rpc_host::vehicle_blueprint()
    };
    rpc_server.add_blueprint(light);
    for id in [501, 502, 503] {
        rpc_server
            .add_actor(id, "traffic.traffic_light", &[], Default::default())
            .unwrap();
    }
    rpc_server.set_traffic_light_group(&[502, 501]).unwrap();
    // Only traffic lights can be grouped.
    assert!(rpc_server.set_traffic_light_group(&[1]).is_err());
    drop(rpc_server);
    let mut rpc = host.client();
    let group =
        |rpc: &mut RpcClient, id: u32| rpc.call("get_group_traffic_lights", &[Value::from(id)]);
    let in_group = Value::Array(vec![Value::from(502u32), Value::from(501u32)]);
    assert_eq!(group(&mut rpc, 501).unwrap(), in_group);
    assert_eq!(group(&mut rpc, 502).unwrap(), in_group);
    // A light in no group is a group of its own; other actors are refused.
    assert_eq!(
        group(&mut rpc, 503).unwrap(),
        Value::Array(vec![Value::from(503u32)])
    );
    let car = spawn(&mut rpc, "vehicle.test.box");
    assert!(
        matches!(group(&mut rpc, car), Err(RpcError::Failed(m)) if m.contains("not a traffic light"))
    );
    // A new episode forgets the groups with the actors.
    host.server.rpc().unwrap().new_episode();
    assert!(matches!(group(&mut rpc, 501), Err(RpcError::Failed(_))));
}

/// Field `i` of a physics control as f64.
fn number(v: &Value, i: usize) -> f64 {
    v[i].as_f64().unwrap()
}

/// Element `i` of array `v`, to change.
fn at(v: &mut Value, i: usize) -> &mut Value {
    match v {
        Value::Array(a) => &mut a[i],
        other => panic!("not an array: {other}"),
    }
}

#[test]
fn physics_control_reads_back_what_was_applied_and_reaches_the_host() {
    let host = RpcHost::start();
    let mut rpc = host.client();
    let car = spawn(&mut rpc, "vehicle.test.box");
    let got = rpc
        .call("get_physics_control", &[Value::from(car)])
        .unwrap();
    let fields = got.as_array().unwrap();
    assert_eq!(fields.len(), 17);
    assert_eq!(number(&got, 11), 1500.0, "default mass");
    let wheels = fields[15].as_array().unwrap();
    assert_eq!(wheels.len(), 4, "number_of_wheels of the blueprint");
    // Wheel positions are world centimetres: the front left wheel of a car
    // at the origin, 2 m half length, sits 1.2 m ahead and left of it.
    let fl = &wheels[0][9];
    assert!((fl[0].as_f64().unwrap() - 120.0).abs() < 1e-3, "{fl}");
    assert!(fl[1].as_f64().unwrap() < 0.0, "{fl}");
    // Apply a heavier car with a 40° steer, as the client sends it.
    let mut applied = got.clone();
    if let Value::Array(f) = &mut applied {
        f[11] = Value::F32(2200.0);
        if let Value::Array(w) = &mut f[15] {
            for wheel in w.iter_mut().take(2) {
                *at(wheel, 2) = Value::F32(40.0);
                // A client cannot move wheels.
                *at(wheel, 9) = Value::Array(vec![Value::F32(1e6); 3]);
            }
        }
    }
    rpc.call(
        "apply_physics_control",
        &[Value::from(car), applied.clone()],
    )
    .unwrap();
    let call = noted(&host, |c| {
        matches!(
            c,
            EngineCall::Actor {
                command: ActorCommand::PhysicsControl(_),
                ..
            }
        )
    });
    let EngineCall::Actor {
        actor_id,
        command: ActorCommand::PhysicsControl(c),
    } = call
    else {
        unreachable!()
    };
    assert_eq!((actor_id, c.mass, c.max_steer_angle()), (car, 2200.0, 40.0));
    assert!(c.wheels[0].position.x.abs() < 10.0, "local metres kept");
    let back = rpc
        .call("get_physics_control", &[Value::from(car)])
        .unwrap();
    assert_eq!(number(&back, 11), 2200.0);
    assert_eq!(back[15][0][2].as_f64(), Some(40.0));
    assert_eq!(back[15][0][9], got[15][0][9], "the wheels did not move");

    // The wheels turn with the control's steer.
    let control = Value::Array(vec![
        Value::F32(0.0),
        Value::F32(0.5),
        Value::F32(0.0),
        Value::Boolean(false),
        Value::Boolean(false),
        Value::Boolean(false),
        Value::from(0),
    ]);
    rpc.call("apply_control_to_vehicle", &[Value::from(car), control])
        .unwrap();
    let end = Instant::now() + PATIENCE;
    let angle = |rpc: &mut RpcClient, wheel: u8| {
        rpc.call(
            "get_wheel_steer_angle",
            &[Value::from(car), Value::from(wheel)],
        )
        .unwrap()
        .as_f64()
        .unwrap()
    };
    while angle(&mut rpc, 0) != 20.0 {
        assert!(Instant::now() < end, "front wheel at half of 40°");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(angle(&mut rpc, 3), 0.0, "rear wheels do not steer");
    let no_wheel = rpc.call("get_wheel_steer_angle", &[Value::from(car), Value::from(4)]);
    assert!(matches!(no_wheel, Err(RpcError::Failed(m)) if m.contains("no wheel 4")));

    // Bad controls and actors are clear errors; a batch applies them too.
    let mut heavy = applied;
    *at(&mut heavy, 11) = Value::F32(-1.0);
    let bad = rpc.call("apply_physics_control", &[Value::from(car), heavy]);
    assert!(matches!(bad, Err(RpcError::Failed(m)) if m.contains("mass must be positive")));
    let spectator = rpc.call("get_physics_control", &[Value::from(1)]);
    assert!(matches!(spectator, Err(RpcError::Failed(m)) if m.contains("not a vehicle")));
    let mut light = back.clone();
    *at(&mut light, 11) = Value::F32(900.0);
    let command = Value::Array(vec![Value::Array(vec![
        Value::from(5),
        Value::Array(vec![Value::from(car), light]),
    ])]);
    let results = rpc
        .call(
            "apply_batch",
            &[Value::Array(vec![command]), Value::Boolean(false)],
        )
        .unwrap();
    // `[[1, actor id]]`: a success naming the car.
    assert_eq!(
        results[0][0],
        Value::Array(vec![Value::from(1), Value::from(car)])
    );
    let back = rpc
        .call("get_physics_control", &[Value::from(car)])
        .unwrap();
    assert_eq!(number(&back, 11), 900.0);
}

#[test]
fn g_buffer_tokens_are_for_rgb_cameras_only() {
    let host = RpcHost::start();
    let mut rpc = host.client();
    let car = spawn(&mut rpc, "vehicle.test.box");
    let camera = spawn(&mut rpc, "sensor.camera.rgb");
    let token = |rpc: &mut RpcClient, actor: u32, id: u32| {
        rpc.call("get_gbuffer_token", &[Value::from(actor), Value::from(id)])
    };
    let normals = token(&mut rpc, camera, 3).unwrap();
    let bytes = normals.as_slice().expect("a binary token");
    assert_eq!(bytes.len(), 24);
    assert_eq!(
        token(&mut rpc, camera, 3).unwrap(),
        normals,
        "one stream per texture"
    );
    assert_ne!(token(&mut rpc, camera, 0).unwrap(), normals);
    let bad = token(&mut rpc, camera, 13);
    assert!(matches!(bad, Err(RpcError::Failed(m)) if m.contains("0 to 12")));
    let bad = token(&mut rpc, car, 0);
    assert!(
        matches!(bad, Err(RpcError::Failed(m)) if m.contains("only available on sensor.camera.rgb"))
    );
    let enabled = |rpc: &mut RpcClient| {
        rpc.call("are_gbuffers_enabled", &[Value::from(camera)])
            .unwrap()
            .as_bool()
            .unwrap()
    };
    assert!(!enabled(&mut rpc));
    rpc.call(
        "enable_gbuffers",
        &[Value::from(camera), Value::Boolean(true)],
    )
    .unwrap();
    assert!(enabled(&mut rpc));
}
