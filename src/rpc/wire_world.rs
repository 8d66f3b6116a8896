//! The msgpack shapes of the world's blueprints and actors (`rpc::Actor`,
//! `ActorDefinition`), in each client release's numbering; `wire` has the
//! shapes of plain values.

use super::wire::{array, bin, boolean, bounding_box, string, uint};
use super::world::{blueprint_attributes, Actor, ActorKind, Blueprint, BlueprintAttribute};
use crate::release::Release;

/// `[ActorDefinition …]`: `[uid, id, tags, [[id, type, value,
/// recommended values, modifiable, restricted] …]]`, uid = index + 1.
///
/// A client of another release gets its attribute types, and only the
/// blueprints its release has (uids keep their numbers).
pub(crate) fn actor_definitions(out: &mut Vec<u8>, list: &[Blueprint], release: Release) {
    let offered = |b: &&Blueprint| release.has_sensor_blueprint(&b.id);
    array(out, list.iter().filter(offered).count());
    for (i, b) in list.iter().enumerate().filter(|(_, b)| offered(b)) {
        array(out, 4);
        uint(out, i as u64 + 1);
        string(out, &b.id);
        string(out, &b.id.replace('.', ","));
        // CARLA 0.9.16 gives every blueprint its ROS 2 attributes.
        let ros: Vec<BlueprintAttribute> = blueprint_attributes()
            .filter(|r| !b.attributes.iter().any(|a| a.id == r.id))
            .collect();
        array(out, b.attributes.len() + ros.len());
        for a in b.attributes.iter().chain(&ros) {
            array(out, 6);
            string(out, &a.id);
            uint(out, release.attribute_type_out(a.kind).into());
            string(out, &a.value);
            array(out, a.recommended.len());
            for r in &a.recommended {
                string(out, r);
            }
            boolean(out, a.modifiable);
            boolean(out, a.restricted);
        }
    }
}

/// `rpc::Actor`: `[id, parent, [uid, id, [[attr, type, value]…]],
/// bounding box, semantic tags, stream token]`, in `release`'s numbering.
pub(crate) fn actor(out: &mut Vec<u8>, a: &Actor, stream_token: Option<&[u8]>, release: Release) {
    array(out, 6);
    uint(out, a.id.into());
    uint(out, a.parent.into());
    array(out, 3);
    uint(out, a.uid.into());
    string(out, &a.blueprint);
    array(out, a.attributes.len());
    for (id, kind, value) in &a.attributes {
        array(out, 3);
        string(out, id);
        uint(out, release.attribute_type_out(*kind).into());
        string(out, value);
    }
    bounding_box(out, &a.bounding_box, a.id);
    let tag = semantic_tag(a.kind, &a.attributes).map(|t| release.label_out(t));
    bin(out, tag.as_slice());
    bin(out, stream_token.unwrap_or_default());
}

/// The 0.9.16 semantic tags (`carla.CityObjectLabel`) of an actor, from its
/// blueprint: vehicles by `base_type` (Car 14, Truck 15, Bus 16,
/// Motorcycle 18, Bicycle 19), walkers Pedestrians (12), traffic lights
/// TrafficLight (7), other `traffic.*` TrafficSigns (8); sensors,
/// controllers and the spectator none. Scripts read `actor.semantic_tags[0]`.
fn semantic_tag(kind: ActorKind, attributes: &[(String, u8, String)]) -> Option<u8> {
    let base_type = || {
        attributes
            .iter()
            .find(|(k, _, _)| k == "base_type")
            .map(|(_, _, v)| v.to_ascii_lowercase())
            .unwrap_or_default()
    };
    match kind {
        ActorKind::Vehicle => match base_type().as_str() {
            "truck" => Some(15),
            "bus" => Some(16),
            "motorcycle" => Some(18),
            "bicycle" => Some(19),
            _ => Some(14),
        },
        ActorKind::Walker => Some(12),
        ActorKind::TrafficLight => Some(7),
        ActorKind::TrafficSign => Some(8),
        ActorKind::Sensor | ActorKind::Other => None,
    }
}
