import NIOCore

/// `com.apple.mobile.diagnostics_relay` (and its old name): Restart/Shutdown/Sleep/Goodbye. A restart
/// detaches the device (Detached on every Listen socket, its connections closed), makes every app's
/// next launch cold, and re-attaches it after the device's `bootSeconds` (emulated, scaled).
package struct DiagnosticsRelayService: EmulatedService {
    package let serviceNames: Set<String> = ["com.apple.mobile.diagnostics_relay", "com.apple.iosdiagnostics.relay"]

    package init() {}

    package func accept(_ connection: ServiceConnection) throws {
        try connection.addHandlers(
            ByteToMessageHandler(PlistFrameDecoder()),
            DiagnosticsRelayHandler(device: connection.device, lab: connection.lab))
    }
}

final class DiagnosticsRelayHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let device: EmulatedDevice
    private let lab: EmulatedLab
    private var onDisconnect: DiagnosticsRelayEngine.Effect = .none

    init(device: EmulatedDevice, lab: EmulatedLab) {
        self.device = device
        self.lab = lab
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let request = plistRequest(in: data, context: context) else { return }
        let conditions = device.services.conditions
        let (reply, effect) = DiagnosticsRelayEngine(powerSource: { conditions.powerSourceEntry }).handle(request)
        let flushed = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.plistFrame(reply)), promise: flushed)
        switch effect {
        case .restart(afterDisconnect: true), .shutdown(afterDisconnect: true):
            onDisconnect = effect
        case .restart(afterDisconnect: false), .shutdown(afterDisconnect: false):
            let device = self.device
            let lab = self.lab
            let loop = context.eventLoop
            flushed.futureResult.whenComplete { _ in Self.perform(effect, device: device, lab: lab, on: loop) }
        case .none, .goodbye:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        let effect = onDisconnect
        onDisconnect = .none
        Self.perform(effect, device: device, lab: lab, on: context.eventLoop)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Detaches right away (no task hop: a busy cooperative pool must not delay it) and re-attaches
    /// after the boot delay on an event-loop timer.
    static func perform(
        _ effect: DiagnosticsRelayEngine.Effect, device: EmulatedDevice, lab: EmulatedLab, on loop: any EventLoop
    ) {
        let udid = device.udid
        switch effect {
        case .restart:
            device.services.didRestart()
            guard (try? lab.detach(udid: udid)) != nil else { return }
            let boot = lab.realDuration(ofEmulatedSeconds: device.services.bootSeconds)
            let (seconds, attoseconds) = boot.components
            let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
            loop.scheduleTask(in: .nanoseconds(nanoseconds)) {
                // Gone for good if the lab stopped or the device was removed meanwhile.
                guard lab.device(udid: udid) != nil else { return }
                try? lab.attach(udid: udid)
            }
        case .shutdown:
            device.services.didRestart()
            try? lab.detach(udid: udid)
        case .none, .goodbye:
            break
        }
    }
}
