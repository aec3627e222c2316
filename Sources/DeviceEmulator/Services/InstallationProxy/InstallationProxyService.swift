import NIOCore

/// `com.apple.mobile.installation_proxy`: Install/Upgrade/Uninstall/Lookup/Browse over lockdown-style
/// plist frames, with the status sequences of a real device, paced by the lab's time scale.
package struct InstallationProxyService: EmulatedService {
    package let serviceNames: Set<String> = ["com.apple.mobile.installation_proxy"]

    package init() {}

    package func accept(_ connection: ServiceConnection) throws {
        var engine = InstallationProxyEngine(state: connection.device.services)
        let (device, lab) = (connection.device, connection.lab)
        engine.installed = { app, number in
            device.prelaunches.installed(app, number: number, device: device, lab: lab, seed: 0)
        }
        try connection.addHandlers(
            ByteToMessageHandler(PlistFrameDecoder()), InstallationProxyHandler(engine: engine, lab: connection.lab))
    }
}

/// Runs one command at a time: its replies go out one by one after their emulated delays; a command
/// that arrives meanwhile waits its turn (a real client sends none while one runs).
final class InstallationProxyHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let engine: InstallationProxyEngine
    private let lab: EmulatedLab
    private var pending: [[String: Any]] = []
    private var busy = false
    private var timer: Scheduled<Void>?
    private var activity: ActivityTimer?

    init(engine: InstallationProxyEngine, lab: EmulatedLab) {
        self.engine = engine
        self.lab = lab
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let request = plistRequest(in: data, context: context) else { return }
        pending.append(request)
        runNext(context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        finishActivity()
        pending.removeAll()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func runNext(context: ChannelHandlerContext) {
        guard !busy, !pending.isEmpty else { return }
        busy = true
        let request = pending.removeFirst()
        activity = ActivityTimer(
            kind: .installer, name: request["Command"] as? String ?? "?", bundleID: Self.bundleID(of: request))
        send(engine.handle(request)[...], context: context)
    }

    private func send(_ steps: ArraySlice<InstallationProxyEngine.Step>, context: ChannelHandlerContext) {
        guard let step = steps.first else {
            busy = false
            runNext(context: context)
            return
        }
        let delay = TimeAmount.nanoseconds(lab.realTime(ofEmulatedMs: step.delayMs).nanoseconds)
        let rest = steps.dropFirst()
        let loopBound = NIOLoopBound((self, context, step, rest), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: delay) {
            let (handler, context, step, rest) = loopBound.value
            guard context.channel.isActive else { return }
            step.effect?()
            // Recorded before the last reply goes out: a client that reads the history once it sees the
            // reply finds the command there.
            if rest.isEmpty { handler.finishActivity(bundleID: step.bundleID) }
            context.writeAndFlush(handler.wrapOutboundOut(.plistFrame(step.message)), promise: nil)
            handler.send(rest, context: context)
        }
    }

    private func finishActivity(bundleID: String? = nil) {
        if let bundleID { activity?.bundleID = bundleID }
        activity?.finish(in: engine.state)
        activity = nil
    }

    /// The app a request is about, for the activity history.
    private static func bundleID(of request: [String: Any]) -> String? {
        let options = request["ClientOptions"] as? [String: Any]
        return request["ApplicationIdentifier"] as? String ?? options?["CFBundleIdentifier"] as? String
            ?? (options?["BundleIDs"] as? [String])?.first
    }
}
