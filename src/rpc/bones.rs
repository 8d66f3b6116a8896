//! A walker's skeleton on the wire: the answer of `get_bones_transform` (a
//! client's `walker.get_bones()`, which `part_calls` asks of the host), and
//! `set_bones_transform`, `blend_pose` (`show_pose`, `hide_pose`) and
//! `get_pose_from_animation`, decoded here into actor commands the host
//! carries out.
//!
//! What a client sends is checked before anything is kept: at most
//! [`CARLA_MAX_BONES`] bones, names of 1 to 31 bytes, finite numbers. The
//! message is already decoded (and bounded by the endpoint's message
//! size), so nothing here allocates more than the bones it keeps, and no
//! error text repeats what the client sent.

use super::error::bad_arg;
use super::wire::{self, ArgResult};
use crate::episode::{check_bone_name, BoneTransform, CARLA_MAX_BONES};
use crate::types::{ActorTransform, Rotation3D, Vector3D};
use rmpv::Value;

/// Why `bones` cannot be a report of a walker's skeleton, if it cannot.
pub(crate) fn check_report(bones: &[BoneTransform]) -> Result<(), String> {
    if bones.len() > CARLA_MAX_BONES as usize {
        return Err(format!(
            "a skeleton of {} bones (at most {CARLA_MAX_BONES})",
            bones.len()
        ));
    }
    for (i, b) in bones.iter().enumerate() {
        let name = b
            .name()
            .ok_or_else(|| format!("bone {i}: its name has no NUL or is not UTF-8"))?;
        check_bone_name(name).map_err(|e| format!("bone {i}: {e}"))?;
        if ![b.world, b.component, b.relative].iter().all(finite) {
            return Err(format!("bone {i} ({name}): a number is not finite"));
        }
    }
    Ok(())
}

fn finite(t: &ActorTransform) -> bool {
    let (l, r) = (t.location, t.rotation);
    [l.x, l.y, l.z, r.pitch, r.yaw, r.roll]
        .iter()
        .all(|v| v.is_finite())
}

/// `carla::rpc::WalkerBoneControlOut` as msgpack: `[[bone, ...]]`, each
/// bone `[name, world, component, relative]`.
pub(crate) fn encode(bones: &[BoneTransform], out: &mut Vec<u8>) {
    wire::array(out, 1);
    wire::array(out, bones.len());
    for b in bones {
        wire::array(out, 4);
        wire::string(out, b.name().unwrap_or(""));
        for t in [&b.world, &b.component, &b.relative] {
            wire::transform(out, t);
        }
    }
}

/// `carla::rpc::WalkerBoneControlIn`: `[[[name, transform], ...]]`, each
/// transform relative to the bone's parent.
pub(crate) fn decode_control(v: &Value) -> ArgResult<Vec<(String, ActorTransform)>> {
    const WHAT: &str = "set_bones";
    let fields = match v {
        Value::Array(f) if f.len() == 1 => f,
        _ => return Err(bad_arg!("{WHAT}: expected a WalkerBoneControlIn, [bones]")),
    };
    let Value::Array(list) = &fields[0] else {
        return Err(bad_arg!("{WHAT}: the bones are not a list"));
    };
    if list.len() > CARLA_MAX_BONES as usize {
        return Err(bad_arg!(
            "{WHAT}: {} bones (at most {CARLA_MAX_BONES})",
            list.len()
        ));
    }
    let mut bones = Vec::with_capacity(list.len());
    for (i, pair) in list.iter().enumerate() {
        let (name, transform) = match pair {
            Value::Array(p) if p.len() == 2 => (&p[0], &p[1]),
            _ => return Err(bad_arg!("{WHAT}: bone {i} is not [name, transform]")),
        };
        let name = name
            .as_str()
            .ok_or_else(|| format!("{WHAT}: bone {i}'s name is not a UTF-8 string"))?;
        check_bone_name(name).map_err(|e| format!("{WHAT}: bone {i}: {e}"))?;
        let t =
            strict_transform(transform).map_err(|e| format!("{WHAT}: bone {i} ({name}): {e}"))?;
        bones.push((name.to_owned(), t));
    }
    Ok(bones)
}

