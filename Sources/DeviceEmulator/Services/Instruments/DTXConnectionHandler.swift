import Foundation
import LaunchBench
import NIOCore

/// What a channel of the instruments service (deviceinfo, coreprofilesessiontap, processcontrol) is
/// asked: a selector with its arguments, answered through ``InstrumentsReplies``.
protocol InstrumentsChannel: AnyObject {
    /// Handles one DISPATCH message. Unknown selectors should answer ``InstrumentsReplies/error(_:)`` when
    /// a reply is expected.
    func receive(selector: String, arguments: [DTXArgument], replies: InstrumentsReplies)
    /// The channel was cancelled or the connection closed.
    func close()
}

extension InstrumentsChannel {
    func close() {}
}

/// How a channel answers a request and sends its own messages. Replies go out only when the request asked
/// for one; the channel's own messages carry the negated channel code (DVT-KDEBUG.md §1).
struct InstrumentsReplies {
    fileprivate let request: DTXMessage
    fileprivate let send: @Sendable (DTXMessage) -> Void
    fileprivate let nextIdentifier: @Sendable () -> UInt32

    var expectsReply: Bool { request.expectsReply }

    func ok() { reply(.ok, payload: []) }

    func object(_ value: Any) { reply(.object, payload: KeyedArchive.encode(value)) }

    /// An ERROR reply carrying an NSError with `text` as its description.
    func error(_ text: String) {
        error(ArchivedError(domain: "DTXMessage", code: 1, userInfo: [NSLocalizedDescriptionKey: text]))
    }

    /// An ERROR reply carrying `error`.
    func error(_ error: ArchivedError) {
        reply(.error, payload: error.archived())
    }

    /// A message the device sends on its own on the request's channel (kdebug data, notices).
    func unsolicited(_ kind: DTXMessage.Kind, payload: [UInt8]) {
        send(DTXMessage(kind: kind, identifier: nextIdentifier(), channel: -request.channel, payload: payload))
    }

    /// A sender for later DISPATCHes on this channel (a selector and its auxiliary bytes, no reply asked),
    /// usable from any thread.
    var dispatchSender: @Sendable (_ selector: String, _ auxiliary: [UInt8]) -> Void {
        let send = self.send
        let next = self.nextIdentifier
        let channel = -request.channel
        return { selector, auxiliary in
            send(
                DTXMessage(
                    kind: .dispatch, identifier: next(), channel: channel, auxiliary: auxiliary,
                    payload: KeyedArchive.encode(selector as NSString)))
        }
    }

    /// Cancels this channel from the device's side, usable from any thread: `_channelCanceled:` on the control
    /// channel with the code as the device names it (negated; pymobiledevice3's `dtx/connection.py`,
    /// `_on_channel_cancelled`, negates it back).
    var channelCanceller: @Sendable () -> Void {
        let send = self.send
        let next = self.nextIdentifier
        let code = -request.channel
        return {
            send(
                DTXMessage(
                    kind: .dispatch, identifier: next(), channel: 0,
                    auxiliary: DTXArguments.encode([.object(NSNumber(value: code))]),
                    payload: KeyedArchive.encode("_channelCanceled:" as NSString)))
        }
    }

    /// A sender for later messages on this channel, usable from any thread.
    var channelSender: @Sendable (DTXMessage.Kind, [UInt8]) -> Void {
        let send = self.send
        let next = self.nextIdentifier
        let channel = -request.channel
        return { kind, payload in send(DTXMessage(kind: kind, identifier: next(), channel: channel, payload: payload)) }
    }

    private func reply(_ kind: DTXMessage.Kind, payload: [UInt8]) {
        guard request.expectsReply else { return }
        send(
            DTXMessage(
                kind: kind, identifier: request.identifier, conversationIndex: request.conversationIndex + 1,
                channel: request.channel, payload: payload))
    }
}

