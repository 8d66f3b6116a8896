//! Unit tests of the lidar model, against hand-computed expectations.
use super::*;
use crate::types::Rotation3D;

fn v(x: f32, y: f32, z: f32) -> Vector3D {
    Vector3D { x, y, z }
}

fn lidar(s: LidarSettings) -> Lidar {
    Lidar::new(s).expect("valid settings")
}

/// One lidar, one laser, `n` rays per second at dt = 1, no pre-trace
/// drop (so a plan of dt 1.0 yields exactly `n` rays).
fn single_laser(n: u32) -> LidarSettings {
    LidarSettings {
        channels: 1,
        points_per_second: n,
        dropoff_general_rate: 0.0,
        ..Default::default()
    }
}

/// A semantic lidar of two lasers, `pps` rays per second.
fn two_lasers(pps: u32) -> LidarSettings {
    LidarSettings {
        channels: 2,
        points_per_second: pps,
        semantic: true,
        ..Default::default()
    }
}

fn no_hits(n: usize) -> Vec<LidarHit> {
    (0..n)
        .map(|i| LidarHit {
            ray_index: i as u32,
            ..Default::default()
        })
        .collect()
}

/// A hit straight ahead at `d` metres.
fn ahead(i: usize, d: f32) -> LidarHit {
    LidarHit {
        ray_index: i as u32,
        hit: 1,
        distance_m: d,
        point_sensor: v(d, 0.0, 0.0),
        normal_sensor: v(-1.0, 0.0, 0.0),
        ..Default::default()
    }
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}

fn f32_at(b: &[u8], off: usize) -> f32 {
    f32::from_bits(u32_at(b, off))
}

fn close(a: f32, b: f32, tol: f32) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn lidar_header_size() {
    assert_eq!(header_size(32), 136);
}

#[test]
fn defaults_are_carlas() {
    let s = LidarSettings::default();
    assert_eq!(
        (s.channels, s.range_m, s.points_per_second),
        (32, 10.0, 56_000)
    );
    assert_eq!(
        (
            s.rotation_frequency,
            s.upper_fov,
            s.lower_fov,
            s.horizontal_fov
        ),
        (10.0, 10.0, -30.0, 360.0)
    );
    assert_eq!(s.atmosphere_attenuation_rate, 0.004);
    assert_eq!(
        (
            s.dropoff_general_rate,
            s.dropoff_intensity_limit,
            s.dropoff_zero_intensity
        ),
        (0.45, 0.8, 0.4)
    );
    assert_eq!((s.noise_stddev, s.noise_seed, s.semantic), (0.0, 0, false));
    assert_eq!(s.validate(), Ok(()));
}

