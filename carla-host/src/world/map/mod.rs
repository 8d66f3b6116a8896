//! The town as data: its fixed layout ([`town`]), the static boxes standing
//! in it ([`geometry`]), the semantic tag tables ([`tags`]), its
//! OpenDRIVE description for 0.9 clients ([`opendrive`]) and their walkers'
//! walkable surfaces ([`navigation`]).

pub(crate) mod geometry;
pub(crate) mod navigation;
pub(crate) mod opendrive;
pub(crate) mod tags;
pub(crate) mod town;
