//! Signals that stop a command: Ctrl-C (SIGINT), SIGTERM, SIGHUP and SIGQUIT. Servers run in
//! their own process groups, so mcpick must catch these and shut them down itself.

use tokio::signal::unix::{SignalKind, signal};

/// Resolves when a stop signal arrives, with the exit code a shell expects (128 + number).
pub async fn stopped() -> u8 {
    let kinds = [
        (SignalKind::interrupt(), 130),
        (SignalKind::terminate(), 143),
        (SignalKind::hangup(), 129),
        (SignalKind::quit(), 131),
    ];
    let mut streams = Vec::new();
    for (kind, code) in kinds {
        if let Ok(stream) = signal(kind) {
            streams.push((stream, code));
        }
    }
    if streams.is_empty() {
        return std::future::pending().await;
    }
    let waits = streams.iter_mut().map(|(stream, code)| {
        let code = *code;
        Box::pin(async move {
            stream.recv().await;
            code
        })
    });
    futures::future::select_all(waits).await.0
}
