import LaunchBench
import NIOCore
import NIOSSL

/// `com.apple.debugserver`: launches the emulated app over the GDB remote protocol and streams what
/// it prints. iOS 14–16 also offer `com.apple.debugserver.DVTSecureSocketProxy`, the same service behind
/// TLS on the service connection (libimobiledevice and pymobiledevice3 ask for it first); before iOS 14
/// it is refused with `InvalidService`; from iOS 17 on both are refused, as lockdown no longer offers
/// debugserver there.
///
/// debugserver is on the Developer Disk Image, so a phone without it mounted has no such service: lockdown
/// answers StartService with `Error` `InvalidService` (libimobiledevice 1.3.0 `lockdown.c`,
/// `lockdownd_start_service`, maps it to `LOCKDOWN_E_INVALID_SERVICE`; libimobiledevice issue 231 sees it for
/// `com.apple.debugserver`; pymobiledevice3's `start_lockdown_developer_service` answers a StartServiceError with
/// "Make sure DeveloperDiskImage.dmg has been mounted"). With Developer Mode off (iOS 16) the image cannot be
/// mounted, so the same.
package struct DebugServerService: EmulatedService {
    package static let plainName = "com.apple.debugserver"
    package static let secureName = "com.apple.debugserver.DVTSecureSocketProxy"

    package let serviceNames: Set<String> = [plainName, secureName]
    /// Seed of noise and faults for apps whose profile sets none and devices without their own seed.
    package let seed: UInt64

    package init(seed: UInt64 = 0) {
        self.seed = seed
    }

    package func availability(of name: String, on device: EmulatedDevice) -> ServiceAvailability {
        if let version = device.osVersion, !version.offersDebugserver { return .refused("InvalidService") }
        if !device.services.developerDiskImageMounted || InstrumentsService.developerModeOff(device) {
            return .refused("InvalidService")
        }
        if name == Self.secureName, !Self.offersSecureService(device) { return .refused("InvalidService") }
        return .available
    }

    package func usesTLS(_ name: String, on device: EmulatedDevice) -> Bool { name == Self.secureName }

    /// The TLS name arrived with iOS 14 (an unreadable version gets the plain one only).
    static func offersSecureService(_ device: EmulatedDevice) -> Bool {
        guard let version = device.osVersion else { return false }
        return version.major >= 14
    }

    package func accept(_ connection: ServiceConnection) throws {
        try connection.addHandlers(DebugServerHandler(device: connection.device, lab: connection.lab, labSeed: seed))
    }
}

