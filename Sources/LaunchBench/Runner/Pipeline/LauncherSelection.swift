extension DeviceRun {
    /// The device's launch step under `choice`: process control wherever the device's kdebug session runs and
    /// offers it (`auto`, `processcontrol`): kdebug is its source, or the session checks dyld's printed
    /// statistics (iOS 14 with an override), which reach launchbench in process control's output events as they
    /// did through debugserver, with no debugger pausing dyld. Else debugserver through the driver (iOS ≤ 13,
    /// `--premain dyld-statistics`, no session); `processcontrol` on a device without it refuses each launch,
    /// saying why. `fallback` says so when `auto` falls back to debugserver on a device whose source should have
    /// been kdebug (`wantsKdebug`) but whose session did not start. With `--require` (`conditions`), a phone that
    /// stays locked is waited for up to `--require-wait`.
    static func launcher(
        _ choice: LauncherChoice, trace: DeviceTrace, wantsKdebug: Bool, device: DeviceInfo,
        driver: any DeviceDriver, conditions: ConditionPolicy = ConditionPolicy(), fallback: inout String?
    ) -> any AppLauncher {
        func processControl(_ control: any ProcessControl) -> ProcessControlLauncher {
            var launcher = ProcessControlLauncher(control: control)
            if !conditions.requirements.isEmpty {
                launcher.lockedWait = conditions.waitLimit
                launcher.lockedPoll = conditions.poll
            }
            return launcher
        }
        switch choice {
        case .debugserver:
            return DriverLauncher(driver: driver)
        case .auto:
            guard let control = trace.processControl else {
                if wantsKdebug {
                    fallback =
                        "\(device.name): launches go through debugserver, not process control (--launcher auto): "
                        + "process control goes over the kdebug session's connection, which did not start."
                }
                return DriverLauncher(driver: driver)
            }
            return processControl(control)
        case .processControl:
            if let control = trace.processControl { return processControl(control) }
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
