//! The three queries of a recording (`show_recorder_file_info`,
//! `show_recorder_collisions`, `show_recorder_actors_blocked`), printing
//! what CARLA 0.9.16 prints for the same file: its lines, its number
//! formats (C++ streams' default `%g` and `%.0f`), its header and trailer,
//! and its quirks where they change the numbers (an `EventDel` forgets the
//! actor of the last `EventAdd` read; the last frame's duration of -1
//! counts towards a blocked actor's time). docs/recorder.md lists them.

use super::file::{FrameStart, OpenError, Packets};
use super::format::{self as f, records, ActorAdd, CollisionRecord, FormatError, Get, Info, Pose};
use super::text::{date, g, g32};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write;
use std::path::Path;

/// Opens `path` and writes the header lines, or returns the whole answer
/// for a file that cannot be read.
fn open(path: &Path, out: &mut String) -> Option<Packets> {
    match Packets::open(path) {
        Ok((info, packets)) => {
            header(&info, out);
            Some(packets)
        }
        Err(OpenError::Missing) => {
            let _ = writeln!(out, "File {} not found on server", path.display());
            None
        }
        Err(OpenError::NotARecording) => {
            out.push_str("File is not a CARLA recorder\n");
            None
        }
    }
}

fn header(info: &Info, out: &mut String) {
    let _ = write!(
        out,
        "Version: {}\nMap: {}\nDate: {}\n\n",
        info.version,
        info.map,
        date(info.date)
    );
}

/// The trailer; `fixed`: the collisions query's sticky `%.0f`.
fn trailer(last: &FrameStart, fixed: bool, out: &mut String) {
    let duration = if fixed {
        format!("{:.0}", last.elapsed)
    } else {
        g(last.elapsed)
    };
    let _ = write!(
        out,
        "\nFrames: {}\nDuration: {} seconds\n",
        last.id, duration
    );
}

/// A read error met after the header: said at the end, as the reader
/// cannot go on (CARLA's reader would print garbage).
fn broken(e: FormatError, out: &mut String) {
    let _ = writeln!(out, "\nThe file is damaged: {e}");
}

fn v3(v: [f32; 3]) -> String {
    format!("({}, {}, {})", g32(v[0]), g32(v[1]), g32(v[2]))
}

/// `show_recorder_file_info(name, show_all)`.
pub(crate) fn info(path: &Path, show_all: bool) -> String {
    let mut out = String::new();
    let Some(mut p) = open(path, &mut out) else {
        return out;
    };
    let mut last = FrameStart::default();
    let mut frame_printed = false;
    let result = (|| -> Result<(), FormatError> {
        while let Some((id, mut d)) = p.next()? {
            let o = &mut out;
            let frame_line = |o: &mut String, printed: &mut bool, last: &FrameStart| {
                if !*printed {
                    let _ = writeln!(o, "Frame {} at {} seconds", last.id, g(last.elapsed));
                    *printed = true;
                }
            };
            match id {
                f::FRAME_START => {
                    last = FrameStart::read(&mut d)?;
                    frame_printed = false;
                    if show_all {
                        frame_line(o, &mut frame_printed, &last);
                    }
                }
                f::EVENT_ADD => {
                    for a in records(&mut d, ActorAdd::read)? {
                        frame_line(o, &mut frame_printed, &last);
                        let [x, y, z] = a.location;
                        let _ = writeln!(
                            o,
                            " Create {}: {} ({}) at ({}, {}, {})",
                            a.id,
                            a.blueprint,
                            a.kind,
                            g32(x),
                            g32(y),
                            g32(z)
                        );
                        for (_, k, v) in &a.attributes {
                            let _ = writeln!(o, "  {k} = {v}");
                        }
                    }
                }
                f::EVENT_DEL => {
                    for id in records(&mut d, |g| g.u32())? {
                        frame_line(o, &mut frame_printed, &last);
                        let _ = writeln!(o, " Destroy {id}");
                    }
                }
                f::EVENT_PARENT => {
                    for (child, parent) in records(&mut d, |g| Ok((g.u32()?, g.u32()?)))? {
                        frame_line(o, &mut frame_printed, &last);
                        let _ = writeln!(o, " Parenting {child} with {parent} (parent)");
                    }
                }
                f::COLLISION => {
                    for c in records(&mut d, CollisionRecord::read)? {
                        frame_line(o, &mut frame_printed, &last);
                        let _ = writeln!(
                            o,
                            " Collision id {} between {}{} with {}{}",
                            c.id,
                            c.actor1,
                            if c.hero1 { " (hero) " } else { "" },
                            c.actor2,
                            if c.hero2 { " (hero) " } else { "" }
                        );
                    }
                }
                _ if show_all => all_only(id, &mut d, o, &mut frame_printed, &last)?,
                _ => {}
            }
        }
        Ok(())
    })();
    if let Err(e) = result {
        broken(e, &mut out);
    }
    trailer(&last, false, &mut out);
    out
}

