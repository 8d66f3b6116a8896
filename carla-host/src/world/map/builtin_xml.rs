//! Writes the [`Network`] of [`super`] as an OpenDRIVE 1.4 document in the
//! form LibCarla's parser reads and CARLA's towns are written: one
//! `<line/>` or `<arc/>` geometry per road, one lane section, road-level
//! `<link>`s (to a junction for roads between nodes, to a road with its
//! contact point for connecting roads), lane-level links only on connecting
//! roads (the junction's `<connection>`/`<laneLink>` entries lead into
//! them), `<signal>`s with one `<validity>` each, a top-level
//! `<controller>` per light, referenced from its `<junction>` with its turn
//! as `sequence`, and a `<geoReference>` PROJ string.

use super::{
    Link, Network, Road, Signal, SignalKind, CONTROLLER_ID0, JUNCTION_HALF, LANE_WIDTH, LATITUDE,
    LIGHT_ID0, LONGITUDE, ROADS, SIDEWALK_WIDTH, SPACING,
};
use std::fmt::{Result, Write};

/// Road marks as CARLA's one-lane-each-way towns write them.
const NO_MARK: &str =
    r#"<roadMark sOffset="0" type="none" material="standard" color="white" laneChange="none"/>"#;
const CENTRE_MARK: &str = r#"<roadMark sOffset="0" type="broken" material="standard" color="yellow" width="0.125" laneChange="none"/>"#;
const EDGE_MARK: &str = r#"<roadMark sOffset="0" type="solid" material="standard" color="white" width="0.125" laneChange="none"/>"#;

fn link_xml(out: &mut String, tag: &str, link: Link) -> Result {
    match link {
        Link::Junction(id) => writeln!(
            out,
            r#"      <{tag} elementType="junction" elementId="{id}"/>"#
        ),
        Link::Road { road, at_start, .. } => {
            let contact = if at_start { "start" } else { "end" };
            writeln!(
                out,
                r#"      <{tag} elementType="road" elementId="{road}" contactPoint="{contact}"/>"#
            )
        }
    }
}

/// A lane; the centre lane (id 0) has no width.
fn lane_xml(out: &mut String, id: i32, kind: &str, width: f64, links: &str, mark: &str) -> Result {
    writeln!(
        out,
        r#"          <lane id="{id}" type="{kind}" level="false">"#
    )?;
    if links.is_empty() {
        writeln!(out, "            <link/>")?;
    } else {
        writeln!(out, "            <link>{links}</link>")?;
    }
    if id != 0 {
        writeln!(
            out,
            r#"            <width sOffset="0" a="{width}" b="0" c="0" d="0"/>"#
        )?;
    }
    writeln!(out, "            {mark}\n          </lane>")
}

fn lanes_xml(out: &mut String, road: &Road) -> Result {
    out.push_str("    <lanes>\n      <laneOffset s=\"0\" a=\"0\" b=\"0\" c=\"0\" d=\"0\"/>\n");
    out.push_str("      <laneSection s=\"0\">\n");
    if road.junction.is_none() {
        out.push_str("        <left>\n");
        lane_xml(out, 2, "sidewalk", SIDEWALK_WIDTH, "", NO_MARK)?;
        lane_xml(out, 1, "driving", LANE_WIDTH, "", EDGE_MARK)?;
        out.push_str("        </left>\n        <center>\n");
        lane_xml(out, 0, "none", 0.0, "", CENTRE_MARK)?;
        out.push_str("        </center>\n        <right>\n");
        lane_xml(out, -1, "driving", LANE_WIDTH, "", EDGE_MARK)?;
        lane_xml(out, -2, "sidewalk", SIDEWALK_WIDTH, "", NO_MARK)?;
    } else {
        let lane_of = |link| match link {
            Link::Road { lane, .. } => lane,
            Link::Junction(_) => unreachable!("connecting roads link to roads"),
        };
        let links = |k: i32| {
            format!(
                r#"<predecessor id="{}"/><successor id="{}"/>"#,
                k * lane_of(road.predecessor),
                k * lane_of(road.successor)
            )
        };
        out.push_str("        <center>\n");
        lane_xml(out, 0, "none", 0.0, "", NO_MARK)?;
        out.push_str("        </center>\n        <right>\n");
        lane_xml(out, -1, "driving", LANE_WIDTH, &links(1), NO_MARK)?;
        if road.sidewalk {
            // The sidewalks on the same side of the roads it joins: the
            // right of their traffic, ±2 beside ±1.
            lane_xml(out, -2, "sidewalk", SIDEWALK_WIDTH, &links(2), NO_MARK)?;
        }
    }
    out.push_str("        </right>\n      </laneSection>\n    </lanes>\n");
    Ok(())
}