/// `blend_pose`'s blend: a finite number, held to 0..=1.
pub(crate) fn decode_blend(v: &Value) -> ArgResult<f32> {
    number(v)
        .map(|b| b.clamp(0.0, 1.0))
        .map_err(|e| bad_arg!("blend_pose: the blend is {e}"))
}

/// `[[x, y, z], [pitch, yaw, roll]]`, six finite numbers, nothing else.
fn strict_transform(v: &Value) -> ArgResult<ActorTransform> {
    let (l, r) = match v {
        Value::Array(f) if f.len() == 2 => (three(&f[0])?, three(&f[1])?),
        _ => return Err("the transform is not [location, rotation]".into()),
    };
    Ok(ActorTransform {
        location: Vector3D {
            x: l[0],
            y: l[1],
            z: l[2],
        },
        rotation: Rotation3D {
            pitch: r[0],
            yaw: r[1],
            roll: r[2],
        },
    })
}

fn three(v: &Value) -> ArgResult<[f32; 3]> {
    let f = match v {
        Value::Array(f) if f.len() == 3 => f,
        _ => return Err("a location or rotation is not three numbers".into()),
    };
    let n = |x| number(x).map_err(|e| format!("a coordinate is {e}"));
    Ok([n(&f[0])?, n(&f[1])?, n(&f[2])?])
}

