//! The reader and the queries on a file built byte by byte from the
//! format description (not by our writer), the writer's frame timing and
//! its full-disk path, the replayer against a stand-in world, and the
//! folder rules.

use super::format::ActorAdd;
use super::replay::{self, ReplayCommand, ReplayOptions, ReplayRequest, Stage};
use super::writer::{Frame, Pushed, Sink, Writer};
use super::{actors_blocked, collisions, file_info, resolve, text};
use crate::types::ActorTransform;
use std::cell::RefCell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Little-endian bytes, written field by field as the format document
/// describes them.
#[derive(Default)]
struct Bytes(Vec<u8>);

impl Bytes {
    fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
    fn u16(&mut self, v: u16) -> &mut Self {
        self.0.extend(v.to_le_bytes());
        self
    }
    fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend(v.to_le_bytes());
        self
    }
    fn f32s(&mut self, v: &[f32]) -> &mut Self {
        v.iter().for_each(|f| self.0.extend(f.to_le_bytes()));
        self
    }
    fn f64(&mut self, v: f64) -> &mut Self {
        self.0.extend(v.to_le_bytes());
        self
    }
    fn str(&mut self, s: &str) -> &mut Self {
        self.u16(s.len() as u16);
        self.0.extend(s.as_bytes());
        self
    }
    /// A packet: id, u32 size, data.
    fn packet(&mut self, id: u8, data: &Bytes) -> &mut Self {
        self.u8(id).u32(data.0.len() as u32);
        self.0.extend(&data.0);
        self
    }
}

const DATE: i64 = 1_550_745_980;

/// Two frames: a hero car and a walker appear, the car hits the map,
/// then the walker goes.
fn carla_file() -> Vec<u8> {
    let mut f = Bytes::default();
    f.u16(2).str("CARLA_RECORDER");
    f.0.extend(DATE.to_le_bytes());
    f.str("Town10HD_Opt");
    // Frame 1.
    let mut d = Bytes::default();
    d.0.extend(1u64.to_le_bytes());
    d.f64(0.05).f64(0.0);
    f.packet(0, &d);
    let mut add = Bytes::default();
    add.u16(3);
    add.u32(24)
        .u8(1)
        .f32s(&[100.0, 200.0, 30.0, 0.0, 0.0, 90.0])
        .u32(7);
    add.str("vehicle.tesla.model3").u16(2);
    add.u8(4).str("role_name").str("hero");
    add.u8(5).str("color").str("255,0,0");
    add.u32(25)
        .u8(2)
        .f32s(&[500.0, 0.0, 90.0, 0.0, 0.0, 0.0])
        .u32(9);
    add.str("walker.pedestrian.0001").u16(0);
    // A collision sensor on the car, placed relative to it.
    add.u32(26)
        .u8(5)
        .f32s(&[0.0, 0.0, 50.0, 0.0, 0.0, 0.0])
        .u32(3);
    add.str("sensor.other.collision").u16(0);
    f.packet(2, &add);
    f.packet(3, Bytes::default().u16(0));
    f.packet(4, Bytes::default().u16(1).u32(26).u32(24));
    let mut c = Bytes::default();
    c.u16(1).u32(0).u32(24).u32(u32::MAX).u8(1).u8(0);
    f.packet(5, &c);
    let mut p = Bytes::default();
    p.u16(2);
    p.u32(24).f32s(&[100.0, 200.0, 30.0, 0.0, 0.0, 90.0]);
    p.u32(25).f32s(&[500.0, 0.0, 90.0, 0.0, 0.0, 0.0]);
    f.packet(6, &p);
    let mut s = Bytes::default();
    s.u16(1).u32(77).u8(0).f32s(&[1.5]).u8(2);
    f.packet(7, &s);
    let mut v = Bytes::default();
    v.u16(1).u32(24).f32s(&[0.25, 0.5, 0.0]).u8(0);
    v.0.extend(3i32.to_le_bytes());
    f.packet(8, &v);
    f.packet(9, Bytes::default().u16(1).u32(25).f32s(&[140.0]));
    f.packet(10, Bytes::default().u16(1).u32(24).u32(0x1 | 0x8 | 0x100));
    f.packet(14, Bytes::default().f64(0.125));
    f.packet(1, &Bytes::default());
    // Frame 2: the walker goes; the car stands still.
    let mut d = Bytes::default();
    d.0.extend(2u64.to_le_bytes());
    d.f64(-1.0).f64(0.05);
    f.packet(0, &d);
    f.packet(2, Bytes::default().u16(0));
    f.packet(3, Bytes::default().u16(1).u32(25));
    let mut p = Bytes::default();
    p.u16(1).u32(24).f32s(&[100.5, 200.0, 30.0, 0.0, 0.0, 90.0]);
    f.packet(6, &p);
    f.packet(1, &Bytes::default());
    f.0
}

fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("carla-recorder-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn head() -> String {
    format!(
        "Version: 2\nMap: Town10HD_Opt\nDate: {}\n\n",
        text::date(DATE)
    )
}

#[test]
fn file_info_of_a_hand_built_file_is_carlas_text() {
    let path = temp_file("info.log", &carla_file());
    let want = head()
        + "Frame 1 at 0 seconds\n"
        + " Create 24: vehicle.tesla.model3 (1) at (100, 200, 30)\n"
        + "  role_name = hero\n"
        + "  color = 255,0,0\n"
        + " Create 25: walker.pedestrian.0001 (2) at (500, 0, 90)\n"
        + " Create 26: sensor.other.collision (5) at (0, 0, 50)\n"
        + " Parenting 26 with 24 (parent)\n"
        + " Collision id 0 between 24 (hero)  with 4294967295\n"
        + "Frame 2 at 0.05 seconds\n"
        + " Destroy 25\n"
        + "\nFrames: 2\nDuration: 0.05 seconds\n";
    assert_eq!(file_info(&path, false), want);
    let all = file_info(&path, true);
    for line in [
        "Frame 1 at 0 seconds\n Create 24",
        " Positions: 2\n  Id: 24 Location: (100, 200, 30) Rotation: (0, 0, 90)\n",
        " State traffic lights: 1\n  Id: 77 state: 2 frozen: 0 elapsedTime: 1.5\n",
        "  Id: 24 Steering: 0.25 Throttle: 0.5 Brake: 0 Handbrake: 0 Gear: 3\n",
        " Walker animations: 1\n  Id: 25 speed: 140\n",
        " Vehicle light animations: 1\n  Id: 24 Position Brake Interior\n",
        " Current platform time: 0.125\n",
        "Frame 2 at 0.05 seconds\n Destroy 25\n Positions: 1\n  Id: 24 Location: (100.5, 200, 30)",
    ] {
        assert!(all.contains(line), "{line:?} not in:\n{all}");
    }
}

#[test]
fn collisions_and_blocked_actors_of_a_hand_built_file() {
    let path = temp_file("collisions.log", &carla_file());
    let table = "    Time  Types     Id Actor 1                                 Id Actor 2                            \n";
    let row = "       0   v o      24 vehicle.tesla.model3                4294967295                                    \n";
    // One row: the trailer's duration turns `%.0f`, as CARLA's does.
    let want = head() + table + row + "\nFrames: 2\nDuration: 0 seconds\n";
    assert_eq!(collisions(&path, b'a', b'a'), want);
    assert_eq!(collisions(&path, b'h', b'o'), want);
    let none = head() + table + "\nFrames: 2\nDuration: 0.05 seconds\n";
    assert_eq!(collisions(&path, b'w', b'a'), none);
    assert_eq!(collisions(&path, b'v', b'v'), none);

    // The car moved 0.5 cm in frame 2: under 1 cm, blocked for frame 2's
    // duration (-1, the last frame's, as CARLA sums it) after frame 1's.
    let blocked = actors_blocked(&path, -10.0, 1.0);
    let header = "    Time     Id Actor                                 Duration\n";
    assert!(blocked.starts_with(&(head() + header)), "{blocked}");
    assert!(
        blocked.ends_with("\nFrames: 2\nDuration: 0.05 seconds\n"),
        "{blocked}"
    );
    assert!(
        blocked.contains("    0     24 vehicle.tesla.model3"),
        "{blocked}"
    );
    // Nothing stood 30 s.
    let long = actors_blocked(&path, 30.0, 100.0);
    assert_eq!(
        long,
        head() + header + "\nFrames: 2\nDuration: 0.05 seconds\n"
    );
}

