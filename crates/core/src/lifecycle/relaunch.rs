//! How a session's runtime was started, so that a restart (after the agent died, or for a
//! change it cannot apply live) starts it the same way: the same program, arguments,
//! environment and folder, in the same process scope (a close of the session waits for every
//! runtime it had).

use crate::scope::ProcessScope;
use crate::supervisor::SpawnSpec;

#[derive(Debug, Clone)]
pub struct Relaunch {
    pub spec: SpawnSpec,
    pub scope: ProcessScope,
}

impl Relaunch {
    pub fn new(spec: SpawnSpec, scope: ProcessScope) -> Self {
        Relaunch { spec, scope }
    }
}
