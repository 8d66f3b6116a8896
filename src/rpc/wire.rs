//! msgpack shapes of the 0.9.16 client: the rpclib response, CARLA's
//! `Response<T>` envelope, and the structs (`MSGPACK_DEFINE_ARRAY` order).
//! Encoding writes straight into a byte vector with `rmp`; requests are
//! decoded into `rmpv::Value`s by the endpoint and read with [`Args`].

use super::error::RpcError;
use crate::episode::{ActorBox, EpisodeSettings, VehicleControl09, Weather};
use crate::types::{ActorTransform, CBool, Rotation3D, Vector3D};
use rmp::encode as enc;
use rmpv::Value;

// Writes into a Vec<u8> cannot fail; rmp's Result is discarded there.
pub(crate) fn array(out: &mut Vec<u8>, len: usize) {
    let _ = enc::write_array_len(out, len as u32);
}
pub(crate) fn uint(out: &mut Vec<u8>, v: u64) {
    let _ = enc::write_uint(out, v);
}
pub(crate) fn int(out: &mut Vec<u8>, v: i64) {
    let _ = enc::write_sint(out, v);
}
pub(crate) fn f32v(out: &mut Vec<u8>, v: f32) {
    let _ = enc::write_f32(out, v);
}
/// Each of `values` in turn (no array header).
pub(crate) fn f32s(out: &mut Vec<u8>, values: &[f32]) {
    for &v in values {
        f32v(out, v);
    }
}
pub(crate) fn f64v(out: &mut Vec<u8>, v: f64) {
    let _ = enc::write_f64(out, v);
}
pub(crate) fn boolean(out: &mut Vec<u8>, v: bool) {
    let _ = enc::write_bool(out, v);
}
pub(crate) fn string(out: &mut Vec<u8>, v: &str) {
    let _ = enc::write_str(out, v);
}
pub(crate) fn bin(out: &mut Vec<u8>, v: &[u8]) {
    let _ = enc::write_bin(out, v);
}
pub(crate) fn nil(out: &mut Vec<u8>) {
    let _ = enc::write_nil(out);
}

/// `[1, msgid, nil, ` — the caller writes the result next.
pub(crate) fn reply_head(out: &mut Vec<u8>, msgid: u32) {
    array(out, 4);
    uint(out, 1);
    uint(out, msgid.into());
    nil(out);
}

/// `[1, msgid, error, nil]`: an rpclib-level error (the client raises
/// "rpc::rpc_error during call in function <name>").
pub(crate) fn rpc_error(out: &mut Vec<u8>, msgid: u32, message: &str) {
    array(out, 4);
    uint(out, 1);
    uint(out, msgid.into());
    string(out, message);
    nil(out);
}

/// Start of a successful `Response<T>`: `[[1, ` — the value follows.
pub(crate) fn ok_head(out: &mut Vec<u8>) {
    array(out, 1);
    array(out, 2);
    uint(out, 1);
}

/// A failed `Response<T>`: `[[0, [message]]]` (Python `RuntimeError`).
pub(crate) fn failed(out: &mut Vec<u8>, message: &str) {
    array(out, 1);
    array(out, 2);
    uint(out, 0);
    array(out, 1);
    string(out, message);
}

/// A successful `Response<void>`: `[[false]]`.
pub(crate) fn void_ok(out: &mut Vec<u8>) {
    array(out, 1);
    array(out, 1);
    boolean(out, false);
}

/// A failed `Response<void>`: `[[true, [message]]]`.
pub(crate) fn void_failed(out: &mut Vec<u8>, message: &str) {
    array(out, 1);
    array(out, 2);
    boolean(out, true);
    array(out, 1);
    string(out, message);
}

pub(crate) fn vector(out: &mut Vec<u8>, v: Vector3D) {
    array(out, 3);
    f32v(out, v.x);
    f32v(out, v.y);
    f32v(out, v.z);
}

pub(crate) fn transform(out: &mut Vec<u8>, t: &ActorTransform) {
    array(out, 2);
    vector(out, t.location);
    let r = t.rotation;
    array(out, 3);
    f32v(out, r.pitch);
    f32v(out, r.yaw);
    f32v(out, r.roll);
}

