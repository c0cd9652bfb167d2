//! What the commands that drive this binary's `serve` as a host share (`bench`, `soak`): the
//! child processes and their stdout, the process trees under them, the mock model server with
//! the hermetic CLI environments, and where the pinned CLIs are.

pub mod child;
pub mod locate;
pub mod mock;
pub mod proc_tree;
pub mod table;