/// Carries out a `DebugServerSession`'s actions on the channel and runs the emulated process on
/// event-loop timers (never blocking), scaled by the lab's time scale.
final class DebugServerHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let device: EmulatedDevice
    private let lab: EmulatedLab
    private let labSeed: UInt64
    private var session: DebugServerSession!
    private var launchedApp: InstalledApp?
    private var timers: [Scheduled<Void>] = []
    private var closeTimer: Scheduled<Void>?
    /// The running process's busy time, recorded when it exits, is killed or loses its connection.
    private var activity: ActivityTimer?
    /// The latest write: closing waits for it, so the exit packet is never dropped by the close.
    private var lastWrite: EventLoopFuture<Void>?

    /// How long (real seconds) to wait for the client's `+` after the exit packet before closing anyway.
    static let ackGraceSeconds: Int64 = 5

    init(device: EmulatedDevice, lab: EmulatedLab, labSeed: UInt64) {
        self.device = device
        self.lab = lab
        self.labSeed = labSeed
        self.session = DebugServerSession { [unowned self] request in self.check(request) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        if device.services.isDebugserverWedged { return }  // reads everything, answers nothing
        perform(session.receive(Array(buffer.readableBytesView)), context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        perform(session.connectionClosed(), context: context)
        endActivity()
        closeTimer?.cancel()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Decides at `A` whether the launch may go ahead; the text is what `qLaunchSuccess` answers after `E`.
    private func check(_ request: DebugServerSession.LaunchRequest) -> String? {
        let path = request.arguments.first ?? ""
        guard let app = device.services.app(executablePath: path) else {
            return "failed to launch '\(path)': no such file or directory"
        }
        if app.profile.codeSignatureValid == false || !device.services.trustsAppDevelopers {
            return Self.securityRefusal
        }
        if app.profile.developmentSigned == false {
            // What debugserver says when the app lacks get-task-allow (not signed for development).
            return "failed to get the task for process \(Int.random(in: 300...9000))"
        }
        if device.services.isLocked {
            return "Unable to launch \(app.bundleID) because the device was not, or could not be, unlocked."
        }
        launchedApp = app
        return nil
    }

    /// What `qLaunchSuccess` says after `E` when FrontBoard refuses the open for Security (an invalid signature,
    /// inadequate entitlements or an untrusted developer profile: one error for the three). debugserver
    /// (`MachProcess.mm`, `SetFBSError`) sends the NSError's `localizedDescription`, or when it has none the code's
    /// name (`FBSOpenApplicationErrorCodeToString`); a phone replied `ESecurity` to ionic-team/native-run
    /// (issue 68, Xcode 10.2), whose client also expects `EBusy` and `ENotFound`. Before LLVM PR 82593 (2024),
    /// the debugserver of iOS 16 and older, `qLaunchSuccess` sent `E` and the text as it is, not `E89;` and hex.
    static let securityRefusal = "Security"

    private func perform(_ actions: [DebugServerSession.Action], context: ChannelHandlerContext) {
        for action in actions {
            switch action {
            case .write(let bytes):
                var buffer = context.channel.allocator.buffer(capacity: bytes.count)
                buffer.writeBytes(bytes)
                lastWrite = context.writeAndFlush(wrapOutboundOut(buffer))
            case .start:
                startProcess(context: context)
            case .kill, .detach:
                stopTimers()
                endActivity()
            case .close:
                stopTimers()
                endActivity()
                // debugserver leaves by exiting: the socket just closes. On the TLS service that means no
                // close_notify, so close below the TLS handler (libimobiledevice 1.3.0 reads a close_notify
                // as endless empty reads, and idevicedebug then never exits).
                let below = (try? context.pipeline.syncOperations.context(handlerType: NIOSSLServerHandler.self))
                let closer = NIOLoopBound(below ?? context, eventLoop: context.eventLoop)
                if let lastWrite {
                    lastWrite.whenComplete { _ in closer.value.close(promise: nil) }
                } else {
                    closer.value.close(promise: nil)
                }
            }
        }
        // In ack mode the exit packet waits for its `+`; do not wait forever for a silent client.
        if session.isClosedPendingAck, closeTimer == nil {
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            closeTimer = context.eventLoop.scheduleTask(in: .seconds(Self.ackGraceSeconds)) {
                bound.value.close(promise: nil)
            }
        }
    }

    private func startProcess(context: ChannelHandlerContext) {
        guard let app = launchedApp, let version = device.osVersion else { return }
        let services = device.services
        let (number, kind, moment) = services.beginMomentLaunch(app.bundleID)
        activity = ActivityTimer(kind: .launch, name: kind.rawValue, bundleID: app.bundleID)
        services.recordLaunch(
            EmulatedLaunch(
                bundleID: app.bundleID, number: number, kind: kind, arguments: session.request.arguments,
                environment: session.request.environment.map { EnvironmentVariable(name: $0.name, value: $0.value) }))
        var environment: [String: String] = [:]
        for (name, value) in session.request.environment { environment[name] = value }
        var planner = LaunchPlanner(
            productType: device.spec.productType, osVersion: version, udid: device.udid,
            labSeed: services.seed ?? labSeed)
        planner.device = moment
        let plan = planner.plan(app: app, environment: environment, kind: kind, launchNumber: number)
        KdebugTaps.publishLaunch(
            plan: plan, device: device, lab: lab,
            buildsClosure: device.closures.build(app.bundleID, cold: kind == .cold, launchNumber: number),
            eventLoop: context.eventLoop)

        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        for output in plan.outputs {
            let delay = TimeAmount.nanoseconds(lab.realTime(ofEmulatedMs: output.atMs).nanoseconds)
            timers.append(
                context.eventLoop.scheduleTask(in: delay) {
                    let (handler, context) = bound.value
                    handler.perform(handler.session.processOutput(output.bytes), context: context)
                })
        }
        let end: DebugServerSession.ProcessEnd?
        switch plan.ending {
        case .exit(let status): end = .exited(status)
        case .signal(let signal): end = .signaled(signal)
        case .stop(let signal): end = .stopped(signal)
        case .running: end = nil
        }
        if let end {
            let delay = TimeAmount.nanoseconds(lab.realTime(ofEmulatedMs: plan.endsAtMs).nanoseconds)
            timers.append(
                context.eventLoop.scheduleTask(in: delay) {
                    let (handler, context) = bound.value
                    handler.endActivity()
                    handler.perform(handler.session.processEnded(end), context: context)
                })
        }
    }

    private func endActivity() {
        activity?.finish(in: device.services)
        activity = nil
    }

    private func stopTimers() {
        for timer in timers { timer.cancel() }
        timers.removeAll()
    }
}