/// A finite number (an integer or a float that fits an `f32`).
fn number(v: &Value) -> Result<f32, &'static str> {
    let x = match v {
        Value::F32(x) => *x,
        Value::F64(x) => *x as f32,
        Value::Integer(i) => i.as_f64().map_or(f32::NAN, |x| x as f32),
        _ => return Err("not a number"),
    };
    if x.is_finite() {
        Ok(x)
    } else {
        Err("not finite")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(x: f32, yaw: f32) -> ActorTransform {
        ActorTransform {
            location: Vector3D { x, y: 2.0, z: 3.0 },
            rotation: Rotation3D {
                pitch: 0.5,
                yaw,
                roll: -1.0,
            },
        }
    }

    fn tv(l: [f64; 3], r: [f64; 3]) -> Value {
        let v = |a: [f64; 3]| Value::Array(a.iter().map(|x| Value::F32(*x as f32)).collect());
        Value::Array(vec![v(l), v(r)])
    }

    fn control(bones: Vec<Value>) -> Value {
        Value::Array(vec![Value::Array(bones)])
    }

    fn bone(name: &str, t: Value) -> Value {
        Value::Array(vec![name.into(), t])
    }

    #[test]
    fn a_bone_keeps_its_name_and_refuses_bad_ones() {
        let b = BoneTransform::new("crl_hips__C", t(1.0, 2.0), t(3.0, 4.0), t(5.0, 6.0)).unwrap();
        assert_eq!(b.name(), Some("crl_hips__C"));
        assert_eq!((b.world.location.x, b.relative.rotation.yaw), (1.0, 6.0));
        let longest = "x".repeat(31);
        let d = ActorTransform::default();
        assert_eq!(
            BoneTransform::new(&longest, d, d, d).unwrap().name(),
            Some(longest.as_str())
        );
        for bad in ["", "a\0b", &"x".repeat(32)] {
            assert!(BoneTransform::new(bad, d, d, d).is_err(), "{bad:?}");
        }
        // A C host's name without a NUL, or not UTF-8.
        let mut raw = BoneTransform {
            name: [b'a' as std::ffi::c_char; 32],
            ..Default::default()
        };
        assert_eq!(raw.name(), None);
        raw.name[0] = 0xffu8 as std::ffi::c_char;
        raw.name[1] = 0;
        assert_eq!(raw.name(), None);
    }

    #[test]
    fn encodes_walker_bone_control_out_byte_for_byte() {
        let d = ActorTransform::default();
        let b = BoneTransform::new("ab", t(1.0, 90.0), d, d).unwrap();
        let mut out = Vec::new();
        encode(&[b], &mut out);
        // [ [ ["ab", [[1,2,3],[0.5,90,-1]], [[0,0,0],[0,0,0]], ...] ] ]
        let f = |x: f32| {
            let mut v = vec![0xca];
            v.extend_from_slice(&x.to_be_bytes());
            v
        };
        let transform = |t: &ActorTransform| {
            let mut v = vec![0x92, 0x93];
            for x in [t.location.x, t.location.y, t.location.z] {
                v.extend(f(x));
            }
            v.push(0x93);
            for x in [t.rotation.pitch, t.rotation.yaw, t.rotation.roll] {
                v.extend(f(x));
            }
            v
        };
        let mut want = vec![0x91, 0x91, 0x94, 0xa2, b'a', b'b'];
        want.extend(transform(&t(1.0, 90.0)));
        want.extend(transform(&d));
        want.extend(transform(&d));
        assert_eq!(out, want);
        let mut empty = Vec::new();
        encode(&[], &mut empty);
        assert_eq!(empty, [0x91, 0x90]);
    }

    #[test]
    fn decodes_walker_bone_control_in() {
        let v = control(vec![
            bone("crl_root", tv([1.0, 2.0, 3.0], [0.5, 90.0, -1.0])),
            bone(
                "crl_spine__C",
                Value::Array(vec![
                    Value::Array(vec![1.into(), 2.into(), 3.into()]),
                    Value::Array(vec![0.into(), Value::F64(-45.0), 0.into()]),
                ]),
            ),
        ]);
        let bones = decode_control(&v).unwrap();
        assert_eq!(bones.len(), 2);
        assert_eq!(bones[0], ("crl_root".to_owned(), t(1.0, 90.0)));
        assert_eq!(bones[1].0, "crl_spine__C");
        assert_eq!(bones[1].1.rotation.yaw, -45.0);
        assert_eq!(decode_control(&control(vec![])).unwrap(), vec![]);
    }

    #[test]
    fn refuses_bad_controls_by_name_without_repeating_them() {
        let good = || tv([0.0; 3], [0.0; 3]);
        let long = "n".repeat(1 << 20);
        let many = control((0..=CARLA_MAX_BONES).map(|_| bone("b", good())).collect());
        let cases: Vec<(Value, &str)> = vec![
            (Value::Nil, "WalkerBoneControlIn"),
            (Value::Array(vec![]), "WalkerBoneControlIn"),
            (
                Value::Array(vec![Value::Nil, Value::Nil]),
                "WalkerBoneControlIn",
            ),
            (Value::Array(vec![long.as_str().into()]), "not a list"),
            (many, "257 bones (at most 256)"),
            (control(vec![Value::Nil]), "bone 0 is not [name, transform]"),
            (control(vec![bone("", good())]), "empty name"),
            (
                control(vec![bone(&long, good())]),
                "1048576 bytes (at most 31)",
            ),
            (control(vec![bone(&"x".repeat(32), good())]), "32 bytes"),
            (control(vec![bone("a\0b", good())]), "NUL"),
            (
                control(vec![Value::Array(vec![7.into(), good()])]),
                "name is not a UTF-8 string",
            ),
            (
                control(vec![Value::Array(vec![
                    // A msgpack str of two bytes that are not UTF-8.
                    rmpv::decode::read_value(&mut &[0xa2u8, 0xff, 0xfe][..]).unwrap(),
                    good(),
                ])]),
                "name is not a UTF-8 string",
            ),
            (
                control(vec![bone("a", tv([f64::NAN, 0.0, 0.0], [0.0; 3]))]),
                "bone 0 (a): a coordinate is not finite",
            ),
            (
                control(vec![bone("a", tv([0.0; 3], [0.0, f64::INFINITY, 0.0]))]),
                "not finite",
            ),
            (
                control(vec![bone(
                    "a",
                    Value::Array(vec![
                        Value::Array(vec![Value::F64(1e300), 0.into(), 0.into()]),
                        Value::Array(vec![0.into(), 0.into(), 0.into()]),
                    ]),
                )]),
                "not finite",
            ),
            (
                control(vec![bone("a", Value::Array(vec![good()]))]),
                "not [location, rotation]",
            ),
            (
                control(vec![bone(
                    "a",
                    Value::Array(vec![Value::Array(vec![0.into(); 2]), Value::Nil]),
                )]),
                "not three numbers",
            ),
            (
                control(vec![bone(
                    "a",
                    Value::Array(vec![
                        Value::Array(vec!["x".into(), 0.into(), 0.into()]),
                        Value::Array(vec![0.into(); 3]),
                    ]),
                )]),
                "a coordinate is not a number",
            ),
        ];
        for (v, want) in cases {
            let e = decode_control(&v).unwrap_err().to_string();
            assert!(e.contains(want), "{e:?} should say {want:?}");
            assert!(
                e.len() < 200,
                "the error repeats the input: {} bytes",
                e.len()
            );
        }
    }

    #[test]
    fn a_blend_is_finite_and_held_to_zero_to_one() {
        assert_eq!(decode_blend(&Value::F32(0.25)), Ok(0.25));
        assert_eq!(decode_blend(&Value::F64(7.0)), Ok(1.0));
        assert_eq!(decode_blend(&Value::from(-3)), Ok(0.0));
        assert_eq!(decode_blend(&Value::from(1)), Ok(1.0));
        for bad in [
            Value::F32(f32::NAN),
            Value::F64(f64::NEG_INFINITY),
            Value::Nil,
            "1".into(),
        ] {
            let e = decode_blend(&bad).unwrap_err().to_string();
            assert!(e.starts_with("blend_pose: the blend is not"), "{e}");
        }
    }

    #[test]
    fn the_three_calls_are_walker_commands() {
        use crate::rpc::actor_commands::from_rpc;
        use crate::rpc::ActorCommand as C;
        let id = || Value::from(7u32);
        let set = control(vec![bone(
            "crl_root",
            tv([1.0, 2.0, 3.0], [0.5, 90.0, -1.0]),
        )]);
        let cases = [
            (
                from_rpc("set_bones_transform", &[id(), set]),
                C::SetBones(vec![("crl_root".into(), t(1.0, 90.0))]),
            ),
            (
                from_rpc("blend_pose", &[id(), Value::F32(0.5)]),
                C::BlendPose(0.5),
            ),
            (
                from_rpc("get_pose_from_animation", &[id()]),
                C::PoseFromAnimation,
            ),
        ];
        for (parsed, want) in cases {
            let (actor, command) = parsed.expect("an actor command").expect("decoded");
            assert_eq!((actor, &command), (7, &want));
            assert_eq!(command.applies_to(), Some("walker."));
            assert!(!command.name().is_empty());
        }
        let e = from_rpc("set_bones_transform", &[id(), Value::Nil])
            .unwrap()
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("set_bones:"), "{e}");
        let e = from_rpc("blend_pose", &[id(), Value::F64(f64::NAN)])
            .unwrap()
            .unwrap_err()
            .to_string();
        assert!(e.contains("not finite"), "{e}");
        let e = from_rpc("blend_pose", &["x".into(), Value::F32(1.0)])
            .unwrap()
            .unwrap_err()
            .to_string();
        assert!(e.contains("actor id"), "{e}");
    }

    #[test]
    fn reports_are_checked() {
        let d = ActorTransform::default();
        let ok = BoneTransform::new("a", d, d, d).unwrap();
        assert!(check_report(&[]).is_ok());
        assert!(check_report(&[ok; CARLA_MAX_BONES as usize]).is_ok());
        let e = check_report(&vec![ok; CARLA_MAX_BONES as usize + 1])
            .unwrap_err()
            .to_string();
        assert!(e.contains("257 bones"), "{e}");
        let mut nan = ok;
        nan.component.rotation.roll = f32::NAN;
        assert!(check_report(&[ok, nan]).unwrap_err().contains("bone 1 (a)"));
        let mut unnamed = ok;
        unnamed.name = [b'z' as std::ffi::c_char; 32];
        assert!(check_report(&[unnamed]).unwrap_err().contains("no NUL"));
        assert!(check_report(&[BoneTransform::default()])
            .unwrap_err()
            .to_string()
            .contains("empty name"));
    }
}
