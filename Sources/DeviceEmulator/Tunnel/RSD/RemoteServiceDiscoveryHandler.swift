import NIOCore

/// Serves RemoteServiceDiscovery on one connection: HTTP/2 frames carrying RemoteXPC messages.
///
/// The conversation pymobiledevice3 11.45.0 holds (IOS17-TUNNEL.md §1.7): after its preface the device
/// sends SETTINGS first (the client fails if the first frame is anything else), ACKs the client's
/// SETTINGS, answers PING, and answers the client's `Handshake` dictionary with an empty HEADERS and
/// DATA on stream 1 (split at 16 KiB) carrying the device's properties and services. Everything else
/// (WINDOW_UPDATE, HEADERS, PRIORITY, RST_STREAM, empty XPC wrappers) needs no answer.
final class RemoteServiceDiscoveryHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Inbound
    typealias OutboundOut = ByteBuffer

    private let info: () -> RemoteServiceDiscoveryInfo
    /// Received DATA not yet a whole XPC message, per stream.
    private var pending: [UInt32: [UInt8]] = [:]
    private var answered = false

    /// The largest XPC message accepted from a client (its handshake is ~200 bytes).
    static let maximumMessage = 1 << 20
    static let replyStream: UInt32 = 1

    /// - Parameter info: read when the handshake arrives (so a switch set meanwhile applies).
    init(info: @escaping () -> RemoteServiceDiscoveryInfo) {
        self.info = info
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .preface:
            send(
                [
                    .settings([
                        (HTTP2Frame.maxConcurrentStreams, UInt32(100)),
                        (HTTP2Frame.initialWindowSize, UInt32(1_048_576)),
                    ]),
                    HTTP2Frame(.windowUpdate, payload: [0x00, 0x0F, 0x00, 0x01]),  // +983041: a 1 MiB connection window
                ], context: context)
        case .frame(let frame):
            receive(frame, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func receive(_ frame: HTTP2Frame, context: ChannelHandlerContext) {
        switch frame.kind {
        case .settings? where frame.flags & HTTP2Frame.acknowledgment == 0:
            send([HTTP2Frame(.settings, flags: HTTP2Frame.acknowledgment)], context: context)
        case .ping? where frame.flags & HTTP2Frame.acknowledgment == 0:
            send([HTTP2Frame(.ping, flags: HTTP2Frame.acknowledgment, payload: frame.payload)], context: context)
        case .data?:
            receiveData(frame, context: context)
        case .goAway?:
            context.close(promise: nil)
        default:
            break
        }
    }

    private func receiveData(_ frame: HTTP2Frame, context: ChannelHandlerContext) {
        var bytes = pending[frame.streamID, default: []] + frame.payload
        defer { pending[frame.streamID] = bytes.isEmpty ? nil : bytes }
        while true {
            let length: Int?
            do {
                length = try XPCCodec.messageLength(bytes[...])
            } catch {
                context.close(promise: nil)  // not RemoteXPC: nothing sensible to answer
                return
            }
            guard let length else { return }
            guard length <= Self.maximumMessage else {
                context.close(promise: nil)
                return
            }
            guard bytes.count >= length else { return }
            let message = try? XPCCodec.decode(bytes[..<length])
            bytes.removeFirst(length)
            if let message { handle(message, context: context) }
        }
    }

    private func handle(_ message: XPCMessage, context: ChannelHandlerContext) {
        guard !answered, message.payload?["MessageType"]?.stringValue == "Handshake" else { return }
        answered = true
        let reply = XPCCodec.encode(
            XPCMessage(flags: [.alwaysSet, .dataPresent], messageID: 0, payload: info().handshakeReply))
        var frames = [HTTP2Frame(.headers, flags: HTTP2Frame.endHeaders, streamID: Self.replyStream)]
        var offset = 0
        while offset < reply.count {
            let end = min(offset + HTTP2Frame.maximumPayload, reply.count)
            frames.append(HTTP2Frame(.data, streamID: Self.replyStream, payload: Array(reply[offset..<end])))
            offset = end
        }
        send(frames, context: context)
    }

    private func send(_ frames: [HTTP2Frame], context: ChannelHandlerContext) {
        var buffer = context.channel.allocator.buffer(
            capacity: frames.reduce(0) { $0 + HTTP2Frame.headerLength + $1.payload.count })
        for frame in frames { frame.write(to: &buffer) }
        context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
    }
}
