//! The bounded first look at a map's text, before anything is built from
//! it: the size, the XML, the number of roads and how long they are, the
//! numbers that must be finite, lane sections without lanes and links to
//! roads or junctions that do not exist. Each refusal names the element
//! and the limit, so a client's `RuntimeError` says what to fix. What the
//! world can live with (an unknown element, a newer version) is a warning
//! for the log instead.
//!
//! The budget: a map is at most [`MAX_TEXT_BYTES`] of text and
//! [`MAX_NODES`] XML nodes, [`MAX_ROADS`] roads, each at most
//! [`MAX_ROAD_LENGTH`] long, and [`MAX_LANE_LENGTH`] of lanes in all (the
//! sum over lane sections of their length times their lanes: what the
//! world samples and meshes). CARLA's largest town files have 280 roads
//! and 57 km of lanes.

use roxmltree::{Document, Node, ParsingOptions};
use std::collections::HashSet;

/// Most bytes of OpenDRIVE text.
pub(crate) const MAX_TEXT_BYTES: usize = 64 << 20;
/// Most XML nodes (elements, attributes' text, comments).
pub(crate) const MAX_NODES: u32 = 8_000_000;
/// Most roads.
pub(crate) const MAX_ROADS: usize = 100_000;
/// Longest road, metres.
pub(crate) const MAX_ROAD_LENGTH: f64 = 100_000.0;
/// Most lane length in all, metres.
pub(crate) const MAX_LANE_LENGTH: f64 = 2_000_000.0;

/// What the first look found: facts the import uses, and warnings.
#[derive(Debug, Default)]
pub(crate) struct Checked {
    pub roads: usize,
    pub lane_length: f64,
    pub warnings: Vec<String>,
}

/// Elements OpenDRIVE 1.4 - 1.8 has under `<OpenDRIVE>`.
const TOP_LEVEL: &[&str] = &[
    "header",
    "road",
    "controller",
    "junction",
    "junctionGroup",
    "station",
    "include",
    "userData",
    "dataQuality",
];

/// Checks `text` against the budget and the rules above.
pub(crate) fn check(text: &str) -> Result<Checked, String> {
    if text.len() > MAX_TEXT_BYTES {
        return Err(format!(
            "the OpenDRIVE text is {} bytes, over the limit of {} MiB",
            text.len(),
            MAX_TEXT_BYTES >> 20
        ));
    }
    // Counted before parsing, so a flood of roads is refused cheaply.
    let roads = text.matches("<road ").count() + text.matches("<road>").count();
    if roads > MAX_ROADS {
        return Err(format!(
            "the map has {roads} <road> elements, over the limit of {MAX_ROADS}"
        ));
    }
    let options = ParsingOptions {
        allow_dtd: false,
        nodes_limit: MAX_NODES,
        ..ParsingOptions::default()
    };
    let doc = Document::parse_with_options(text, options).map_err(|e| match e {
        roxmltree::Error::NodesLimitReached => {
            format!("the map has more than {MAX_NODES} XML nodes, over the limit")
        }
        e => format!("not an OpenDRIVE document: the XML is malformed ({e})"),
    })?;
    let root = doc.root_element();
    if root.tag_name().name() != "OpenDRIVE" {
        return Err(format!(
            "not an OpenDRIVE document: the root element is <{}>, not <OpenDRIVE>",
            root.tag_name().name()
        ));
    }
    let mut out = Checked::default();
    let mut unknown = HashSet::new();
    for child in root.children().filter(Node::is_element) {
        let name = child.tag_name().name();
        if !TOP_LEVEL.contains(&name) && unknown.insert(name) {
            out.warnings.push(format!(
                "unknown element <{name}> under <OpenDRIVE>, ignored"
            ));
        }
    }
    version_warning(&root, &mut out.warnings);
    let road_ids: HashSet<&str> = elements(&root, "road")
        .filter_map(|r| r.attribute("id"))
        .collect();
    let junction_ids: HashSet<&str> = elements(&root, "junction")
        .filter_map(|j| j.attribute("id"))
        .collect();
    for road in elements(&root, "road") {
        check_road(&road, &road_ids, &junction_ids, &mut out)?;
        out.roads += 1;
    }
    if out.roads == 0 {
        return Err("the map has no <road>: nothing to drive on".into());
    }
    if out.lane_length > MAX_LANE_LENGTH {
        return Err(format!(
            "the map has {:.0} km of lanes, over the limit of {:.0} km",
            out.lane_length / 1000.0,
            MAX_LANE_LENGTH / 1000.0
        ));
    }
    for junction in elements(&root, "junction") {
        check_junction(&junction, &road_ids)?;
    }
    Ok(out)
}

