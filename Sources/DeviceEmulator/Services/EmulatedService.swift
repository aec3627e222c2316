import NIOCore

/// A device-side service that lockdown starts with `StartService` (installation_proxy, AFC,
/// debugserver, diagnostics_relay…): the extension point of the emulated iPhone.
///
/// How a client reaches a service, and what the lab does at each step:
/// 1. `StartService{Service: name}` on lockdown: the lab finds the registered service answering `name`
///    (none → `Error: InvalidService`), asks ``availability(of:on:)`` (a refusal's string becomes the
///    lockdown `Error`), then hands out a port (49152+) and replies `{Service, Port}` — plus
///    `EnableServiceSSL: true` when ``usesTLS(_:on:)`` says so.
/// 2. usbmuxd `Connect` to that port (one-shot: a second Connect to it gets `Result 3`): after the
///    `Result 0` reply the socket is a raw byte pipe and ``accept(_:)`` is called on the channel's event
///    loop. Add your handlers there; every byte the client sends after that reaches them as `ByteBuffer`s.
/// 3. Detaching the device (unplug, reboot, removal, lab stop) closes the channel.
///
/// Rules from PROTOCOLS.md that apply to every service: write each framed unit (plist length + body,
/// AFC header + data, GDB packet) with ONE `writeAndFlush`; services framed like lockdown can use
/// `PlistFrameDecoder` and `ByteBuffer.plistFrame(_:)` from this module.
///
/// Example — a service that answers every plist request with `{Status: Success}`:
/// ```swift
/// struct EchoStatusService: EmulatedService {
///     let serviceNames: Set<String> = ["com.example.echo"]
///     func accept(_ connection: ServiceConnection) throws {
///         try connection.addHandlers(ByteToMessageHandler(PlistFrameDecoder()), EchoStatusHandler())
///     }
/// }
/// final class EchoStatusHandler: ChannelInboundHandler {
///     typealias InboundIn = ByteBuffer          // one plist body per read
///     typealias OutboundOut = ByteBuffer
///     func channelRead(context: ChannelHandlerContext, data: NIOAny) {
///         let reply = ByteBuffer.plistFrame(["Status": "Success"])
///         context.writeAndFlush(wrapOutboundOut(reply), promise: nil)
///     }
/// }
/// // lab.register(EchoStatusService())   — or add it to `BuiltInServices.all`.
/// ```
package protocol EmulatedService: Sendable {
    /// The lockdown service names this service answers (e.g. `["com.apple.afc"]`).
    var serviceNames: Set<String> { get }

    /// Whether `device` offers the service named `name` right now. Called for every `StartService`.
    /// The default allows it; refuse e.g. debugserver on iOS 17+ with `.refused("InvalidService")`.
    func availability(of name: String, on device: EmulatedDevice) -> ServiceAvailability

    /// Whether the connection to `name` starts with TLS (`EnableServiceSSL: true`), as a real device does
    /// for e.g. `com.apple.debugserver.DVTSecureSocketProxy`; the lab then puts a TLS server (the device
    /// certificate of the pair record) in front of the handlers `accept` adds. Default: no.
    func usesTLS(_ name: String, on device: EmulatedDevice) -> Bool

    /// Takes over a freshly connected channel. Called on the channel's event loop, after the usbmuxd
    /// `Result 0` was written. Throwing closes the connection.
    func accept(_ connection: ServiceConnection) throws
}

extension EmulatedService {
    package func availability(of name: String, on device: EmulatedDevice) -> ServiceAvailability { .available }

    package func usesTLS(_ name: String, on device: EmulatedDevice) -> Bool { false }
}

/// A service's answer to `StartService`.
package enum ServiceAvailability: Sendable, Hashable {
    case available
    /// Refused with this lockdown `Error` string (`InvalidService`, `ServiceProhibited`, `ServiceLimit`…).
    case refused(String)
}

/// One client connection to a started service, as handed to ``EmulatedService/accept(_:)``.
///
/// Use it only inside `accept` (on the event loop); capture `device`/`lab` in your handlers if needed.
package struct ServiceConnection {
    /// The service name the client asked lockdown for (one of the service's `serviceNames`).
    package let serviceName: String
    /// The device the client connected to.
    package let device: EmulatedDevice
    /// The lab: time scale, detach/attach/reboot, other devices.
    package let lab: EmulatedLab
    /// The connection. Closing it is the service "closing the TCP connection".
    package let channel: any Channel

    /// Appends handlers to the channel's pipeline; inbound bytes reach them from now on.
    package func addHandlers(_ handlers: any ChannelHandler...) throws {
        try channel.pipeline.syncOperations.addHandlers(handlers)
    }
}
