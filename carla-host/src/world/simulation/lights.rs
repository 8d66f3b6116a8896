//! The traffic lights' cycle, as CARLA's light groups run: the phases of a
//! group (a junction) get green one after the other (green, then yellow),
//! the others are red meanwhile; after each yellow every light of the
//! group stays red for [`CLEARANCE_S`] so what entered on yellow leaves
//! the junction first. A group with one phase cycles as if it had two
//! (it is red as long as it is green). Each group starts at its own offset.

use crate::world::map::signals::{LightGroup, SignKind, Signs};

pub(crate) const GREEN_S: f32 = 10.0;
pub(crate) const YELLOW_S: f32 = 3.0;
pub(crate) const CLEARANCE_S: f32 = 1.0;

/// A traffic light state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Light {
    Green,
    Yellow,
    Red,
}

/// One light's place in the cycle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Slot {
    pub group: u32,
    pub phase: u32,
}

/// The lights of a map (in [`Signs::lights`] order).
#[derive(Clone, Debug, Default)]
pub(crate) struct Lights {
    pub slots: Vec<Slot>,
    groups: Vec<LightGroup>,
}

impl Lights {
    pub(crate) fn new(signs: &Signs) -> Lights {
        Lights {
            slots: signs
                .lights()
                .map(|(_, s)| match s.kind {
                    SignKind::Light { group, phase } => Slot { group, phase },
                    _ => unreachable!("lights() yields lights"),
                })
                .collect(),
            groups: signs.groups.clone(),
        }
    }

    fn phases(&self, group: u32) -> u32 {
        self.groups
            .get(group as usize)
            .map_or(2, |g| g.phases.max(2))
    }

    /// Seconds a light of `group` is red in each cycle.
    pub(crate) fn red_seconds(&self, light: usize) -> f32 {
        let p = self.phases(self.slots[light].group) as f32;
        p * (GREEN_S + YELLOW_S + CLEARANCE_S) - GREEN_S - YELLOW_S
    }

    /// The state of light `light` at time `t` and how long it has been in it.
    pub(crate) fn phase(&self, light: usize, t: f32) -> (Light, f32) {
        let Some(slot) = self.slots.get(light) else {
            return (Light::Green, t);
        };
        let slot_s = GREEN_S + YELLOW_S + CLEARANCE_S;
        let cycle = self.phases(slot.group) as f32 * slot_s;
        let offset = self
            .groups
            .get(slot.group as usize)
            .map_or(0.0, |g| g.offset);
        let at = (t + offset - slot.phase as f32 * slot_s).rem_euclid(cycle);
        if at < GREEN_S {
            (Light::Green, at)
        } else if at < GREEN_S + YELLOW_S {
            (Light::Yellow, at - GREEN_S)
        } else {
            (Light::Red, at - GREEN_S - YELLOW_S)
        }
    }

    pub(crate) fn state(&self, light: usize, t: f32) -> Light {
        self.phase(light, t).0
    }

    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn a_groups_phases_take_turns_and_never_overlap() {
        let signs = Signs {
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
        };
        let lights = Lights::new(&signs);
        let mut greens = [0.0f32; 4];
        for k in 0..4200 {
            let t = k as f32 * 0.01;
            let green: Vec<bool> = (0..4).map(|i| lights.state(i, t) != Light::Red).collect();
            assert!(
                green[..3].iter().filter(|g| **g).count() <= 1,
                "two phases of a group at once at {t}"
            );
            for (i, g) in greens.iter_mut().enumerate() {
                *g += f32::from(lights.state(i, t) == Light::Green) * 0.01;
            }
        }
        // Each of the three phases is green 10 s of each 42 s cycle.
        for g in &greens[..3] {
            assert!((g - 10.0).abs() < 0.05, "{greens:?}");
        }
        // A lone light is red as long as it is green.
        assert!((lights.red_seconds(3) - 15.0).abs() < 1e-6);
        assert!(greens[3] > 10.0, "{greens:?}");
        assert_eq!(lights.phase(0, 11.0), (Light::Yellow, 1.0));
    }
}
