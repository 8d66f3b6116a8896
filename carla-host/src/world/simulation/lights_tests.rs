use super::*;
use crate::world::map::signals::Sign;

fn light(group: u32, phase: u32) -> Sign {
    Sign {
        kind: SignKind::Light { group, phase },
        od_id: String::new(),
        position: [0.0; 3],
        traffic_yaw: 0.0,
        stops: Vec::new(),
    }
}

/// Lights 0-2: the three phases of group 0 (no offset); light 3: the
/// lone light of group 1 (4 s into its cycle).
fn junction() -> Lights {
    Lights::new(&Signs {
        signs: vec![light(0, 0), light(0, 1), light(0, 2), light(1, 0)],
        groups: vec![
            LightGroup {
                phases: 3,
                offset: 0.0,
            },
            LightGroup {
                phases: 1,
                offset: 4.0,
            },
        ],
    })
}

/// Runs `lights` `seconds` in steps of 0.01 s.
fn run(lights: &mut Lights, seconds: f32) {
    for _ in 0..(seconds * 100.0).round() as u32 {
        lights.advance(0.01);
    }
}

/// The states of lights 0-3.
fn states(lights: &Lights) -> [Light; 4] {
    [0, 1, 2, 3].map(|i| lights.state(i))
}

#[test]
fn a_groups_phases_take_turns_and_never_overlap() {
    let mut lights = junction();
    let mut greens = [0.0f32; 4];
    let mut lone_red = 0.0f32;
    for k in 0..4200 {
        let s = states(&lights);
        assert!(
            s[..3].iter().filter(|l| **l != Light::Red).count() <= 1,
            "two phases of a group at once: {s:?}"
        );
        for i in 0..4 {
            greens[i] += f32::from(s[i] == Light::Green) * 0.01;
        }
        if k < 2800 {
            lone_red += f32::from(s[3] == Light::Red) * 0.01;
        }
        lights.advance(0.01);
    }
    // Each of the three phases is green 10 s of each 42 s cycle.
    for g in &greens[..3] {
        assert!((g - 10.0).abs() < 0.05, "{greens:?}");
    }
    // A lone light is red as long as it is green and yellow, and its own
    // red time: 15 s of its 28-s cycle (the empty phase's 14 and its 1).
    assert!((lone_red - 15.0).abs() < 0.05, "{lone_red}");
    assert_eq!(lights.times(0), [GREEN_S, YELLOW_S, CLEARANCE_S]);
}

#[test]
fn a_light_reports_how_long_it_has_been_in_its_state() {
    let mut lights = junction();
    run(&mut lights, 11.0);
    let (state, elapsed) = lights.phase(0);
    assert_eq!(state, Light::Yellow);
    assert!((elapsed - 1.0).abs() < 0.02, "{elapsed}");
    // The lone light, 4 s into its cycle at the start.
    let (state, elapsed) = lights.phase(3);
    assert_eq!(state, Light::Red);
    assert!((elapsed - 2.0).abs() < 0.02, "{elapsed}");
}

#[test]
fn a_state_set_by_hand_holds_until_its_phase_next_changes() {
    let mut lights = junction();
    // Phase 1 is red until phase 0's green, yellow and red are over (14 s).
    lights.set_state(1, Light::Green);
    assert_eq!(lights.phase(1), (Light::Green, 0.0));
    run(&mut lights, 5.0);
    assert_eq!(lights.phase(1).0, Light::Green);
    assert!((lights.phase(1).1 - 5.0).abs() < 0.02);
    // Phase 0's own change (to yellow at 10 s) leaves it as it is.
    run(&mut lights, 8.5);
    assert_eq!(states(&lights)[..2], [Light::Red, Light::Green]);
    // Its phase goes green at 14 s, yellow at 24 s: the cycle again.
    run(&mut lights, 11.0);
    assert_eq!(lights.state(1), Light::Yellow);
    // Off: traffic passes as if there were no light.
    lights.set_state(2, Light::Off);
    assert!(!lights.state(2).stops());
    assert!(lights.state(1).stops());
}

