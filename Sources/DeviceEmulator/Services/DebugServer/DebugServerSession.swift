/// The debugserver side of one GDB remote connection, as pure logic: client bytes in, actions out
/// (bytes to write, start/kill the emulated process, close). The channel handler carries them out.
///
/// Ack mode (the default): every client packet gets a `+` in the same write as its reply, and the
/// next packet is sent only after the client's `+` for the previous one (as real debugserver waits),
/// so stdout arrives in order and a reply never splits from its `+`. `QStartNoAckMode` turns both off.
final class DebugServerSession {
    /// What a launch asks for: argv (argv[0] = the executable's device path), environment in the
    /// client's order, working directory.
    struct LaunchRequest: Equatable {
        var arguments: [String]
        var environment: [(name: String, value: String)]
        var workingDirectory: String?

        static func == (lhs: LaunchRequest, rhs: LaunchRequest) -> Bool {
            lhs.arguments == rhs.arguments && lhs.workingDirectory == rhs.workingDirectory
                && lhs.environment.map(\.name) == rhs.environment.map(\.name)
                && lhs.environment.map(\.value) == rhs.environment.map(\.value)
        }
    }

    enum Action: Equatable {
        case write([UInt8])
        /// `c`: let the launched process run (start its timers).
        case start
        /// `k` (or the connection ending): kill the process.
        case kill
        /// `D`: detach, the process keeps running unobserved.
        case detach
        case close
    }

    /// How the process ended or stopped.
    enum ProcessEnd: Equatable {
        case exited(Int)
        case signaled(Int)
        case stopped(Int)
    }

    private enum ProcessState: Equatable {
        case none
        case launched
        case refused(String)
        case running
        case stopped(Int)
        case ended([UInt8])
    }

    /// Decides at `A` whether the launch is allowed: `nil` = OK, else the refusal text for `qLaunchSuccess`.
    private let launchCheck: (LaunchRequest) -> String?
    private(set) var noAck = false
    private(set) var request = LaunchRequest(arguments: [], environment: [], workingDirectory: nil)
    private var parser = GDBStreamParser()
    private var process = ProcessState.none
    private var ackOwed = false
    private var inFlight: Outgoing?
    private var queue: [Outgoing] = []

    /// A framed packet waiting to go out; the session ends once a `final` one is acknowledged (or,
    /// without acks, written) — whatever is queued behind it is dropped, as debugserver leaves its loop.
    private struct Outgoing: Equatable {
        var bytes: [UInt8]
        var isFinal: Bool
        /// The raw bytes of an `O` packet (so later output can join it while it waits).
        var output: [UInt8]? = nil
        /// Whether `bytes` starts with an owed `+`.
        var plus = false
    }
    private(set) var isClosed = false
    /// Pretend thread id in stop replies.
    let threadID = 0x1f03

    init(launchCheck: @escaping (LaunchRequest) -> String?) {
        self.launchCheck = launchCheck
    }

    // MARK: - Input from the client

    /// Feeds client bytes; returns what to do, in order.
    func receive(_ bytes: [UInt8]) -> [Action] {
        var actions: [Action] = []
        for unit in parser.feed(bytes) where !isClosed {
            switch unit {
            case .ack:
                guard !noAck, let acknowledged = inFlight else { continue }
                inFlight = nil
                if acknowledged.isFinal {
                    actions += finish()
                } else {
                    actions += pump()
                }
            case .nak:
                if !noAck, let resend = inFlight { actions.append(.write(resend.bytes)) }
            case .interrupt:
                if process == .running {
                    process = .stopped(0x11)
                    actions += send(stopPacket(0x11))
                }
            case .packet(let payload, let checksumOK):
                if !noAck && !checksumOK {
                    actions.append(.write([UInt8(ascii: "-")]))
                    continue
                }
                if !noAck { ackOwed = true }
                actions += handle(payload)
            }
        }
        return actions
    }

    private func handle(_ payload: [UInt8]) -> [Action] {
        let text = String(decoding: payload, as: UTF8.self)
        // Unknown packets (idevicedebug's `OK`s included) get the empty reply.
        return configure(text) ?? launch(text) ?? control(text) ?? reply("")
    }

