internal import CIMobileDevice
import Foundation
import LaunchBench

/// Owns an `instproxy_client_t` (installd). `deinit` frees it, which abandons any command still
/// running: callers wait for `InstallProgress.outcome` first (PROTOCOLS §5.4).
/// Not Sendable: lives on the owning `DeviceSession` actor.
final class InstallationProxyClient {
    static let service = "com.apple.mobile.installation_proxy"

    let udid: String
    private let handle: instproxy_client_t
    /// Kept alive until the client (and its status thread) is gone: the C callback points at them.
    private var progressReceivers: [InstallProgress] = []

    init(device: DeviceHandle, service: ServiceDescriptor) throws {
        var client: instproxy_client_t?
        let code = device.withHandle { device in
            service.withHandle { service in instproxy_client_new(device, service, &client) }
        }
        if code != INSTPROXY_E_SUCCESS, let client { instproxy_client_free(client) }
        try check(code, operation: "instproxy_client_new", udid: device.udid)
        guard let client else {
            throw DeviceError.protocolError(operation: "instproxy_client_new", udid: device.udid, detail: "no client")
        }
        self.udid = device.udid
        self.handle = client
    }

    deinit {
        // Frees the connection and joins the status thread; only then may the receivers go.
        instproxy_client_free(handle)
        progressReceivers.removeAll()
    }

    /// Attributes of an installed app, or `nil` when it is not installed.
    func lookup(bundleID: String, attributes: [String]) throws -> [String: PropertyListValue]? {
        let options = PlistNode([
            "ApplicationType": "Any", "ReturnAttributes": .array(attributes.map { .string($0) }),
        ])
        var result: plist_t?
        let code = bundleID.withCString { id -> instproxy_error_t in
            var ids: [UnsafePointer<CChar>?] = [id, nil]
            return ids.withUnsafeMutableBufferPointer { buffer in
                options.withHandle { instproxy_lookup(handle, buffer.baseAddress, $0, &result) }
            }
        }
        let owned = PlistNode(owning: result)
        try check(code, operation: "instproxy_lookup \(bundleID)", udid: udid)
        return owned?.value[bundleID]?.dictionaryValue
    }

    /// Sends `Install`; returns once sent. The outcome arrives in `progress`.
    func startInstall(packagePath: String, options: PropertyListValue, progress: InstallProgress) throws {
        let options = PlistNode(options)
        let userData = retain(progress)
        let code = options.withHandle { instproxy_install(handle, packagePath, $0, Self.statusCallback, userData) }
        try check(code, operation: "instproxy_install \(packagePath)", udid: udid)
    }

    /// Sends `Uninstall`; returns once sent. The outcome arrives in `progress`.
    func startUninstall(bundleID: String, progress: InstallProgress) throws {
        let userData = retain(progress)
        let code = instproxy_uninstall(handle, bundleID, nil, Self.statusCallback, userData)
        try check(code, operation: "instproxy_uninstall \(bundleID)", udid: udid)
    }

    private func retain(_ progress: InstallProgress) -> UnsafeMutableRawPointer {
        progressReceivers.append(progress)
        return Unmanaged.passUnretained(progress).toOpaque()
    }

    private static let statusCallback: instproxy_status_cb_t = { _, status, userData in
        guard let status, let userData else { return }
        let progress = Unmanaged<InstallProgress>.fromOpaque(userData).takeUnretainedValue()
        progress.receive(PlistNode.value(of: status))
    }
}

/// What installd has reported for one asynchronous command, written by libimobiledevice's
/// status thread and polled by the waiting device queue.
final class InstallProgress: Sendable {
    enum Outcome: Sendable, Hashable {
        case complete
        case failed(error: String, description: String?, detail: UInt64?)
    }

    private struct State {
        var outcome: Outcome?
        var finishedAt: ContinuousClock.Instant?
        var lastStatus: String?
        var percent: Int?
    }

    private let state = Locked(State())
    /// Signalled once, when the outcome arrives: the waiter wakes at once instead of at its next poll.
    private let arrived = DispatchSemaphore(value: 0)

    var outcome: Outcome? { state.current.outcome }
    /// The last progress step installd named (e.g. `VerifyingApplication`), for timeout messages.
    var lastStatus: String? { state.current.lastStatus }
    /// When the outcome arrived (the step's end as the host saw it).
    var finishedAt: ContinuousClock.Instant? { state.current.finishedAt }

    /// Blocks until the outcome arrives or `timeout` passes, whichever is first.
    func waitForOutcome(upTo timeout: Duration) {
        guard outcome == nil else { return }
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = max(0, Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        _ = arrived.wait(timeout: .now() + .nanoseconds(nanoseconds))
    }

    /// Interprets one status message the way libimobiledevice's own loop does: `Error` ends with a
    /// failure, `Status: Complete` (or a message without `Status`) ends with success.
    func receive(_ message: PropertyListValue) {
        let ended = state.withLock { state -> Bool in
            guard state.outcome == nil else { return false }
            defer { if state.outcome != nil { state.finishedAt = .now } }
            if let error = message["Error"]?.stringValue {
                state.outcome = .failed(
                    error: error, description: message["ErrorDescription"]?.stringValue,
                    detail: message["ErrorDetail"]?.integerValue)
                return true
            }
            guard let status = message["Status"]?.stringValue else {
                state.outcome = .complete
                return true
            }
            state.lastStatus = status
            if let percent = message["PercentComplete"]?.integerValue { state.percent = Int(percent) }
            if status == "Complete" { state.outcome = .complete }
            return state.outcome != nil
        }
        if ended { arrived.signal() }
    }
}
