import NIOCore

/// `com.apple.afc`: the device's media folder over the AFC packet protocol, one reply per request,
/// each in a single write.
package struct AFCService: EmulatedService {
    package let serviceNames: Set<String> = ["com.apple.afc"]

    package init() {}

    package func accept(_ connection: ServiceConnection) throws {
        let engine = AFCEngine(root: connection.device.services.mediaRoot)
        try connection.addHandlers(ByteToMessageHandler(AFCPacketDecoder()), AFCHandler(engine: engine))
    }
}

final class AFCHandler: ChannelInboundHandler {
    typealias InboundIn = AFCPacket
    typealias OutboundOut = ByteBuffer

    private let engine: AFCEngine

    init(engine: AFCEngine) {
        self.engine = engine
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let reply = engine.reply(to: unwrapInboundIn(data))
        context.writeAndFlush(wrapOutboundOut(reply.encoded(allocator: context.channel.allocator)), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
