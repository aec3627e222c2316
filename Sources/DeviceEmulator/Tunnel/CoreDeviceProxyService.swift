import LaunchBench
import NIOCore

/// `com.apple.internal.devicecompute.CoreDeviceProxy`: the iOS 17.4+ tunnel that replaces lockdown's
/// debugserver. Over TLS (the pair record's host certificate as client certificate), a CDTunnel
/// handshake, then raw IPv6 packets to a small TCP server serving RemoteServiceDiscovery and
/// debugproxy, which reaches the same debugserver emulation as `com.apple.debugserver` on iOS ≤ 16, and
/// the instruments server (DVT) as on lockdown.
/// Before 17.4 a real phone has no such service (`InvalidService`).
package struct CoreDeviceProxyService: EmulatedService {
    package static let name = "com.apple.internal.devicecompute.CoreDeviceProxy"
    /// The debugproxy's port inside the tunnel (a real phone picks one per boot; this is the iOS 17.0.3
    /// capture's).
    package static let debugProxyPort: UInt16 = 50369
    /// The instruments server's port inside the tunnel (`com.apple.instruments.dtservicehub`; picked here).
    package static let instrumentsPort: UInt16 = 50371

    package let serviceNames: Set<String> = [name]
    /// Seed of noise and faults for apps whose profile sets none (as `DebugServerService`'s).
    package let seed: UInt64

    package init(seed: UInt64 = 0) {
        self.seed = seed
    }

    package func availability(of name: String, on device: EmulatedDevice) -> ServiceAvailability {
        guard let version = device.osVersion, version >= OSVersion(17, 4) else { return .refused("InvalidService") }
        if let refusal = device.services.coreDeviceProxyRefusal { return .refused(refusal) }
        return .available
    }

    package func usesTLS(_ name: String, on device: EmulatedDevice) -> Bool { true }

    package func accept(_ connection: ServiceConnection) throws {
        let device = connection.device
        let lab = connection.lab
        device.services.addTunnel(connection.channel)
        let seed = seed
        let debugServer: TunnelSocketBridge.ServiceInitializer = { channel in
            guard device.track(channel) else { throw ChannelError.ioOnClosedChannel }  // detached meanwhile
            try channel.pipeline.syncOperations.addHandler(DebugServerHandler(device: device, lab: lab, labSeed: seed))
        }
        let instruments: TunnelSocketBridge.ServiceInitializer = { channel in
            guard device.track(channel) else { throw ChannelError.ioOnClosedChannel }
            try InstrumentsService.serve(channel, device: device, lab: lab, seed: seed)
        }
        let discovery: TunnelSocketBridge.ServiceInitializer = { channel in
            guard device.track(channel) else { throw ChannelError.ioOnClosedChannel }
            try channel.pipeline.syncOperations.addHandlers(
                ByteToMessageHandler(HTTP2FrameDecoder()),
                RemoteServiceDiscoveryHandler {
                    RemoteServiceDiscoveryInfo(
                        device: device, debugProxyPort: Self.debugProxyPort, instrumentsPort: Self.instrumentsPort)
                })
        }
        let eventLoop = connection.channel.eventLoop
        let listeners: [UInt16: TunnelTCPStack.Acceptor] = [
            CDTunnelHandshake.remoteServiceDiscoveryPort: {
                TunnelSocketBridge.attach($0, on: eventLoop, service: discovery)
            },
            Self.debugProxyPort: { TunnelSocketBridge.attach($0, on: eventLoop, service: debugServer) },
            Self.instrumentsPort: { TunnelSocketBridge.attach($0, on: eventLoop, service: instruments) },
        ]
        try connection.addHandlers(
            ByteToMessageHandler(CDTunnelDecoder()), CoreDeviceTunnelHandler(udid: device.udid, listeners: listeners))
    }
}

/// Answers the CDTunnel handshake, then feeds the host's IPv6 packets to the device's TCP stack and
/// writes the stack's packets back, one per write. Closing the CoreDeviceProxy connection (detach,
/// reboot, the host going away) resets every connection inside the tunnel.
final class CoreDeviceTunnelHandler: ChannelInboundHandler {
    typealias InboundIn = CDTunnelInbound
    typealias OutboundOut = ByteBuffer

    private let udid: String
    private let listeners: [UInt16: TunnelTCPStack.Acceptor]
    private(set) var stack: TunnelTCPStack?

    /// - Parameter listeners: what listens inside the tunnel, by port (RemoteServiceDiscovery, debugproxy).
    init(udid: String, listeners: [UInt16: TunnelTCPStack.Acceptor]) {
        self.udid = udid
        self.listeners = listeners
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .handshake(let body):
            guard stack == nil, let handshake = try? CDTunnelHandshake(request: body, udid: udid) else {
                context.close(promise: nil)
                return
            }
            context.writeAndFlush(
                wrapOutboundOut(handshake.responseFrame(allocator: context.channel.allocator)), promise: nil)
            stack = makeStack(handshake, context: context)
        case .packet(let packet):
            stack?.receive(packet: packet)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        stack?.abortAll()
        stack = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func makeStack(_ handshake: CDTunnelHandshake, context: ChannelHandlerContext) -> TunnelTCPStack {
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        let stack = TunnelTCPStack(
            deviceAddress: handshake.deviceAddress, hostAddress: handshake.hostAddress, mtu: handshake.mtu,
            eventLoop: context.eventLoop
        ) { packet in
            let context = bound.value
            guard context.channel.isActive else { return }
            context.writeAndFlush(NIOAny(packet), promise: nil)
        }
        for (port, acceptor) in listeners { stack.listen(on: port, acceptor: acceptor) }
        return stack
    }
}