    /// The settings before the launch: ack mode, environment, working directory and those only acknowledged.
    private func configure(_ text: String) -> [Action]? {
        if text == "QStartNoAckMode" {
            let actions = send(Array("OK".utf8))
            noAck = true
            inFlight = nil
            return actions + pump()
        }
        if text.hasPrefix("QEnvironmentHexEncoded:") {
            guard let bytes = GDBPacket.unhex(text.dropFirst("QEnvironmentHexEncoded:".count)) else {
                return reply("E03")
            }
            addEnvironment(String(decoding: bytes, as: UTF8.self))
            return reply("OK")
        }
        if text.hasPrefix("QEnvironment:") {
            addEnvironment(String(text.dropFirst("QEnvironment:".count)))
            return reply("OK")
        }
        if text.hasPrefix("QSetWorkingDir:") {
            // The path is hex-encoded; a real debugserver cannot chdir to what a plain path decodes to (E61).
            guard let bytes = GDBPacket.unhex(text.dropFirst("QSetWorkingDir:".count)), !bytes.isEmpty else {
                return reply("E61")
            }
            request.workingDirectory = String(decoding: bytes, as: UTF8.self)
            return reply("OK")
        }
        for prefix in Self.acceptedSettings where text.hasPrefix(prefix) { return reply("OK") }
        return nil
    }

    /// `A` (the arguments: the launch), `qLaunchSuccess` and `H` (the thread to continue).
    private func launch(_ text: String) -> [Action]? {
        if text.hasPrefix("A") {
            guard let arguments = Self.parseArguments(text) else { return reply("E03") }
            request.arguments = arguments
            if let refusal = launchCheck(request) {
                process = .refused(refusal)
            } else {
                process = .launched
            }
            return reply("OK")
        }
        if text == "qLaunchSuccess" {
            switch process {
            case .refused(let message): return send([UInt8(ascii: "E")] + GDBPacket.escape(message))
            case .none: return send([UInt8(ascii: "E")] + GDBPacket.escape("no process launched: send A first"))
            default: return reply("OK")
            }
        }
        if text.hasPrefix("H") { return reply("OK") }
        return nil
    }

    /// Continue, kill, detach and the stop reason of the launched process.
    private func control(_ text: String) -> [Action]? {
        if text == "c" || text.hasPrefix("vCont;c") || text.hasPrefix("C") {
            switch process {
            case .launched:
                process = .running
                return [.start]  // the reply is the process's first packet (the owed `+` rides on it)
            case .running:
                return []
            case .stopped(let signal):
                // A crashed process cannot go on: continuing delivers the signal and it dies.
                return processEnded(.signaled(signal))
            case .ended(let packet):
                return send(packet)
            case .none, .refused:
                return reply("E01")
            }
        }
        if text == "k" {
            let wasAlive = process == .running || process == .launched || isStopped
            process = .ended(Array("X09".utf8))
            queue.removeAll()  // output not yet sent dies with the process
            let actions = send(Array("X09".utf8), final: true)
            return (wasAlive ? [.kill] : []) + actions
        }
        if text == "D" {
            let actions = send(Array("OK".utf8), final: true)
            return [.detach] + actions
        }
        if text == "?" {
            switch process {
            case .ended(let packet): return send(packet)
            case .stopped(let signal): return send(stopPacket(signal))
            case .running, .launched: return send(stopPacket(0x11))
            case .none, .refused: return reply("W00")
            }
        }
        return nil
    }

    private var isStopped: Bool {
        if case .stopped = process { return true }
        return false
    }

    // MARK: - Input from the process

    /// Process output, sent as `O<hex>` packets of at most 256 bytes each. Output that waits behind an
    /// unacknowledged packet joins the last waiting `O` packet (up to 256 bytes), as debugserver sends
    /// whatever the pty buffered meanwhile in one packet.
    func processOutput(_ bytes: [UInt8]) -> [Action] {
        guard process == .running, !bytes.isEmpty else { return [] }
        var remaining = bytes[...]
        if let last = queue.last, let waiting = last.output, waiting.count < Self.maxOutputChunk {
            let joined = waiting + remaining.prefix(Self.maxOutputChunk - waiting.count)
            remaining = remaining.dropFirst(joined.count - waiting.count)
            queue[queue.count - 1] = outputPacket(joined, plus: last.plus)
        }
        while !remaining.isEmpty {
            let chunk = Array(remaining.prefix(Self.maxOutputChunk))
            remaining = remaining.dropFirst(chunk.count)
            queue.append(outputPacket(chunk, plus: ackOwed))
            ackOwed = false
        }
        return pump()
    }

    static let maxOutputChunk = 256

    private func outputPacket(_ bytes: [UInt8], plus: Bool) -> Outgoing {
        let frame = GDBPacket.frame(Array("O".utf8) + Array(GDBPacket.hex(bytes).utf8), noAck: noAck)
        return Outgoing(bytes: (plus ? [UInt8(ascii: "+")] : []) + frame, isFinal: false, output: bytes, plus: plus)
    }

