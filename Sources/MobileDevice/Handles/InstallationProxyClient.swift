internal import CIMobileDevice
import Foundation
import LaunchBench

/// A connection to installd (`com.apple.mobile.installation_proxy`), spoken over libimobiledevice's
/// property-list service rather than its `instproxy_*` commands.
///
/// Why not `instproxy_install`/`instproxy_uninstall`: in libimobiledevice 1.3.0 (and its HEAD) each runs its
/// status loop on a new pthread that clears its own handle when done, so the thread is never joined nor
/// detached and its 8 MB stack stays mapped: two per reinstall, 8 KB of resident memory per launch (a
/// 10,000-launch run grew by 78 MB). Here the status loop runs on a dispatch queue we own; the messages are
/// the same (PROTOCOLS §5), and `instproxy_status_get_error` still names the errors.
/// Not Sendable: lives on the owning `DeviceSession` actor.
final class InstallationProxyClient {
    static let service = "com.apple.mobile.installation_proxy"

    let udid: String
    private let connection: Connection

    init(device: DeviceHandle, service: ServiceDescriptor) throws {
        let client = try makeClient(
            "instproxy_client_new", udid: device.udid, success: PROPERTY_LIST_SERVICE_E_SUCCESS,
            free: property_list_service_client_free,
            new: { client in
                device.withHandle { device in
                    service.withHandle { property_list_service_client_new(device, $0, &client) }
                }
            },
            check: { try check(Self.instproxyError($0), operation: "instproxy_client_new", udid: device.udid) })
        self.udid = device.udid
        self.connection = Connection(client)
    }

    deinit {
        // Abandons a command still running (its loop stops within a second) and frees the connection
        // once the loop is gone; callers wait for `InstallProgress.outcome` first (PROTOCOLS §5.4).
        connection.close()
    }

    /// Attributes of an installed app, or `nil` when it is not installed.
    func lookup(bundleID: String, attributes: [String]) throws -> [String: PropertyListValue]? {
        let command: PropertyListValue = [
            "Command": "Lookup",
            "ClientOptions": [
                "ApplicationType": "Any", "ReturnAttributes": .array(attributes.map { .string($0) }),
                "BundleIDs": .array([.string(bundleID)]),
            ],
        ]
        let operation = "instproxy_lookup \(bundleID)"
        try check(connection.send(command), operation: operation, udid: udid)
        var result: PropertyListValue?
        while true {
            let (code, message) = connection.receive()
            if code == INSTPROXY_E_RECEIVE_TIMEOUT { continue }
            try check(code, operation: operation, udid: udid)
            guard let message else { continue }
            try check(message.error, operation: operation, udid: udid)
            if let found = message.value["LookupResult"] { result = found }
            // Like libimobiledevice's loop: `Complete`, or a message without a status, ends the command.
            let status = message.value["Status"]?.stringValue
            if status == nil || status == "Complete" { break }
        }
        return result?[bundleID]?.dictionaryValue
    }

    /// Sends `Install`; returns once sent. The outcome arrives in `progress`.
    func startInstall(packagePath: String, options: PropertyListValue, progress: InstallProgress) throws {
        try start(
            ["Command": "Install", "ClientOptions": options, "PackagePath": .string(packagePath)],
            operation: "instproxy_install \(packagePath)", progress: progress)
    }

    /// Sends `Uninstall`; returns once sent. The outcome arrives in `progress`.
    func startUninstall(bundleID: String, progress: InstallProgress) throws {
        try start(
            ["Command": "Uninstall", "ApplicationIdentifier": .string(bundleID)],
            operation: "instproxy_uninstall \(bundleID)", progress: progress)
    }

    /// Sends `command`, then hands every status message to `progress` from the connection's queue until the
    /// outcome arrives, the connection fails or it is closed.
    private func start(_ command: PropertyListValue, operation: String, progress: InstallProgress) throws {
        try check(connection.send(command), operation: operation, udid: udid)
        connection.loop { [connection] in
            while progress.outcome == nil && !connection.isClosing {
                let (code, message) = connection.receive()
                if code == INSTPROXY_E_RECEIVE_TIMEOUT { continue }
                // A broken connection ends the loop without an outcome, as libimobiledevice's loop does: the
                // waiter then tells a detach (device lost) from a stall (its timeout) as before.
                guard code == INSTPROXY_E_SUCCESS else { return }
                if let message { progress.receive(message.value) }
            }
        }
    }

    /// libimobiledevice's own mapping of the property-list service's errors (installation_proxy.c).
    static func instproxyError(_ code: property_list_service_error_t) -> instproxy_error_t {
        switch code {
        case PROPERTY_LIST_SERVICE_E_SUCCESS: return INSTPROXY_E_SUCCESS
        case PROPERTY_LIST_SERVICE_E_INVALID_ARG: return INSTPROXY_E_INVALID_ARG
        case PROPERTY_LIST_SERVICE_E_PLIST_ERROR: return INSTPROXY_E_PLIST_ERROR
        case PROPERTY_LIST_SERVICE_E_MUX_ERROR: return INSTPROXY_E_CONN_FAILED
        case PROPERTY_LIST_SERVICE_E_RECEIVE_TIMEOUT: return INSTPROXY_E_RECEIVE_TIMEOUT
        default: return INSTPROXY_E_UNKNOWN_ERROR
        }
    }

    /// One received status message.
    private struct Message {
        let value: PropertyListValue
        /// `INSTPROXY_E_SUCCESS`, or the error the message reports (`instproxy_status_get_error`).
        let error: instproxy_error_t
    }

    /// The property-list connection, used by one thread at a time: the session's queue sends, then the loop
    /// (if any) receives until its command ends; `close()` waits for the loop before freeing.
    private final class Connection: @unchecked Sendable {
        private let client: property_list_service_client_t
        private let closing = Locked(false)
        private let loops = DispatchGroup()

        init(_ client: property_list_service_client_t) { self.client = client }

        var isClosing: Bool { closing.current }

        func send(_ value: PropertyListValue) -> instproxy_error_t {
            PlistNode(value).withHandle {
                InstallationProxyClient.instproxyError(property_list_service_send_xml_plist(client, $0))
            }
        }

        /// Waits up to a second for the next message.
        func receive() -> (instproxy_error_t, Message?) {
            var node: plist_t?
            let code = InstallationProxyClient.instproxyError(
                property_list_service_receive_plist_with_timeout(client, &node, 1000))
            guard let owned = PlistNode(owning: node) else { return (code, nil) }
            var name: UnsafeMutablePointer<CChar>?
            var description: UnsafeMutablePointer<CChar>?
            var detail: UInt64 = 0
            // The name out-parameter is required (INVALID_ARG without it); the texts are not needed here.
            let error = owned.withHandle { instproxy_status_get_error($0, &name, &description, &detail) }
            free(name)
            free(description)
            return (code, Message(value: owned.value, error: error))
        }

        func loop(_ body: @escaping @Sendable () -> Void) {
            DispatchQueue.global().async(group: loops, execute: body)
        }

        func close() {
            closing.withLock { $0 = true }
            loops.wait()
            property_list_service_client_free(client)
        }
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
