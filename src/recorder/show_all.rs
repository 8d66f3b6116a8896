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
        f::POSITION => positions((d, o, head)),
        f::STATE => light_states((d, o, head)),
        f::ANIM_VEHICLE => vehicle_animations((d, o, head)),
        f::ANIM_WALKER => walker_animations((d, o, head)),
        f::VEHICLE_DOOR => doors((d, o, head)),
        f::VEHICLE_LIGHT => vehicle_lights((d, o, head)),
        f::SCENE_LIGHT => scene_lights((d, o, head)),
        f::KINEMATICS => kinematics((d, o, head)),
        f::BOUNDING_BOX | f::TRIGGER_VOLUME => boxes(id, (d, o, head)),
        f::PLATFORM_TIME => platform_time((d, o, head)),
        f::TRAFFIC_LIGHT_TIME => light_times((d, o, head)),
        // A blank line after the bones, as CARLA prints them.
        f::WALKER_BONES => walker_bones((d, &mut *o, head)).map(|()| o.push('\n')),
        f::PHYSICS_CONTROL => super::physics_text::print(d, o, head),
        _ => Ok(()),
    }
}

/// Reads a packet of records with `read` and prints the frame's line, the
/// packet's title with its count, and `line` of each record.
fn list<T>(
    (d, o, head): (&mut Get<'_>, &mut String, Head<'_>),
    title: &str,
    read: impl FnMut(&mut Get<'_>) -> Result<T, FormatError>,
    mut line: impl FnMut(&mut String, T) -> std::fmt::Result,
) -> Result<(), FormatError> {
    let all = records(d, read)?;
    head(o, all.len());
    let _ = writeln!(o, " {title}: {}", all.len());
    for record in all {
        let _ = line(o, record);
    }
    Ok(())
}

type Out<'a, 'b> = (&'a mut Get<'b>, &'a mut String, Head<'a>);

fn positions(out: Out<'_, '_>) -> Result<(), FormatError> {
    list(out, "Positions", Pose::read, |o, p| {
        let (l, r) = (v3(p.location), v3(p.rotation));
        writeln!(o, "  Id: {} Location: {l} Rotation: {r}", p.id)
    })
}

fn light_states(out: Out<'_, '_>) -> Result<(), FormatError> {
    list(out, "State traffic lights", f::LightRecord::read, |o, s| {
        let state = char::from(b'0'.wrapping_add(s.state));
        let (frozen, elapsed) = (u8::from(s.frozen), g32(s.elapsed));
        writeln!(
            o,
            "  Id: {} state: {state} frozen: {frozen} elapsedTime: {elapsed}",
            s.id
        )
    })
}

fn vehicle_animations(out: Out<'_, '_>) -> Result<(), FormatError> {
    list(out, "Vehicle animations", f::VehicleAnim::read, |o, v| {
        let (steer, throttle, brake) = (g32(v.steer), g32(v.throttle), g32(v.brake));
        let (hand_brake, gear) = (u8::from(v.hand_brake), v.gear);
        write!(o, "  Id: {} Steering: {steer} Throttle: {throttle}", v.id)?;
        writeln!(o, " Brake: {brake} Handbrake: {hand_brake} Gear: {gear}")
    })
}

fn walker_animations(out: Out<'_, '_>) -> Result<(), FormatError> {
    let read = |g: &mut Get<'_>| Ok((g.u32()?, g.f32()?));
    list(out, "Walker animations", read, |o, (id, speed)| {
        writeln!(o, "  Id: {id} speed: {}", g32(speed))
    })
}

fn doors(out: Out<'_, '_>) -> Result<(), FormatError> {
    const DOORS: [&str; 7] = [
        "Front Left",
        "Front Right",
        "Rear Left",
        "Rear Right",
        "Hood",
        "Trunk",
        "All",
    ];
    let read = |g: &mut Get<'_>| Ok((g.u32()?, g.u8()?, g.bool()?));
    list(out, "Vehicle door animations", read, |o, (id, door, _)| {
        write!(o, "  Id: {id}\n  Doors opened: ")?;
        match DOORS.get(door as usize) {
            Some(name) => writeln!(o, " {name} "),
            None => Ok(()),
        }
    })
}

fn vehicle_lights(out: Out<'_, '_>) -> Result<(), FormatError> {
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
    let read = |g: &mut Get<'_>| Ok((g.u32()?, g.u32()?));
    list(out, "Vehicle light animations", read, |o, (id, state)| {
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
        writeln!(o, "  Id: {id} {names}")
    })
}

fn scene_lights(out: Out<'_, '_>) -> Result<(), FormatError> {
    let read = |g: &mut Get<'_>| {
        let (id, intensity) = (g.i32()?, g.f32()?);
        let color = [g.f32()?, g.f32()?, g.f32()?, g.f32()?];
        Ok((id, intensity, color, g.bool()?, g.u8()?))
    };
    list(
        out,
        "Scene light changes",
        read,
        |o, (id, intensity, c, on, _)| {
            let on = if on { "True" } else { "False" };
            let rgb = format!("({}, {}, {})", g32(c[0]), g32(c[1]), g32(c[2]));
            let intensity = g32(intensity);
            writeln!(
                o,
                "  Id: {id} enabled: {on} intensity: {intensity} RGB_color: {rgb}"
            )
        },
    )
}

