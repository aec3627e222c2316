import Foundation
import LaunchBench

/// The `DeviceDriver` over libimobiledevice: real iPhones through usbmuxd, or the emulated lab
/// when `USBMUXD_SOCKET_ADDRESS` (see `USBMuxAddress.use(_:)`) points at it.
///
/// Each device gets its own serial queue: operations on one device run one after another, devices
/// run in parallel, and no blocking C call runs on Swift's cooperative thread pool. Errors are
/// `DeviceError`s (a `DriverError`); a cancelled task gets `CancellationError` after the app, if
/// one was running, has been killed.
public final class MobileDeviceDriver: DeviceDriver {
    /// How long an uninstall may take (the protocol gives it no timeout of its own).
    public static let uninstallTimeout: Duration = .seconds(120)

    private let sessions = Locked<[String: DeviceSession]>([:])
    private let usbmux = USBMuxSession()

    public init() {}

    /// The devices attached now, in usbmuxd's order, with their lockdown values. A device that leaves
    /// while it is being read is left out.
    /// - Throws: `DeviceError.usbmuxdUnreachable` when usbmuxd cannot be reached.
    public func listDevices() async throws -> [DeviceInfo] {
        let entries = try await usbmux.entries()
        return try await withThrowingTaskGroup(of: (Int, DeviceInfo?).self) { group in
            for (index, entry) in entries.enumerated() {
                let session = session(for: entry.udid)
                group.addTask {
                    do {
                        return (index, try await session.info(connection: entry.connection))
                    } catch DeviceError.deviceLost, DeviceError.deviceNotFound {
                        return (index, nil)
                    }
                }
            }
            var found: [(Int, DeviceInfo)] = []
            for try await case (let index, let info?) in group { found.append((index, info)) }
            return found.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// One device's values.
    /// - Throws: `DeviceError.deviceNotFound` (listing the attached UDIDs) and the other `DeviceError`s.
    public func deviceInfo(udid: String) async throws -> DeviceInfo {
        let entries = try await usbmux.entries()
        guard let entry = entries.first(where: { $0.udid == udid }) else {
            throw DeviceError.deviceNotFound(udid: udid, attached: entries.map(\.udid))
        }
        return try await session(for: udid).info(connection: entry.connection)
    }

    /// Attach and detach events until the consumer stops iterating. The stream begins with an
    /// `attached` event for each device present (usbmuxd's Listen semantics), then reports changes.
    /// - Throws: `DeviceError.usbmuxdUnreachable` when usbmuxd cannot be reached.
    public func deviceEvents() async throws -> AsyncStream<DeviceEvent> {
        try await usbmux.events()
    }

    public func uninstall(bundleID: String, on udid: String) async throws {
        let session = session(for: udid)
        try await cancellable { flag in
            try await session.uninstall(bundleID: bundleID, timeout: Self.uninstallTimeout, cancellation: flag)
        }
    }

    public func install(_ app: AppBundle, on udid: String, timeout: Duration) async throws {
        let session = session(for: udid)
        try await cancellable { flag in try await session.install(app, timeout: timeout, cancellation: flag) }
    }

    public func launch(
        _ request: LaunchRequest, on udid: String, observer: any LaunchObserver
    ) async throws -> LaunchTermination {
        let session = session(for: udid)
        return try await cancellable { flag in
            try await session.launch(request, observer: observer, cancellation: flag)
        }
    }

    public func restart(_ udid: String, timeout: Duration) async throws {
        let session = session(for: udid)
        try await cancellable { flag in try await session.restart(timeout: timeout, cancellation: flag) }
    }

    private func session(for udid: String) -> DeviceSession {
        sessions.withLock { sessions in
            if let session = sessions[udid] { return session }
            let session = DeviceSession(udid: udid)
            sessions[udid] = session
            return session
        }
    }

    /// Runs `body` with a flag the blocking loop on the device queue polls; Task cancellation sets it.
    private func cancellable<Result: Sendable>(
        _ body: @Sendable (CancellationFlag) async throws -> Result
    ) async throws -> Result {
        let flag = CancellationFlag()
        return try await withTaskCancellationHandler {
            try await body(flag)
        } onCancel: {
            flag.cancel()
        }
    }
}

/// usbmuxd-wide calls (listing, subscribing), on their own serial queue.
actor USBMuxSession {
    private let executor = DeviceQueueExecutor(label: "launchbench.usbmuxd")

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    func entries() throws -> [USBMuxDeviceList.Entry] {
        try USBMuxDeviceList.entries()
    }

    func events() throws -> AsyncStream<DeviceEvent> {
        _ = try USBMuxDeviceList.entries()  // usbmuxd must be there: a listener alone would wait silently
        return try USBMuxEventSubscription.stream()
    }
}