    /// The process exited, died, or stopped. Exit and death end the session once the packet is sent.
    func processEnded(_ end: ProcessEnd) -> [Action] {
        guard process == .running || isStopped else { return [] }
        switch end {
        case .exited(let status):
            let packet = Array("W\(Self.hexByte(status))".utf8)
            process = .ended(packet)
            return send(packet, final: true)
        case .signaled(let signal):
            let packet = Array("X\(Self.hexByte(signal))".utf8)
            process = .ended(packet)
            return send(packet, final: true)
        case .stopped(let signal):
            process = .stopped(signal)
            return send(stopPacket(signal))
        }
    }

    /// The connection went away (or a timer gave up waiting for an ack): nothing more is sent.
    func connectionClosed() -> [Action] {
        guard !isClosed else { return [] }
        isClosed = true
        let alive = process == .running || process == .launched || isStopped
        return alive ? [.kill] : []
    }

    /// Whether everything queued was sent and acknowledged.
    var isIdle: Bool { inFlight == nil && queue.isEmpty }

    /// The final packet (exit, kill, detach) was written and its ack is still missing (earlier packets
    /// may take a slow client seconds to read; they do not count).
    var isClosedPendingAck: Bool { !isClosed && inFlight?.isFinal == true }

    // MARK: - Sending

    private func reply(_ text: String) -> [Action] { send(Array(text.utf8)) }

    /// Queues a packet; writes it now unless an earlier one still waits for its ack.
    private func send(_ payload: [UInt8], final: Bool = false) -> [Action] {
        var bytes = GDBPacket.frame(payload, noAck: noAck)
        if ackOwed {
            bytes.insert(UInt8(ascii: "+"), at: 0)
            ackOwed = false
        }
        queue.append(Outgoing(bytes: bytes, isFinal: final))
        return pump()
    }

    private func pump() -> [Action] {
        var actions: [Action] = []
        while inFlight == nil, !queue.isEmpty, !isClosed {
            let next = queue.removeFirst()
            actions.append(.write(next.bytes))
            if !noAck {
                inFlight = next
            } else if next.isFinal {
                actions += finish()
            }
        }
        return actions
    }

    private func finish() -> [Action] {
        queue.removeAll()
        isClosed = true
        return [.close]
    }

    private func stopPacket(_ signal: Int) -> [UInt8] {
        Array(
            "T\(Self.hexByte(signal))thread:\(String(threadID, radix: 16));threads:\(String(threadID, radix: 16));".utf8
        )
    }

    private func addEnvironment(_ entry: String) {
        guard let equals = entry.firstIndex(of: "=") else {
            request.environment.append((entry, ""))
            return
        }
        request.environment.append((String(entry[..<equals]), String(entry[entry.index(after: equals)...])))
    }

    // MARK: - Parsing helpers

    /// Commands answered with a plain `OK`.
    static let acceptedSettings = [
        "QSetMaxPacketSize:", "QSetLogging:", "QLaunchArch:", "QSetDisableASLR:", "QSetSTDIN:", "QSetSTDOUT:",
        "QSetSTDERR:", "QListThreadsInStopReply", "QThreadSuffixSupported", "QSetEnableAsyncProfiling",
        "QEnableErrorStrings",
    ]

    /// `A<hexlen>,<index>,<hex>,…` → argv; `nil` when malformed.
    static func parseArguments(_ text: String) -> [String]? {
        let fields = text.dropFirst().split(separator: ",", omittingEmptySubsequences: false)
        guard !fields.isEmpty, fields.count % 3 == 0 else { return nil }
        var arguments: [(Int, String)] = []
        var index = 0
        while index < fields.count {
            guard let length = Int(fields[index]), let position = Int(fields[index + 1]) else { return nil }
            let hex = fields[index + 2]
            guard hex.utf8.count == length else { return nil }
            // libimobiledevice hex-encodes argv bytes ≥ 0x80 wrongly (signed chars); keep what decodes.
            let bytes = GDBPacket.unhex(hex) ?? []
            arguments.append((position, String(decoding: bytes, as: UTF8.self)))
            index += 3
        }
        return arguments.sorted { $0.0 < $1.0 }.map(\.1)
    }

    static func hexByte(_ value: Int) -> String {
        let byte = UInt8(truncatingIfNeeded: value)
        return GDBPacket.hex([byte])
    }
}
