//! SIGTERM and SIGINT as a stop: what every mode of the binary (`serve`, `agentty`, `acp`) does
//! when its host or the user asks it to stop.

use tokio_util::sync::CancellationToken;

/// Cancels `stop` at the first SIGTERM or SIGINT (a task of the current runtime).
pub fn cancel_on_stop_signal(stop: CancellationToken) {
    tokio::spawn(async move {
        use tokio::signal::unix::{signal, SignalKind};
        let (Ok(mut term), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) else {
            tracing::warn!("cannot install signal handlers");
            return;
        };
        tokio::select! {
            _ = term.recv() => tracing::info!("SIGTERM received"),
            _ = int.recv() => tracing::info!("SIGINT received"),
        }
        stop.cancel();
    });
}