#[test]
fn validate_names_the_bad_field() {
    let field = |s: LidarSettings| match s.validate() {
        Err(LidarError::InvalidSetting { field, .. }) => field,
        other => panic!("expected an error, got {other:?}"),
    };
    let d = LidarSettings::default;
    assert_eq!(field(LidarSettings { channels: 0, ..d() }), "channels");
    assert_eq!(
        field(LidarSettings {
            range_m: 0.0,
            ..d()
        }),
        "range"
    );
    assert_eq!(
        field(LidarSettings {
            range_m: f32::NAN,
            ..d()
        }),
        "range"
    );
    assert_eq!(
        field(LidarSettings {
            points_per_second: 0,
            ..d()
        }),
        "points_per_second"
    );
    assert_eq!(
        field(LidarSettings {
            rotation_frequency: f32::INFINITY,
            ..d()
        }),
        "rotation_frequency"
    );
    assert_eq!(
        field(LidarSettings {
            rotation_frequency: -1.0,
            ..d()
        }),
        "rotation_frequency"
    );
    assert_eq!(
        field(LidarSettings {
            upper_fov: -40.0,
            ..d()
        }),
        "upper_fov"
    ); // below lower
    assert_eq!(
        field(LidarSettings {
            lower_fov: -95.0,
            ..d()
        }),
        "lower_fov"
    );
    assert_eq!(
        field(LidarSettings {
            horizontal_fov: 0.0,
            ..d()
        }),
        "horizontal_fov"
    );
    assert_eq!(
        field(LidarSettings {
            horizontal_fov: 400.0,
            ..d()
        }),
        "horizontal_fov"
    );
    assert_eq!(
        field(LidarSettings {
            dropoff_general_rate: 1.5,
            ..d()
        }),
        "dropoff_general_rate"
    );
    assert_eq!(
        field(LidarSettings {
            dropoff_intensity_limit: -0.1,
            ..d()
        }),
        "dropoff_intensity_limit"
    );
    assert_eq!(
        field(LidarSettings {
            dropoff_zero_intensity: 2.0,
            ..d()
        }),
        "dropoff_zero_intensity"
    );
    assert_eq!(
        field(LidarSettings {
            noise_stddev: -0.1,
            ..d()
        }),
        "noise_stddev"
    );
    assert_eq!(
        field(LidarSettings {
            atmosphere_attenuation_rate: -1.0,
            ..d()
        }),
        "atmosphere_attenuation_rate"
    );
    assert!(Lidar::new(LidarSettings { channels: 0, ..d() }).is_err());
    // Edge values that are allowed: equal fovs, hfov 360, probabilities 0 and 1.
    let edge = LidarSettings {
        upper_fov: 5.0,
        lower_fov: 5.0,
        dropoff_general_rate: 1.0,
        ..d()
    };
    assert_eq!(edge.validate(), Ok(()));
    let msg = LidarSettings { channels: 0, ..d() }
        .validate()
        .unwrap_err()
        .to_string();
    assert!(msg.contains("channels"), "{msg}");
}

#[test]
fn laser_angles() {
    // C = 1: Δ = 0, the only laser is at upper = +10.
    assert_eq!(
        lidar(LidarSettings {
            channels: 1,
            ..Default::default()
        })
        .laser_angles_deg(),
        &[10.0]
    );
    // C = 2: Δ = 40, lasers +10 and −30.
    assert_eq!(
        lidar(LidarSettings {
            channels: 2,
            ..Default::default()
        })
        .laser_angles_deg(),
        &[10.0, -30.0]
    );
    // C = 32: Δ = 40/31 = 1.2903226; laser 1 = 10 − 1.2903226 = 8.7096774;
    // laser 16 = 10 − 16·40/31 = 10 − 20.6451613 = −10.6451613; laser 31 = −30.
    let l = lidar(LidarSettings::default());
    let a = l.laser_angles_deg();
    assert_eq!(a.len(), 32);
    assert_eq!(a[0], 10.0);
    assert!(close(a[1], 8.709_677, 1e-5), "{}", a[1]);
    assert!(close(a[16], -10.645_161, 1e-5), "{}", a[16]);
    assert!(close(a[31], -30.0, 1e-4), "{}", a[31]);
    assert!(a.windows(2).all(|w| w[0] > w[1]), "laser 0 is the top one");
}

#[test]
fn points_per_tick_defaults() {
    // 56000 · 0.05 / 32 = 87.5 → 88 per laser, 88 · 32 = 2816 rays.
    let mut sem = lidar(LidarSettings {
        semantic: true,
        ..Default::default()
    });
    let p = sem.plan(0.05);
    assert_eq!(
        (
            p.points_per_channel(),
            p.ray_count(),
            p.dropped_before_trace()
        ),
        (88, 2816, 0)
    );
    assert_eq!(p.range_m(), 10.0);
    assert_eq!(p.warning(), None);
    // Channel-major order: rays 0..88 are laser 0, 88..176 laser 1, ...
    assert!(p.rays()[..88].iter().all(|r| r.channel == 0));
    assert_eq!((p.rays()[88].channel, p.rays()[2815].channel), (1, 31));
    assert!(close(p.pitch_deg(88), 8.709_677, 1e-5));

    // Ray-cast: same 88 per laser, each ray kept with probability 0.55:
    // expected 0.55 · 2816 = 1548.8, σ = sqrt(2816·0.45·0.55) = 26.4.
    let mut rc = lidar(LidarSettings::default());
    let p = rc.plan(0.05);
    assert_eq!(p.points_per_channel(), 88);
    assert!((1400..=1700).contains(&p.ray_count()), "{}", p.ray_count());
    assert_eq!(p.dropped_before_trace(), 2816 - p.ray_count());
}

