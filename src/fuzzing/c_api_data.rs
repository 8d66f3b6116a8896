//! The `c_api` target's steps on the sensors a run created (or on ids it
//! never created): the queries, images by copy and zero-copy (acquire, fill,
//! commit or release, also after the sensor was destroyed), lidar ray plans
//! (every ray read back) and hits with out-of-range indices and non-finite
//! values, safe-distance boxes and actor ids, raw payloads; NULL in every
//! pointer position.

use super::c_api_model::{ptr_or_null, Kind, Run, MAX_IMAGES};
use super::codes::{self, Code};
use super::Input;
use crate::ffi::*;
use crate::sensor::ActorTransform;
use crate::types::CaptureContext;
use crate::types::{LidarHit, PlannedRay};
use crate::types::{Rotation3D, Vector3D};

/// The code a call on sensor `kind` gives once its pointers passed.
pub(super) fn on_sensor(kind: Option<Kind>, fits: impl Fn(Kind) -> bool) -> Code {
    match kind {
        None => codes::UNKNOWN_SENSOR,
        Some(k) if fits(k) => 0,
        Some(_) => codes::INVALID_ARGUMENT,
    }
}

pub(super) fn queries(server: CarlaServerPtr, input: &mut Input<'_>, run: &Run) {
    let (id, kind) = run.sensor(input);
    let null = input.bool();
    let mut out = 7u32;
    let out_ptr: *mut u32 = if null { std::ptr::null_mut() } else { &mut out };
    let found = on_sensor(kind, |_| true);
    let after_lookup = if found == 0 && null {
        codes::NULL_ARGUMENT
    } else {
        found
    };
    // SAFETY: live handle; output NULL or writable.
    unsafe {
        assert_eq!(
            carla_sensor_subscriber_count(server, id, out_ptr),
            after_lookup
        );
        if after_lookup == 0 {
            assert_eq!(out, 0, "nobody subscribes in this harness");
        }
        assert_eq!(carla_sensor_type_id(server, id, out_ptr), after_lookup);
        assert_eq!(
            carla_sensor_set_synchronous(server, id, input.u32() % 50),
            found
        );
        let mirrors = on_sensor(kind, |k| match k {
            Kind::Camera { mirrors, .. } => mirrors,
            k => matches!(k, Kind::Lidar { .. }),
        });
        assert_eq!(
            carla_sensor_mirror_to_legacy(server, id, input.u32()),
            mirrors
        );
    }
}

fn context(input: &mut Input<'_>) -> Option<CaptureContext> {
    (input.u8() != 0).then(|| CaptureContext {
        frame: u64::from(input.u32()),
        timestamp: f64::from(input.f32()),
        transform: ActorTransform {
            location: Vector3D {
                x: input.f32(),
                y: input.f32(),
                z: input.f32(),
            },
            rotation: Rotation3D {
                pitch: input.f32(),
                yaw: 0.0,
                roll: 0.0,
            },
        },
    })
}

fn ctx_ptr(ctx: &Option<CaptureContext>) -> *const CaptureContext {
    ctx.as_ref().map_or(std::ptr::null(), |c| c as *const _)
}

/// A buffer of `n` bytes (or NULL when `null` and allowed by the caller).
fn bytes_arg(input: &mut Input<'_>, n: usize) -> Option<Vec<u8>> {
    (!input.bool()).then(|| vec![input.u8(); n])
}

pub(super) fn send_image(server: CarlaServerPtr, input: &mut Input<'_>, run: &Run) {
    let (id, kind) = run.sensor(input);
    let ctx = context(input);
    let exact = match kind {
        Some(Kind::Camera {
            width,
            height,
            pixel_bytes,
            ..
        }) => (width * height * pixel_bytes) as usize,
        _ => 64,
    };
    let size = match input.u8() % 3 {
        0 => exact,
        1 => exact.saturating_sub(1 + usize::from(input.u8())),
        _ => exact + usize::from(input.u8()),
    };
    let pixels = bytes_arg(input, size);
    // SAFETY: NULL or `size` readable bytes.
    let code = unsafe {
        carla_sensor_send_image(
            server,
            id,
            ctx_ptr(&ctx),
            ptr_or_null(&pixels).cast(),
            size as u32,
        )
    };
    let want = if ctx.is_none() || (pixels.is_none() && size > 0) {
        codes::NULL_ARGUMENT
    } else {
        on_sensor(kind, |k| matches!(k, Kind::Camera { .. }) && size == exact)
    };
    assert_eq!(code, want, "send_image of {size} bytes to {kind:?}");
}

