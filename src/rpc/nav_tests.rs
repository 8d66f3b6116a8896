use super::*;

fn quad(area: NavArea, x0: f32, x1: f32, y0: f32, y1: f32) -> NavPolygon {
    let p = |x, y| Vector3D { x, y, z: 0.0 };
    NavPolygon {
        area,
        // Counter-clockwise in CARLA's x/y: the builder must turn it.
        points: vec![p(x0, y0), p(x0, y1), p(x1, y1), p(x1, y0)],
    }
}

fn i32_at(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(b[at..at + 2].try_into().unwrap())
}

fn f32_at(b: &[u8], at: usize) -> f32 {
    f32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// Offsets of the tile (after the 40-byte set header and 8-byte tile
/// header) and of its sections.
const TILE: usize = 48;

#[test]
fn two_quads_sharing_an_edge_are_a_set_of_one_tile_with_neighbours() {
    let mesh = [
        quad(NavArea::Sidewalk, 0.0, 10.0, 0.0, 2.0),
        quad(NavArea::Crosswalk, 10.0, 14.0, 0.0, 2.0),
    ];
    let f = build(&mesh).unwrap();
    // The set: 'MSET', version 1, one tile, its grid, max tiles 1, max
    // polygons (next power of two), the tile's reference (salt 1).
    assert_eq!(&f[0..4], b"TESM");
    assert_eq!((i32_at(&f, 4), i32_at(&f, 8)), (1, 1));
    assert_eq!((i32_at(&f, 32), i32_at(&f, 36)), (1, 2));
    assert_eq!(i32_at(&f, 40), 1 << 1);
    assert_eq!(i32_at(&f, 44) as usize, f.len() - TILE);
    // The tile header: 'DNAV', version 7, 2 polygons, 6 welded vertices,
    // 8 link slots, 2 detail meshes, 4 detail triangles.
    let t = &f[TILE..];
    assert_eq!(&t[0..4], b"VAND");
    assert_eq!(i32_at(t, 4), 7);
    let counts: Vec<i32> = (0..9).map(|k| i32_at(t, 24 + 4 * k)).collect();
    assert_eq!(counts, [2, 6, 8, 2, 0, 4, 0, 0, 2]);
    // Size: header, vertices, polygons, links, detail meshes, triangles.
    assert_eq!(t.len(), 100 + 12 * 6 + 32 * 2 + 12 * 8 + 12 * 2 + 4 * 4);
    // Recast's frame is (x, z, y): the bounds' y is the height.
    assert_eq!(
        [f32_at(t, 72), f32_at(t, 76), f32_at(t, 80)],
        [0.0, 0.0, 0.0]
    );
    assert_eq!(
        [f32_at(t, 84), f32_at(t, 88), f32_at(t, 92)],
        [14.0, 0.0, 2.0]
    );
    let vert = |i: u16| {
        let at = 100 + 12 * i as usize;
        (f32_at(t, at), f32_at(t, at + 8))
    };
    let polys = 100 + 12 * 6;
    for p in 0..2 {
        let at = polys + 32 * p;
        let ids: Vec<u16> = (0..4).map(|k| u16_at(t, at + 4 + 2 * k)).collect();
        let neis: Vec<u16> = (0..4).map(|k| u16_at(t, at + 16 + 2 * k)).collect();
        // Clockwise seen from above in Recast's x/z plane.
        let twice_area: f32 = (0..4)
            .map(|k| {
                let (a, b) = (vert(ids[k]), vert(ids[(k + 1) % 4]));
                a.0 * b.1 - b.0 * a.1
            })
            .sum();
        assert!(twice_area < 0.0, "polygon {p} winds the wrong way");
        // Exactly one edge has a neighbour: the other polygon (index + 1).
        let linked: Vec<u16> = neis.iter().copied().filter(|&n| n != 0).collect();
        assert_eq!(linked, [2 - p as u16]);
        // The shared edge is the same two vertices both ways.
        let flag = u16_at(t, at + 28);
        let (count, area) = (t[at + 30], t[at + 31]);
        assert_eq!(count, 4);
        let want = if p == 0 {
            NavArea::Sidewalk
        } else {
            NavArea::Crosswalk
        };
        assert_eq!((area, flag), (want as u8, 1 << want as u16));
    }
}

#[test]
fn bad_polygons_are_refused_by_index() {
    let mut flat = quad(NavArea::Road, 0.0, 1.0, 0.0, 1.0);
    flat.points[2] = flat.points[1];
    flat.points[3] = flat.points[0];
    assert!(build(&[]).is_err());
    let err = build(&[quad(NavArea::Road, 0.0, 1.0, 0.0, 1.0), flat]).unwrap_err();
    assert!(err.contains("polygon 1"), "{err}");
    let mut many = quad(NavArea::Grass, 0.0, 1.0, 0.0, 1.0);
    many.points.extend(many.points.clone());
    assert!(build(&[many]).unwrap_err().contains("8 points"));
    let mut nan = quad(NavArea::Grass, 0.0, 1.0, 0.0, 1.0);
    nan.points[0].x = f32::NAN;
    assert!(build(&[nan]).unwrap_err().contains("not finite"));
}
