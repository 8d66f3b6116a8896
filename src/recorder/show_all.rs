//! The packets `show_recorder_file_info` prints only with `show_all`, as
//! CARLA 0.9.16 prints them: one function a packet.

use super::file::FrameStart;
use super::format::{self as f, records, FormatError, Get, Pose};
use super::text::{g, g32, v3};
use std::fmt::Write;

/// Prints the frame's line before its first packet with records (called
/// with the packet's count).
type Head<'a> = &'a mut dyn FnMut(&mut String, usize);

/// Prints packet `id` from `d`; `printed` says whether the frame's line
/// (of `last`) is out.
pub(super) fn packet(
    id: u8,
    d: &mut Get<'_>,
    o: &mut String,
    printed: &mut bool,
    last: &FrameStart,
) -> Result<(), FormatError> {
    let mut frame_line = |o: &mut String, count: usize| {
        if count > 0 && !*printed {
            let _ = writeln!(o, "Frame {} at {} seconds", last.id, g(last.elapsed));
            *printed = true;
        }
    };
    let head: Head<'_> = &mut frame_line;
    match id {
        f::POSITION => positions(d, o, head),
        f::STATE => light_states(d, o, head),
        f::ANIM_VEHICLE => vehicle_animations(d, o, head),
        f::ANIM_WALKER => walker_animations(d, o, head),
        f::VEHICLE_DOOR => doors(d, o, head),
        f::VEHICLE_LIGHT => vehicle_lights(d, o, head),
        f::SCENE_LIGHT => scene_lights(d, o, head),
        f::KINEMATICS => kinematics(d, o, head),
        f::BOUNDING_BOX | f::TRIGGER_VOLUME => boxes(id, d, o, head),
        f::PLATFORM_TIME => platform_time(d, o, head),
        f::TRAFFIC_LIGHT_TIME => light_times(d, o, head),
        f::WALKER_BONES => walker_bones(d, o, head),
        f::PHYSICS_CONTROL => super::physics_text::print(d, o, head),
        _ => Ok(()),
    }
}

/// Positions.
fn positions(d: &mut Get<'_>, o: &mut String, head: Head<'_>) -> Result<(), FormatError> {
    let all = records(d, Pose::read)?;
    head(o, all.len());
    let _ = writeln!(o, " Positions: {}", all.len());
    for p in all {
        let _ = writeln!(
            o,
            "  Id: {} Location: {} Rotation: {}",
            p.id,
            v3(p.location),
            v3(p.rotation)
        );
    }
    Ok(())
}

/// Traffic lights' states.
fn light_states(d: &mut Get<'_>, o: &mut String, head: Head<'_>) -> Result<(), FormatError> {
    let all = records(d, f::LightRecord::read)?;
    head(o, all.len());
    let _ = writeln!(o, " State traffic lights: {}", all.len());
    for s in all {
        let _ = writeln!(
            o,
            "  Id: {} state: {} frozen: {} elapsedTime: {}",
            s.id,
            char::from(b'0'.wrapping_add(s.state)),
            u8::from(s.frozen),
            g32(s.elapsed)
        );
    }
    Ok(())
}

/// Vehicles' controls.
fn vehicle_animations(d: &mut Get<'_>, o: &mut String, head: Head<'_>) -> Result<(), FormatError> {
    let all = records(d, f::VehicleAnim::read)?;
    head(o, all.len());
    let _ = writeln!(o, " Vehicle animations: {}", all.len());
    for v in all {
        let _ = writeln!(
            o,
            "  Id: {} Steering: {} Throttle: {} Brake: {} Handbrake: {} Gear: {}",
            v.id,
            g32(v.steer),
            g32(v.throttle),
            g32(v.brake),
            u8::from(v.hand_brake),
            v.gear
        );
    }
    Ok(())
}

/// Walkers' speeds.
fn walker_animations(d: &mut Get<'_>, o: &mut String, head: Head<'_>) -> Result<(), FormatError> {
    let all = records(d, |g| Ok((g.u32()?, g.f32()?)))?;
    head(o, all.len());
    let _ = writeln!(o, " Walker animations: {}", all.len());
    for (id, speed) in all {
        let _ = writeln!(o, "  Id: {id} speed: {}", g32(speed));
    }
    Ok(())
}

/// Vehicle doors opened.
fn doors(d: &mut Get<'_>, o: &mut String, head: Head<'_>) -> Result<(), FormatError> {
    let all = records(d, |g| Ok((g.u32()?, g.u8()?, g.bool()?)))?;
    head(o, all.len());
    let _ = writeln!(o, " Vehicle door animations: {}", all.len());
    const DOORS: [&str; 7] = [
        "Front Left",
        "Front Right",
        "Rear Left",
        "Rear Right",
        "Hood",
        "Trunk",
        "All",
    ];
    for (id, door, _) in all {
        let _ = write!(o, "  Id: {id}\n  Doors opened: ");
        if let Some(name) = DOORS.get(door as usize) {
            let _ = writeln!(o, " {name} ");
        }
    }
    Ok(())
}

