import Foundation
import LaunchBench
import NIOCore
import NIOPosix

/// What iOS 17.0–17.3.1 are reached through instead of CoreDeviceProxy: pymobiledevice3's root
/// `remote tunneld`, which a real phone needs a kernel TUN and RemotePairing for. This stand-in serves
/// the same client side over loopback, with no root: `GET /` lists each attached iOS 17.0–17.3.x phone of
/// the lab with a loopback RemoteServiceDiscovery port, and each phone's debugproxy is a loopback
/// listener served by the same debugserver emulation as on iOS ≤ 16 (IOS17-TUNNEL.md §2).
///
/// Point launchbench at it with `--tunneld PORT` (pymobiledevice3's `--tunnel UDID:PORT`), so parallel
/// labs never share tunneld's fixed port 49151.
package final class TunneldStandIn: Sendable {
    /// The port `GET /` answers on (127.0.0.1).
    package let port: Int

    private struct Endpoints {
        var discovery: any Channel
        var debugProxy: any Channel
        var instruments: any Channel
    }

    private let lab: EmulatedLab
    private let seed: UInt64
    private let server: any Channel
    private let endpoints = Locked([String: Endpoints]())

    private init(lab: EmulatedLab, seed: UInt64, server: any Channel, port: Int) {
        self.lab = lab
        self.seed = seed
        self.server = server
        self.port = port
    }

    /// Starts listening on 127.0.0.1:`port` (0: a free port, see ``port``).
    package static func start(lab: EmulatedLab, port: Int = 0, seed: UInt64 = 0) async throws -> TunneldStandIn {
        let holder = Locked<TunneldStandIn?>(nil)
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        TunneldRequestHandler { await holder.withLock { $0 }?.listing() ?? "{}" })
                }
            }
            .bind(host: "127.0.0.1", port: port).get()
        let standIn = TunneldStandIn(lab: lab, seed: seed, server: server, port: server.localAddress?.port ?? port)
        holder.withLock { $0 = standIn }
        return standIn
    }

    /// Stops answering and closes every listener.
    package func stop() async {
        let open = endpoints.withLock { state in
            defer { state.removeAll() }
            return state.values.flatMap { [$0.discovery, $0.debugProxy, $0.instruments] }
        }
        for channel in open + [server] { try? await channel.close() }
    }

    /// The phones tunneld would serve: attached, on iOS 17.0 up to (not including) 17.4.
    static func serves(_ device: EmulatedDevice) -> Bool {
        guard device.isAttached, let version = device.osVersion else { return false }
        return version.major == 17 && version < OSVersion(17, 4)
    }

    /// tunneld's `GET /` body: `{UDID: [{"tunnel-address", "tunnel-port", "interface"}]}`.
    func listing() async -> String {
        var body: [String: Any] = [:]
        for device in lab.devices where Self.serves(device) {
            guard let discovery = try? await endpoints(for: device) else { continue }
            body[device.udid] = [["tunnel-address": "127.0.0.1", "tunnel-port": discovery, "interface": "lo-emulated"]]
        }
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The device's RSD port, its listeners started on first use.
    private func endpoints(for device: EmulatedDevice) async throws -> Int {
        if let known = endpoints.withLock({ $0[device.udid] }), known.discovery.isActive {
            return known.discovery.localAddress?.port ?? 0
        }
        let lab = lab
        let seed = seed
        let debugProxy = try await Self.listen(for: device) { channel in
            try channel.pipeline.syncOperations.addHandler(DebugServerHandler(device: device, lab: lab, labSeed: seed))
        }
        let debugProxyPort = UInt16(debugProxy.localAddress?.port ?? 0)
        let instruments = try await Self.listen(for: device) { channel in
            try InstrumentsService.serve(channel, device: device, lab: lab, seed: seed)
        }
        let instrumentsPort = UInt16(instruments.localAddress?.port ?? 0)
        let discovery = try await Self.listen(for: device) { channel in
            try channel.pipeline.syncOperations.addHandlers(
                ByteToMessageHandler(HTTP2FrameDecoder()),
                RemoteServiceDiscoveryHandler {
                    RemoteServiceDiscoveryInfo(
                        device: device, debugProxyPort: debugProxyPort, instrumentsPort: instrumentsPort)
                })
        }
        // Two requests may have raced to start them: the first to register wins, the other closes its own.
        let kept = endpoints.withLock { state -> Endpoints in
            if let existing = state[device.udid], existing.discovery.isActive { return existing }
            state[device.udid] = Endpoints(discovery: discovery, debugProxy: debugProxy, instruments: instruments)
            return state[device.udid]!
        }
        if kept.discovery !== discovery {
            discovery.close(promise: nil)
            debugProxy.close(promise: nil)
            instruments.close(promise: nil)
        }
        return kept.discovery.localAddress?.port ?? 0
    }

    /// A listener on a free loopback port whose connections belong to `device` (they close when it detaches)
    /// and are set up by `serve`.
    private static func listen(
        for device: EmulatedDevice, serve: @escaping @Sendable (any Channel) throws -> Void
    ) async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    guard device.track(channel) else { throw ChannelError.ioOnClosedChannel }
                    try serve(channel)
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }
}

/// Answers one HTTP request (whatever its path, as tunneld's `GET /`) with the listing, then closes.
final class TunneldRequestHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let listing: @Sendable () async -> String
    private var request: [UInt8] = []
    private var answered = false

    /// A request line and headers longer than this are not pymobiledevice3's.
    static let maximumRequest = 16 * 1024

    init(listing: @escaping @Sendable () async -> String) {
        self.listing = listing
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        request += unwrapInboundIn(data).readableBytesView
        guard request.count <= Self.maximumRequest else {
            context.close(promise: nil)
            return
        }
        guard !answered, containsHeaderEnd() else { return }
        answered = true
        let channel = context.channel
        let listing = listing
        channel.eventLoop.makeFutureWithTask { await listing() }.whenSuccess { text in
            let body = Array(text.utf8)
            var response = channel.allocator.buffer(capacity: body.count + 128)
            response.writeString(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
                    + "Connection: close\r\n\r\n")
            response.writeBytes(body)
            channel.writeAndFlush(response).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    private func containsHeaderEnd() -> Bool {
        let end = Array("\r\n\r\n".utf8)
        return request.indices.dropLast(3).contains { Array(request[$0..<($0 + 4)]) == end }
    }
}
