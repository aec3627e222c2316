import Foundation
import LaunchBench

/// One launch over a debugserver connection (lockdown's, or a forwarder's on 127.0.0.1): set up, `c`, then the read loop of PROTOCOLS §7.5
/// without `OK` acknowledgements. Runs on the device's queue; the observer is asked between reads,
/// at least every `pollInterval`. Whatever happens, the app is not left running.
struct LaunchRun {
    let client: GDBRemoteClient
    let udid: String
    let bundleID: String
    let observer: any LaunchObserver
    let cancellation: CancellationFlag
    /// Whether the device has left usbmuxd's list (asked when the connection breaks).
    let deviceLeft: () -> Bool

    /// How long one read waits for data before the observer is asked again.
    static let pollMilliseconds: UInt32 = 50
    /// How long to wait for debugserver to confirm a kill.
    static let killTimeout: Duration = .seconds(5)

    private var reader = GDBPacketReader()
    /// The app may exist (debugserver spawns it, suspended, on `A`).
    private var processMayExist = false

    init(
        client: GDBRemoteClient, udid: String, bundleID: String, observer: any LaunchObserver,
        cancellation: CancellationFlag, deviceLeft: @escaping () -> Bool
    ) {
        self.client = client
        self.udid = udid
        self.bundleID = bundleID
        self.observer = observer
        self.cancellation = cancellation
        self.deviceLeft = deviceLeft
    }

    mutating func run(
        executable: String, workingDirectory: String?, arguments: [String], environment: [EnvironmentVariable]
    ) throws -> LaunchTermination {
        do {
            try setUp(
                executable: executable, workingDirectory: workingDirectory, arguments: arguments,
                environment: environment)
            try client.send(packet: "c")
            observer.launched(at: .now)
            return try readUntilEnd()
        } catch {
            if processMayExist { try? kill() }
            throw error
        }
    }

    private mutating func setUp(
        executable: String, workingDirectory: String?, arguments: [String], environment: [EnvironmentVariable]
    ) throws {
        try expectOK(client.command("QSetMaxPacketSize:", argument: "1024"), for: "QSetMaxPacketSize")
        if let workingDirectory {
            try expectOK(client.command("QSetWorkingDir:", argument: workingDirectory), for: "QSetWorkingDir")
        }
        for variable in environment {
            try expectOK(client.setEnvironment(variable.assignment), for: "QEnvironmentHexEncoded \(variable.name)")
        }
        if cancellation.isCancelled { throw CancellationError() }
        processMayExist = true
        // Spawning can take a while on a real device; the library's own wait is 1 s.
        let spawn = try client.setArguments([executable] + arguments, timeout: .seconds(60))
        if case .error = GDBRemote.Reply(payload: Array(spawn.utf8)) { try refuse(spawn) }
        let launched = try client.command("qLaunchSuccess", timeout: .seconds(60))
        guard launched == "OK" else { try refuse(launched) }
        try expectOK(client.command("Hc0"), for: "Hc0")
    }

    private func refuse(_ reply: String) throws -> Never {
        let text = reply.hasPrefix("E") ? String(reply.dropFirst()) : reply
        throw DeviceError.launchRefused(
            bundleID: bundleID, udid: udid, reason: LaunchRefusal(reply: text),
            reply: text.isEmpty ? "no reason given" : text)
    }

    private func expectOK(_ reply: String, for command: String) throws {
        guard reply == "OK" else {
            throw DeviceError.protocolError(
                operation: "debugserver \(command)", udid: udid, detail: "replied \"\(reply)\" instead of OK")
        }
    }

    private mutating func readUntilEnd() throws -> LaunchTermination {
        // Over TLS reads are byte by byte: ask the observer every few milliseconds, not per byte.
        var lastAsked = ContinuousClock.now
        var idle = true
        while true {
            while let payload = reader.next() {
                try? client.acknowledge()
                switch GDBRemote.Reply(payload: payload) {
                case .output(let bytes):
                    if !bytes.isEmpty { observer.output(bytes) }
                case .exited(let status):
                    processMayExist = false
                    return .exited(status: status)
                case .signaled(let signal):
                    processMayExist = false
                    return .signaled(signal: signal)
                case .stopped(let signal):
                    try kill()
                    return .crashed(signal: signal)
                case .ok, .error, .other:
                    continue
                }
            }
            if cancellation.isCancelled {
                try kill()
                throw CancellationError()
            }
            let now = ContinuousClock.now
            if idle || now - lastAsked >= .milliseconds(10) {
                lastAsked = now
                if let stop = observer.shouldEnd(at: now) {
                    try kill()
                    return .endedByHarness(stop)
                }
            }
            switch client.read(timeoutMilliseconds: Self.pollMilliseconds) {
            case .bytes(let bytes):
                reader.append(bytes)
                idle = false
            case .idle:
                idle = true
            case .closed(let reason):
                throw connectionLost(reason)
            }
        }
    }

    /// Sends `k` and waits until debugserver confirms the app is gone (`X`/`W`, or it closes the
    /// connection, which it does after its inferior is gone).
    private mutating func kill() throws {
        defer { processMayExist = false }
        try? client.send(packet: "k")
        let deadline = ContinuousClock.now + Self.killTimeout
        while ContinuousClock.now < deadline {
            while let payload = reader.next() {
                try? client.acknowledge()
                switch GDBRemote.Reply(payload: payload) {
                case .signaled, .exited: return
                case .output(let bytes): if !bytes.isEmpty { observer.output(bytes) }
                default: continue
                }
            }
            switch client.read(timeoutMilliseconds: Self.pollMilliseconds) {
            case .bytes(let bytes): reader.append(bytes)
            case .idle: continue
            case .closed: return
            }
        }
        throw DeviceError.timedOut(
            operation: "ending \(bundleID) (debugserver did not confirm the kill)", udid: udid,
            seconds: Self.killTimeout.totalSeconds)
    }

    private func connectionLost(_ reason: String) -> DeviceError {
        if deviceLeft() { return .deviceLost(udid: udid, operation: "launch of \(bundleID)") }
        return .protocolError(
            operation: "launch of \(bundleID)", udid: udid,
            detail: "\(client.peerDescription) closed the connection while the app was running (\(reason))")
    }
}
