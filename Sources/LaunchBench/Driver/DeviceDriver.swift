/// The seam between the pure Swift core and real (or emulated) iPhones.
///
/// `MobileDevice` implements it over libimobiledevice; tests implement it in memory. Every
/// method may block for seconds on a real device, so implementations keep blocking calls off
/// the cooperative thread pool. Failures are thrown as errors conforming to `DriverError`, so
/// the runner can record the right sample status without knowing the implementation.
package protocol DeviceDriver: Sendable {
    /// The devices attached now, reading the values of `udids` only (every device when `nil`); a device
    /// whose values cannot be read is listed as unreadable instead of failing the listing.
    func listDevices(reading udids: [String]?) async throws -> DeviceListing

    /// Removes the app; succeeds when it was not installed.
    func uninstall(bundleID: String, on udid: String) async throws

    /// Uploads and installs the app; returns when installd reports `Complete`.
    func install(_ app: AppBundle, on udid: String, timeout: Duration) async throws

    /// Makes the next launch cold: removes the app (fully, before returning) and installs it again;
    /// returns how long each step took. Implementations may overlap steps that do not depend on each
    /// other (the upload with the uninstall), never the install with the uninstall.
    func reinstall(_ app: AppBundle, on udid: String, timeout: Duration) async throws -> ReinstallTimings

    /// Launches the installed app through debugserver, streams its output to `observer`,
    /// ends it when the observer says so (then kills it), and reports how it ended.
    /// The app is never left running when this returns or throws.
    func launch(_ request: LaunchRequest, on udid: String, observer: any LaunchObserver) async throws
        -> LaunchTermination

    /// Restarts the device and returns once it is attached again (the caller waits the settle time).
    func restart(_ udid: String, timeout: Duration) async throws

    /// The device's log (syslog relay) from now on, line by line, until the stream's consumer stops; the
    /// default throws `DeviceLogUnavailable`.
    func deviceLog(on udid: String) async throws -> AsyncThrowingStream<String, any Error>
}

extension DeviceDriver {
    /// Uninstall, then install, one after the other.
    package func reinstall(_ app: AppBundle, on udid: String, timeout: Duration) async throws -> ReinstallTimings {
        let clock = ContinuousClock()
        let uninstall = try await clock.measure { try await self.uninstall(bundleID: app.bundleID, on: udid) }
        let install = try await clock.measure { try await self.install(app, on: udid, timeout: timeout) }
        return ReinstallTimings(uninstall: uninstall, install: install)
    }
}

/// How long the steps of a reinstall took (wall time on the host).
package struct ReinstallTimings: Sendable, Hashable {
    /// Until the app was gone (the lookup that checks it is there included).
    package var uninstall: Duration
    /// Copying the app to the device, when the driver times it on its own.
    package var upload: Duration?
    /// Until installd completed the install (the upload included when `upload` is `nil`).
    package var install: Duration

    /// The steps' durations as the driver measured them.
    package init(uninstall: Duration, upload: Duration? = nil, install: Duration) {
        self.uninstall = uninstall
        self.upload = upload
        self.install = install
    }
}

/// What to launch and how.
package struct LaunchRequest: Sendable, Hashable {
    /// The installed app to launch.
    package var bundleID: String
    /// Command-line arguments after the executable's path.
    package var arguments: [String]
    /// Ordered; names may repeat (the last one wins on the device).
    package var environment: [EnvironmentVariable]

    /// A launch of `bundleID` with arguments and environment variables.
    package init(bundleID: String, arguments: [String] = [], environment: [EnvironmentVariable] = []) {
        self.bundleID = bundleID
        self.arguments = arguments
        self.environment = environment
    }
}

/// `NAME=VALUE`; the value may itself contain `=`, spaces and any Unicode.
package struct EnvironmentVariable: Sendable, Hashable, Codable {
    /// The variable's name, e.g. `DYLD_PRINT_STATISTICS`.
    package var name: String
    /// Its value, possibly empty.
    package var value: String

    /// `name=value`.
    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Splits at the first `=`; `nil` when there is none or the name is empty.
    package init?(assignment: String) {
        guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else { return nil }
        name = String(assignment[..<equals])
        value = String(assignment[assignment.index(after: equals)...])
    }

    /// `NAME=VALUE`, as debugserver's `QEnvironmentHexEncoded` and `--env` take it.
    package var assignment: String { "\(name)=\(value)" }
}

/// Receives a launch's output as it arrives and decides when the launch is over.
/// Called from the driver's own thread; implementations synchronise internally.
package protocol LaunchObserver: AnyObject, Sendable {
    /// The app was told to run (`c` sent): wall time starts here.
    func launched(at instant: ContinuousClock.Instant)
    /// A chunk of the app's stdout/stderr, split anywhere (even inside a UTF-8 character).
    func output(_ bytes: [UInt8])
    /// Asked between reads (at least every ~100 ms): `nil` to keep the app running, else why to end it now.
    func shouldEnd(at instant: ContinuousClock.Instant) -> HarnessStop?
    /// The app's output will not arrive any more, though the app may run on (process control's stream was lost):
    /// the launch ends on what else measures it.
    func outputLost(_ reason: String)
    /// Whether what arrived completes the launch (the end-of-launch rule): after the app's end, process control
    /// waits a little for output the phone relays late only while it does not.
    var isComplete: Bool { get }
    /// The phone refused the launch for a moment and it is tried again (process control's transient refusals):
    /// the sample counts the retries.
    func launchRetried(after refusal: String)
}

extension LaunchObserver {
    package func outputLost(_ reason: String) {}
    package func launchRetried(after refusal: String) {}
    package var isComplete: Bool { false }
}

/// Why the harness ended an app that was still running.
package enum HarnessStop: Sendable, Hashable {
    /// The expected output arrived (statistics block complete, `firstFrame`/`done` marker) and the grace period passed.
    case complete
    /// `--timeout` passed first.
    case timeout
    /// The run is being cancelled (Ctrl-C).
    case cancelled
}

/// How a launch ended.
package enum LaunchTermination: Sendable, Hashable {
    /// The app exited by itself with this status (`W` packet).
    case exited(status: Int)
    /// The app was killed by a signal it did not get from the harness (`X` packet).
    case signaled(signal: Int)
    /// The app stopped on a signal — a crash (`T` packet); the harness then killed it.
    case crashed(signal: Int)
    /// The harness ended it (and it is gone).
    case endedByHarness(HarnessStop)
}

/// What kind of failure a driver error is, so the runner records the right sample status.
package enum DriverFailureKind: Sendable, Hashable {
    /// The device went away (unplugged, restarting): the runner records `device-lost` and ends that device's run.
    case deviceLost
    /// The app could not be installed (the runner records any failure but `deviceLost` during an install so).
    case installFailed
    /// The app could not be started (the runner records any failure but `deviceLost` during a launch so).
    case launchRefused
    /// None of the above; recorded as the step that failed (`install-failed` or `launch-refused`).
    case other
}

/// Errors thrown by a `DeviceDriver` say what kind of failure they are.
package protocol DriverError: Error {
    /// Which sample status the failure leads to, and whether the device's run goes on.
    var failureKind: DriverFailureKind { get }
}