/// `[location, extent, rotation, actor_id]` (4 fields in 0.9.16).
pub(crate) fn bounding_box(out: &mut Vec<u8>, b: &ActorBox, actor: u32) {
    array(out, 4);
    vector(out, b.location);
    vector(out, b.extent);
    vector(out, Vector3D::default());
    uint(out, actor.into());
}

/// `[[bin24]]`-style `streaming::Token`: a one-element array of the bytes.
pub(crate) fn token(out: &mut Vec<u8>, t: &[u8]) {
    array(out, 1);
    bin(out, t);
}

/// The 11-field `EpisodeSettings`.
pub(crate) fn settings(out: &mut Vec<u8>, s: &EpisodeSettings) {
    array(out, 11);
    boolean(out, s.synchronous_mode.get());
    boolean(out, s.no_rendering_mode.get());
    match s.fixed_delta() {
        Some(dt) => {
            array(out, 2);
            boolean(out, true);
            f64v(out, dt);
        }
        None => {
            array(out, 1);
            boolean(out, false);
        }
    }
    boolean(out, s.substepping.get());
    f64v(out, s.max_substep_delta_time);
    int(out, s.max_substeps.into());
    f32v(out, s.max_culling_distance);
    boolean(out, s.deterministic_ragdolls.get());
    f32v(out, s.tile_stream_distance);
    f32v(out, s.actor_active_distance);
    boolean(out, s.spectator_as_ego.get());
}

pub(crate) fn weather(out: &mut Vec<u8>, w: &Weather) {
    array(out, w.len());
    for v in w {
        f32v(out, *v);
    }
}

// ------------------------------------------------------------ structs --

/// `Response<uint64_t>` that succeeded.
pub(crate) fn ok_uint(out: &mut Vec<u8>, v: u64) {
    ok_head(out);
    uint(out, v);
}

/// `Response<std::string>` that succeeded.
pub(crate) fn ok_string(out: &mut Vec<u8>, v: &str) {
    ok_head(out);
    string(out, v);
}

/// `rpc::EpisodeInfo`: `[episode id, world-observer token]`.
pub(crate) fn episode_info(out: &mut Vec<u8>, episode_id: u64, observer: &[u8]) {
    array(out, 2);
    uint(out, episode_id);
    token(out, observer);
}

/// `rpc::MapInfo`: `[name, [spawn point transform …]]`.
pub(crate) fn map_info(out: &mut Vec<u8>, name: &str, spawn_points: &[ActorTransform]) {
    array(out, 2);
    string(out, name);
    array(out, spawn_points.len());
    for t in spawn_points {
        transform(out, t);
    }
}

/// An `apply_batch_sync` reply: `[Response<actor id> …]`.
pub(crate) fn batch_results(out: &mut Vec<u8>, results: &[ArgResult<u32>]) {
    array(out, results.len());
    for r in results {
        match r {
            Ok(id) => ok_uint(out, (*id).into()),
            Err(e) => failed(out, &e.to_string()),
        }
    }
}

/// A call's result: its value, or why it failed.
pub(crate) type ArgResult<T> = Result<T, RpcError>;

/// An argument of the wrong shape or value, `text` naming it.
fn bad(text: String) -> RpcError {
    RpcError::Argument(text)
}

/// Typed reading of one request's values; errors name what was expected.
pub(crate) fn as_u32(v: &Value, what: &str) -> ArgResult<u32> {
    v.as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| {
            bad(format!(
                "{what}: expected an unsigned 32-bit integer, got {v}"
            ))
        })
}

pub(crate) fn as_f64(v: &Value, what: &str) -> ArgResult<f64> {
    match v {
        Value::F32(f) => Ok(f64::from(*f)),
        Value::F64(f) => Ok(*f),
        Value::Integer(i) => i.as_f64().ok_or_else(|| bad(format!("{what}: bad number"))),
        _ => Err(bad(format!("{what}: expected a number, got {v}"))),
    }
}

pub(crate) fn as_f32(v: &Value, what: &str) -> ArgResult<f32> {
    as_f64(v, what).map(|f| f as f32)
}

pub(crate) fn as_bool(v: &Value, what: &str) -> ArgResult<bool> {
    v.as_bool()
        .ok_or_else(|| bad(format!("{what}: expected a boolean, got {v}")))
}