/// An id and two vectors.
fn id_and_vectors(g: &mut Get<'_>) -> Result<(u32, [f32; 3], [f32; 3]), FormatError> {
    Ok((g.u32()?, g.vec3()?, g.vec3()?))
}

fn kinematics(out: Out<'_, '_>) -> Result<(), FormatError> {
    list(
        out,
        "Dynamic actors",
        id_and_vectors,
        |o, (id, lin, ang)| {
            let (lin, ang) = (v3(lin), v3(ang));
            writeln!(
                o,
                "  Id: {id} linear_velocity: {lin} angular_velocity: {ang}"
            )
        },
    )
}

/// Bounding boxes or trigger volumes (`id` says which).
fn boxes(id: u8, out: Out<'_, '_>) -> Result<(), FormatError> {
    let title = if id == f::BOUNDING_BOX {
        "Actor bounding boxes"
    } else {
        "Actor trigger volumes"
    };
    list(out, title, id_and_vectors, |o, (id, origin, extent)| {
        let (origin, extent) = (v3(origin), v3(extent));
        writeln!(o, "  Id: {id} origin: {origin} extension: {extent}")
    })
}

fn platform_time((d, o, head): Out<'_, '_>) -> Result<(), FormatError> {
    let t = d.f64()?;
    head(o, 1);
    let _ = writeln!(o, " Current platform time: {}", g(t));
    Ok(())
}

fn light_times(out: Out<'_, '_>) -> Result<(), FormatError> {
    let read = |g: &mut Get<'_>| Ok((g.u32()?, g.f32()?, g.f32()?, g.f32()?));
    list(
        out,
        "Traffic Light time events",
        read,
        |o, (id, green, yellow, red)| {
            let (green, yellow, red) = (g32(green), g32(yellow), g32(red));
            writeln!(
                o,
                "  Id: {id} green_time: {green} yellow_time: {yellow} red_time: {red}"
            )
        },
    )
}

fn walker_bones(out: Out<'_, '_>) -> Result<(), FormatError> {
    let read = |g: &mut Get<'_>| {
        let id = g.u32()?;
        let n = g.u16()?;
        let bones = (0..n)
            .map(|_| Ok((g.string()?, g.vec3()?, g.vec3()?)))
            .collect::<Result<Vec<_>, FormatError>>()?;
        Ok((id, bones))
    };
    list(out, "Walkers Bones", read, |o, (id, bones)| {
        writeln!(o, "  Id: {id}")?;
        for (name, l, r) in bones {
            let (l, r) = (v3(l), v3(r));
            writeln!(o, "     Bone: \"{name}\" relative: Loc{l} Rot{r}")?;
        }
        Ok(())
    })
}
