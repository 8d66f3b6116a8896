//! The traffic lights' cycle, as CARLA's light groups run it: the phases
//! of a group (a junction; CARLA's controllers) get green one after the
//! other, each going green, yellow, then red for its red time (every
//! light of the group red, so what entered on yellow leaves the junction)
//! before the next phase's green; the other phases are red meanwhile. A
//! group with one phase cycles as if it had two (it is red as long as it
//! is green). Each group starts at its own offset into its cycle.
//!
//! Clients change it as CARLA's do: a light's state set by hand holds
//! until its phase's next change; a phase's times apply from its next
//! stage on; a frozen group (or all of them) stands still, states and
//! elapsed times; resetting a group starts its first phase's green.

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
    /// Dark: set by a client (CARLA's `Off`); traffic passes as if there
    /// were no light.
    Off,
}

impl Light {
    /// Whether traffic must stop (or clear the junction) before it.
    pub(crate) fn stops(self) -> bool {
        matches!(self, Light::Yellow | Light::Red)
    }
}

/// Which of a phase's times ([`Lights::set_time`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stage {
    Green = 0,
    Yellow = 1,
    Red = 2,
}

/// One light's place in the cycle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Slot {
    pub group: u32,
    pub phase: u32,
}

/// One phase of a group: its times (green, yellow, red, seconds), its
/// lights' state and the seconds they have been in it.
#[derive(Clone, Copy, Debug)]
struct Phase {
    times: [f32; 3],
    state: Light,
    elapsed: f32,
}

/// A group's cycle: the phase whose turn it is and the seconds left of
/// its stage.
#[derive(Clone, Debug)]
struct Group {
    phases: Vec<Phase>,
    current: usize,
    left: f32,
    frozen: bool,
}

impl Group {
    fn new(phases: u32) -> Group {
        let phase = Phase {
            times: [GREEN_S, YELLOW_S, CLEARANCE_S],
            state: Light::Red,
            elapsed: 0.0,
        };
        let mut g = Group {
            phases: vec![phase; phases.max(2) as usize],
            current: 0,
            left: 0.0,
            frozen: false,
        };
        g.reset();
        g
    }

    /// Every phase red, the first one's green starting.
    fn reset(&mut self) {
        for p in &mut self.phases {
            p.state = Light::Red;
            p.elapsed = 0.0;
        }
        self.current = 0;
        self.phases[0].state = Light::Green;
        self.left = self.phases[0].times[Stage::Green as usize];
    }

    /// Runs `dt` seconds; calls `changed(phase)` for each phase whose
    /// lights changed. At most one whole cycle of changes per call, so
    /// times of 0 s (a client may set them) cannot spin it.
    fn advance(&mut self, dt: f32, mut changed: impl FnMut(usize)) {
        if self.frozen {
            return;
        }
        for p in &mut self.phases {
            p.elapsed += dt;
        }
        self.left -= dt;
        let mut budget = 3 * self.phases.len() + 1;
        while self.left <= 0.0 && budget > 0 {
            budget -= 1;
            let over = -self.left;
            let n = self.phases.len();
            let (phase, stage) = match self.phases[self.current].state {
                Light::Green => (self.current, Stage::Yellow),
                Light::Yellow => (self.current, Stage::Red),
                // Red (or a state a client set): the next phase's green.
                _ => {
                    self.current = (self.current + 1) % n;
                    (self.current, Stage::Green)
                }
            };
            let p = &mut self.phases[phase];
            p.state = match stage {
                Stage::Green => Light::Green,
                Stage::Yellow => Light::Yellow,
                Stage::Red => Light::Red,
            };
            p.elapsed = over;
            self.left += p.times[stage as usize];
            changed(phase);
        }
        self.left = self.left.max(0.0);
    }
}

/// The lights of a map (in [`Signs::lights`] order) and their groups'
/// cycles.
#[derive(Clone, Debug, Default)]
pub(crate) struct Lights {
    pub slots: Vec<Slot>,
    groups: Vec<Group>,
    /// By light: the state a client set and the seconds it has held.
    set: Vec<Option<(Light, f32)>>,
}

