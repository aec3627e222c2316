extension DeviceRun {
    /// The device's launch step under `choice`: process control where kdebug is the device's source and its
    /// session offers it (`auto`, `processcontrol`), else debugserver through the driver; `processcontrol` on a
    /// device without it refuses each launch, saying why.
    static func launcher(
        _ choice: LauncherChoice, trace: DeviceTrace, device: DeviceInfo, driver: any DeviceDriver
    ) -> any AppLauncher {
        switch choice {
        case .debugserver:
            return DriverLauncher(driver: driver)
        case .auto:
            guard trace.source == .kdebug, let control = trace.processControl else {
                return DriverLauncher(driver: driver)
            }
            return ProcessControlLauncher(control: control)
        case .processControl:
            if let control = trace.processControl { return ProcessControlLauncher(control: control) }
            let why = trace.note ?? "its kdebug session is not running (process control goes over its connection)"
            return RefusingLauncher(
                error: ProcessControlError(
                    .refused, "\(device.name) cannot launch through process control (--launcher processcontrol): \(why)"
                ))
        }
    }
}

/// A launch step that cannot launch: every launch is refused with the same error.
struct RefusingLauncher: AppLauncher {
    let error: ProcessControlError
    var method: LaunchMethod { .processControl }

    func launch(_ request: LaunchRequest, on udid: String, observer: any LaunchObserver) async throws
        -> LaunchTermination
    {
        throw error
    }
}
