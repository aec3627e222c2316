import Foundation
import NIOCore

/// lockdownd on device port 62078: one plist request, one plist reply, always echoing `Request`.
/// Sessions never enable TLS (`EnableSessionSSL: false`), which libimobiledevice accepts.
final class LockdownHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let device: EmulatedDevice
    private let lab: EmulatedLab
    private var sessionID: String?

    init(device: EmulatedDevice, lab: EmulatedLab) {
        self.device = device
        self.lab = lab
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let request = plistRequest(in: data, context: context) else { return }
        let reply = self.reply(to: request)
        context.writeAndFlush(wrapOutboundOut(.plistFrame(reply)), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }

    func reply(to request: [String: Any]) -> [String: Any] {
        let name = request["Request"] as? String ?? ""
        var reply: [String: Any] = ["Request": name]
        let domain = request["Domain"] as? String
        let key = request["Key"] as? String
        switch name {
        case "QueryType":
            reply["Type"] = "com.apple.mobile.lockdown"
        case "GetValue":
            if let domain { reply["Domain"] = domain }
            if let key { reply["Key"] = key }
            if let value = device.lockdownValue(domain: domain, key: key) {
                reply["Value"] = value
            } else {
                reply["Error"] = "MissingValue"
            }
        case "SetValue":
            if let domain { reply["Domain"] = domain }
            if let key { reply["Key"] = key }
            if sessionID == nil {
                reply["Error"] = "SessionInactive"
            } else if let key, let value = request["Value"] {
                device.setLockdownValue(value, domain: domain, key: key)
            } else {
                reply["Error"] = key == nil ? "MissingKey" : "MissingValue"
            }
        case "RemoveValue":
            if let domain { reply["Domain"] = domain }
            if let key { reply["Key"] = key }
            if sessionID == nil {
                reply["Error"] = "SessionInactive"
            } else if let key {
                device.removeLockdownValue(domain: domain, key: key)
            } else {
                reply["Error"] = "MissingKey"
            }
        case "StartSession":
            startSession(request, reply: &reply)
        case "StopSession":
            let asked = request["SessionID"] as? String
            if asked == nil {
                reply["Error"] = "MissingSessionID"
            } else if asked != sessionID {
                reply["Error"] = "InvalidSessionID"
            } else {
                sessionID = nil
            }
        case "StartService":
            startService(request, reply: &reply)
        case "Goodbye":
            reply["Result"] = "Success"
        case "ValidatePair":
            reply["Result"] = "Success"
        default:
            reply["Error"] = "InvalidRequest"
        }
        return reply
    }

    private func startSession(_ request: [String: Any], reply: inout [String: Any]) {
        guard let hostID = request["HostID"] as? String else {
            reply["Error"] = "MissingHostID"
            return
        }
        // A phone that forgot the pairing knows no host ID (libimobiledevice's lockdown.c maps the error to
        // LOCKDOWN_E_INVALID_HOST_ID).
        guard hostID == lab.hostID, !lab.forgetsPairing(udid: device.udid) else {
            reply["Error"] = "InvalidHostID"
            return
        }
        let id = UUID().uuidString
        sessionID = id
        reply["SessionID"] = id
        reply["EnableSessionSSL"] = false
    }

    private func startService(_ request: [String: Any], reply: inout [String: Any]) {
        guard let name = request["Service"] as? String else {
            reply["Error"] = "MissingService"
            return
        }
        reply["Service"] = name
        guard sessionID != nil else {
            reply["Error"] = "SessionInactive"
            return
        }
        guard let service = lab.service(named: name) else {
            reply["Error"] = "InvalidService"
            return
        }
        if case .refused(let error) = service.availability(of: name, on: device) {
            reply["Error"] = error
            return
        }
        let tls = service.usesTLS(name, on: device)
        reply["Port"] = device.allocatePort(for: name, service: service, tls: tls)
        if tls { reply["EnableServiceSSL"] = true }
    }
}