#[test]
fn a_frozen_group_stands_still_and_the_others_run_on() {
    let mut lights = junction();
    run(&mut lights, 3.0);
    let (before, lone) = (lights.phase(0), lights.phase(3));
    lights.freeze(0, true);
    assert!(lights.frozen(2) && !lights.frozen(3));
    run(&mut lights, 100.0);
    assert_eq!(lights.phase(0), before);
    assert_ne!(lights.phase(3), lone);
    // A state set while frozen holds as long.
    lights.set_state(1, Light::Yellow);
    run(&mut lights, 30.0);
    assert_eq!(lights.phase(1), (Light::Yellow, 0.0));
    lights.freeze(0, false);
    run(&mut lights, 7.5);
    assert_eq!(lights.state(0), Light::Yellow);
    // All at once.
    lights.freeze_all(true);
    let all = states(&lights);
    run(&mut lights, 50.0);
    assert_eq!(states(&lights), all);
    assert!((0..4).all(|i| lights.frozen(i)));
    lights.freeze_all(false);
    assert!((0..4).all(|i| !lights.frozen(i)));
}

#[test]
fn a_phase_time_applies_from_the_stage_s_next_start() {
    let mut lights = junction();
    run(&mut lights, 2.0);
    lights.set_time(0, Stage::Green, 30.0);
    lights.set_time(1, Stage::Red, 2.5);
    assert_eq!(lights.times(0), [30.0, YELLOW_S, CLEARANCE_S]);
    assert_eq!(lights.times(1), [GREEN_S, YELLOW_S, 2.5]);
    // The green under way keeps its 10 s.
    run(&mut lights, 8.5);
    assert_eq!(lights.state(0), Light::Yellow);
    // Phase 1's red is 2.5 s from this cycle on: phase 0's next green
    // from 43.5 s (14 + 15.5 + 14) to 73.5 s.
    run(&mut lights, 32.5 + 29.0);
    assert_eq!(lights.state(0), Light::Green);
    run(&mut lights, 2.0);
    assert_eq!(lights.state(0), Light::Yellow);
    // Nonsense is taken as 0.
    lights.set_time(2, Stage::Yellow, f32::NAN);
    lights.set_time(2, Stage::Green, -3.0);
    assert_eq!(lights.times(2), [0.0, 0.0, CLEARANCE_S]);
}

#[test]
fn times_of_zero_do_not_spin_the_cycle() {
    let mut lights = junction();
    for light in 0..3 {
        for stage in [Stage::Green, Stage::Yellow, Stage::Red] {
            lights.set_time(light, stage, 0.0);
        }
    }
    // Each call ends; the lights still change.
    let mut seen = std::collections::HashSet::new();
    for _ in 0..400 {
        lights.advance(0.05);
        seen.insert(format!("{:?}", &states(&lights)[..3]));
    }
    assert!(seen.len() > 1, "{seen:?}");
}

#[test]
fn resetting_a_group_starts_its_first_green_and_forgets_states_set() {
    let mut lights = junction();
    run(&mut lights, 20.0);
    lights.set_state(0, Light::Off);
    lights.set_state(3, Light::Off);
    let lone = lights.phase(3);
    lights.reset_group(1);
    assert_eq!(lights.phase(1), (Light::Red, 0.0));
    assert_eq!(states(&lights)[..3], [Light::Green, Light::Red, Light::Red]);
    assert_eq!(lights.phase(3), lone, "another group's light");
    lights.reset_all();
    assert_eq!(lights.phase(3), (Light::Green, 0.0));
    run(&mut lights, 10.5);
    assert_eq!(
        states(&lights),
        [Light::Yellow, Light::Red, Light::Red, Light::Yellow]
    );
}
