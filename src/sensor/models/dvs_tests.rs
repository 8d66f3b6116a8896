use super::*;

/// A `w × h` BGRA image of one grey level.
fn grey(w: usize, h: usize, level: u8) -> Vec<u8> {
    [level, level, level, 255].repeat(w * h)
}

fn log_level(g: u8) -> f32 {
    (0.001 + f32::from(g) / 255.0).ln()
}

#[test]
fn the_first_capture_only_sets_the_references() {
    let mut dvs = Dvs::new(DvsSettings::default(), 1);
    assert!(dvs.process(&grey(4, 2, 200), 4, 1.0).is_empty());
    // The same image again: nothing changed.
    assert!(dvs.process(&grey(4, 2, 200), 4, 1.1).is_empty());
}

#[test]
fn brightening_fires_positive_events_at_each_threshold_crossing() {
    let mut dvs = Dvs::new(DvsSettings::default(), 1);
    dvs.process(&grey(3, 2, 50), 3, 2.0);
    let mut image = grey(3, 2, 50);
    image[4 * 4..4 * 4 + 3].copy_from_slice(&[200, 200, 200]); // pixel (1, 1)
    let events = dvs.process(&image, 3, 2.1).to_vec();
    let (before, after) = (log_level(50), log_level(200));
    let expected = ((after - before) / 0.3).floor() as usize;
    assert_eq!(expected, 4);
    assert_eq!(events.len(), expected);
    for (k, e) in events.iter().enumerate() {
        assert_eq!((e.x, e.y, e.pol), (1, 1, true));
        // Linear interpolation of each crossing between 2.0 s and 2.1 s.
        let level = before + 0.3 * (k + 1) as f32;
        let t = 2.0e9 + f64::from((level - before) / (after - before)) * 0.1e9;
        assert!((e.t as f64 - t).abs() < 1e3, "{} vs {t}", e.t);
        assert!(e.t > 2_000_000_000 && e.t <= 2_100_000_000);
    }
    assert!(events.windows(2).all(|w| w[0].t <= w[1].t));
}

#[test]
fn darkening_fires_negative_events_and_the_reference_carries_over() {
    let settings = DvsSettings {
        negative_threshold: 0.5,
        ..DvsSettings::default()
    };
    let mut dvs = Dvs::new(settings, 1);
    dvs.process(&grey(1, 1, 250), 1, 0.0);
    // 250 -> 200: ln change -0.22, under the threshold: no event yet.
    assert!(dvs.process(&grey(1, 1, 200), 1, 0.1).is_empty());
    // 200 -> 150: the total change from the reference (-0.51) crosses it.
    let events = dvs.process(&grey(1, 1, 150), 1, 0.2).to_vec();
    assert_eq!(events.len(), 1);
    assert!(!events[0].pol);
    assert!(events[0].t > 100_000_000 && events[0].t <= 200_000_000);
}

#[test]
fn the_refractory_period_silences_a_pixel_after_it_fired() {
    let settings = DvsSettings {
        refractory_period_ns: 1_000_000_000,
        ..DvsSettings::default()
    };
    let mut dvs = Dvs::new(settings, 1);
    dvs.process(&grey(1, 1, 10), 1, 0.0);
    // Several crossings within 0.1 s: only the first one fires.
    assert_eq!(dvs.process(&grey(1, 1, 250), 1, 0.1).len(), 1);
    // Still within the second: darkening fires nothing.
    assert!(dvs.process(&grey(1, 1, 10), 1, 0.5).is_empty());
    // After it: events again.
    assert_eq!(dvs.process(&grey(1, 1, 250), 1, 2.0).len(), 1);
}

#[test]
fn linear_intensity_and_tiny_thresholds_stay_bounded() {
    let settings = DvsSettings {
        positive_threshold: 0.0,
        use_log: false,
        ..DvsSettings::default()
    };
    let mut dvs = Dvs::new(settings, 1);
    dvs.process(&grey(2, 2, 0), 2, 0.0);
    // 0 -> 255 in grey units with the 0.01 floor would be 25500 crossings.
    let events = dvs.process(&grey(2, 2, 255), 2, 0.1);
    assert_eq!(events.len(), 4 * MAX_CROSSINGS as usize);
}

#[test]
fn threshold_noise_is_deterministic_per_seed_and_changes_the_count() {
    let settings = DvsSettings {
        sigma_positive: 0.2,
        ..DvsSettings::default()
    };
    let run = |seed| {
        let mut dvs = Dvs::new(settings, seed);
        dvs.process(&grey(16, 16, 20), 16, 0.0);
        dvs.process(&grey(16, 16, 240), 16, 0.1).len()
    };
    assert_eq!(run(7), run(7));
    let plain = 16 * 16 * ((log_level(240) - log_level(20)) / 0.3).floor() as usize;
    assert_ne!(run(7), plain);
}

#[test]
fn a_new_image_size_restarts_the_model() {
    let mut dvs = Dvs::new(DvsSettings::default(), 1);
    dvs.process(&grey(2, 2, 10), 2, 0.0);
    assert!(dvs.process(&grey(3, 3, 250), 3, 0.1).is_empty());
    assert_eq!(dvs.process(&grey(3, 3, 10), 3, 0.2).len() % 9, 0);
}

#[test]
fn settings_come_from_the_blueprint() {
    let pairs = [
        ("positive_threshold", "0.2"),
        ("refractory_period_ns", "500"),
        ("use_log", "false"),
    ];
    let a = crate::sensor::blueprint::create("sensor.camera.dvs", &pairs).unwrap();
    let s = DvsSettings::from_attributes(&a);
    assert_eq!(s.positive_threshold, 0.2);
    assert_eq!(s.negative_threshold, 0.3);
    assert_eq!(s.refractory_period_ns, 500);
    assert!(!s.use_log);
    assert_eq!(s.log_eps, 0.001);
}