#[test]
fn points_round_half_away_from_zero() {
    let per_laser = |pps: u32, dt: f32| {
        let mut l = lidar(two_lasers(pps));
        let p = l.plan(dt);
        (p.points_per_channel(), p.ray_count())
    };
    assert_eq!(per_laser(5, 1.0), (3, 6)); // 5·1/2 = 2.5 → 3
    assert_eq!(per_laser(9, 1.0), (5, 10)); // 4.5 → 5 (half-to-even would give 4)
    assert_eq!(per_laser(7, 1.0), (4, 8)); // 3.5 → 4
    assert_eq!(per_laser(4, 0.6), (1, 2)); // 4·0.6/2 = 1.2 → 1
}

#[test]
fn yaw_of_each_ray_and_carried_angle_with_wrap() {
    // C = 1, 200 pts/s, dt 0.05 → 10 rays; hfov 120, 15 Hz:
    // swept = 15·120·0.05 = 90°, step = 9°, yaw_j = fmod(cur + 9j, 120) − 60.
    let mut l = lidar(LidarSettings {
        channels: 1,
        points_per_second: 200,
        rotation_frequency: 15.0,
        horizontal_fov: 120.0,
        semantic: true,
        ..Default::default()
    });
    // Tick 1, cur = 0: yaws −60, −51, …, 21; carried → 90.
    let p = l.plan(0.05);
    assert_eq!(p.ray_count(), 10);
    let expect: Vec<f32> = (0..10).map(|j| -60.0 + 9.0 * j as f32).collect();
    assert!((0..10).all(|j| close(p.yaw_deg(j), expect[j], 1e-4)));
    assert_eq!(l.horizontal_angle_deg(), 90.0);
    // Tick 2, cur = 90: j=0 → 30; j=3 → 117 − 60 = 57; j=4 → fmod(126,120)
    // − 60 = −54 (wraps mid-sweep); j=9 → fmod(171,120) − 60 = −9.
    // Carried → fmod(180, 120) = 60.
    let p = l.plan(0.05);
    for (j, want) in [(0, 30.0), (3, 57.0), (4, -54.0), (9, -9.0)] {
        assert!(close(p.yaw_deg(j), want, 1e-4), "ray {j}: {}", p.yaw_deg(j));
    }
    assert_eq!(l.horizontal_angle_deg(), 60.0);
    // Tick 3, cur = 60: j=0 → 0; j=6 → 114 − 60 = 54; j=7 → 3 − 60 = −57.
    // Carried → fmod(150, 120) = 30.
    let p = l.plan(0.05);
    for (j, want) in [(0, 0.0), (6, 54.0), (7, -57.0)] {
        assert!(close(p.yaw_deg(j), want, 1e-4), "ray {j}: {}", p.yaw_deg(j));
    }
    assert_eq!(l.horizontal_angle_deg(), 30.0);
}

#[test]
fn carried_angle_over_three_ticks_and_header_radians() {
    // hfov 360, 7 Hz, dt 0.1: swept = 252°. Angles: 252, fmod(504,360) = 144,
    // fmod(396,360) = 36. 36° = π/5 = 0.6283185 rad.
    let mut l = lidar(LidarSettings {
        rotation_frequency: 7.0,
        semantic: true,
        ..Default::default()
    });
    let mut out = Vec::new();
    for want in [252.0, 144.0, 36.0] {
        let n = l.plan(0.1).ray_count();
        assert_eq!(l.horizontal_angle_deg(), want);
        out.clear();
        l.process(&no_hits(n), &mut out).unwrap();
    }
    assert!(
        close(f32_at(&out, 0), 0.628_318_5, 1e-6),
        "{}",
        f32_at(&out, 0)
    );
    assert_eq!(l.horizontal_angle_rad().to_bits(), u32_at(&out, 0));
    assert_eq!(u32_at(&out, 4), 32);
    assert_eq!(out.len(), 136); // no hits: header only, all counts 0
    assert!((0..32).all(|i| u32_at(&out, 8 + 4 * i) == 0));
}

