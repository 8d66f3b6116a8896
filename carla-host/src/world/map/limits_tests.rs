use super::*;

/// A one-road map whose road has `attrs` and `body` inside.
fn map_with(road: &str) -> String {
    format!(
        r#"<?xml version="1.0"?>
<OpenDRIVE><header revMajor="1" revMinor="4"/>{road}</OpenDRIVE>"#
    )
}

fn road(id: &str, length: &str, body: &str) -> String {
    format!(
        r#"<road id="{id}" length="{length}" junction="-1"><link/>
<planView><geometry s="0" x="0" y="0" hdg="0" length="{length}"><line/></geometry></planView>
<lanes>{body}</lanes></road>"#
    )
}

const SECTION: &str = r#"<laneSection s="0"><center><lane id="0" type="none"/></center>
<right><lane id="-1" type="driving"><width sOffset="0" a="3.5" b="0" c="0" d="0"/></lane></right></laneSection>"#;

#[test]
fn a_plain_road_passes() {
    let c = check(&map_with(&road("1", "100", SECTION))).expect("a valid map");
    assert_eq!(c.roads, 1);
    assert!((c.lane_length - 100.0).abs() < 1e-9);
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
}

fn refused(text: &str) -> String {
    check(text).expect_err("refused")
}

#[test]
fn each_bad_input_is_named() {
    assert!(refused("this is not XML <").contains("XML is malformed"));
    assert!(refused("<map/>").contains("root element is <map>"));
    assert!(refused(&map_with("")).contains("no <road>"));
    let nan = map_with(&road("7", "NaN", SECTION));
    assert_eq!(
        refused(&nan),
        "road \"7\": <road> attribute length=\"NaN\" is NaN, not a finite number"
    );
    assert!(refused(&map_with(&road("7", "-5", SECTION))).contains("length -5 is negative"));
    let huge = refused(&map_with(&road("8", "1e9", SECTION)));
    assert!(
        huge.contains("road \"8\"") && huge.contains("over the limit of 100000 m"),
        "{huge}"
    );
    let empty = r#"<laneSection s="0"><center><lane id="0" type="none"/></center></laneSection>"#;
    let e = refused(&map_with(&road("3", "10", empty)));
    assert!(
        e.contains("road \"3\"") && e.contains("has no lanes"),
        "{e}"
    );
    let bad_x = map_with(&road("4", "10", SECTION).replace(r#"x="0""#, r#"x="inf""#));
    assert!(refused(&bad_x).contains("attribute x=\"inf\""));
}

#[test]
fn links_to_nothing_and_circular_links_are_refused() {
    let dangling = road("1", "50", SECTION).replace(
        "<link/>",
        r#"<link><successor elementType="road" elementId="99" contactPoint="start"/></link>"#,
    );
    let e = refused(&map_with(&dangling));
    assert_eq!(
        e,
        "road \"1\": its successor is road \"99\", which does not exist"
    );
    let to_junction = road("1", "50", SECTION).replace(
        "<link/>",
        r#"<link><predecessor elementType="junction" elementId="5"/></link>"#,
    );
    assert!(refused(&map_with(&to_junction)).contains("junction \"5\", which does not exist"));
    // A straight road whose successor is its own start.
    let circular = road("1", "50", SECTION).replace(
        "<link/>",
        r#"<link><successor elementType="road" elementId="1" contactPoint="start"/></link>"#,
    );
    assert!(refused(&map_with(&circular)).contains("(a circular link)"));
    // A ring (a full circle, radius 10) may link to itself.
    let ring = road("1", "62.83185307179586", SECTION)
        .replace("<line/>", r#"<arc curvature="0.1"/>"#)
        .replace(
            "<link/>",
            r#"<link><successor elementType="road" elementId="1" contactPoint="start"/></link>"#,
        );
    check(&map_with(&ring)).expect("a ring links to itself");
}

#[test]
fn size_and_count_limits_are_named() {
    let big = " ".repeat(MAX_TEXT_BYTES + 1);
    assert!(refused(&big).contains("over the limit of 64 MiB"));
    let many: String = (0..MAX_ROADS + 1)
        .map(|i| format!("<road id=\"{i}\"/>"))
        .collect();
    // `<road id=` counts (the count is taken before the XML is parsed).
    let e = refused(&map_with(&many.replace("<road id", "<road  id")));
    assert!(
        e.contains("100001 <road> elements, over the limit of 100000"),
        "{e}"
    );
}

#[test]
fn unknown_elements_and_newer_versions_are_warnings() {
    let text = map_with(&road("1", "10", SECTION)).replace(
        "<header revMajor=\"1\" revMinor=\"4\"/>",
        "<header revMajor=\"1\" revMinor=\"9\"/><gizmo/>",
    );
    let c = check(&text).expect("still a map");
    assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
    assert!(c.warnings.iter().any(|w| w.contains("<gizmo>")));
    assert!(c.warnings.iter().any(|w| w.contains("OpenDRIVE 1.9")));
}
