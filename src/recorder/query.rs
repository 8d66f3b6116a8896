//! The three queries of a recording (`show_recorder_file_info`,
//! `show_recorder_collisions`, `show_recorder_actors_blocked`), printing
//! what CARLA 0.9.16 prints for the same file: its lines, its number
//! formats (C++ streams' default `%g` and `%.0f`), its header and trailer,
//! and its quirks where they change the numbers (an `EventDel` forgets the
//! actor of the last `EventAdd` read; the last frame's duration of -1
//! counts towards a blocked actor's time). docs/recorder.md lists them.

use super::file::{FrameStart, OpenError, Packets};
use super::format::{self as f, records, ActorAdd, CollisionRecord, FormatError, Info, Pose};
use super::show_all;
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
                _ if show_all => show_all::packet(id, &mut d, o, &mut frame_printed, &last)?,
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
