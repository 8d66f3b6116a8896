//! The `c_api` target's other steps: the settings functions (checked
//! against the Rust parser), the 0.8 functions on a server that was never
//! connected (every pointer combination, any time-out: each must return at
//! once with the documented code), the log callback, and every export
//! called with a NULL handle.

use super::c_api_model::{c_text, check_text, error_buffer, ptr_or_null, text_code, Run, Settings};
use super::codes::{self, Code};
use super::Input;
use crate::ffi::*;
use crate::legacy::settings::{self, SensorSettings};
use crate::sensor::blueprint;
use crate::types::{ActorTransform, CaptureContext};
use crate::types::{Agent, CBool, Control, PlayerMeasurements, Transform};
use std::ffi::{c_char, c_void, CStr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

const MAX_SETTINGS: usize = 4;

pub(super) fn free_settings(s: Settings) {
    // SAFETY: from carla_settings_parse*, not used afterwards.
    unsafe { carla_settings_free(s.ptr) };
}

/// A server that is never connected.
fn idle() -> CarlaServerPtr {
    static IDLE: OnceLock<usize> = OnceLock::new();
    *IDLE.get_or_init(|| carla_make_server() as usize) as CarlaServerPtr
}

pub(super) fn settings_step(input: &mut Input<'_>, run: &mut Run) {
    match input.u8() % 4 {
        0 => parse(input, run),
        1 if !run.settings.is_empty() => {
            let k = usize::from(input.u8()) % run.settings.len();
            getters(input, &run.settings[k]);
        }
        2 if !run.settings.is_empty() => {
            let k = usize::from(input.u8()) % run.settings.len();
            free_settings(run.settings.swap_remove(k));
        }
        _ => definitions(input),
    }
}

fn parse(input: &mut Input<'_>, run: &mut Run) {
    let flags = input.u8();
    let previous = match run.settings.len() {
        0 => None,
        n => run.settings.get(usize::from(input.u8()) % (n + 1)),
    };
    let text = input.chunk(700);
    let length = match flags & 3 {
        0 => text.len().saturating_sub(usize::from(input.u8())),
        _ => text.len(),
    };
    let ini = (flags & 4 == 0).then_some(text);
    let out_null = flags & 8 == 8;
    let mut out: CarlaSettingsPtr = 1usize as CarlaSettingsPtr;
    let mut error = error_buffer(input);
    let (err_ptr, err_size) = error.as_mut().map_or((std::ptr::null_mut(), 0), |e| {
        (e.as_mut_ptr(), e.len() as u32)
    });
    let ini_ptr = ini.map_or(std::ptr::null(), |t| t.as_ptr().cast());
    let out_ptr = if out_null {
        std::ptr::null_mut()
    } else {
        &mut out
    };
    // SAFETY: `ini` NULL or `length` readable bytes, outputs NULL or
    // writable, `previous` NULL or live.
    let code = unsafe {
        match previous {
            Some(p) if flags & 16 == 0 => carla_settings_parse_over(
                p.ptr,
                ini_ptr,
                length as u32,
                out_ptr,
                err_ptr.cast(),
                err_size,
            ),
            _ => carla_settings_parse(ini_ptr, length as u32, out_ptr, err_ptr.cast(), err_size),
        }
    };
    let previous = previous.filter(|_| flags & 16 == 0);
    if out_null || (ini.is_none() && length > 0) {
        assert_eq!(code, codes::NULL_ARGUMENT);
        return;
    }
    let bytes = &text[..length];
    let bytes = bytes.split(|&b| b == 0).next().unwrap_or_default();
    let Ok(text) = std::str::from_utf8(bytes) else {
        assert_eq!((code, out), (codes::INVALID_ARGUMENT, std::ptr::null_mut()));
        return;
    };
    let defaults = settings::Settings::default();
    let base = previous.map_or(&defaults, |p| &p.rust);
    match settings::parse(text, base) {
        Err(e) => {
            assert_eq!((code, out), (codes::INVALID_ARGUMENT, std::ptr::null_mut()));
            check_text(&error, &e.to_string());
        }
        Ok(rust) => {
            assert_eq!(code, 0, "{text:?}");
            assert!(!out.is_null());
            run.settings.push(Settings { ptr: out, rust });
            if run.settings.len() > MAX_SETTINGS {
                free_settings(run.settings.remove(0));
            }
        }
    }
}

fn c_str<'a>(p: *const c_char) -> &'a str {
    assert!(!p.is_null());
    // SAFETY: the library hands out NUL-terminated strings valid until free.
    unsafe { CStr::from_ptr(p) }.to_str().expect("UTF-8")
}

fn getters(input: &mut Input<'_>, s: &Settings) {
    let r = &s.rust;
    let null = input.bool();
    let want = |ok| if null { codes::NULL_ARGUMENT } else { ok };
    let mut flag = CBool(9);
    let flag_ptr: *mut CBool = if null {
        std::ptr::null_mut()
    } else {
        &mut flag
    };
    // SAFETY: a live settings object; outputs NULL or writable.
    unsafe {
        assert_eq!(carla_settings_synchronous_mode(s.ptr, flag_ptr), want(0));
        assert!(null || flag == r.synchronous_mode.into());
        assert_eq!(
            carla_settings_send_non_player_agents(s.ptr, flag_ptr),
            want(0)
        );
        assert!(null || flag == r.send_non_player_agents_info.into());
        let mut count = u32::MAX;
        assert_eq!(carla_settings_sensor_count(s.ptr, &mut count), 0);
        assert_eq!(count as usize, r.sensors.len());
        let mut level = std::mem::MaybeUninit::<carla_level_settings>::uninit();
        let level_ptr = if null {
            std::ptr::null_mut()
        } else {
            level.as_mut_ptr()
        };
        assert_eq!(carla_settings_level(s.ptr, level_ptr), want(0));
        if !null {
            let l = level.assume_init();
            assert_eq!(c_str(l.player_vehicle), r.level.player_vehicle);
            assert_eq!(l.number_of_vehicles, r.level.number_of_vehicles);
            assert_eq!(l.weather_id, r.level.weather_id);
            assert_eq!(l.quality_level, r.quality_level as u32);
        }
        let index = u32::from(input.u8()) % (count + 2);
        let mut out = std::mem::MaybeUninit::<carla_sensor_settings>::uninit();
        let out_ptr = if null {
            std::ptr::null_mut()
        } else {
            out.as_mut_ptr()
        };
        let code = carla_settings_sensor(s.ptr, index, out_ptr);
        let Some(sensor) = r.sensors.get(index as usize) else {
            assert_eq!(code, want(codes::INVALID_ARGUMENT));
            return;
        };
        assert_eq!(code, want(0));
        if null {
            return;
        }
        let o = out.assume_init();
        assert_eq!(c_str(o.name), sensor.name());
        assert_eq!(
            (o.r#type, o.position, o.rotation),
            (sensor.type_id(), sensor.position(), sensor.rotation())
        );
        match sensor {
            SensorSettings::Camera(c) => {
                assert_eq!(
                    (o.image_size_x, o.image_size_y),
                    (c.image_size_x, c.image_size_y)
                );
                assert_eq!(
                    (o.post_processing, o.fov.to_bits()),
                    (c.post_processing as u32, c.fov.to_bits())
                );
                assert_eq!(o.channels, 0);
            }
            SensorSettings::Lidar(l) => {
                assert_eq!(
                    (o.channels, o.points_per_second),
                    (l.channels, l.points_per_second)
                );
                assert_eq!(o.range.to_bits(), l.range_m.to_bits());
                assert_eq!(
                    (o.upper_fov_limit, o.lower_fov_limit),
                    (l.upper_fov, l.lower_fov)
                );
                assert_eq!(o.image_size_x, 0);
            }
        }
    }
}

/// The 0.8 calls on a server that was never connected.
pub(super) fn server_step(input: &mut Input<'_>) {
    let server = idle();
    let null = input.bool();
    let timeout = input.u32();
    let want = |ok: Code| if null { codes::NULL_ARGUMENT } else { ok };
    // SAFETY: a live handle; every pointer NULL or valid for its count.
    unsafe {
        match input.u8() % 9 {
            0 => {
                let mut v = std::mem::MaybeUninit::<carla_request_new_episode>::uninit();
                let p = if null {
                    std::ptr::null_mut()
                } else {
                    v.as_mut_ptr()
                };
                assert_eq!(
                    carla_read_request_new_episode(server, p, timeout),
                    want(codes::TRY_AGAIN)
                );
            }
            1 => scene_description(server, input, null, timeout),
            2 => {
                let mut v = carla_episode_start {
                    player_start_spot_index: 3,
                };
                let p = if null { std::ptr::null_mut() } else { &mut v };
                assert_eq!(
                    carla_read_episode_start(server, p, timeout),
                    want(codes::TRY_AGAIN)
                );
            }
            3 => {
                let v = carla_episode_ready {
                    ready: CBool(input.u8()),
                };
                let p = if null { std::ptr::null() } else { &v };
                assert_eq!(
                    carla_write_episode_ready(server, p, timeout),
                    want(codes::TIMED_OUT)
                );
            }
            4 => {
                let mut v = Control::default();
                let p = if null { std::ptr::null_mut() } else { &mut v };
                let aborted = want(codes::OPERATION_ABORTED);
                assert_eq!(carla_read_control(server, p, timeout), aborted);
            }
            5 => {
                let header = (!input.bool()).then(|| input.chunk(64).to_vec());
                let data = (!input.bool()).then(|| input.chunk(256).to_vec());
                let (hs, ds) = (input.u8() % 65, input.u16() % 257);
                let hs = u32::from(hs).min(header.as_ref().map_or(u32::MAX, |h| h.len() as u32));
                let ds = u32::from(ds).min(data.as_ref().map_or(u32::MAX, |d| d.len() as u32));
                let d = carla_sensor_data {
                    id: input.u32(),
                    header: ptr_or_null(&header).cast(),
                    header_size: hs,
                    data: ptr_or_null(&data).cast(),
                    data_size: ds,
                };
                let missing = (header.is_none() && hs > 0) || (data.is_none() && ds > 0);
                let code =
                    carla_write_sensor_data(server, if null { std::ptr::null() } else { &d });
                let ok = if missing {
                    codes::NULL_ARGUMENT
                } else {
                    codes::OPERATION_ABORTED
                };
                assert_eq!(code, want(ok));
            }
            6 => {
                let count = u32::from(input.u8() % 8);
                let agents = (!input.bool()).then(|| vec![Agent::default(); count as usize]);
                let v = carla_measurements {
                    frame_number: input.u32(),
                    platform_timestamp: 0,
                    game_timestamp: 0,
                    player_measurements: PlayerMeasurements::default(),
                    non_player_agents: ptr_or_null(&agents),
                    number_of_non_player_agents: count,
                };
                let missing = agents.is_none() && count > 0;
                let code =
                    carla_write_measurements(server, if null { std::ptr::null() } else { &v });
                let ok = if missing {
                    codes::NULL_ARGUMENT
                } else {
                    codes::OPERATION_ABORTED
                };
                assert_eq!(code, want(ok));
            }
            7 => {
                let text = (!null).then(|| c_text(input.chunk(48)));
                let code = carla_server_set_bind_address(server, ptr_or_null(&text).cast());
                let expected = text_code(text.as_deref()).unwrap_or_else(|| {
                    let t = text.as_deref().expect("checked");
                    let parsed = std::str::from_utf8(&t[..t.len() - 1]).expect("checked");
                    match parsed.parse::<std::net::IpAddr>() {
                        Ok(_) => 0,
                        Err(_) => codes::INVALID_ARGUMENT,
                    }
                });
                assert_eq!(code, expected);
                assert_eq!(carla_server_set_max_message_size(server, timeout), 0);
            }
            _ => log_callback(input),
        }
    }
}

/// # Safety
/// `server` is a live handle.
unsafe fn scene_description(
    server: CarlaServerPtr,
    input: &mut Input<'_>,
    null: bool,
    timeout: u32,
) {
    let flags = input.u8();
    let map = (flags & 1 == 0).then(|| c_text(input.chunk(32)));
    let spot_count = u32::from(input.u8() % 4);
    let spots = (flags & 2 == 0).then(|| vec![Transform::default(); spot_count as usize]);
    let names: Vec<Option<Vec<u8>>> = (0..input.u8() % 4)
        .map(|_| (!input.bool()).then(|| c_text(input.chunk(16))))
        .collect();
    let defs: Vec<carla_sensor_definition> = names
        .iter()
        .map(|n| carla_sensor_definition {
            id: input.u32(),
            r#type: 101,
            name: ptr_or_null(n).cast(),
        })
        .collect();
    let sensors_null = flags & 4 == 4 && !defs.is_empty();
    let v = carla_scene_description {
        map_name: ptr_or_null(&map).cast(),
        player_start_spots: ptr_or_null(&spots),
        number_of_player_start_spots: spot_count,
        sensors: if sensors_null {
            std::ptr::null()
        } else {
            defs.as_ptr()
        },
        number_of_sensors: defs.len() as u32,
    };
    // SAFETY: caller contract; every pointer NULL or valid for its count.
    let code = unsafe {
        carla_write_scene_description(server, if null { std::ptr::null() } else { &v }, timeout)
    };
    let mut want = if null {
        Some(codes::NULL_ARGUMENT)
    } else {
        text_code(map.as_deref())
    };
    if want.is_none() && ((spots.is_none() && spot_count > 0) || sensors_null) {
        want = Some(codes::NULL_ARGUMENT);
    }
    for n in &names {
        want = want.or_else(|| text_code(n.as_deref()));
    }
    assert_eq!(code, want.unwrap_or(codes::TIMED_OUT));
}

static LINES: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn count_line(level: i32, message: *const c_char, user: *mut c_void) {
    assert!((1..=4).contains(&level) && user as usize == 0x5eed);
    // SAFETY: the library passes a NUL-terminated line valid for the call.
    let line = unsafe { CStr::from_ptr(message) };
    assert!(!line.to_bytes().is_empty());
    LINES.fetch_add(1, Ordering::Relaxed);
}

fn log_callback(input: &mut Input<'_>) {
    let level = i32::from(input.u8() % 7) - 1;
    let code = carla_server_set_log_callback(Some(count_line), 0x5eed as *mut c_void, level);
    if !(1..=4).contains(&level) {
        assert_eq!(code, codes::INVALID_ARGUMENT);
        return;
    }
    assert_eq!(code, 0);
    let before = LINES.load(Ordering::Relaxed);
    // An unknown sensor id logs a warning.
    // SAFETY: a live handle; NULL output (rejected after the lookup).
    let looked_up = unsafe { carla_sensor_type_id(idle(), u32::MAX, std::ptr::null_mut()) };
    assert_eq!(looked_up, codes::UNKNOWN_SENSOR);
    if level >= 2 {
        assert!(
            LINES.load(Ordering::Relaxed) > before,
            "the callback got the warning"
        );
    }
    super::install_quiet_sink();
}

/// Every export that takes a handle, with a NULL one.
pub(super) fn null_handles(input: &mut Input<'_>) {
    let n = std::ptr::null_mut();
    let id = input.u32();
    let ctx = CaptureContext::default();
    let null = codes::NULL_ARGUMENT;
    let mut out = 0u32;
    // SAFETY: NULL handles are part of the contract; other pointers valid.
    unsafe {
        carla_free_server(n);
        carla_disconnect_server(n);
        carla_image_release(n.cast());
        carla_settings_free(n.cast());
        assert_eq!(carla_server_connect(n, 2000, id), null);
        assert_eq!(carla_server_connect_non_blocking(n, 2000, id), null);
        assert_eq!(carla_server_connect_blocking(n, 2000, id), null);
        assert_eq!(carla_read_request_new_episode(n, n.cast(), id), null);
        assert_eq!(carla_read_episode_start(n, n.cast(), id), null);
        assert_eq!(carla_read_control(n, n.cast(), id), null);
        assert_eq!(carla_server_set_max_message_size(n, id), null);
        assert_eq!(carla_server_listen_streaming(n, 0, &mut out), null);
        assert_eq!(carla_sensor_destroy(n, id), null);
        assert_eq!(carla_sensor_type_id(n, id, &mut out), null);
        assert_eq!(carla_sensor_set_synchronous(n, id, id), null);
        assert_eq!(carla_sensor_mirror_to_legacy(n, id, id), null);
        let t = ActorTransform::default();
        assert_eq!(
            carla_rpc_add_actor(n, id, c"x".as_ptr(), n.cast(), n.cast(), 0, &t),
            null
        );
        assert_eq!(carla_rpc_remove_actor(n, id), null);
        assert_eq!(carla_rpc_new_episode(n, n.cast()), null);
        assert_eq!(carla_rpc_client_count(n, &mut out), null);
        assert_eq!(carla_sensor_subscriber_count(n, id, &mut out), null);
        assert_eq!(carla_sensor_send_image(n, id, &ctx, n, 0), null);
        assert_eq!(carla_sensor_send_raw(n, id, &ctx, n, 0), null);
        assert_eq!(
            carla_sensor_send_actor_ids(n, id, &ctx, id, n.cast(), 0),
            null
        );
        assert_eq!(carla_lidar_send_hits(n, id, &ctx, n.cast(), 0), null);
        assert_eq!(carla_sensor_commit_image(n, n.cast(), &ctx), null);
        let (mut a, mut b) = (std::ptr::null_mut(), std::ptr::null_mut());
        assert_eq!(
            carla_sensor_acquire_image(n, id, &mut a, &mut b, &mut out),
            null
        );
        let mut rays = std::ptr::null();
        assert_eq!(carla_lidar_plan(n, id, 0.1, &mut rays, &mut out), null);
        let mut flag = CBool(0);
        assert_eq!(carla_settings_synchronous_mode(n.cast(), &mut flag), null);
        assert_eq!(carla_settings_sensor_count(n.cast(), &mut out), null);
        let mut settings: CarlaSettingsPtr = std::ptr::null_mut();
        assert_eq!(
            carla_settings_parse(n.cast(), 0, &mut settings, n.cast(), 0),
            0
        );
        free_settings(Settings {
            ptr: settings,
            rust: settings::Settings::default(),
        });
    }
}

/// `carla_sensor_definitions` into buffers of every size.
pub(super) fn definitions(input: &mut Input<'_>) {
    let text = blueprint::describe_all();
    let mut buffer = error_buffer(input).map(|mut b| {
        b.resize(b.len() * 97 % (text.len() + 2), 0xAA);
        b
    });
    let mut needed = 0u32;
    let (ptr, size) = buffer.as_mut().map_or((std::ptr::null_mut(), 0), |b| {
        (b.as_mut_ptr(), b.len() as u32)
    });
    // SAFETY: NULL or `size` writable bytes; writable `needed`.
    let code = unsafe { carla_sensor_definitions(ptr.cast(), size, &mut needed) };
    assert_eq!(code, 0);
    assert_eq!(needed as usize, text.len() + 1);
    check_text(&buffer, &text);
    if let Some(b) = buffer.filter(|b| b.len() > text.len()) {
        // SAFETY: NUL-terminated (checked above).
        let c = unsafe { CStr::from_ptr(b.as_ptr().cast()) };
        assert_eq!(c.to_str().ok(), Some(text.as_str()));
    }
}
