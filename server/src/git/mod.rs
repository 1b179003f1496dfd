//! The git layer: in-process reads with gix, and the smart-HTTP door.

pub mod read;