/// Vehicles' lights, by name.
fn vehicle_lights(d: &mut Get<'_>, o: &mut String, head: Head<'_>) -> Result<(), FormatError> {
    let all = records(d, |g| Ok((g.u32()?, g.u32()?)))?;
    head(o, all.len());
    let _ = writeln!(o, " Vehicle light animations: {}", all.len());
    const NAMES: [(u32, &str); 11] = [
        (0x1, "Position"),
        (0x2, "LowBeam"),
        (0x4, "HighBeam"),
        (0x8, "Brake"),
        (0x10, "RightBlinker"),
        (0x20, "LeftBlinker"),
        (0x40, "Reverse"),
        (0x100, "Interior"),
        (0x80, "Fog"),
        (0x200, "Special1"),
        (0x400, "Special2"),
    ];
    for (id, state) in all {
        let on: Vec<&str> = NAMES
            .iter()
            .filter(|(bit, _)| state & bit != 0)
            .map(|(_, n)| *n)
            .collect();
        let names = if on.is_empty() {
            "None".to_owned()
        } else {
            on.join(" ")
        };
        let _ = writeln!(o, "  Id: {id} {names}");
    }
    Ok(())
}

/// Scene lights changed.
fn scene_lights(d: &mut Get<'_>, o: &mut String, head: Head<'_>) -> Result<(), FormatError> {
    let all = records(d, |g| {
        Ok((
            g.i32()?,
            g.f32()?,
            [g.f32()?, g.f32()?, g.f32()?, g.f32()?],
            g.bool()?,
            g.u8()?,
        ))
    })?;
    head(o, all.len());
    let _ = writeln!(o, " Scene light changes: {}", all.len());
    for (id, intensity, c, on, _) in all {
        let _ = writeln!(
            o,
            "  Id: {id} enabled: {} intensity: {} RGB_color: ({}, {}, {})",
            if on { "True" } else { "False" },
            g32(intensity),
            g32(c[0]),
            g32(c[1]),
            g32(c[2])
        );
    }
    Ok(())
}

/// Dynamic actors' velocities.
fn kinematics(d: &mut Get<'_>, o: &mut String, head: Head<'_>) -> Result<(), FormatError> {
    let all = records(d, |g| Ok((g.u32()?, g.vec3()?, g.vec3()?)))?;
    head(o, all.len());
    let _ = writeln!(o, " Dynamic actors: {}", all.len());
    for (id, lin, ang) in all {
        let _ = writeln!(
            o,
            "  Id: {id} linear_velocity: {} angular_velocity: {}",
            v3(lin),
            v3(ang)
        );
    }
    Ok(())
}

/// Bounding boxes or trigger volumes (`id` says which).
fn boxes(id: u8, d: &mut Get<'_>, o: &mut String, head: Head<'_>) -> Result<(), FormatError> {
    let all = records(d, |g| Ok((g.u32()?, g.vec3()?, g.vec3()?)))?;
    head(o, all.len());
    let title = if id == f::BOUNDING_BOX {
        "Actor bounding boxes"
    } else {
        "Actor trigger volumes"
    };
    let _ = writeln!(o, " {title}: {}", all.len());
    for (id, origin, extent) in all {
        let _ = writeln!(
            o,
            "  Id: {id} origin: {} extension: {}",
            v3(origin),
            v3(extent)
        );
    }
    Ok(())
}

/// The platform's time.
fn platform_time(d: &mut Get<'_>, o: &mut String, head: Head<'_>) -> Result<(), FormatError> {
    let t = d.f64()?;
    head(o, 1);
    let _ = writeln!(o, " Current platform time: {}", g(t));
    Ok(())
}

/// Traffic lights' phase times.
fn light_times(d: &mut Get<'_>, o: &mut String, head: Head<'_>) -> Result<(), FormatError> {
    let all = records(d, |g| Ok((g.u32()?, g.f32()?, g.f32()?, g.f32()?)))?;
    head(o, all.len());
    let _ = writeln!(o, " Traffic Light time events: {}", all.len());
    for (id, green, yellow, red) in all {
        let _ = writeln!(
            o,
            "  Id: {id} green_time: {} yellow_time: {} red_time: {}",
            g32(green),
            g32(yellow),
            g32(red)
        );
    }
    Ok(())
}

/// Walkers' bones.
fn walker_bones(d: &mut Get<'_>, o: &mut String, head: Head<'_>) -> Result<(), FormatError> {
    let all = records(d, |g| {
        let id = g.u32()?;
        let n = g.u16()?;
        let bones = (0..n)
            .map(|_| Ok((g.string()?, g.vec3()?, g.vec3()?)))
            .collect::<Result<Vec<_>, FormatError>>()?;
        Ok((id, bones))
    })?;
    head(o, all.len());
    let _ = writeln!(o, " Walkers Bones: {}", all.len());
    for (id, bones) in all {
        let _ = writeln!(o, "  Id: {id}");
        for (name, l, r) in bones {
            let _ = writeln!(
                o,
                "     Bone: \"{name}\" relative: Loc{} Rot{}",
                v3(l),
                v3(r)
            );
        }
    }
    o.push('\n');
    Ok(())
}
