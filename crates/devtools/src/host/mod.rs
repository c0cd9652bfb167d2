//! What the bench and the soak share as hosts of `agent-bridge serve`: the bridge and other
//! children with their stdout, the process trees under them, the mock model server with the
//! hermetic CLI environments, where the bridge and the pinned CLIs are, and the tables printed.

pub mod child;
pub mod locate;
pub mod mock;
pub mod proc_tree;
pub mod table;
