//! Walker skeletons from C: `tests/c/rpc_bones_host.c` (built with the
//! `cc` crate, linked to this build's library) reports a walker's bones
//! with `carla_rpc_set_walker_bones` and reads a client's `set_bones`,
//! `blend_pose` and `get_pose_from_animation` from its requests
//! (`carla_rpc_request_bone`), while the Rust RPC client calls them as the
//! 0.9.16 client does. On Windows the host is compiled with mingw-w64
//! beforehand.
#![cfg(any(target_os = "linux", windows))]

use crate::common;

use carla_server::client::{RpcClient, RpcError};
use common::chost::{build, Host};
use rmpv::Value;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(10);
const NULL_ARGUMENT: &str = "-1";
const INVALID_ARGUMENT: &str = "-2";

/// The host's next stdout line, which must start with `word`; the rest.
fn next_with(host: &Host, word: &str) -> String {
    let line = host.next_line();
    line.strip_prefix(word)
        .unwrap_or_else(|| panic!("expected `{word} ...` from the host, got {line:?}"))
        .trim()
        .to_owned()
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap_or_else(|| panic!("numbers: {v}"))
        .iter()
        .map(|x| x.as_f64().unwrap_or_else(|| panic!("a number: {x}")))
        .collect()
}

/// `[[location], [rotation]]` as six numbers.
fn transform(v: &Value) -> Vec<f64> {
    let t = v.as_array().expect("a transform");
    assert_eq!(t.len(), 2, "{v}");
    [numbers(&t[0]), numbers(&t[1])].concat()
}

fn wire_transform(x: [f32; 6]) -> Value {
    let v = |a: &[f32]| Value::Array(a.iter().map(|f| Value::F32(*f)).collect());
    Value::Array(vec![v(&x[..3]), v(&x[3..])])
}

fn failed(r: Result<Value, RpcError>) -> String {
    match r {
        Err(RpcError::Failed(m)) => m,
        other => panic!("expected a failed Response, got {other:?}"),
    }
}