fn elements<'a, 'i>(
    parent: &Node<'a, 'i>,
    name: &'static str,
) -> impl Iterator<Item = Node<'a, 'i>> {
    parent
        .children()
        .filter(move |n| n.is_element() && n.tag_name().name() == name)
}

fn version_warning(root: &Node, warnings: &mut Vec<String>) {
    let header = elements(root, "header").next();
    let minor = header
        .and_then(|h| h.attribute("revMinor"))
        .and_then(|v| v.trim().parse::<u32>().ok());
    if let Some(minor) = minor.filter(|&m| m > 8) {
        warnings.push(format!(
            "OpenDRIVE 1.{minor} is newer than the 1.4 - 1.8 this world knows; read as far as it goes"
        ));
    }
}

/// Where an element is, for messages: `road "12"`.
fn road_name(road: &Node) -> String {
    format!("road {:?}", road.attribute("id").unwrap_or("?"))
}

/// A number attribute: absent is `None`; present, it must be finite.
fn number(node: &Node, attr: &str, place: &dyn Fn() -> String) -> Result<Option<f64>, String> {
    let Some(text) = node.attribute(attr) else {
        return Ok(None);
    };
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(Some(v)),
        Ok(v) => Err(format!(
            "{}: <{}> attribute {attr}=\"{text}\" is {v}, not a finite number",
            place(),
            node.tag_name().name()
        )),
        Err(_) => Err(format!(
            "{}: <{}> attribute {attr}=\"{text}\" is not a number",
            place(),
            node.tag_name().name()
        )),
    }
}

/// Every listed attribute of every element below `node` must be finite
/// where present.
fn finite_below(node: &Node, attrs: &[&str], place: &dyn Fn() -> String) -> Result<(), String> {
    for n in node.descendants().filter(Node::is_element) {
        for a in attrs {
            number(&n, a, place)?;
        }
    }
    Ok(())
}

const NUMBERS: &[&str] = &[
    "s",
    "t",
    "x",
    "y",
    "z",
    "hdg",
    "a",
    "b",
    "c",
    "d",
    "aU",
    "bU",
    "cU",
    "dU",
    "aV",
    "bV",
    "cV",
    "dV",
    "curvature",
    "curvStart",
    "curvEnd",
    "sOffset",
    "width",
    "zOffset",
    "hOffset",
    "inner",
    "outer",
];

fn check_road(
    road: &Node,
    road_ids: &HashSet<&str>,
    junction_ids: &HashSet<&str>,
    out: &mut Checked,
) -> Result<(), String> {
    let place = || road_name(road);
    if road.attribute("id").is_none() {
        return Err("a <road> has no id".into());
    }
    let length =
        number(road, "length", &place)?.ok_or_else(|| format!("{}: no length", place()))?;
    if length < 0.0 {
        return Err(format!("{}: length {length} is negative", place()));
    }
    if length > MAX_ROAD_LENGTH {
        return Err(format!(
            "{}: length {length} m is over the limit of {MAX_ROAD_LENGTH} m",
            place()
        ));
    }
    for plan in elements(road, "planView") {
        for g in elements(&plan, "geometry") {
            let glen = number(&g, "length", &place)?.unwrap_or(0.0);
            if glen < 0.0 {
                return Err(format!(
                    "{}: a <geometry> has negative length {glen}",
                    place()
                ));
            }
            if glen > MAX_ROAD_LENGTH {
                return Err(format!(
                    "{}: a <geometry> of {glen} m is over the limit of {MAX_ROAD_LENGTH} m",
                    place()
                ));
            }
        }
    }
    finite_below(road, NUMBERS, &place)?;
    check_links(road, road_ids, junction_ids)?;
    let lanes = elements(road, "lanes").next();
    let sections: Vec<Node> = lanes
        .iter()
        .flat_map(|l| elements(l, "laneSection"))
        .collect();
    if sections.is_empty() {
        return Err(format!("{}: no <lanes><laneSection>", place()));
    }
    let starts: Vec<f64> = sections
        .iter()
        .map(|s| number(s, "s", &place).map(|v| v.unwrap_or(0.0)))
        .collect::<Result<_, _>>()?;
    for (i, section) in sections.iter().enumerate() {
        let count = ["left", "right"]
            .iter()
            .flat_map(|side| {
                section
                    .children()
                    .filter(move |n| n.tag_name().name() == *side)
            })
            .flat_map(|side| elements(&side, "lane"))
            .count();
        if count == 0 {
            return Err(format!(
                "{}: <laneSection> {i} (s={}) has no lanes left or right of the centre",
                place(),
                starts[i]
            ));
        }
        let end = starts.get(i + 1).copied().unwrap_or(length).min(length);
        out.lane_length += (end - starts[i]).max(0.0) * count as f64;
    }
    Ok(())
}