impl Lights {
    /// The cycle at time 0: each group `offset` seconds into its own.
    pub(crate) fn new(signs: &Signs) -> Lights {
        let slots: Vec<Slot> = signs
            .lights()
            .map(|(_, s)| match s.kind {
                SignKind::Light { group, phase } => Slot { group, phase },
                _ => unreachable!("lights() yields lights"),
            })
            .collect();
        // A group for every group a light names, so a light of a group
        // the map did not list still cycles.
        let count = (signs.groups.len()).max(
            slots
                .iter()
                .map(|s| s.group as usize + 1)
                .max()
                .unwrap_or(0),
        );
        let groups = (0..count)
            .map(|g| {
                let listed = signs.groups.get(g);
                let most = slots.iter().filter(|s| s.group as usize == g);
                let phases = most.map(|s| s.phase + 1).max().unwrap_or(1);
                let mut group = Group::new(listed.map_or(phases, |l| l.phases.max(phases)));
                let offset = listed.map_or(0.0, |l: &LightGroup| l.offset);
                // In steps shorter than any stage: `advance` makes at most
                // one cycle of changes a call.
                let mut to_go = offset;
                while to_go > 0.0 {
                    let dt = to_go.min(CLEARANCE_S);
                    group.advance(dt, |_| {});
                    to_go -= dt;
                }
                group
            })
            .collect();
        Lights {
            set: vec![None; slots.len()],
            slots,
            groups,
        }
    }

    fn group_of(&self, light: usize) -> Option<usize> {
        self.slots.get(light).map(|s| s.group as usize)
    }

    /// Runs every group that is not frozen `dt` seconds.
    pub(crate) fn advance(&mut self, dt: f32) {
        for (g, group) in self.groups.iter_mut().enumerate() {
            if group.frozen {
                continue;
            }
            let (slots, set) = (&self.slots, &mut self.set);
            group.advance(dt, |phase| {
                // A phase's change ends what a client set on its lights.
                for (slot, s) in slots.iter().zip(set.iter_mut()) {
                    if slot.group as usize == g && slot.phase as usize == phase {
                        *s = None;
                    }
                }
            });
        }
        // States set by hand hold on in groups that run.
        for (slot, s) in self.slots.iter().zip(self.set.iter_mut()) {
            if let Some((_, held)) = s.as_mut() {
                if !self.groups[slot.group as usize].frozen {
                    *held += dt;
                }
            }
        }
    }

    /// The state of light `light` and how long it has been in it, seconds.
    pub(crate) fn phase(&self, light: usize) -> (Light, f32) {
        if let Some(Some(set)) = self.set.get(light) {
            return *set;
        }
        let Some(slot) = self.slots.get(light) else {
            return (Light::Green, 0.0);
        };
        let p = &self.groups[slot.group as usize].phases[slot.phase as usize];
        (p.state, p.elapsed)
    }

    pub(crate) fn state(&self, light: usize) -> Light {
        self.phase(light).0
    }

    /// Light `light`'s green, yellow and red times, seconds (its phase's).
    pub(crate) fn times(&self, light: usize) -> [f32; 3] {
        self.slots
            .get(light)
            .map_or([GREEN_S, YELLOW_S, CLEARANCE_S], |s| {
                self.groups[s.group as usize].phases[s.phase as usize].times
            })
    }

    /// Whether light `light`'s group stands still.
    pub(crate) fn frozen(&self, light: usize) -> bool {
        self.group_of(light).is_some_and(|g| self.groups[g].frozen)
    }

    /// Sets light `light` to `state` until its phase next changes.
    pub(crate) fn set_state(&mut self, light: usize, state: Light) {
        if let Some(s) = self.set.get_mut(light) {
            *s = Some((state, 0.0));
        }
    }

    /// Sets the `stage` time of light `light`'s phase: from the stage's
    /// next start on (negative or non-finite times are taken as 0).
    pub(crate) fn set_time(&mut self, light: usize, stage: Stage, seconds: f32) {
        if let Some(s) = self.slots.get(light) {
            let seconds = if seconds.is_finite() {
                seconds.max(0.0)
            } else {
                0.0
            };
            self.groups[s.group as usize].phases[s.phase as usize].times[stage as usize] = seconds;
        }
    }

    /// Freezes light `light`'s group, or lets it run on.
    pub(crate) fn freeze(&mut self, light: usize, frozen: bool) {
        if let Some(g) = self.group_of(light) {
            self.groups[g].frozen = frozen;
        }
    }

    /// Freezes every group, or lets them all run on.
    pub(crate) fn freeze_all(&mut self, frozen: bool) {
        self.groups.iter_mut().for_each(|g| g.frozen = frozen);
    }

    /// Starts light `light`'s group over: its first phase's green, the
    /// states clients set on its lights forgotten. Its times stay.
    pub(crate) fn reset_group(&mut self, light: usize) {
        if let Some(g) = self.group_of(light) {
            self.groups[g].reset();
            for (slot, s) in self.slots.iter().zip(self.set.iter_mut()) {
                if slot.group as usize == g {
                    *s = None;
                }
            }
        }
    }

    /// [`Lights::reset_group`] for every group.
    pub(crate) fn reset_all(&mut self) {
        self.groups.iter_mut().for_each(Group::reset);
        self.set.iter_mut().for_each(|s| *s = None);
    }

    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
#[path = "lights_tests.rs"]
mod tests;
