import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import NIOCore
import TestSupport
import Testing

/// lockdownd on port 62078 and the service extension point, with a raw socket client.
@Suite(.tags(.emulator), .timeLimit(.minutes(5)))
struct LockdownProtocolTests {
    static let specs = [
        EmulatedDeviceSpec(
            udid: "00008030-0000000000000A14", name: "Fourteen", productType: "iPhone12,1", osVersion: "14.8"),
        EmulatedDeviceSpec(
            udid: "00008030-0000000000000A17", name: "Seventeen", productType: "iPhone15,4", osVersion: "17.5"),
    ]

    /// A lockdown connection to `udid` with a started session.
    static func session(_ lab: EmulatedLab, udid: String) throws -> RawUSBMuxClient {
        let device = try #require(lab.device(udid: udid))
        let client = try RawUSBMuxClient(socketPath: lab.socketPath!)
        #expect(try client.connect(deviceID: device.deviceID, port: 62078) == 0)
        let started = try client.lockdown("StartSession", ["HostID": lab.hostID, "SystemBUID": lab.systemBUID])
        #expect(started["Request"] as? String == "StartSession")
        #expect(started["SessionID"] is String)
        return client
    }

    @Test func getValueByKeyByDomainAndAll() async throws {
        try await PrivateLab.with(devices: Self.specs) { lab in
            let client = try RawUSBMuxClient(socketPath: lab.socketPath!)
            #expect(try client.connect(deviceID: 1, port: 62078) == 0)

            let version = try client.lockdown("GetValue", ["Key": "ProductVersion"])
            #expect(version["Request"] as? String == "GetValue")
            #expect(version["Key"] as? String == "ProductVersion")
            #expect(version["Value"] as? String == "14.8")

            let all = try #require(try client.lockdown("GetValue")["Value"] as? [String: Any])
            #expect(all["UniqueDeviceID"] as? String == Self.specs[0].udid)
            #expect(all["DeviceClass"] as? String == "iPhone")
            #expect(all["CPUArchitecture"] as? String == "arm64e")
            #expect(all["HardwareModel"] as? String == "N104AP")
            #expect(all["ActivationState"] as? String == "Activated")

            let battery = try client.lockdown("GetValue", ["Domain": "com.apple.mobile.battery"])
            #expect(battery["Domain"] as? String == "com.apple.mobile.battery")
            #expect((battery["Value"] as? [String: Any])?["BatteryCurrentCapacity"] != nil)

            let missing = try client.lockdown("GetValue", ["Key": "NoSuchKey"])
            #expect(missing["Error"] as? String == "MissingValue")
            #expect(missing["Value"] == nil)

            let unknown = try client.lockdown("Frobnicate")
            #expect(unknown["Request"] as? String == "Frobnicate")
            #expect(unknown["Error"] as? String == "InvalidRequest")
        }
    }

    @Test func repliesUseRealPlistTypes() async throws {
        try await PrivateLab.with(devices: Self.specs) { lab in
            let client = try RawUSBMuxClient(socketPath: lab.socketPath!)
            #expect(try client.connect(deviceID: 1, port: 62078) == 0)
            try client.sendPlistFrame(["Request": "StartSession", "HostID": lab.hostID])
            let session = String(decoding: try client.receivePlistFrame().raw, as: UTF8.self)
            #expect(session.hasPrefix("<?xml"))
            #expect(session.range(of: #"<key>EnableSessionSSL</key>\s*<false/>"#, options: .regularExpression) != nil)

            try client.sendPlistFrame(["Request": "GetValue", "Key": "PasswordProtected"])
            let bool = String(decoding: try client.receivePlistFrame().raw, as: UTF8.self)
            #expect(bool.range(of: #"<key>Value</key>\s*<false/>"#, options: .regularExpression) != nil)

            try client.sendPlistFrame(["Request": "GetValue", "Key": "ChipID"])
            let int = String(decoding: try client.receivePlistFrame().raw, as: UTF8.self)
            #expect(int.range(of: #"<key>Value</key>\s*<integer>32816</integer>"#, options: .regularExpression) != nil)
        }
    }

