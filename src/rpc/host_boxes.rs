//! The host's actors whose bounding box is their own, not their
//! blueprint's: a traffic light's trigger volume (CARLA's clients read
//! `trigger_volume`, the actor's box, to find the lanes it governs) differs
//! from light to light.

use super::RpcServer;
use crate::episode::ActorBox;
use crate::types::ActorTransform;
use crate::Error;

impl RpcServer {
    /// [`RpcServer::add_actor`] with `bounding_box` (in the actor's frame)
    /// as the box clients get for it. A box that is not finite or has a
    /// negative extent is [`Error::InvalidArgument`] and adds nothing.
    pub fn add_actor_boxed(
        &self,
        id: u32,
        blueprint: &str,
        attributes: &[(&str, &str)],
        transform: ActorTransform,
        bounding_box: ActorBox,
    ) -> Result<(), Error> {
        let (l, e) = (bounding_box.location, bounding_box.extent);
        let finite = [l.x, l.y, l.z, e.x, e.y, e.z].iter().all(|v| v.is_finite());
        if !finite || e.x < 0.0 || e.y < 0.0 || e.z < 0.0 {
            return Err(Error::InvalidArgument(format!(
                "actor {id}: bounding box {bounding_box:?} must be finite with extents >= 0"
            )));
        }
        self.add_actor(id, blueprint, attributes, transform)?;
        if let Some(actor) = self.shared.world.actors.write().get_mut(&id) {
            actor.bounding_box = bounding_box;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Vector3D;

    #[test]
    fn a_host_actor_keeps_its_own_box_and_a_bad_box_is_refused() {
        let server = crate::Server::new();
        server.listen_rpc(0).expect("an RPC port");
        let rpc = server.rpc().expect("the endpoint");
        rpc.add_blueprint(crate::rpc::Blueprint {
            id: "traffic.traffic_light".into(),
            attributes: Vec::new(),
            bounding_box: ActorBox::default(),
            library_sensor: false,
            physics: None,
        });
        let v = |x, y, z| Vector3D { x, y, z };
        let b = ActorBox {
            location: v(1.0, -2.0, 0.5),
            extent: v(3.0, 2.5, 1.0),
        };
        rpc.add_actor_boxed(3000, "traffic.traffic_light", &[], Default::default(), b)
            .expect("added");
        let held = rpc
            .shared
            .world
            .actors
            .read()
            .get(&3000)
            .map(|a| a.bounding_box);
        assert_eq!(held, Some(b));
        let bad = ActorBox {
            extent: v(f32::NAN, 1.0, 1.0),
            ..b
        };
        assert!(rpc
            .add_actor_boxed(3001, "traffic.traffic_light", &[], Default::default(), bad)
            .is_err());
        assert!(!rpc.shared.world.actors.read().contains_key(&3001));
    }
}