pub(crate) fn as_str<'a>(v: &'a Value, what: &str) -> ArgResult<&'a str> {
    v.as_str()
        .ok_or_else(|| bad(format!("{what}: expected a string, got {v}")))
}

pub(crate) fn as_array<'a>(v: &'a Value, what: &str) -> ArgResult<&'a [Value]> {
    v.as_array()
        .map(Vec::as_slice)
        .ok_or_else(|| bad(format!("{what}: expected an array, got {v}")))
}

/// Field `i` of a struct array, or `None` past its end (msgpack-c leaves
/// missing trailing fields at their defaults).
fn field(fields: &[Value], i: usize) -> Option<&Value> {
    fields.get(i)
}

pub(crate) fn as_vector(v: &Value, what: &str) -> ArgResult<Vector3D> {
    let f = as_array(v, what)?;
    let c = |i| field(f, i).map_or(Ok(0.0), |x| as_f32(x, what));
    Ok(Vector3D {
        x: c(0)?,
        y: c(1)?,
        z: c(2)?,
    })
}

pub(crate) fn as_transform(v: &Value, what: &str) -> ArgResult<ActorTransform> {
    let f = as_array(v, what)?;
    let location = field(f, 0).map_or(Ok(Vector3D::default()), |x| as_vector(x, what))?;
    let r = field(f, 1).map_or(Ok(Vector3D::default()), |x| as_vector(x, what))?;
    Ok(ActorTransform {
        location,
        rotation: Rotation3D {
            pitch: r.x,
            yaw: r.y,
            roll: r.z,
        },
    })
}

/// `[throttle, steer, brake, hand_brake, reverse, manual_gear_shift, gear]`.
pub(crate) fn as_vehicle_control(v: &Value, what: &str) -> ArgResult<VehicleControl09> {
    let f = as_array(v, what)?;
    let float = |i| field(f, i).map_or(Ok(0.0), |x| as_f32(x, what));
    let flag = |i| field(f, i).map_or(Ok(false), |x| as_bool(x, what));
    Ok(VehicleControl09 {
        throttle: float(0)?,
        steer: float(1)?,
        brake: float(2)?,
        hand_brake: CBool::from(flag(3)?),
        reverse: CBool::from(flag(4)?),
        manual_gear_shift: CBool::from(flag(5)?),
        gear: match field(f, 6) {
            None => 0,
            Some(g) => g
                .as_i64()
                .and_then(|g| i32::try_from(g).ok())
                .ok_or_else(|| bad(format!("{what}: gear must be an integer")))?,
        },
    })
}

pub(crate) fn as_settings(v: &Value) -> ArgResult<EpisodeSettings> {
    let what = "settings";
    let f = as_array(v, what)?;
    let d = EpisodeSettings::default();
    let flag = |i, def: CBool| field(f, i).map_or(Ok(def), |x| as_bool(x, what).map(CBool::from));
    let (has_fixed, fixed) = match field(f, 2) {
        None => (false, 0.0),
        Some(o) => {
            let o = as_array(o, "fixed_delta_seconds")?;
            match (
                o.first().map(|x| as_bool(x, "fixed_delta_seconds")),
                o.get(1),
            ) {
                (Some(Ok(true)), Some(dt)) => (true, as_f64(dt, "fixed_delta_seconds")?),
                (Some(Ok(false)), _) | (None, _) => (false, 0.0),
                _ => {
                    return Err(bad(
                        "fixed_delta_seconds: expected [false] or [true, seconds]".into(),
                    ))
                }
            }
        }
    };
    if has_fixed && !(fixed.is_finite() && fixed > 0.0 && fixed <= 10.0) {
        return Err(bad(format!(
            "fixed_delta_seconds must be in (0, 10] seconds, got {fixed}"
        )));
    }
    Ok(EpisodeSettings {
        synchronous_mode: flag(0, d.synchronous_mode)?,
        no_rendering_mode: flag(1, d.no_rendering_mode)?,
        has_fixed_delta: CBool::from(has_fixed),
        fixed_delta_seconds: fixed,
        substepping: flag(3, d.substepping)?,
        max_substep_delta_time: field(f, 4)
            .map_or(Ok(d.max_substep_delta_time), |x| as_f64(x, what))?,
        max_substeps: match field(f, 5) {
            None => d.max_substeps,
            Some(x) => x
                .as_i64()
                .and_then(|n| i32::try_from(n).ok())
                .ok_or_else(|| bad("max_substeps: expected an integer".into()))?,
        },
        max_culling_distance: field(f, 6)
            .map_or(Ok(d.max_culling_distance), |x| as_f32(x, what))?,
        deterministic_ragdolls: flag(7, d.deterministic_ragdolls)?,
        tile_stream_distance: field(f, 8)
            .map_or(Ok(d.tile_stream_distance), |x| as_f32(x, what))?,
        actor_active_distance: field(f, 9)
            .map_or(Ok(d.actor_active_distance), |x| as_f32(x, what))?,
        spectator_as_ego: flag(10, d.spectator_as_ego)?,
    })
}