/// A signal, valid for its one lane and facing that lane's traffic.
fn signal_xml(out: &mut String, sig: &Signal) -> Result {
    let (id, s, t, lane) = (sig.id, sig.s, sig.t, sig.lane);
    let orientation = if lane < 0 { "+" } else { "-" };
    // (name, dynamic, type, subtype, value, unit, height, width). As on
    // CARLA's maps, a signal stands on the ground (zOffset 0: the foot of
    // its pole); its height is the pole's: 4.4 m for a light, whose 0.4 m
    // housing hangs from 3.2 m to 4.2 m, and 2.9 m for a sign's 0.7 m board.
    let (name, dynamic, kind, subtype, value, unit, height, width) = match sig.kind {
        SignalKind::Light => (
            format!("Light {id}"),
            "yes",
            "1000001",
            "-1".to_string(),
            "-1".to_string(),
            "",
            4.4,
            0.4,
        ),
        SignalKind::SpeedLimit(v) => (
            format!("Speed limit {v}"),
            "no",
            "274",
            v.to_string(),
            v.to_string(),
            r#" unit="km/h""#,
            2.9,
            0.7,
        ),
        SignalKind::Stop => (
            "Stop".to_string(),
            "no",
            "206",
            "-1".to_string(),
            "-1".to_string(),
            "",
            2.9,
            0.7,
        ),
    };
    writeln!(
        out,
        r#"      <signal s="{s}" t="{t}" id="{id}" name="{name}" dynamic="{dynamic}" orientation="{orientation}" zOffset="0" country="OpenDRIVE" type="{kind}" subtype="{subtype}" value="{value}"{unit} text="" hOffset="0" pitch="0" roll="0" height="{height}" width="{width}">
        <validity fromLane="{lane}" toLane="{lane}"/>
      </signal>"#
    )
}

fn road_xml(out: &mut String, road: &Road) -> Result {
    let junction = road.junction.map_or(-1, i64::from);
    let (id, length) = (road.id, road.length);
    writeln!(
        out,
        r#"  <road name="Road {id}" length="{length}" id="{id}" junction="{junction}">"#
    )?;
    out.push_str("    <link>\n");
    link_xml(out, "predecessor", road.predecessor)?;
    link_xml(out, "successor", road.successor)?;
    out.push_str("    </link>\n");
    let (x, y, hdg) = (road.x, road.y, road.hdg);
    let shape = if road.curvature == 0.0 {
        "<line/>".to_string()
    } else {
        format!(r#"<arc curvature="{}"/>"#, road.curvature)
    };
    writeln!(
        out,
        r#"    <type s="0" type="town"/>
    <planView>
      <geometry s="0" x="{x}" y="{y}" hdg="{hdg}" length="{length}">{shape}</geometry>
    </planView>
    <elevationProfile>
      <elevation s="0" a="0" b="0" c="0" d="0"/>
    </elevationProfile>
    <lateralProfile/>"#
    )?;
    lanes_xml(out, road)?;
    out.push_str("    <objects/>\n");
    if road.signals.is_empty() {
        out.push_str("    <signals/>\n");
    } else {
        out.push_str("    <signals>\n");
        for sig in &road.signals {
            signal_xml(out, sig)?;
        }
        out.push_str("    </signals>\n");
    }
    out.push_str("  </road>\n");
    Ok(())
}

fn write_network(out: &mut String, net: &Network) -> Result {
    // The extent of the lanes, sidewalks included.
    let (near, far) = (-JUNCTION_HALF, SPACING * (ROADS - 1) as f64 + JUNCTION_HALF);
    writeln!(
        out,
        r#"<?xml version="1.0" encoding="UTF-8"?>
<OpenDRIVE>
  <header revMajor="1" revMinor="4" name="{name}" version="1" date="2018-08-04" north="{north}" south="{south}" east="{far}" west="{near}" vendor="carla-host">
    <geoReference><![CDATA[+proj=tmerc +lat_0={LATITUDE} +lon_0={LONGITUDE} +k=1 +x_0=0 +y_0=0 +datum=WGS84 +units=m +no_defs]]></geoReference>
  </header>"#,
        name = super::NAME,
        north = -near,
        south = -far,
    )?;
    for road in &net.roads {
        road_xml(out, road)?;
    }
    for j in &net.junctions {
        for (turn, light) in j.lights.iter().enumerate() {
            let id = controller_id(*light);
            writeln!(
                out,
                r#"  <controller id="{id}" name="Junction {} turn {turn}" sequence="{turn}">
    <control signalId="{light}" type="0"/>
  </controller>"#,
                j.id
            )?;
        }
    }
    for j in &net.junctions {
        let id = j.id;
        writeln!(out, r#"  <junction id="{id}" name="Junction {id}">"#)?;
        for c in &j.connections {
            writeln!(
                out,
                r#"    <connection id="{}" incomingRoad="{}" connectingRoad="{}" contactPoint="start">
      <laneLink from="{}" to="-1"/>{}
    </connection>"#,
                c.id,
                c.incoming,
                c.connecting,
                c.from,
                if c.sidewalk {
                    format!("\n      <laneLink from=\"{}\" to=\"-2\"/>", 2 * c.from)
                } else {
                    String::new()
                }
            )?;
        }
        for (turn, light) in j.lights.iter().enumerate() {
            let controller = controller_id(*light);
            writeln!(
                out,
                r#"    <controller id="{controller}" type="0" sequence="{turn}"/>"#
            )?;
        }
        out.push_str("  </junction>\n");
    }
    out.push_str("</OpenDRIVE>\n");
    Ok(())
}

/// The controller of light `light`: its only one.
fn controller_id(light: u32) -> u32 {
    CONTROLLER_ID0 + (light - LIGHT_ID0)
}

/// Writes `net` as an OpenDRIVE 1.4 document.
pub(super) fn to_xml(net: &Network) -> String {
    let mut out = String::with_capacity(1 << 19);
    write_network(&mut out, net).expect("writing to a String cannot fail");
    out
}