/// Acquire, fill, commit or release images (zero-copy path).
pub(super) fn images(server: CarlaServerPtr, input: &mut Input<'_>, run: &mut Run) {
    if input.bool() && !run.images.is_empty() {
        let (image, sensor) = run
            .images
            .swap_remove(usize::from(input.u8()) % run.images.len());
        if input.bool() {
            // SAFETY: acquired, not used afterwards.
            unsafe { carla_image_release(image) };
            return;
        }
        let ctx = context(input);
        let kind = run.sensors.iter().find(|s| s.id == sensor).map(|s| s.kind);
        // SAFETY: acquired, consumed by the call whatever it returns.
        let code = unsafe { carla_sensor_commit_image(server, image, ctx_ptr(&ctx)) };
        let want = if ctx.is_none() {
            codes::NULL_ARGUMENT
        } else {
            on_sensor(kind, |_| true)
        };
        assert_eq!(code, want, "commit");
        return;
    }
    let (id, kind) = run.sensor(input);
    let nulls = input.u8() % 8;
    let (mut image, mut pixels, mut size) = (std::ptr::null_mut(), std::ptr::null_mut(), 0u32);
    // SAFETY: each output NULL or writable.
    let code = unsafe {
        carla_sensor_acquire_image(
            server,
            id,
            if nulls & 1 == 1 {
                std::ptr::null_mut()
            } else {
                &mut image
            },
            if nulls & 2 == 2 {
                std::ptr::null_mut()
            } else {
                &mut pixels
            },
            if nulls & 4 == 4 {
                std::ptr::null_mut()
            } else {
                &mut size
            },
        )
    };
    if nulls != 0 {
        assert_eq!(code, codes::NULL_ARGUMENT);
        return;
    }
    assert_eq!(code, on_sensor(kind, |k| matches!(k, Kind::Camera { .. })));
    if let (
        0,
        Some(Kind::Camera {
            width,
            height,
            pixel_bytes,
            ..
        }),
    ) = (code, kind)
    {
        assert_eq!(size, width * height * pixel_bytes);
        // SAFETY: the library hands out `size` writable bytes until commit.
        unsafe { std::ptr::write_bytes(pixels as *mut u8, input.u8(), size as usize) };
        run.images.push((image, id));
        if run.images.len() > MAX_IMAGES {
            let (oldest, _) = run.images.remove(0);
            // SAFETY: acquired, not used afterwards.
            unsafe { carla_image_release(oldest) };
        }
    }
}