/// A road's links name roads and junctions that exist; a road linked to
/// itself at one end must come back to where it started.
fn check_links(
    road: &Node,
    road_ids: &HashSet<&str>,
    junction_ids: &HashSet<&str>,
) -> Result<(), String> {
    let id = road.attribute("id").unwrap_or("?");
    for link in elements(road, "link") {
        for end in link.children().filter(Node::is_element) {
            let which = end.tag_name().name();
            if which != "predecessor" && which != "successor" {
                continue;
            }
            let target = end.attribute("elementId").unwrap_or("");
            let junction = end.attribute("elementType") == Some("junction");
            let exists = if junction {
                junction_ids.contains(target)
            } else {
                road_ids.contains(target)
            };
            if !exists {
                let kind = if junction { "junction" } else { "road" };
                return Err(format!(
                    "road {id:?}: its {which} is {kind} {target:?}, which does not exist"
                ));
            }
            if !junction && target == id && !closes_on_itself(road) {
                return Err(format!(
                    "road {id:?}: its {which} is itself, but it does not end where it starts \
                     (a circular link)"
                ));
            }
        }
    }
    Ok(())
}

/// Whether a road's reference line ends within a metre of its start (a
/// ring, which may link to itself). Lines and arcs are followed exactly;
/// anything else is taken to close.
fn closes_on_itself(road: &Node) -> bool {
    let mut at: Option<(f64, f64)> = None;
    let mut end = (0.0, 0.0);
    for plan in elements(road, "planView") {
        for g in elements(&plan, "geometry") {
            let num = |a: &str| {
                g.attribute(a)
                    .and_then(|v| v.parse::<f64>().ok())
                    .unwrap_or(0.0)
            };
            let (x, y, hdg, len) = (num("x"), num("y"), num("hdg"), num("length"));
            at.get_or_insert((x, y));
            let shape = g.children().find(Node::is_element);
            end = match shape.map(|s| s.tag_name().name()) {
                Some("line") => (x + len * hdg.cos(), y + len * hdg.sin()),
                Some("arc") => {
                    let k = shape
                        .and_then(|s| s.attribute("curvature"))
                        .and_then(|v| v.parse::<f64>().ok())
                        .unwrap_or(0.0);
                    if k.abs() < 1e-12 {
                        (x + len * hdg.cos(), y + len * hdg.sin())
                    } else {
                        let h1 = hdg + k * len;
                        (
                            x + (h1.sin() - hdg.sin()) / k,
                            y - (h1.cos() - hdg.cos()) / k,
                        )
                    }
                }
                _ => return true,
            };
        }
    }
    at.is_some_and(|(x, y)| (end.0 - x).hypot(end.1 - y) < 1.0)
}

fn check_junction(junction: &Node, road_ids: &HashSet<&str>) -> Result<(), String> {
    let id = junction.attribute("id").unwrap_or("?");
    for c in elements(junction, "connection") {
        for attr in ["incomingRoad", "connectingRoad"] {
            if let Some(road) = c.attribute(attr) {
                if !road_ids.contains(road) {
                    return Err(format!(
                        "junction {id:?}: a <connection> has {attr}=\"{road}\", a road that does not exist"
                    ));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "limits_tests.rs"]
mod tests;