#[test]
fn ray_directions() {
    // Defaults, dt 0.05: step = 180/88. Ray 0: pitch 10, yaw −180 →
    // (cos10·cos180, cos10·sin180, sin10) = (−0.9848078, 0, 0.1736482).
    // Ray 44: yaw = 44·180/88 − 180 = −90 → (0, −0.9848078, 0.1736482),
    // negative y = to the left.
    let mut l = lidar(LidarSettings {
        semantic: true,
        ..Default::default()
    });
    let p = l.plan(0.05);
    let d0 = p.rays()[0].direction;
    assert!(
        close(d0.x, -0.984_807_8, 1e-6) && close(d0.y, 0.0, 1e-6) && close(d0.z, 0.173_648_2, 1e-6)
    );
    assert!(close(p.yaw_deg(44), -90.0, 1e-4));
    let d44 = p.rays()[44].direction;
    assert!(
        close(d44.x, 0.0, 1e-5)
            && close(d44.y, -0.984_807_8, 1e-6)
            && close(d44.z, 0.173_648_2, 1e-6)
    );
    assert!(p
        .rays()
        .iter()
        .all(|r| close(dot(r.direction, r.direction), 1.0, 1e-5)));
    // Bottom laser (−30°): z = sin(−30°) = −0.5.
    assert!(close(p.rays()[2815].direction.z, -0.5, 1e-5));
}

#[test]
fn intensity_is_atmospheric_attenuation() {
    // I = exp(−0.004·d): d = 0 → 1; d = 10 → exp(−0.04) = 0.9607894;
    // d = 100 → exp(−0.4) = 0.6703200. Drop-off disabled (zero = 0 → β = 1).
    let mut l = lidar(LidarSettings {
        dropoff_zero_intensity: 0.0,
        ..single_laser(3)
    });
    assert_eq!(l.plan(1.0).ray_count(), 3);
    let hits = [ahead(0, 0.0), ahead(1, 10.0), ahead(2, 100.0)];
    let mut out = Vec::new();
    let st = l.process(&hits, &mut out).unwrap();
    assert_eq!(
        (st.rays, st.hits, st.kept, st.dropped, st.bytes),
        (3, 3, 3, 0, 12 + 3 * 16)
    );
    assert_eq!(u32_at(&out, 8), 3);
    for (k, (d, want)) in [(0.0, 1.0), (10.0, 0.960_789_4), (100.0, 0.670_32)]
        .into_iter()
        .enumerate()
    {
        let at = 12 + 16 * k;
        assert_eq!(
            (f32_at(&out, at), f32_at(&out, at + 4), f32_at(&out, at + 8)),
            (d, 0.0, 0.0)
        );
        assert!(
            close(f32_at(&out, at + 12), want, 1e-6),
            "d = {d}: {}",
            f32_at(&out, at + 12)
        );
    }
}

/// Fraction of `n` hits at distance `d` kept with attenuation `rate`.
fn keep_fraction(n: u32, rate: f32, d: f32, seed: u64) -> f64 {
    let mut l = lidar(LidarSettings {
        atmosphere_attenuation_rate: rate,
        noise_seed: seed,
        ..single_laser(n)
    });
    assert_eq!(l.plan(1.0).ray_count(), n as usize);
    let hits: Vec<_> = (0..n as usize).map(|i| ahead(i, d)).collect();
    let mut out = Vec::new();
    let st = l.process(&hits, &mut out).unwrap();
    assert_eq!(st.kept + st.dropped, n as usize);
    assert_eq!(u32_at(&out, 8) as usize, st.kept);
    assert_eq!(out.len(), 12 + 16 * st.kept);
    st.kept as f64 / n as f64
}

