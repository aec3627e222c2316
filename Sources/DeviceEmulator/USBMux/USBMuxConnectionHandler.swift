import Foundation
import NIOCore
import NIOSSL

/// One client connection to the emulated usbmuxd. It starts as a control connection (requests and
/// replies), may become a `Listen` connection (hot-plug events), or — after a successful `Connect` — a
/// raw pipe whose bytes go to the device service's handlers added after this one.
final class USBMuxConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum Mode {
        case control
        case listening
        case piped
    }

    private let lab: EmulatedLab
    private var mode = Mode.control
    private var pending: ByteBuffer?

    init(lab: EmulatedLab) {
        self.lab = lab
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        if mode == .piped {
            context.fireChannelRead(data)
            return
        }
        if pending == nil { pending = incoming } else { pending!.writeBuffer(&incoming) }
        while mode != .piped, var buffer = pending {
            pending = nil
            guard let frame = nextFrame(&buffer, context: context) else {
                if buffer.readableBytes > 0 { pending = buffer }
                return
            }
            if buffer.readableBytes > 0 { pending = buffer }
            handle(frame, context: context)
        }
        // Bytes that arrived right behind the Connect request belong to the service.
        if mode == .piped, let rest = pending, rest.readableBytes > 0 {
            pending = nil
            context.fireChannelRead(wrapInboundOut(rest))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if mode == .listening { lab.removeListener(context.channel) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if mode == .piped {
            context.fireErrorCaught(error)
        } else {
            context.close(promise: nil)
        }
    }

    // MARK: - Framing

    private struct Request {
        var tag: UInt32
        var plist: [String: Any]?
        var isPlistMessage: Bool
    }

    private func nextFrame(_ buffer: inout ByteBuffer, context: ChannelHandlerContext) -> Request? {
        guard buffer.readableBytes >= USBMuxFrame.headerLength,
            let length = buffer.getInteger(at: buffer.readerIndex, endianness: .little, as: UInt32.self)
        else { return nil }
        guard length >= USBMuxFrame.headerLength, length <= USBMuxFrame.maximumLength else {
            // Not a usbmuxd client (or a corrupt stream): nothing sensible to answer.
            buffer.clear()
            context.close(promise: nil)
            return nil
        }
        guard buffer.readableBytes >= Int(length) else { return nil }
        _ = buffer.readInteger(endianness: .little, as: UInt32.self)
        let version = buffer.readInteger(endianness: .little, as: UInt32.self)!
        let message = buffer.readInteger(endianness: .little, as: UInt32.self)!
        let tag = buffer.readInteger(endianness: .little, as: UInt32.self)!
        let body = buffer.readSlice(length: Int(length) - USBMuxFrame.headerLength)!
        let isPlist = version == USBMuxFrame.plistVersion && message == USBMuxFrame.plistMessage
        return Request(tag: tag, plist: isPlist ? body.plistDictionary : nil, isPlistMessage: isPlist)
    }

    private func send(_ buffer: ByteBuffer, context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
    }

    // MARK: - Requests

    private func handle(_ request: Request, context: ChannelHandlerContext) {
        guard mode == .control, let plist = request.plist, let type = plist["MessageType"] as? String else {
            send(USBMuxFrame.result(.badCommand, tag: request.tag), context: context)
            return
        }
        let tag = request.tag
        switch type {
        case "ListDevices":
            let entries = lab.attachedDevices.map(USBMuxFrame.deviceEntry)
            send(USBMuxFrame.encode(["DeviceList": entries], tag: tag), context: context)
        case "Listen":
            mode = .listening
            let present = lab.addListener(context.channel)
            send(USBMuxFrame.result(.ok, tag: tag), context: context)
            for device in present {
                send(USBMuxFrame.encode(USBMuxFrame.deviceEntry(device), tag: 0), context: context)
            }
        case "Connect":
            connect(plist, tag: tag, context: context)
        case "ReadPairRecord":
            let udid = plist["PairRecordID"] as? String ?? ""
            if let reply = lab.pairRecordReply(forUDID: udid) {
                send(USBMuxFrame.frame(reply, tag: tag), context: context)
            } else {
                send(USBMuxFrame.result(.badDevice, tag: tag), context: context)  // 2 = ENOENT for pair records
            }
        case "ReadBUID":
            send(USBMuxFrame.encode(["BUID": lab.systemBUID], tag: tag), context: context)
        case "SavePairRecord", "DeletePairRecord":
            send(USBMuxFrame.result(.ok, tag: tag), context: context)
        default:
            send(USBMuxFrame.result(.badCommand, tag: tag), context: context)
        }
    }

    private func connect(_ plist: [String: Any], tag: UInt32, context: ChannelHandlerContext) {
        guard let deviceID = PropertyList.integer(plist["DeviceID"]),
            let wirePort = PropertyList.integer(plist["PortNumber"]),
            let device = lab.attachedDevice(id: deviceID)
        else {
            send(USBMuxFrame.result(.badDevice, tag: tag), context: context)
            return
        }
        let port = USBMuxFrame.port(fromWire: wirePort)
        let target: Target
        if port == EmulatedDevice.lockdownPort {
            guard !device.isStartingUp else {
                send(USBMuxFrame.result(.connectionRefused, tag: tag), context: context)
                return
            }
            target = .lockdown
        } else if let pending = device.takeService(onPort: port) {
            target = .service(pending)
        } else {
            send(USBMuxFrame.result(.connectionRefused, tag: tag), context: context)
            return
        }
        // Registering fails when the device was detached in the meantime: then it is "not there".
        guard device.track(context.channel) else {
            send(USBMuxFrame.result(.badDevice, tag: tag), context: context)
            return
        }
        send(USBMuxFrame.result(.ok, tag: tag), context: context)
        mode = .piped
        do {
            switch target {
            case .lockdown:
                try context.pipeline.syncOperations.addHandlers(
                    ByteToMessageHandler(PlistFrameDecoder()), LockdownHandler(device: device, lab: lab))
            case .service(let pending):
                if pending.tls {
                    // The device is the TLS server on the service connection (PROTOCOLS.md §4.2).
                    try context.pipeline.syncOperations.addHandler(
                        NIOSSLServerHandler(context: try EmulatorCertificates.serverContext()))
                }
                let connection = ServiceConnection(
                    serviceName: pending.name, device: device, lab: lab, channel: context.channel)
                try pending.service.accept(connection)
            }
        } catch {
            context.close(promise: nil)
        }
    }

    private enum Target {
        case lockdown
        case service(EmulatedDevice.PendingService)
    }
}
