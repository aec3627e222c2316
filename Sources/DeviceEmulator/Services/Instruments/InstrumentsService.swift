import LaunchBench
import NIOCore

/// The instruments server (DVT): the DTX protocol with the deviceinfo, coreprofilesessiontap and
/// processcontrol channels. iOS 14–16 offer it on lockdown as
/// `com.apple.instruments.remoteserver.DVTSecureSocketProxy` behind service TLS, and iOS 17+ inside the
/// tunnel as RSD's `com.apple.instruments.dtservicehub` (plain DTX). Both need the Developer Disk Image
/// (a real phone without it: `InvalidService`, unverified). The pre-14 name
/// `com.apple.instruments.remoteserver` (TLS handshake, then plain bytes) is not emulated.
package struct InstrumentsService: EmulatedService {
    package static let secureName = "com.apple.instruments.remoteserver.DVTSecureSocketProxy"
    package static let remoteName = "com.apple.instruments.dtservicehub"

    package let serviceNames: Set<String> = [secureName]
    /// Seed of noise and faults for apps whose profile sets none (as `DebugServerService`'s).
    package let seed: UInt64

    package init(seed: UInt64 = 0) {
        self.seed = seed
    }

    package func availability(of name: String, on device: EmulatedDevice) -> ServiceAvailability {
        guard let version = device.osVersion, version.major >= 14, version.major < 17,
            device.services.developerDiskImageMounted, !Self.developerModeOff(device)
        else { return .refused("InvalidService") }
        return .available
    }

    /// Developer Mode off (lockdown's `DeveloperModeStatus`, iOS 16+): no developer service is offered, as the
    /// Developer Disk Image they come from cannot be mounted then (pymobiledevice3's `mobile_image_mounter.py`,
    /// `raise_if_cannot_mount`, refuses it with DeveloperModeIsNotEnabledError).
    static func developerModeOff(_ device: EmulatedDevice) -> Bool {
        device.lockdownValue(domain: "com.apple.security.mac.amfi", key: "DeveloperModeStatus") as? Bool == false
    }

    package func usesTLS(_ name: String, on device: EmulatedDevice) -> Bool { true }

    package func accept(_ connection: ServiceConnection) throws {
        try Self.serve(connection.channel, device: connection.device, lab: connection.lab, seed: seed)
    }

    /// Adds the DTX handlers to a connection (from lockdown, or inside the tunnel).
    static func serve(_ channel: any Channel, device: EmulatedDevice, lab: EmulatedLab, seed: UInt64) throws {
        let handler = DTXConnectionHandler { identifier, eventLoop, clientCapabilities in
            switch identifier {
            case DeviceInfoChannel.identifier: DeviceInfoChannel(lab: lab)
            case CoreProfileSessionTapChannel.identifier:
                CoreProfileSessionTapChannel(device: device, eventLoop: eventLoop)
            case ProcessControlChannel.identifier:
                ProcessControlChannel(
                    device: device, lab: lab, labSeed: seed, eventLoop: eventLoop,
                    reportsTermination: clientCapabilities.contains(ProcessControlMessages.terminationCapability))
            default: nil
            }
        }
        try channel.pipeline.syncOperations.addHandlers(ByteToMessageHandler(DTXMessageDecoder()), handler)
    }
}