#[test]
fn intensity_dropoff_statistics() {
    // Defaults: limit 0.8, zero 0.4 → α = 0.4/0.8 = 0.5, β = 0.6.
    // I = 0 (d = 10⁶ m: exp(−4000) underflows to 0): keep 0.6;
    // σ of the mean = sqrt(0.24/20000) = 0.0035, tolerance 0.03.
    let f = keep_fraction(20_000, 0.004, 1.0e6, 1);
    assert!((f - 0.6).abs() < 0.03, "{f}");
    // I = 0.4 (rate 1, d = ln 2.5 = 0.9162907): keep 0.5·0.4 + 0.6 = 0.8.
    let f = keep_fraction(20_000, 1.0, 0.916_290_7, 2);
    assert!((f - 0.8).abs() < 0.03, "{f}");
    // I above the limit: always kept. d = 0 → I = 1; rate 1, d = 0.2 →
    // I = exp(−0.2) = 0.8187 > 0.8.
    assert_eq!(keep_fraction(20_000, 0.004, 0.0, 3), 1.0);
    assert_eq!(keep_fraction(20_000, 1.0, 0.2, 4), 1.0);
}

#[test]
fn noise_moves_points_along_their_ray() {
    // Hits at (10, 0, 0); σ = 0.1: x ~ N(10, 0.1), y = z = 0 exactly,
    // intensity computed before the noise = exp(−0.04) = 0.9607894.
    let n = 10_000;
    let s = LidarSettings {
        noise_stddev: 0.1,
        dropoff_zero_intensity: 0.0,
        ..single_laser(n)
    };
    let mut l = lidar(s);
    l.plan(1.0);
    let hits: Vec<_> = (0..n as usize).map(|i| ahead(i, 10.0)).collect();
    let mut out = Vec::new();
    assert_eq!(l.process(&hits, &mut out).unwrap().kept, n as usize);
    let xs: Vec<f64> = (0..n as usize)
        .map(|k| f32_at(&out, 12 + 16 * k) as f64)
        .collect();
    assert!((0..n as usize)
        .all(|k| f32_at(&out, 16 + 16 * k) == 0.0 && f32_at(&out, 20 + 16 * k) == 0.0));
    assert!((0..n as usize).all(|k| close(f32_at(&out, 24 + 16 * k), 0.960_789_4, 1e-6)));
    let mean = xs.iter().sum::<f64>() / n as f64;
    let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
    assert!((mean - 10.0).abs() < 0.01, "{mean}"); // σ of the mean = 0.001
    assert!((sd - 0.1).abs() < 0.01, "{sd}");
    assert!(xs.iter().any(|&x| x != 10.0));
}

/// Three ticks of a noisy ray-cast lidar, all bytes concatenated.
fn three_ticks(seed: u64) -> Vec<u8> {
    let s = LidarSettings {
        points_per_second: 5_600,
        atmosphere_attenuation_rate: 0.05,
        noise_stddev: 0.05,
        noise_seed: seed,
        ..Default::default()
    };
    let mut l = lidar(s);
    let mut all = Vec::new();
    for _ in 0..3 {
        let p = l.plan(0.05);
        let hits: Vec<_> = (0..p.ray_count())
            .map(|i| {
                let d = 1.0 + (i % 20) as f32;
                let dir = p.rays()[i].direction;
                LidarHit {
                    point_sensor: scale(dir, d),
                    ..ahead(i, d)
                }
            })
            .collect();
        l.process(&hits, &mut all).unwrap();
    }
    all
}

#[test]
fn deterministic_for_a_seed() {
    let a = three_ticks(42);
    assert_eq!(a, three_ticks(42));
    assert_ne!(a, three_ticks(43));
}