/// Serves one DTX connection to the instruments service: the capabilities exchange, the channel table
/// and routing of each DISPATCH to its channel. Runs on the connection's event loop.
final class DTXConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = DTXMessage
    typealias OutboundOut = ByteBuffer

    /// The capabilities the device announces (their values are stored by pymobiledevice3, not checked).
    static let capabilities: [String: Int] = [
        "com.apple.private.DTXBlockCompression": 0,
        "com.apple.private.DTXConnection": 1,
        "com.apple.instruments.server.services.coreprofilesessiontap": 2,
        "com.apple.instruments.server.services.deviceinfo": 113,
        "com.apple.instruments.server.services.processcontrol": 107,
    ]

    /// Makes the channel for a service identifier; `nil` for one the device does not offer. It is told the
    /// capabilities the client published with a non-zero value (processcontrol's termination notices wait
    /// for one).
    typealias ChannelFactory = (_ identifier: String, _ eventLoop: any EventLoop, _ clientCapabilities: Set<String>) ->
        (any InstrumentsChannel)?

    private let makeChannel: ChannelFactory
    private var channels: [Int32: any InstrumentsChannel] = [:]
    private let identifiers = MessageIdentifiers()
    private var announced = false
    private var clientCapabilities: Set<String> = []

    init(makeChannel: @escaping ChannelFactory) {
        self.makeChannel = makeChannel
    }

    func channelActive(context: ChannelHandlerContext) {
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let message = unwrapInboundIn(data)
        guard message.kind == .dispatch else { return }  // replies to our own messages: nothing to do
        let selector: String
        let arguments: [DTXArgument]
        do {
            guard let decoded = try KeyedArchive.decode(message.payload) as? String else {
                throw DTXArgumentError.unreadableArchive
            }
            selector = decoded
            arguments = try DTXArguments.decode(message.auxiliary)
        } catch {
            context.close(promise: nil)  // not DTX as instruments speaks it
            return
        }
        let replies = InstrumentsReplies(
            request: message, send: sender(context), nextIdentifier: { [identifiers] in identifiers.next() })
        if message.channel == 0 {
            control(selector, arguments, replies: replies, context: context)
        } else if let channel = channels[abs(message.channel)] {
            channel.receive(selector: selector, arguments: arguments, replies: replies)
        } else if replies.expectsReply {
            replies.error("no channel \(message.channel)")
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        for channel in channels.values { channel.close() }
        channels.removeAll()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func control(
        _ selector: String, _ arguments: [DTXArgument], replies: InstrumentsReplies, context: ChannelHandlerContext
    ) {
        switch selector {
        case "_notifyOfPublishedCapabilities:":
            guard !announced else { return }
            announced = true
            if let published = arguments.first?.value as? NSDictionary {
                for case (let name as String, let value as NSNumber) in published where value.intValue != 0 {
                    clientCapabilities.insert(name)
                }
            }
            let message = DTXMessage(
                kind: .dispatch, identifier: identifiers.next(), channel: 0,
                auxiliary: DTXArguments.encode([.object(Self.capabilities as NSDictionary)]),
                payload: KeyedArchive.encode("_notifyOfPublishedCapabilities:" as NSString))
            sender(context)(message)
        case "_requestChannelWithCode:identifier:":
            guard arguments.count == 2, let code = arguments[0].value as? Int, let name = arguments[1].value as? String,
                let channel = makeChannel(name, context.eventLoop, clientCapabilities)
            else {
                replies.error("unknown service \(arguments.last?.value ?? "")")
                return
            }
            channels[Int32(truncatingIfNeeded: code)]?.close()
            channels[Int32(truncatingIfNeeded: code)] = channel
            replies.ok()
        case "_channelCanceled:":
            if let code = arguments.first?.value as? Int {
                channels.removeValue(forKey: Int32(truncatingIfNeeded: code))?.close()
            }
            replies.ok()
        default:
            if replies.expectsReply { replies.error("unknown control selector \(selector)") }
        }
    }

    /// Writes a message from any thread, on the connection's event loop, one write per message.
    private func sender(_ context: ChannelHandlerContext) -> @Sendable (DTXMessage) -> Void {
        let channel = context.channel
        return { message in
            let buffer = message.encoded(allocator: channel.allocator)
            channel.writeAndFlush(buffer, promise: nil)
        }
    }
}

/// The device's message numbers on one connection, from 1 (taken from any thread: taps send from timers).
final class MessageIdentifiers: Sendable {
    private let last = Locked<UInt32>(0)

    func next() -> UInt32 {
        last.withLock { value in
            value &+= 1
            return value
        }
    }
}
