//! One module per screen. Views draw state and send requests; they never block.

pub mod journal;