#[test]
fn semantic_payload_exact_bytes() {
    // C = 2, 20 pts/s, dt 0.1 → 20·0.1/2 = 1 ray per laser, 2 rays.
    // 5 Hz: swept = 5·360·0.1 = 180°, angle at the end = π rad →
    // f32 0x40490FDB. Header: DB0F4940 | 02000000 | 01000000 01000000.
    // Ray 0 (laser 0): point (1,0,0), normal (−1,0,0): cos_inc =
    //   dot(−(1,0,0), (−1,0,0)) = 1 → 0000803F; actor 7, tag 10.
    // Ray 1 (laser 1): point (0,2,0), normal (0,−3,4) → (0,−0.6,0.8):
    //   cos_inc = dot((0,−1,0), (0,−0.6,0.8)) = 0.6 → 0x3F19999A; actor 9, tag 4.
    // 2.0 = 0x40000000. Hits are passed in reverse order on purpose.
    let mut l = lidar(LidarSettings {
        rotation_frequency: 5.0,
        ..two_lasers(20)
    });
    assert_eq!(l.plan(0.1).ray_count(), 2);
    let hits = [
        LidarHit {
            ray_index: 1,
            hit: 1,
            distance_m: 2.0,
            point_sensor: v(0.0, 2.0, 0.0),
            normal_sensor: v(0.0, -3.0, 4.0),
            actor_id: 9,
            semantic_tag: 4,
        },
        LidarHit {
            actor_id: 7,
            semantic_tag: 10,
            ..ahead(0, 1.0)
        },
    ];
    let mut out = vec![0xAA]; // process appends
    let st = l.process(&hits, &mut out).unwrap();
    let expected = "AA \
        DB0F4940 02000000 01000000 01000000 \
        0000803F 00000000 00000000 0000803F 07000000 0A000000 \
        00000000 00000040 00000000 9A99193F 09000000 04000000";
    let hex: String = out.iter().map(|b| format!("{b:02X}")).collect();
    assert_eq!(hex, expected.replace(' ', ""));
    assert_eq!(
        (st.rays, st.hits, st.kept, st.dropped, st.bytes),
        (2, 2, 2, 0, 64)
    );
}

#[test]
fn counts_skip_misses_and_keep_channel_order() {
    // C = 2, 3 rays per laser (6 pts/s at dt 1): rays 0..3 laser 0, 3..6 laser 1.
    // Hits on rays 2, 0 and 4 → counts [2, 1], detections ordered 0, 2, 4.
    let mut l = lidar(two_lasers(6));
    assert_eq!(l.plan(1.0).ray_count(), 6);
    let mut hits = no_hits(6);
    for i in [2usize, 0, 4] {
        hits[i] = LidarHit {
            actor_id: 100 + i as u32,
            ..ahead(i, 1.0)
        };
    }
    hits.swap(0, 5);
    let mut out = Vec::new();
    let st = l.process(&hits, &mut out).unwrap();
    assert_eq!((st.hits, st.kept), (3, 3));
    assert_eq!((u32_at(&out, 8), u32_at(&out, 12)), (2, 1));
    assert_eq!(out.len(), 16 + 3 * 24);
    let ids: Vec<u32> = (0..3).map(|k| u32_at(&out, 16 + 24 * k + 16)).collect();
    assert_eq!(ids, [100, 102, 104]);
}

