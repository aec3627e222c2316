import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Gives a tunnel TCP connection a real NIO `Channel`, so a device service (debugserver, RSD) serves it
/// with the same handlers, event-loop timers and half-close as on a usbmuxd connection: a connected
/// unix socket pair, one end the service's channel, the other a relay to the TCP connection.
enum TunnelSocketBridge {
    /// Sets up the service's pipeline on the new channel (called on `eventLoop`).
    typealias ServiceInitializer = @Sendable (any Channel) throws -> Void

    enum BridgeError: Error {
        case socketPair(errno: Int32)
    }

    /// Connects `connection` to a new service channel; returns that channel.
    ///
    /// Must be called on `eventLoop` (the tunnel's), right after the stack accepted `connection`.
    @discardableResult
    static func attach(
        _ connection: TunnelTCPConnection, on eventLoop: any EventLoop, service: @escaping ServiceInitializer
    ) -> EventLoopFuture<any Channel> {
        var descriptors: [Int32] = [-1, -1]
        #if canImport(Glibc)
            let kind = Int32(SOCK_STREAM.rawValue)
        #else
            let kind = SOCK_STREAM
        #endif
        guard socketpair(AF_UNIX, kind, 0, &descriptors) == 0 else {
            connection.abort()
            return eventLoop.makeFailedFuture(BridgeError.socketPair(errno: errno))
        }
        let relay = NIOLoopBound(TunnelRelayHandler(connection: connection), eventLoop: eventLoop)
        let abort = NIOLoopBound({ connection.abort() }, eventLoop: eventLoop)
        let serviceChannel = ClientBootstrap(group: eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try service(channel) }
            }
            .withConnectedSocket(descriptors[0])
        let relayChannel = ClientBootstrap(group: eventLoop)
            .channelOption(.allowRemoteHalfClosure, value: true)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(relay.value) }
            }
            .withConnectedSocket(descriptors[1])
        relayChannel.whenFailure { _ in abort.value() }
        serviceChannel.whenFailure { _ in abort.value() }
        return serviceChannel
    }
}

/// The relay end of the socket pair: bytes from the service go out on the TCP connection, bytes from
/// the TCP connection go to the service; either side's close closes the other.
final class TunnelRelayHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let connection: TunnelTCPConnection
    /// Bytes that arrived from the peer before the relay channel was active.
    private var pending: [ByteBuffer] = []
    private var pendingPeerClose = false
    private var context: ChannelHandlerContext?

    init(connection: TunnelTCPConnection) {
        self.connection = connection
        // Weak: the connection outlives the relay when its last ACK arrives after the channel closed.
        connection.callbacks.data = { [weak self] bytes in self?.fromPeer(bytes) }
        connection.callbacks.peerClosed = { [weak self] in self?.peerClosed() }
        let previousClosed = connection.callbacks.closed
        connection.callbacks.closed = { [weak self] in
            previousClosed()
            self?.context?.close(promise: nil)
        }
    }

    func channelActive(context: ChannelHandlerContext) {
        self.context = context
        for bytes in pending { context.write(wrapOutboundOut(bytes), promise: nil) }
        pending.removeAll()
        context.flush()
        if pendingPeerClose { context.close(mode: .output, promise: nil) }
        if connection.state == .closed { context.close(promise: nil) }
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        connection.send(unwrapInboundIn(data))
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event { connection.close() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection.close()
        self.context = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        connection.abort()
        context.close(promise: nil)
    }

    private func fromPeer(_ bytes: ByteBuffer) {
        guard let context else {
            pending.append(bytes)
            return
        }
        context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
    }

    private func peerClosed() {
        guard let context else {
            pendingPeerClose = true
            return
        }
        context.close(mode: .output, promise: nil)
    }
}
