//! Base-station mechanisms that sit on the path of a connection: Snoop
//! (and the ELN marking, which lives with the forwarding code in `sim`).
pub mod snoop;
