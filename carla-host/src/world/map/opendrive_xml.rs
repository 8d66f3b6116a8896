//! Writes the [`Network`] of [`super`] as an OpenDRIVE 1.4 document, in the
//! form LibCarla's parser reads: one `<line/>` or `<arc/>` geometry per
//! road, one lane section, road-level `<link>`s (to a junction for roads
//! between nodes, to a road with its contact point for connecting roads),
//! lane-level links only on connecting roads (the junction's
//! `<connection>`/`<laneLink>` entries lead into them), and a
//! `<geoReference>` PROJ string with `+lat_0`/`+lon_0` from
//! [`GEO_REFERENCE`].

use super::{Link, Network, Road, GEO_REFERENCE, JUNCTION_HALF};
use crate::world::map::town::{LANE_WIDTH, LAST, WALK_HALF};
use std::fmt::Write;

const SIDEWALK_WIDTH: f64 = (WALK_HALF - LANE_WIDTH) as f64;

fn link_xml(out: &mut String, tag: &str, link: Link) {
    match link {
        Link::Junction(id) => {
            let _ = writeln!(
                out,
                r#"      <{tag} elementType="junction" elementId="{id}"/>"#
            );
        }
        Link::Road { road, at_start, .. } => {
            let contact = if at_start { "start" } else { "end" };
            let _ = writeln!(
                out,
                r#"      <{tag} elementType="road" elementId="{road}" contactPoint="{contact}"/>"#
            );
        }
    }
}

fn mark_xml(kind: &str, width: f64, lane_change: &str) -> String {
    if kind == "none" {
        return r#"<roadMark sOffset="0" type="none" weight="standard" color="standard" width="0" laneChange="none"/>"#.to_string();
    }
    format!(
        r#"<roadMark sOffset="0" type="{kind}" weight="standard" color="white" width="{width}" laneChange="{lane_change}"/>"#
    )
}

/// A lane; the centre lane (id 0) has no width.
fn lane_xml(out: &mut String, id: i32, kind: &str, width: f64, links: &str, mark: &str) {
    let _ = writeln!(
        out,
        r#"          <lane id="{id}" type="{kind}" level="false">"#
    );
    let _ = writeln!(out, "            <link>{links}</link>");
    if id != 0 {
        let _ = writeln!(
            out,
            r#"            <width sOffset="0" a="{width}" b="0" c="0" d="0"/>"#
        );
    }
    let _ = writeln!(out, "            {mark}\n          </lane>");
}

fn road_xml(out: &mut String, road: &Road) {
    let junction = road.junction.map_or(-1, |j| j as i64);
    let (id, length) = (road.id, road.length);
    let _ = writeln!(
        out,
        r#"  <road name="Road {id}" length="{length}" id="{id}" junction="{junction}">"#
    );
    out.push_str("    <link>\n");
    link_xml(out, "predecessor", road.predecessor);
    link_xml(out, "successor", road.successor);
    out.push_str("    </link>\n");
    let (x, y, hdg) = (road.x, road.y, road.hdg);
    let shape = if road.curvature == 0.0 {
        "<line/>".to_string()
    } else {
        format!(r#"<arc curvature="{}"/>"#, road.curvature)
    };
    let _ = writeln!(
        out,
        r#"    <type s="0" type="town"/>
    <planView>
      <geometry s="0" x="{x}" y="{y}" hdg="{hdg}" length="{length}">{shape}</geometry>
    </planView>
    <elevationProfile><elevation s="0" a="0" b="0" c="0" d="0"/></elevationProfile>
    <lateralProfile/>
    <lanes>
      <laneOffset s="0" a="0" b="0" c="0" d="0"/>
      <laneSection s="0">"#
    );
    let lane_w = LANE_WIDTH as f64;
    let none = mark_xml("none", 0.0, "none");
    if road.junction.is_none() {
        let edge = mark_xml("solid", 0.15, "none");
        out.push_str("        <left>\n");
        lane_xml(out, 2, "sidewalk", SIDEWALK_WIDTH, "", &none);
        lane_xml(out, 1, "driving", lane_w, "", &edge);
        out.push_str("        </left>\n        <center>\n");
        lane_xml(out, 0, "none", 0.0, "", &mark_xml("broken", 0.16, "both"));
        out.push_str("        </center>\n        <right>\n");
        lane_xml(out, -1, "driving", lane_w, "", &edge);
        lane_xml(out, -2, "sidewalk", SIDEWALK_WIDTH, "", &none);
    } else {
        let lane_of = |link| match link {
            Link::Road { lane, .. } => lane,
            Link::Junction(_) => unreachable!("connecting roads link to roads"),
        };
        let links = format!(
            r#"<predecessor id="{}"/><successor id="{}"/>"#,
            lane_of(road.predecessor),
            lane_of(road.successor)
        );
        out.push_str("        <center>\n");
        lane_xml(out, 0, "none", 0.0, "", &none);
        out.push_str("        </center>\n        <right>\n");
        lane_xml(out, -1, "driving", lane_w, &links, &none);
    }
    out.push_str("        </right>\n      </laneSection>\n    </lanes>\n");
    out.push_str("    <objects/>\n    <signals/>\n  </road>\n");
}

/// Writes `network` as an OpenDRIVE 1.4 document.
pub(crate) fn to_xml(network: &Network) -> String {
    let mut out = String::with_capacity(1 << 20);
    let (lat, lon) = (GEO_REFERENCE.latitude, GEO_REFERENCE.longitude);
    // The extent of the roads, OpenDRIVE frame (y north = Unreal −y).
    let (near, far) = (-JUNCTION_HALF, LAST as f64 + JUNCTION_HALF);
    let _ = writeln!(
        out,
        r#"<?xml version="1.0" encoding="UTF-8"?>
<OpenDRIVE>
  <header revMajor="1" revMinor="4" name="Town" version="1" date="2018-08-04" north="{north}" south="{south}" east="{far}" west="{near}" vendor="carla-host">
    <geoReference><![CDATA[+proj=tmerc +lat_0={lat} +lon_0={lon} +k=1 +x_0=0 +y_0=0 +datum=WGS84 +units=m +no_defs]]></geoReference>
  </header>"#,
        north = -near,
        south = -far,
    );
    for road in &network.roads {
        road_xml(&mut out, road);
    }
    for j in &network.junctions {
        let _ = writeln!(
            out,
            r#"  <junction id="{}" name="Junction {}">"#,
            j.id, j.id
        );
        for c in &j.connections {
            let _ = writeln!(
                out,
                r#"    <connection id="{}" incomingRoad="{}" connectingRoad="{}" contactPoint="start">
      <laneLink from="{}" to="-1"/>
    </connection>"#,
                c.id, c.incoming, c.connecting, c.from
            );
        }
        out.push_str("  </junction>\n");
    }
    out.push_str("</OpenDRIVE>\n");
    out
}
