/// The pipeline's launch step: starts the installed app, streams its output to `observer`, ends it when the
/// observer says so, and reports how it ended. The seam another way of launching (e.g. a process-control
/// launch) plugs into without touching the rest of the pipeline.
protocol AppLauncher: Sendable {
    /// Recorded in each sample (`launcher`).
    var method: LaunchMethod { get }
    /// Launches once; the app is never left running when this returns or throws.
    /// - Throws: an error conforming to `DriverError` (a refused launch, a lost device).
    func launch(_ request: LaunchRequest, on udid: String, observer: any LaunchObserver) async throws
        -> LaunchTermination
}

/// Launches through the device driver (debugserver, or the engine the driver routes the device to).
struct DriverLauncher: AppLauncher {
    let driver: any DeviceDriver
    var method: LaunchMethod { .debugserver }

    func launch(_ request: LaunchRequest, on udid: String, observer: any LaunchObserver) async throws
        -> LaunchTermination
    {
        try await driver.launch(request, on: udid, observer: observer)
    }
}