/// The packets `show_all` adds.
fn all_only(
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
    match id {
        f::POSITION => {
            let all = records(d, Pose::read)?;
            frame_line(o, all.len());
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
        }
        f::STATE => {
            let all = records(d, f::LightRecord::read)?;
            frame_line(o, all.len());
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
        }
        f::ANIM_VEHICLE => {
            let all = records(d, f::VehicleAnim::read)?;
            frame_line(o, all.len());
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
        }
        f::ANIM_WALKER => {
            let all = records(d, |g| Ok((g.u32()?, g.f32()?)))?;
            frame_line(o, all.len());
            let _ = writeln!(o, " Walker animations: {}", all.len());
            for (id, speed) in all {
                let _ = writeln!(o, "  Id: {id} speed: {}", g32(speed));
            }
        }
        f::VEHICLE_DOOR => {
            let all = records(d, |g| Ok((g.u32()?, g.u8()?, g.bool()?)))?;
            frame_line(o, all.len());
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
        }
        f::VEHICLE_LIGHT => {
            let all = records(d, |g| Ok((g.u32()?, g.u32()?)))?;
            frame_line(o, all.len());
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
        }
        f::SCENE_LIGHT => {
            let all = records(d, |g| {
                Ok((
                    g.i32()?,
                    g.f32()?,
                    [g.f32()?, g.f32()?, g.f32()?, g.f32()?],
                    g.bool()?,
                    g.u8()?,
                ))
            })?;
            frame_line(o, all.len());
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
        }
        f::KINEMATICS => {
            let all = records(d, |g| Ok((g.u32()?, g.vec3()?, g.vec3()?)))?;
            frame_line(o, all.len());
            let _ = writeln!(o, " Dynamic actors: {}", all.len());
            for (id, lin, ang) in all {
                let _ = writeln!(
                    o,
                    "  Id: {id} linear_velocity: {} angular_velocity: {}",
                    v3(lin),
                    v3(ang)
                );
            }
        }
        f::BOUNDING_BOX | f::TRIGGER_VOLUME => {
            let all = records(d, |g| Ok((g.u32()?, g.vec3()?, g.vec3()?)))?;
            frame_line(o, all.len());
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
        }
        f::PLATFORM_TIME => {
            let t = d.f64()?;
            frame_line(o, 1);
            let _ = writeln!(o, " Current platform time: {}", g(t));
        }
        f::TRAFFIC_LIGHT_TIME => {
            let all = records(d, |g| Ok((g.u32()?, g.f32()?, g.f32()?, g.f32()?)))?;
            frame_line(o, all.len());
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
        }
        f::WALKER_BONES => {
            let all = records(d, |g| {
                let id = g.u32()?;
                let n = g.u16()?;
                let bones = (0..n)
                    .map(|_| Ok((g.string()?, g.vec3()?, g.vec3()?)))
                    .collect::<Result<Vec<_>, FormatError>>()?;
                Ok((id, bones))
            })?;
            frame_line(o, all.len());
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
        }
        f::PHYSICS_CONTROL => super::physics_text::print(d, o, &mut |o, n| frame_line(o, n))?,
        _ => {}
    }
    Ok(())
}

/// The actor table the collision and blocked queries keep, with CARLA's
/// quirk: an `EventDel` forgets the actor of the last `EventAdd` record
/// read, not the deleted one.
#[derive(Default)]
struct Actors {
    names: HashMap<u32, (u8, String)>,
    last_added: u32,
}

impl Actors {
    fn add(&mut self, a: &ActorAdd) {
        self.names.insert(a.id, (a.kind, a.blueprint.clone()));
        self.last_added = a.id;
    }
    fn delete(&mut self) {
        self.names.remove(&self.last_added);
    }
    fn get(&mut self, id: u32) -> (u8, String) {
        self.names.entry(id).or_default().clone()
    }
}