pub(super) fn lidar(server: CarlaServerPtr, input: &mut Input<'_>, run: &mut Run) {
    let (id, kind) = run.sensor(input);
    if input.bool() {
        let dt = input.f32();
        let dt = if dt.is_finite() {
            dt.clamp(-2.0, 2.0)
        } else {
            dt
        };
        let (mut rays, mut count): (*const PlannedRay, u32) = (std::ptr::null(), 0);
        // SAFETY: writable outputs.
        let code = unsafe { carla_lidar_plan(server, id, dt, &mut rays, &mut count) };
        assert_eq!(code, on_sensor(kind, |k| matches!(k, Kind::Lidar { .. })));
        if code == 0 {
            // SAFETY: the library hands out `count` rays, valid until the next plan.
            let planned = unsafe { std::slice::from_raw_parts(rays, count as usize) };
            for ray in planned {
                let d = ray.direction;
                let norm = (d.x * d.x + d.y * d.y + d.z * d.z).sqrt();
                assert!((norm - 1.0).abs() < 1e-3, "ray direction {d:?}");
            }
            let s = run.sensors.iter_mut().find(|s| s.id == id).expect("live");
            s.kind = Kind::Lidar { rays: count };
        }
        return;
    }
    let ctx = context(input);
    let rays = match kind {
        Some(Kind::Lidar { rays }) => rays,
        _ => 0,
    };
    let n = usize::from(input.u8() % 48);
    let hits: Vec<LidarHit> = (0..n)
        .map(|_| LidarHit {
            ray_index: match input.u8() % 4 {
                0 => input.u32(),
                _ => u32::from(input.u16()) % rays.max(1),
            },
            hit: u32::from(input.u8() % 3),
            distance_m: input.f32(),
            point_sensor: Vector3D {
                x: input.f32(),
                y: input.f32(),
                z: input.f32(),
            },
            normal_sensor: Vector3D {
                x: input.f32(),
                y: 0.0,
                z: 1.0,
            },
            actor_id: input.u32(),
            ..Default::default()
        })
        .collect();
    let null = input.bool() && n > 0;
    // SAFETY: NULL or `n` readable hits.
    let code = unsafe {
        carla_lidar_send_hits(
            server,
            id,
            ctx_ptr(&ctx),
            if null {
                std::ptr::null()
            } else {
                hits.as_ptr()
            },
            n as u32,
        )
    };
    if ctx.is_none() || null {
        assert_eq!(code, codes::NULL_ARGUMENT);
    } else if kind.is_some_and(|k| matches!(k, Kind::Lidar { .. })) {
        assert!(code == 0 || code == codes::INVALID_ARGUMENT, "hits: {code}");
    } else {
        assert_eq!(code, on_sensor(kind, |_| false));
    }
}

pub(super) fn safe_distance(server: CarlaServerPtr, input: &mut Input<'_>, run: &Run) {
    let (id, kind) = run.sensor(input);
    let is_safe = |k: Kind| k == Kind::SafeDistance;
    if input.bool() {
        let owner = Vector3D {
            x: input.f32(),
            y: input.f32(),
            z: input.f32(),
        };
        let (mut centre, mut extent) = (Vector3D::default(), Vector3D::default());
        let null = input.bool();
        // SAFETY: writable outputs or NULL.
        let code = unsafe {
            carla_safe_distance_box(
                server,
                id,
                owner,
                if null {
                    std::ptr::null_mut()
                } else {
                    &mut centre
                },
                &mut extent,
            )
        };
        let want = if null {
            codes::NULL_ARGUMENT
        } else {
            on_sensor(kind, is_safe)
        };
        assert_eq!(code, want);
        return;
    }
    let ctx = context(input);
    let ids: Vec<u32> = (0..input.u8() % 32).map(|_| input.u32() % 8).collect();
    let null = input.bool() && !ids.is_empty();
    // SAFETY: NULL or `len` readable ids.
    let code = unsafe {
        carla_sensor_send_actor_ids(
            server,
            id,
            ctx_ptr(&ctx),
            input.u32() % 8,
            if null { std::ptr::null() } else { ids.as_ptr() },
            ids.len() as u32,
        )
    };
    let want = if ctx.is_none() || null {
        codes::NULL_ARGUMENT
    } else {
        on_sensor(kind, is_safe)
    };
    assert_eq!(code, want);
}

pub(super) fn send_raw(server: CarlaServerPtr, input: &mut Input<'_>, run: &Run) {
    let (id, kind) = run.sensor(input);
    let ctx = context(input);
    let size = usize::from(input.u16() % 4096);
    let bytes = bytes_arg(input, size);
    // SAFETY: NULL or `size` readable bytes.
    let code = unsafe {
        carla_sensor_send_raw(
            server,
            id,
            ctx_ptr(&ctx),
            ptr_or_null(&bytes).cast(),
            size as u32,
        )
    };
    let want = if ctx.is_none() || (bytes.is_none() && size > 0) {
        codes::NULL_ARGUMENT
    } else {
        on_sensor(kind, |_| true)
    };
    assert_eq!(code, want);
}
