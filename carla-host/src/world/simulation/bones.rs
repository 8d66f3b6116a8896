//! The walkers' skeletons as clients see them: `get_bones`,
//! `set_bones`, `blend_pose`, `get_pose_from_animation` (the skeleton
//! itself: [`super::skeleton`]).

use super::skeleton::{Placed, COUNT};
use crate::world::World;
use carla_server::types::ActorTransform;

/// One bone of a walker's skeleton as `get_bones` reports it: in the
/// world, in the walker's frame (component) and relative to its parent.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Bone {
    pub name: &'static str,
    pub world: ActorTransform,
    pub component: ActorTransform,
    pub relative: ActorTransform,
}

impl World {
    /// Walker `id`'s bones, parents first, into `out` (cleared); false
    /// when `id` is no walker.
    pub(crate) fn walker_bones(&self, id: u32, out: &mut Vec<Bone>) -> bool {
        out.clear();
        let Some(w) = self.walkers().iter().find(|w| w.id == id) else {
            return false;
        };
        let mut component = [Placed::default(); COUNT];
        w.skeleton.place(&Placed::default(), &mut component);
        let mut world = [Placed::default(); COUNT];
        w.skeleton.place(&super::figure::frame(w), &mut world);
        out.extend((0..COUNT).map(|i| {
            let l = w.skeleton.local(i);
            Bone {
                name: super::skeleton::BONES[i].0,
                world: world[i].transform(),
                component: component[i].transform(),
                relative: ActorTransform {
                    location: l.offset,
                    rotation: l.rotation,
                },
            }
        }));
        true
    }

    /// `set_bones`: these bones' transforms relative to their parents
    /// (unknown names ignored); false when `id` is no walker.
    pub(crate) fn set_walker_bones(&mut self, id: u32, bones: &[(String, ActorTransform)]) -> bool {
        self.walker_mut(id)
            .map(|w| w.skeleton.set_bones(bones))
            .is_some()
    }

    /// `blend_pose`: how much of the set pose shows over the walking
    /// animation (0 none, 1 all; `show_pose` is 1, `hide_pose` 0).
    pub(crate) fn blend_walker_pose(&mut self, id: u32, blend: f32) -> bool {
        self.walker_mut(id)
            .map(|w| w.skeleton.blend(blend))
            .is_some()
    }

    /// `get_pose_from_animation`: the set pose becomes the animation's
    /// current pose.
    pub(crate) fn walker_pose_from_animation(&mut self, id: u32) -> bool {
        self.walker_mut(id)
            .map(|w| w.skeleton.pose_from_animation())
            .is_some()
    }
}