/// `show_recorder_collisions(name, type1, type2)`: `h` hero, `v`
/// vehicle, `w` walker, `t` traffic light, `o` other, `a` any.
pub(crate) fn collisions(path: &Path, type1: u8, type2: u8) -> String {
    let mut out = String::new();
    let Some(mut p) = open(path, &mut out) else {
        return out;
    };
    let _ = writeln!(
        out,
        "{:>8} {:>6} {:>6} {:<35} {:>6} {:<35}",
        "Time", "Types", "Id", "Actor 1", "Id", "Actor 2"
    );
    let mut actors = Actors::default();
    let mut last = FrameStart::default();
    let (mut old, mut now) = (HashSet::<(u32, u32)>::new(), HashSet::<(u32, u32)>::new());
    let mut rows = 0usize;
    const LETTERS: [u8; 6] = *b"ovwtha";
    let result = (|| -> Result<(), FormatError> {
        while let Some((id, mut d)) = p.next()? {
            match id {
                f::FRAME_START => {
                    last = FrameStart::read(&mut d)?;
                    old = std::mem::take(&mut now);
                }
                f::EVENT_ADD => records(&mut d, ActorAdd::read)?
                    .iter()
                    .for_each(|a| actors.add(a)),
                f::EVENT_DEL => records(&mut d, |g| g.u32())?
                    .iter()
                    .for_each(|_| actors.delete()),
                f::COLLISION => {
                    for c in records(&mut d, CollisionRecord::read)? {
                        let (k1, n1) = actors.get(c.actor1);
                        let (k2, n2) = actors.get(c.actor2);
                        let letter = |id: u32, kind: u8| {
                            if id == u32::MAX {
                                b'o'
                            } else {
                                LETTERS.get(kind as usize).copied().unwrap_or(b'o')
                            }
                        };
                        let (l1, l2) = (letter(c.actor1, k1), letter(c.actor2, k2));
                        let pass = |want: u8, l: u8, hero: bool| {
                            want == b'a' || want == l || (want == b'h' && hero)
                        };
                        if !(pass(type1, l1, c.hero1) && pass(type2, l2, c.hero2)) {
                            continue;
                        }
                        let pair = (c.actor1, c.actor2);
                        if !old.contains(&pair) {
                            rows += 1;
                            let _ = writeln!(
                                out,
                                "{:>8.0}   {} {}  {:>6} {:<35} {:>6} {:<35}",
                                last.elapsed,
                                char::from(l1),
                                char::from(l2),
                                c.actor1,
                                n1,
                                c.actor2,
                                n2
                            );
                        }
                        now.insert(pair);
                    }
                }
                _ => {}
            }
        }
        Ok(())
    })();
    if let Err(e) = result {
        broken(e, &mut out);
    }
    trailer(&last, rows > 0, &mut out);
    out
}

/// `show_recorder_actors_blocked(name, min_time, min_distance)`:
/// actors that moved less than `min_distance` cm for at least `min_time`
/// seconds, longest first.
pub(crate) fn blocked(path: &Path, min_time: f64, min_distance: f64) -> String {
    struct Watch {
        name: String,
        last: [f32; 3],
        time: f64,
        duration: f64,
    }
    let mut out = String::new();
    let Some(mut p) = open(path, &mut out) else {
        return out;
    };
    let _ = writeln!(
        out,
        "{:>8} {:>6} {:<35} {:>10}",
        "Time", "Id", "Actor", "Duration"
    );
    let mut watched: BTreeMap<u32, Watch> = BTreeMap::new();
    let mut last_added = 0u32;
    let mut last = FrameStart::default();
    // (duration, emission order) -> row; printed longest first.
    let mut rows: Vec<(f64, usize, String)> = Vec::new();
    let row = |time: f64, id: u32, w: &Watch| {
        format!(
            "{:>8.0} {:>6} {:<35} {:>10.0}\n",
            time, id, w.name, w.duration
        )
    };
    let result = (|| -> Result<(), FormatError> {
        while let Some((id, mut d)) = p.next()? {
            match id {
                f::FRAME_START => last = FrameStart::read(&mut d)?,
                f::EVENT_ADD => {
                    for a in records(&mut d, ActorAdd::read)? {
                        last_added = a.id;
                        watched.insert(
                            a.id,
                            Watch {
                                name: a.blueprint,
                                last: [0.0; 3],
                                time: 0.0,
                                duration: 0.0,
                            },
                        );
                    }
                }
                f::EVENT_DEL => {
                    for _ in records(&mut d, |g| g.u32())? {
                        watched.remove(&last_added);
                    }
                }
                f::POSITION => {
                    for pose in records(&mut d, Pose::read)? {
                        let w = watched.entry(pose.id).or_insert_with(|| Watch {
                            name: String::new(),
                            last: [0.0; 3],
                            time: 0.0,
                            duration: 0.0,
                        });
                        let dist = {
                            let [a, b, c] = [0, 1, 2].map(|i| pose.location[i] - w.last[i]);
                            (a * a + b * b + c * c).sqrt()
                        };
                        if f64::from(dist) < min_distance {
                            if w.duration == 0.0 {
                                w.time = last.elapsed;
                            }
                            w.duration += last.duration;
                        } else {
                            if w.duration >= min_time {
                                rows.push((w.duration, rows.len(), row(w.time, pose.id, w)));
                            }
                            w.duration = 0.0;
                            w.last = pose.location;
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    })();
    for (id, w) in &watched {
        if w.duration >= min_time {
            rows.push((w.duration, rows.len(), row(w.time, *id, w)));
        }
    }
    rows.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    for (_, _, r) in rows {
        out.push_str(&r);
    }
    if let Err(e) = result {
        broken(e, &mut out);
    }
    trailer(&last, false, &mut out);
    out
}