#[test]
fn bad_files_get_carlas_messages_and_a_damage_note() {
    let missing = std::env::temp_dir().join("carla-recorder-no-such-file.log");
    assert_eq!(
        file_info(&missing, false),
        format!("File {} not found on server\n", missing.display())
    );
    let mut not_ours = carla_file();
    not_ours[4] = b'X';
    let path = temp_file("magic.log", &not_ours);
    assert_eq!(file_info(&path, true), "File is not a CARLA recorder\n");
    assert_eq!(
        collisions(&path, b'a', b'a'),
        "File is not a CARLA recorder\n"
    );
    // Cut inside frame 2's position packet.
    let bytes = carla_file();
    let path = temp_file("cut.log", &bytes[..bytes.len() - 20]);
    let info = file_info(&path, false);
    assert!(info.contains(" Destroy 25\n"), "{info}");
    assert!(info.contains("The file is damaged: packet 6"), "{info}");
    assert!(
        info.ends_with("\nFrames: 2\nDuration: 0.05 seconds\n"),
        "{info}"
    );
    // A huge length prefix is refused before any allocation.
    let mut huge = carla_file()[..40].to_vec();
    assert_eq!(&huge[38..40], b"pt", "the header ends at 40");
    huge.extend([6, 0xff, 0xff, 0xff, 0x7f]);
    let path = temp_file("huge.log", &huge);
    let info = file_info(&path, true);
    assert!(info.contains("says 2147483647 bytes"), "{info}");
}

/// A disk that fills after `room` bytes.
struct SmallDisk {
    data: Arc<Mutex<Vec<u8>>>,
    room: usize,
}