pub(crate) fn as_weather(v: &Value) -> ArgResult<Weather> {
    let f = as_array(v, "weather")?;
    let mut w = crate::episode::DEFAULT_WEATHER;
    for (slot, x) in w.iter_mut().zip(f) {
        *slot = as_f32(x, "weather")?;
    }
    Ok(w)
}

/// A `Response<void>` method: runs `run` and writes `[[false]]`, or
/// `[[true, [message]]]` with its error (logged).
pub(super) fn void(out: &mut Vec<u8>, run: impl FnOnce() -> ArgResult<()>) {
    match run() {
        Ok(()) => void_ok(out),
        Err(e) => {
            crate::log_info!("rpc: call failed: {}", e);
            void_failed(out, &e.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::hex;

    #[test]
    fn golden_version_reply_of_the_spec() {
        let mut out = Vec::new();
        reply_head(&mut out, 1);
        ok_head(&mut out);
        string(&mut out, "0.9.16");
        assert_eq!(out, hex("94 01 01 c0 91 92 01 a6 30 2e 39 2e 31 36"));
    }

    #[test]
    fn golden_envelopes() {
        let mut out = Vec::new();
        failed(&mut out, "no");
        assert_eq!(out, hex("91 92 00 91 a2 6e 6f"));
        out.clear();
        void_ok(&mut out);
        assert_eq!(out, hex("91 91 c2"));
        out.clear();
        void_failed(&mut out, "no");
        assert_eq!(out, hex("91 92 c3 91 a2 6e 6f"));
        out.clear();
        rpc_error(&mut out, 9, "x");
        assert_eq!(out, hex("94 01 09 a1 78 c0"));
        out.clear();
        token(&mut out, &[7; 24]);
        let mut t = hex("91 c4 18");
        t.extend([7; 24]);
        assert_eq!(out, t);
    }

    #[test]
    fn settings_round_trip_and_defaults_for_short_arrays() {
        let s = EpisodeSettings {
            synchronous_mode: CBool::TRUE,
            has_fixed_delta: CBool::TRUE,
            fixed_delta_seconds: 0.05,
            max_substeps: 16,
            ..Default::default()
        };
        let mut out = Vec::new();
        settings(&mut out, &s);
        // [true, false, [true, 0.05], true, 0.01, 16, 0.0, true, 3000, 2000, true]
        assert_eq!(&out[..4], &hex("9b c3 c2 92"));
        let v = rmpv::decode::read_value(&mut out.as_slice()).unwrap();
        assert_eq!(as_settings(&v).unwrap(), s);
        let short = Value::Array(vec![Value::Boolean(true)]);
        let parsed = as_settings(&short).unwrap();
        assert!(parsed.synchronous_mode.get() && parsed.fixed_delta().is_none());
        let bad = Value::Array(vec![Value::from(1)]);
        assert!(as_settings(&bad)
            .unwrap_err()
            .to_string()
            .contains("expected a boolean"));
        let neg = Value::Array(vec![
            Value::Boolean(true),
            Value::Boolean(false),
            Value::Array(vec![Value::Boolean(true), Value::F64(-1.0)]),
        ]);
        assert!(as_settings(&neg)
            .unwrap_err()
            .to_string()
            .contains("(0, 10]"));
    }
}
