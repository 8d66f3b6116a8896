//! The town as data: its fixed layout ([`town`]), the static boxes standing
//! in it ([`geometry`]), the semantic tag tables ([`tags`]) and its
//! OpenDRIVE description for 0.9 clients ([`opendrive`]).

pub(crate) mod geometry;
pub(crate) mod opendrive;
pub(crate) mod tags;
pub(crate) mod town;
