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
            try start()
            return try readUntilEnd()
        } catch {
            if processMayExist { try? kill() }
            throw error
        }
    }

    /// libimobiledevice's packets in its order, after `QStartNoAckMode`: with debugserver's agreement
    /// they go out in one write (see `GDBRemoteClient.pipeline`), `Hc0` and `c` in another.
    private mutating func setUp(
        executable: String, workingDirectory: String?, arguments: [String], environment: [EnvironmentVariable]
    ) throws {
        _ = try client.startNoAckMode()
        typealias Command = GDBRemoteClient.Command
        var settings = [
            Command(packet: GDBRemoteClient.packet("QSetMaxPacketSize:", argument: "1024"), name: "QSetMaxPacketSize")
        ]
        if let workingDirectory {
            settings.append(
                Command(
                    packet: GDBRemoteClient.packet("QSetWorkingDir:", argument: workingDirectory),
                    name: "QSetWorkingDir"))
        }
        settings += environment.map { variable in
            Command(
                packet: GDBRemoteClient.environmentPacket(variable.assignment),
                name: "QEnvironmentHexEncoded \(variable.name)")
        }
        if cancellation.isCancelled { throw CancellationError() }
        processMayExist = true
        // Spawning can take a while on a real device; the library's own wait is 1 s.
        let spawn = [
            Command(
                packet: GDBRemoteClient.argumentsPacket([executable] + arguments), name: "A", timeout: .seconds(60)),
            Command(packet: "qLaunchSuccess", name: "qLaunchSuccess", timeout: .seconds(60)),
        ]
        let replies = try client.pipeline(settings + spawn)
        for (command, reply) in zip(settings, replies) { try expectOK(reply, for: command.name) }
        let (spawned, launched) = (replies[settings.count], replies[settings.count + 1])
        if case .error = GDBRemote.Reply(payload: Array(spawned.utf8)) { try refuse(spawned) }
        guard launched == "OK" else { try refuse(launched) }
    }

    /// `Hc0`, then `c`: back to back without acks (`Hc0`'s reply is read after), else one at a time.
    private func start() throws {
        if client.acknowledges {
            try expectOK(client.command("Hc0"), for: "Hc0")
            try client.send(packets: "c")
            observer.launched(at: .now)
        } else {
            try client.send(packets: "Hc0", "c")
            observer.launched(at: .now)
            try expectOK(client.command(awaitingReplyTo: "Hc0"), for: "Hc0")
        }
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
        try? client.send(packets: "k")
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