#[test]
fn process_rejects_bad_hits_without_writing() {
    let mut l = lidar(two_lasers(2));
    assert_eq!(l.plan(1.0).ray_count(), 2);
    let mut out = b"abc".to_vec();
    let err =
        |l: &mut Lidar, hits: &[LidarHit], out: &mut Vec<u8>| l.process(hits, out).unwrap_err();
    assert_eq!(
        err(&mut l, &no_hits(1), &mut out),
        LidarError::HitCountMismatch {
            expected: 2,
            got: 1
        }
    );
    let mut hits = no_hits(2);
    hits[1].ray_index = 2;
    assert_eq!(
        err(&mut l, &hits, &mut out),
        LidarError::RayIndexOutOfRange {
            ray_index: 2,
            ray_count: 2
        }
    );
    hits[1].ray_index = 0;
    assert_eq!(
        err(&mut l, &hits, &mut out),
        LidarError::DuplicateRayIndex { ray_index: 0 }
    );
    let mut hits = [ahead(0, f32::NAN), ahead(1, 1.0)];
    assert!(matches!(
        err(&mut l, &hits, &mut out),
        LidarError::InvalidHit { ray_index: 0, .. }
    ));
    hits[0] = ahead(0, -1.0);
    assert!(matches!(
        err(&mut l, &hits, &mut out),
        LidarError::InvalidHit { ray_index: 0, .. }
    ));
    hits[0] = LidarHit {
        point_sensor: v(f32::INFINITY, 0.0, 0.0),
        ..ahead(0, 1.0)
    };
    assert!(matches!(
        err(&mut l, &hits, &mut out),
        LidarError::InvalidHit { ray_index: 0, .. }
    ));
    assert_eq!(out, b"abc");
    // Garbage in a miss is ignored.
    hits[0] = LidarHit {
        hit: 0,
        distance_m: f32::NAN,
        ..hits[0]
    };
    assert_eq!(l.process(&hits, &mut out).unwrap().kept, 1);
}

#[test]
fn zero_points_plans_nothing_and_keeps_the_angle() {
    let mut l = lidar(LidarSettings::default());
    l.plan(0.05); // angle → 180°
    assert_eq!(l.horizontal_angle_deg(), 180.0);
    // 56000 · 0.0001 / 32 = 0.175 → 0 points: warning, no rays, angle kept.
    for dt in [0.0001, 0.0, -0.05, f32::NAN] {
        let p = l.plan(dt);
        assert_eq!((p.ray_count(), p.points_per_channel()), (0, 0));
        assert_eq!(p.warning(), Some(PlanWarning::ZeroPoints));
        assert_eq!(l.horizontal_angle_deg(), 180.0);
    }
    // The payload is a header with C = 32 empty channels, angle π.
    let mut out = Vec::new();
    let st = l.process(&[], &mut out).unwrap();
    assert_eq!((st.rays, st.kept, st.bytes), (0, 0, 136));
    assert_eq!(u32_at(&out, 0), 0x4049_0FDB);
    assert!((0..32).all(|i| u32_at(&out, 8 + 4 * i) == 0));
    // Absurd dt: too many rays → nothing planned rather than gigabytes.
    let mut big = lidar(LidarSettings {
        points_per_second: u32::MAX,
        ..Default::default()
    });
    let p = big.plan(1000.0);
    assert!(matches!(p.warning(), Some(PlanWarning::TooManyRays { .. })));
    assert_eq!(p.ray_count(), 0);
}

#[test]
fn buffers_are_reused_across_ticks() {
    let mut l = lidar(LidarSettings {
        semantic: true,
        ..Default::default()
    });
    let mut out = Vec::new();
    let mut seen = None;
    for _ in 0..4 {
        let p = l.plan(0.05);
        let (ptr, n) = (p.rays().as_ptr(), p.ray_count());
        let mut hits = no_hits(n);
        hits[5] = ahead(5, 3.0);
        out.clear();
        l.process(&hits, &mut out).unwrap();
        let now = (
            ptr,
            l.rays.capacity(),
            l.slots.as_ptr(),
            out.as_ptr(),
            out.capacity(),
        );
        assert!(seen.is_none_or(|s| s == now), "a buffer was reallocated");
        seen = Some(now);
    }
}

#[test]
fn splitmix64_reference_values_and_distributions() {
    // Published SplitMix64 outputs for seed 0.
    let mut r = SplitMix64::new(0);
    assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
    assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    assert_eq!(r.next_u64(), 0x06C4_5D18_8009_454F);
    let n = 100_000;
    let u: Vec<f32> = (0..n).map(|_| r.uniform_f32()).collect();
    assert!(u.iter().all(|&x| (0.0..1.0).contains(&x)));
    let mean = u.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
    assert!((mean - 0.5).abs() < 0.005, "{mean}");
    let z: Vec<f64> = (0..n).map(|_| r.normal_f32(0.0, 1.0) as f64).collect();
    let m = z.iter().sum::<f64>() / n as f64;
    let sd = (z.iter().map(|x| (x - m).powi(2)).sum::<f64>() / n as f64).sqrt();
    assert!(m.abs() < 0.01 && (sd - 1.0).abs() < 0.01, "{m} {sd}");
}

