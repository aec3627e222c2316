import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import NIOCore
import TestSupport

@testable import MobileDevice

/// A test double for debugserver that records exactly what arrives (working directory, environment,
/// argv) and answers like a real one. It answers the secure name
/// (`com.apple.debugserver.DVTSecureSocketProxy`, which MobileDevice and pymobiledevice3 ask for) for
/// the devices a test enables, without TLS; every other device gets the lab's own secure debugserver
/// (with TLS, as before the recorder was registered) — so it can sit in the shared lab without
/// disturbing other tests.
final class RecordingDebugserver: Sendable {
    /// What one launch sent, decoded.
    struct Launch: Sendable, Hashable {
        var workingDirectory: String?
        var environment: [String] = []
        var arguments: [String] = []
        var packets: [String] = []
    }

    static let shared = RecordingDebugserver()

    private let launches = Locked<[String: Launch]>([:])
    private let registered = Locked(false)

    /// Routes `udid`'s secure debugserver to this recorder (registers it in the shared lab once).
    func enable(for udid: String) async throws {
        let lab = try await SharedTestLab.lab()
        let needsRegistering = registered.withLock { done in
            defer { done = true }
            return !done
        }
        if needsRegistering {
            lab.register(Service(recorder: self, fallback: lab.service(named: Service.secureName)))
        }
        launches.withLock { $0[udid] = Launch() }
    }

    /// What the last launch on `udid` sent.
    func launch(on udid: String) -> Launch? { launches.withLock { $0[udid] } }

    fileprivate func isEnabled(_ udid: String) -> Bool { launches.withLock { $0[udid] != nil } }

    fileprivate func record(_ udid: String, _ change: (inout Launch) -> Void) {
        launches.withLock { launches in
            guard var launch = launches[udid] else { return }
            change(&launch)
            launches[udid] = launch
        }
    }

    private struct Service: EmulatedService {
        static let secureName = "com.apple.debugserver.DVTSecureSocketProxy"
        let recorder: RecordingDebugserver
        /// The lab's own service for the secure name, for the devices the recorder is not enabled for.
        let fallback: (any EmulatedService)?
        var serviceNames: Set<String> { [Self.secureName] }

        func availability(of name: String, on device: EmulatedDevice) -> ServiceAvailability {
            if recorder.isEnabled(device.udid) { return .available }
            return fallback?.availability(of: name, on: device) ?? .refused("InvalidService")
        }

        func usesTLS(_ name: String, on device: EmulatedDevice) -> Bool {
            recorder.isEnabled(device.udid) ? false : fallback?.usesTLS(name, on: device) ?? false
        }

        func accept(_ connection: ServiceConnection) throws {
            guard recorder.isEnabled(connection.device.udid) else {
                guard let fallback else { throw ChannelError.ioOnClosedChannel }
                return try fallback.accept(connection)
            }
            try connection.addHandlers(Handler(recorder: recorder, udid: connection.device.udid))
        }
    }

    /// Acks each packet (until `QStartNoAckMode`), answers OK to the setup packets, and on `c` prints one
    /// line and exits 0.
    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        let recorder: RecordingDebugserver
        let udid: String
        private var pending: [UInt8] = []
        private var ack = "+"

        init(recorder: RecordingDebugserver, udid: String) {
            self.recorder = recorder
            self.udid = udid
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            pending += Array(unwrapInboundIn(data).readableBytesView)
            while let dollar = pending.firstIndex(of: UInt8(ascii: "$")),
                let hash = pending[dollar...].firstIndex(of: UInt8(ascii: "#")), hash + 2 < pending.count
            {
                let packet = String(decoding: pending[(dollar + 1)..<hash], as: UTF8.self)
                pending.removeFirst(hash + 3)
                handle(packet, context: context)
            }
        }

        private func handle(_ packet: String, context: ChannelHandlerContext) {
            recorder.record(udid) { $0.packets.append(packet) }
            switch packet {
            case "QStartNoAckMode":
                send(ack, reply: "OK", context: context)
                ack = ""
            case let p where p.hasPrefix("QEnvironmentHexEncoded:"):
                let text = Self.unhex(p.dropFirst("QEnvironmentHexEncoded:".count))
                recorder.record(udid) { $0.environment.append(text) }
                send(ack, reply: "OK", context: context)
            case let p where p.hasPrefix("QSetWorkingDir:"):
                let text = Self.unhex(p.dropFirst("QSetWorkingDir:".count))
                recorder.record(udid) { $0.workingDirectory = text }
                send(ack, reply: "OK", context: context)
            case let p where p.hasPrefix("A"):
                // A<hexlen>,<index>,<hex>[,<hexlen>,<index>,<hex>…]
                let fields = p.dropFirst().split(separator: ",", omittingEmptySubsequences: false)
                let arguments = stride(from: 2, to: fields.count, by: 3).map { Self.unhex(fields[$0]) }
                recorder.record(udid) { $0.arguments = arguments }
                send(ack, reply: "OK", context: context)
            case "c":
                send(ack, reply: "O" + Self.hex("recorded\n"), context: context)
                send("", reply: "W00", context: context)
            case "k":
                send(ack, reply: "X09", context: context)
            case let p where p.hasPrefix("QSetMaxPacketSize") || p == "qLaunchSuccess" || p.hasPrefix("H"):
                send(ack, reply: "OK", context: context)
            default:
                send(ack, reply: "", context: context)
            }
        }

        /// One write per packet (the client reads the header with a single recv).
        private func send(_ ack: String, reply: String, context: ChannelHandlerContext) {
            let sum = reply.utf8.reduce(UInt8(0)) { $0 &+ $1 }
            let text = ack + "$" + reply + "#" + String(format: "%02x", sum)
            var buffer = context.channel.allocator.buffer(capacity: text.utf8.count)
            buffer.writeString(text)
            context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
        }

        static func unhex<S: StringProtocol>(_ text: S) -> String {
            var bytes: [UInt8] = []
            var iterator = text.utf8.makeIterator()
            while let high = iterator.next(), let low = iterator.next() {
                guard let byte = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { break }
                bytes.append(byte)
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        static func hex(_ text: String) -> String {
            text.utf8.map { String(format: "%02x", $0) }.joined()
        }
    }
}