#[test]
fn walker_bones_poses_and_bad_reports_from_c() {
    let exe = build("rpc_bones_host.c", "rpc_bones_host", None);
    let mut host = Host::spawn(&exe, &[]);
    let line = host.next_line();
    host.assert_loaded_library();
    let port: u16 = line
        .strip_prefix("RPC ")
        .and_then(|p| p.trim().parse().ok())
        .unwrap_or_else(|| panic!("{line:?}"));
    let mut rpc = RpcClient::connect(("127.0.0.1", port), TIMEOUT).expect("connect");

    // get_bones: asked of the host, which reports from C after its bad
    // reports were refused (too many, NULL, no NUL, empty name, NaN, a
    // vehicle, an unknown id).
    let out = rpc
        .call("get_bones_transform", &[600u32.into()])
        .expect("get_bones_transform");
    let refused = format!("{NULL_ARGUMENT} {}", [INVALID_ARGUMENT; 5].join(" "));
    assert_eq!(
        next_with(&host, "BONES"),
        format!("600 {INVALID_ARGUMENT} {refused}")
    );
    let fields = out.as_array().expect("WalkerBoneControlOut");
    assert_eq!(fields.len(), 1, "{out}");
    let bones = fields[0].as_array().expect("bones");
    assert_eq!(bones.len(), 2, "{out}");
    for (b, (name, k)) in bones.iter().zip([("crl_root", 1.0), ("crl_hips__C", 2.0)]) {
        let b = b.as_array().expect("BoneTransformDataOut");
        assert_eq!(b.len(), 4);
        assert_eq!(b[0].as_str(), Some(name));
        assert_eq!(transform(&b[1]), [10.0 * k, 20.0, 1.0, 0.0, 90.0, 0.0]);
        assert_eq!(transform(&b[2]), [0.0, 0.0, k, 0.0, 0.0, 0.0]);
        assert_eq!(transform(&b[3]), [0.0, 0.0, 0.5 * k, -90.0, 0.0, 90.0]);
    }

    // A host that answers without a report: a clear error.
    let m = failed(rpc.call("get_bones_transform", &[601u32.into()]));
    assert!(m.contains("walker 601 has no skeleton"), "{m}");
    assert_eq!(next_with(&host, "NOBONES"), "601");
    // Not a walker, not an actor: refused before the host is asked.
    let m = failed(rpc.call("get_bones_transform", &[500u32.into()]));
    assert!(m.contains("not a walker"), "{m}");
    let m = failed(rpc.call("get_bones_transform", &[9999u32.into()]));
    assert!(m.contains("9999"), "{m}");

    // set_bones: the host reads each bone's name and relative transform.
    let control = Value::Array(vec![Value::Array(vec![
        Value::Array(vec![
            "crl_root".into(),
            wire_transform([0.0, 0.0, 1.0, 0.0, 45.0, 0.0]),
        ]),
        Value::Array(vec![
            "crl_arm__L".into(),
            wire_transform([0.25, -0.5, 0.0, 10.0, 0.0, -30.0]),
        ]),
    ])]);
    rpc.call("set_bones_transform", &[600u32.into(), control])
        .expect("set_bones_transform");
    assert_eq!(
        next_with(&host, "SET"),
        format!(
            "600 2 crl_root 0 0 1 0 45 0 crl_arm__L 0.25 -0.5 0 10 0 -30 | {INVALID_ARGUMENT} {NULL_ARGUMENT}"
        )
    );
    // blend_pose (show_pose and hide_pose are 1 and 0), held to 0..=1.
    for (blend, seen) in [(0.25f32, "0.25"), (1.0, "1"), (0.0, "0"), (3.0, "1")] {
        rpc.call("blend_pose", &[600u32.into(), Value::F32(blend)])
            .expect("blend_pose");
        assert_eq!(
            next_with(&host, "BLEND"),
            format!("600 {seen} {INVALID_ARGUMENT}")
        );
    }
    rpc.call("get_pose_from_animation", &[601u32.into()])
        .expect("get_pose_from_animation");
    assert_eq!(next_with(&host, "POSE"), "601");

    // Bad calls never reach the host: each is refused by name, and the
    // next good one is the host's next line.
    let long = "n".repeat(100_000);
    let bad: Vec<(&str, Vec<Value>, &str)> = vec![
        (
            "set_bones_transform",
            vec![500u32.into(), Value::Array(vec![Value::Array(vec![])])],
            "not a walker",
        ),
        (
            "set_bones_transform",
            vec![
                600u32.into(),
                Value::Array(vec![Value::Array(vec![
                    Value::Array(vec![
                        "b".into(),
                        wire_transform([0.0; 6])
                    ]);
                    257
                ])]),
            ],
            "257 bones",
        ),
        (
            "set_bones_transform",
            vec![
                600u32.into(),
                Value::Array(vec![Value::Array(vec![Value::Array(vec![
                    long.as_str().into(),
                    wire_transform([0.0; 6]),
                ])])]),
            ],
            "100000 bytes",
        ),
        (
            "set_bones_transform",
            vec![
                600u32.into(),
                Value::Array(vec![Value::Array(vec![Value::Array(vec![
                    "b".into(),
                    wire_transform([0.0, f32::NAN, 0.0, 0.0, 0.0, 0.0]),
                ])])]),
            ],
            "not finite",
        ),
        (
            "set_bones_transform",
            vec![600u32.into(), 7.into()],
            "set_bones",
        ),
        (
            "blend_pose",
            vec![600u32.into(), Value::F32(f32::NAN)],
            "not finite",
        ),
        (
            "blend_pose",
            vec![600u32.into(), "x".into()],
            "not a number",
        ),
        (
            "blend_pose",
            vec![500u32.into(), Value::F32(0.5)],
            "not a walker",
        ),
        ("get_pose_from_animation", vec![9999u32.into()], "9999"),
    ];
    for (method, args, want) in bad {
        let m = failed(rpc.call(method, &args));
        assert!(m.contains(want), "{method}: {m:?} should say {want:?}");
        assert!(m.len() < 300, "{method}: the error repeats the input");
    }
    rpc.call("get_pose_from_animation", &[600u32.into()])
        .expect("get_pose_from_animation");
    assert_eq!(next_with(&host, "POSE"), "600");

    drop(rpc);
    host.close_stdin();
    let output = host.finish();
    assert!(output.contains("DONE"), "{output}");
}
