import Foundation
import NIOCore

/// `com.apple.mobile.mobile_image_mounter`, for what `launchbench devices` and `doctor` ask: `LookupImage` of an
/// `ImageType` (`Developer` up to iOS 16, `Personalized` from 17) answers `ImageSignature`, an array with one
/// signature per mounted image, empty when none is (libimobiledevice's tools/ideviceimagemounter.c reads it so,
/// with `ImagePresent` for phones before iOS 7). The device's `developerDiskImageMounted` says which. Mounting
/// is not served: every other command gets `UnknownCommand` (what a phone answers there is unverified).
package struct ImageMounterService: EmulatedService {
    package let serviceNames: Set<String> = ["com.apple.mobile.mobile_image_mounter"]

    package init() {}

    package func accept(_ connection: ServiceConnection) throws {
        try connection.addHandlers(
            ByteToMessageHandler(PlistFrameDecoder()), ImageMounterHandler(device: connection.device))
    }
}

final class ImageMounterHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let device: EmulatedDevice

    init(device: EmulatedDevice) {
        self.device = device
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let request = plistRequest(in: data, context: context) else { return }
        let reply = Self.reply(to: request, mounted: device.services.developerDiskImageMounted)
        context.writeAndFlush(wrapOutboundOut(.plistFrame(reply)), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// The answer to one request.
    static func reply(to request: [String: Any], mounted: Bool) -> [String: Any] {
        switch request["Command"] as? String {
        case "LookupImage":
            // The signature's bytes are the image's own; any non-empty data stands for one here.
            return ["ImageSignature": mounted ? [Data(repeating: 0xA5, count: 32)] : [Data](), "Status": "Complete"]
        case "Hangup":
            return ["Status": "Complete"]
        default:
            return ["Error": "UnknownCommand"]
        }
    }
}