impl Write for SmallDisk {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        let mut d = self.data.lock().unwrap();
        let n = b.len().min(self.room - d.len());
        if n == 0 {
            return Err(std::io::Error::other("no space left on device"));
        }
        d.extend_from_slice(&b[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Sink for SmallDisk {
    fn cut(&mut self, len: u64) -> std::io::Result<()> {
        self.data.lock().unwrap().truncate(len as usize);
        Ok(())
    }
    fn sync(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A frame as the capture makes it: `FrameStart` (duration unset), a
/// `FrameEnd`, `pad` bytes of a packet between.
fn frame(id: u64, elapsed: f64, pad: usize) -> Frame {
    let mut b = Bytes::default();
    let mut start = Bytes::default();
    start.0.extend(id.to_le_bytes());
    start.f64(-1.0).f64(elapsed);
    b.packet(0, &start);
    b.packet(200, &Bytes(vec![7; pad]));
    b.packet(1, &Bytes::default());
    Frame {
        bytes: b.0,
        elapsed,
    }
}

#[test]
fn each_frame_gets_the_next_ones_step_and_the_last_keeps_minus_one() {
    let data = Arc::new(Mutex::new(Vec::new()));
    let disk = SmallDisk {
        data: data.clone(),
        room: usize::MAX / 2,
    };
    let mut w = Writer::to_sink(disk, Path::new("mem"), b"HEAD").unwrap();
    for (i, t) in [0.0, 0.05, 0.15].iter().enumerate() {
        assert_eq!(w.push(frame(i as u64 + 1, *t, 3)), Pushed::Queued);
    }
    let summary = w.finish();
    assert_eq!((summary.frames, summary.error), (3, None));
    let d = data.lock().unwrap();
    let durations: Vec<f64> = (0..3)
        .map(|i| {
            let at = 4 + i * (29 + 8 + 5) + 13;
            f64::from_le_bytes(d[at..at + 8].try_into().unwrap())
        })
        .collect();
    assert!((durations[0] - 0.05).abs() < 1e-12 && (durations[1] - 0.1).abs() < 1e-12);
    assert_eq!(durations[2], -1.0);
}

#[test]
fn a_full_disk_stops_the_recording_on_a_whole_frame() {
    let data = Arc::new(Mutex::new(Vec::new()));
    let per_frame = 29 + 5 + 100 + 5;
    // Room for the header, two frames and half of a third.
    let disk = SmallDisk {
        data: data.clone(),
        room: 4 + 2 * per_frame + per_frame / 2,
    };
    let mut w = Writer::to_sink(disk, Path::new("full.log"), b"HEAD").unwrap();
    for i in 0..10 {
        w.push(frame(i + 1, i as f64 * 0.05, 100));
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let summary = w.finish();
    assert_eq!(summary.frames, 2);
    let error = summary.error.expect("the disk filled");
    assert!(
        error.contains("full.log") && error.contains("2 whole frame"),
        "{error}"
    );
    assert_eq!(data.lock().unwrap().len(), 4 + 2 * per_frame);
}

/// A disk that blocks every write until the test opens it.
struct GatedDisk {
    open: Arc<(Mutex<bool>, std::sync::Condvar)>,
    written: Arc<Mutex<usize>>,
}

impl Write for GatedDisk {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        let (lock, cv) = &*self.open;
        let mut open = lock.lock().unwrap();
        while !*open {
            open = cv.wait(open).unwrap();
        }
        *self.written.lock().unwrap() += b.len();
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Sink for GatedDisk {
    fn cut(&mut self, _: u64) -> std::io::Result<()> {
        Ok(())
    }
    fn sync(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_slow_disk_costs_frames_never_a_wait() {
    let open = Arc::new((Mutex::new(true), std::sync::Condvar::new()));
    let written = Arc::new(Mutex::new(0));
    let disk = GatedDisk {
        open: open.clone(),
        written: written.clone(),
    };
    let mut w = Writer::to_sink(disk, Path::new("slow.log"), b"HEAD").unwrap();
    *open.0.lock().unwrap() = false;
    let started = std::time::Instant::now();
    let results: Vec<Pushed> = (0..400)
        .map(|i| w.push(frame(i + 1, i as f64 * 0.05, 10)))
        .collect();
    // 400 pushes against a disk that takes nothing: none waited.
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    let dropped = results.iter().filter(|r| **r == Pushed::Dropped).count();
    // The queue holds 256 and the thread holds one or two.
    assert!((140..=144).contains(&dropped), "{dropped} dropped");
    *open.0.lock().unwrap() = true;
    open.1.notify_all();
    let s = w.finish();
    assert_eq!(
        (s.dropped as usize, s.frames as usize),
        (dropped, 400 - dropped)
    );
    assert_eq!(
        *written.lock().unwrap(),
        4 + (400 - dropped) * (29 + 15 + 5)
    );
}

#[test]
fn relative_names_stay_in_the_folder() {
    let folder = Path::new("/srv/recordings");
    assert_eq!(resolve(folder, "a.log").unwrap(), folder.join("a.log"));
    assert_eq!(
        resolve(folder, "day1/a.log").unwrap(),
        folder.join("day1/a.log")
    );
    for bad in ["../a.log", "day1/../../a.log", "", "a\0b"] {
        assert!(resolve(folder, bad).is_err(), "{bad:?}");
    }
    #[cfg(unix)]
    assert_eq!(
        resolve(folder, "/tmp/x.log").unwrap(),
        Path::new("/tmp/x.log")
    );
}

/// A world that notes what the replayer asks.
#[derive(Default)]
struct FakeStage {
    log: RefCell<Vec<String>>,
    live: RefCell<Vec<(u32, String)>>,
    next: RefCell<u32>,
}

impl Stage for FakeStage {
    fn blueprint_of(&self, id: u32) -> Option<String> {
        let live = self.live.borrow();
        live.iter().find(|a| a.0 == id).map(|a| a.1.clone())
    }
    fn find_at(&self, _: &str, _: [f32; 3]) -> Option<u32> {
        None
    }
    fn spawn(&self, add: &ActorAdd, parent: u32, at: ActorTransform) -> Result<u32, String> {
        let mut next = self.next.borrow_mut();
        *next += 1;
        let id = 100 + *next;
        self.live.borrow_mut().push((id, add.blueprint.clone()));
        let l = at.location;
        self.log.borrow_mut().push(format!(
            "spawn {} as {id} at ({}, {}, {}) parent {parent}",
            add.blueprint, l.x, l.y, l.z
        ));
        Ok(id)
    }
    fn destroy(&self, id: u32) {
        self.live.borrow_mut().retain(|a| a.0 != id);
        self.log.borrow_mut().push(format!("destroy {id}"));
    }
    fn move_to(&self, id: u32, at: ActorTransform) {
        let l = at.location;
        self.log.borrow_mut().push(format!(
            "move {id} to ({}, {}, {}) yaw {}",
            l.x, l.y, l.z, at.rotation.yaw
        ));
    }
    fn command(&self, id: u32, command: ReplayCommand) {
        self.log
            .borrow_mut()
            .push(format!("{} {id}", command.name()));
    }
    fn hold_traffic(&self, hold: bool) {
        self.log.borrow_mut().push(format!("hold {hold}"));
    }
    fn spectator(&self) -> u32 {
        1
    }
    fn client_actor(&self, _: u32) -> bool {
        false
    }
    fn refused(&self) -> Vec<u32> {
        Vec::new()
    }
}

fn request() -> ReplayRequest {
    ReplayRequest {
        start: 0.0,
        duration: 0.0,
        follow_id: 0,
        replay_sensors: false,
        offset: ActorTransform::default(),
    }
}

#[test]
fn the_replayer_spawns_moves_and_removes_as_recorded() {
    let path = temp_file("replay.log", &carla_file());
    let opts = ReplayOptions::default();
    let opened = replay::open(&path, "Carla/Maps/Town10HD_Opt", &request(), opts)
        .unwrap_or_else(|t| panic!("{t}"));
    assert_eq!(
        opened.text,
        format!(
            "Replaying File: {}\nTotal time recorded: 0.05\nReplaying from 0 s - 0.05 s (0.05 s) at 1.0x\nIgnoring Spectator camera\n",
            path.display()
        )
    );
    let mut r = opened.replay;
    let stage = FakeStage::default();
    r.step(&stage, 0.05, opts);
    let log = stage.log.borrow().clone();
    assert_eq!(
        log[..4],
        [
            "hold true",
            "spawn vehicle.tesla.model3 as 101 at (1, 2, 0.3) parent 0",
            "simulate physics 101",
            "autopilot 101",
        ]
    );
    assert!(
        log.contains(&"move 101 to (1, 2, 0.3) yaw 90".to_owned()),
        "{log:?}"
    );
    assert!(
        log.contains(&"move 102 to (5, 0, 0.9) yaw 0".to_owned()),
        "{log:?}"
    );
    assert_eq!(r.live_id(24), Some(101));
    stage.log.borrow_mut().clear();
    // Frame 2: the walker is destroyed, the car moves 5 mm; the stop
    // time is reached: the replay ends at the next step, once the world
    // has shown the last frame, and the traffic is let go.
    r.step(&stage, 0.05, opts);
    let log = stage.log.borrow().clone();
    assert_eq!(log, ["destroy 102", "move 101 to (1.005, 2, 0.3) yaw 90"]);
    assert!(!r.finished);
    r.step(&stage, 0.05, opts);
    assert!(r.finished);
    let log = stage.log.borrow().clone();
    assert_eq!(log[2..], ["simulate physics 101", "hold false"]);
}

#[test]
fn replayed_sensors_are_attached_to_the_replayed_parent() {
    let path = temp_file("sensors.log", &carla_file());
    let opts = ReplayOptions::default();
    let req = ReplayRequest {
        replay_sensors: true,
        ..request()
    };
    let mut r = replay::open(&path, "Town10HD_Opt", &req, opts)
        .unwrap()
        .replay;
    let stage = FakeStage::default();
    r.step(&stage, 0.05, opts);
    let log = stage.log.borrow().clone();
    assert!(
        log.contains(&"spawn sensor.other.collision as 103 at (0, 0, 0.5) parent 101".to_owned()),
        "{log:?}"
    );
    // Without replay_sensors it is left out.
    let mut r = replay::open(&path, "Town10HD_Opt", &request(), opts)
        .unwrap()
        .replay;
    let stage = FakeStage::default();
    r.step(&stage, 0.05, opts);
    assert!(!stage.log.borrow().iter().any(|l| l.contains("sensor.")));
}

#[test]
fn the_replayer_leaves_out_an_ignored_hero_and_refuses_another_map() {
    let path = temp_file("hero.log", &carla_file());
    let opts = ReplayOptions {
        ignore_hero: true,
        ..Default::default()
    };
    let mut r = replay::open(&path, "Town10HD_Opt", &request(), opts)
        .unwrap()
        .replay;
    let stage = FakeStage::default();
    r.step(&stage, 0.05, opts);
    let log = stage.log.borrow().join("\n");
    assert!(!log.contains("tesla"), "{log}");
    assert!(log.contains("spawn walker.pedestrian.0001"), "{log}");
    let other = replay::open(&path, "Town03", &request(), opts);
    let text = other.err().expect("another map is refused");
    assert!(text.contains("recorded on map Town10HD_Opt"), "{text}");
    // Negative start counts from the end; a later file version is refused.
    let req = ReplayRequest {
        start: -0.02,
        ..request()
    };
    let o = replay::open(&path, "Town10HD_Opt", &req, opts).unwrap();
    assert!(
        o.text.contains("Replaying from 0.03 s - 0.05 s"),
        "{}",
        o.text
    );
    let mut newer = carla_file();
    newer[0] = 3;
    let path = temp_file("v3.log", &newer);
    let text = replay::open(&path, "Town10HD_Opt", &request(), opts)
        .err()
        .unwrap();
    assert!(text.contains("recorder version 3"), "{text}");
}