    @Test func sessionRulesSetValueAndGoodbye() async throws {
        try await PrivateLab.with(devices: Self.specs) { lab in
            let plain = try RawUSBMuxClient(socketPath: lab.socketPath!)
            #expect(try plain.connect(deviceID: 1, port: 62078) == 0)
            #expect(
                try plain.lockdown("StartService", ["Service": "com.apple.afc"])["Error"] as? String
                    == "SessionInactive")
            #expect(
                try plain.lockdown("StartSession", ["HostID": "not-the-host"])["Error"] as? String == "InvalidHostID")

            let client = try Self.session(lab, udid: Self.specs[0].udid)
            let set = try client.lockdown("SetValue", ["Key": "DeviceName", "Value": "Renamed"])
            #expect(set["Request"] as? String == "SetValue")
            #expect(set["Error"] == nil)
            #expect(lab.device(udid: Self.specs[0].udid)?.name == "Renamed")
            #expect(
                try client.lockdown("StopSession", ["SessionID": "wrong"])["Error"] as? String == "InvalidSessionID")
            let goodbye = try client.lockdown("Goodbye")
            #expect(goodbye["Request"] as? String == "Goodbye")
            #expect(goodbye["Error"] == nil)
        }
    }

    @Test func startServiceOfAnUnregisteredServiceIsInvalidService() async throws {
        try await PrivateLab.with(devices: Self.specs, services: []) { lab in
            let client = try Self.session(lab, udid: Self.specs[0].udid)
            let reply = try client.lockdown("StartService", ["Service": "com.apple.afc"])
            #expect(reply["Request"] as? String == "StartService")
            #expect(reply["Service"] as? String == "com.apple.afc")
            #expect(reply["Error"] as? String == "InvalidService")
            #expect(reply["Port"] == nil)
        }
    }

    @Test func registeredServiceGetsAOneShotPortAndTheRawChannel() async throws {
        try await PrivateLab.with(devices: Self.specs, services: [UppercaseEchoService()]) { lab in
            let client = try Self.session(lab, udid: Self.specs[0].udid)
            let reply = try client.lockdown("StartService", ["Service": UppercaseEchoService.name])
            let port = try #require(RawUSBMuxClient.integer(reply["Port"]))
            #expect(port >= 49152)
            #expect(reply["Error"] == nil)
            let second = try #require(
                RawUSBMuxClient.integer(
                    try client.lockdown("StartService", ["Service": UppercaseEchoService.name])["Port"]))
            #expect(second != port)

            let service = try RawUSBMuxClient(socketPath: lab.socketPath!)
            #expect(try service.connect(deviceID: 1, port: port) == 0)
            try service.socket.send(Data("hello".utf8))
            #expect(String(decoding: try service.socket.receive(exactly: 5), as: UTF8.self) == "HELLO")

            // One Connect per StartService, as lockdownd does.
            #expect(try RawUSBMuxClient(socketPath: lab.socketPath!).connect(deviceID: 1, port: port) == 3)
            #expect(try RawUSBMuxClient(socketPath: lab.socketPath!).connect(deviceID: 1, port: second) == 0)

            // The service sees the device it was started on; a detach closes its connection.
            try lab.detach(udid: Self.specs[0].udid)
            #expect(service.socket.waitForClose())
        }
    }

    @Test func serviceCanRefusePerDevice() async throws {
        try await PrivateLab.with(devices: Self.specs, services: [UppercaseEchoService()]) { lab in
            let client = try Self.session(lab, udid: Self.specs[1].udid)
            let reply = try client.lockdown("StartService", ["Service": UppercaseEchoService.name])
            #expect(reply["Error"] as? String == "InvalidService")
            #expect(reply["Port"] == nil)
        }
    }
}

/// A test service: echoes bytes upper-cased; not offered on iOS 17+ (like debugserver).
struct UppercaseEchoService: EmulatedService {
    static let name = "com.example.uppercase-echo"
    let serviceNames: Set<String> = [Self.name]

    func availability(of name: String, on device: EmulatedDevice) -> ServiceAvailability {
        (device.osVersion?.major ?? 0) >= 17 ? .refused("InvalidService") : .available
    }

    func accept(_ connection: ServiceConnection) throws {
        #expect(connection.serviceName == Self.name)
        #expect(connection.device.udid == LockdownProtocolTests.specs[0].udid)
        try connection.addHandlers(UppercaseEchoHandler())
    }
}

final class UppercaseEchoHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let text = String(buffer: unwrapInboundIn(data)).uppercased()
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text)), promise: nil)
    }
}