#[test]
fn rotations_follow_unreal_axes() {
    let yaw90 = Rotation3D {
        yaw: 90.0,
        ..Default::default()
    };
    let w = rotate_to_world(&yaw90, v(1.0, 0.0, 0.0)); // forward turns right → +y
    assert!(close(w.x, 0.0, 1e-6) && close(w.y, 1.0, 1e-6) && close(w.z, 0.0, 1e-6));
    let pitch90 = Rotation3D {
        pitch: 90.0,
        ..Default::default()
    };
    let w = rotate_to_world(&pitch90, v(1.0, 0.0, 0.0)); // forward tilts up → +z
    assert!(close(w.x, 0.0, 1e-6) && close(w.z, 1.0, 1e-6));
    // A proper rotation: orthonormal axes with forward × right = up.
    let r = Rotation3D {
        pitch: 10.0,
        yaw: 20.0,
        roll: 30.0,
    };
    let [x, y, z] = axes(&r);
    let cross = [
        x[1] * y[2] - x[2] * y[1],
        x[2] * y[0] - x[0] * y[2],
        x[0] * y[1] - x[1] * y[0],
    ];
    assert!((0..3).all(|k| (cross[k] - z[k]).abs() < 1e-12));
    let p = v(1.0, -2.0, 3.0);
    let back = rotate_to_local(&r, rotate_to_world(&r, p));
    assert!(close(back.x, p.x, 1e-5) && close(back.y, p.y, 1e-5) && close(back.z, p.z, 1e-5));
    // Sensor at (10,0,0) facing +y: world (10,5,0) is 5 m straight ahead.
    let t = ActorTransform {
        location: v(10.0, 0.0, 0.0),
        rotation: yaw90,
    };
    let s = world_point_to_sensor(&t, v(10.0, 5.0, 0.0));
    assert!(close(s.x, 5.0, 1e-5) && close(s.y, 0.0, 1e-5) && close(s.z, 0.0, 1e-5));
    // Trace end: (1,2,3) + 10 · (0,1,0) = (1,12,3).
    let t = ActorTransform {
        location: v(1.0, 2.0, 3.0),
        rotation: yaw90,
    };
    let e = ray_end_world(&t, v(1.0, 0.0, 0.0), 10.0);
    assert!(close(e.x, 1.0, 1e-5) && close(e.y, 12.0, 1e-5) && close(e.z, 3.0, 1e-5));
}

#[test]
fn default_settings_come_from_the_blueprint_table() {
    let d = LidarSettings::default();
    assert_eq!(
        (d.channels, d.points_per_second, d.noise_seed),
        (32, 56_000, 0)
    );
    assert_eq!((d.range_m, d.rotation_frequency), (10.0, 10.0));
    assert_eq!(
        (d.upper_fov, d.lower_fov, d.horizontal_fov),
        (10.0, -30.0, 360.0)
    );
    assert_eq!(d.atmosphere_attenuation_rate, 0.004);
    assert_eq!(
        (d.dropoff_general_rate, d.dropoff_intensity_limit),
        (0.45, 0.8)
    );
    assert_eq!((d.dropoff_zero_intensity, d.noise_stddev), (0.4, 0.0));
    assert!(!d.semantic);
    let semantic = crate::sensor::blueprint::create("sensor.lidar.ray_cast_semantic", &[]);
    let s = LidarSettings::from_attributes(&semantic.unwrap(), true);
    assert_eq!(
        (s.channels, s.range_m, s.dropoff_general_rate),
        (32, 10.0, 0.0)
    );
    assert!(s.semantic);
}
