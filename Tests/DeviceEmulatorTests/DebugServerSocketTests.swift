import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import DeviceEmulator

/// debugserver over a real socket in no-ack mode, the way the team's own tool drives it
/// (PROTOCOLS.md §7.5): launch, stream output, exit packet, connection closed.
@Suite(.tags(.emulator), .timeLimit(.minutes(5))) struct DebugServerSocketTests {
    /// A GDB client speaking through a raw usbmuxd connection to the device's debugserver port.
    final class GDBClient {
        let mux: RawUSBMuxClient

        init(lab: EmulatedLab, device: EmulatedDevice) throws {
            let path = try #require(lab.socketPath)
            let lockdown = try RawUSBMuxClient(socketPath: path)
            defer { lockdown.socket.close() }
            try #require(try lockdown.connect(deviceID: device.deviceID, port: 62078) == 0)
            _ = try lockdown.lockdown("StartSession", ["HostID": lab.hostID, "SystemBUID": lab.systemBUID])
            let started = try lockdown.lockdown("StartService", ["Service": "com.apple.debugserver"])
            let port = try #require(RawUSBMuxClient.integer(started["Port"]), "\(started)")
            mux = try RawUSBMuxClient(socketPath: path)
            try #require(try mux.connect(deviceID: device.deviceID, port: port) == 0)
        }

        func send(_ payload: String) throws {
            try mux.socket.send(Data(GDBPacket.frame(payload).map { $0 }))
        }

        func sendRaw(_ text: String) throws { try mux.socket.send(Data(text.utf8)) }

        /// The next packet's payload (acks skipped); `nil` when the server closed the connection.
        func packet(timeout: TimeInterval = 30) throws -> String? {
            var inside = false
            var payload: [UInt8] = []
            while true {
                let byte: UInt8
                do {
                    byte = try mux.socket.receive(exactly: 1, timeout: timeout)[0]
                } catch RawSocketError.closed {
                    return nil
                }
                if !inside {
                    if byte == UInt8(ascii: "$") { inside = true }
                    continue
                }
                if byte == UInt8(ascii: "#") {
                    _ = try mux.socket.receive(exactly: 2, timeout: timeout)
                    return String(decoding: payload, as: UTF8.self)
                }
                payload.append(byte)
            }
        }

        /// Sends a command and returns its reply.
        func command(_ payload: String) throws -> String? {
            try send(payload)
            return try packet()
        }
    }

    static func hex(_ text: String) -> String { GDBPacket.hex(Array(text.utf8)).uppercased() }

    static func launch(_ client: GDBClient, app: InstalledApp, env: [String]) throws -> String? {
        #expect(try client.command("QStartNoAckMode") == "OK")
        try client.sendRaw("+")
        for entry in env { #expect(try client.command("QEnvironmentHexEncoded:" + hex(entry)) == "OK") }
        #expect(try client.command("QSetWorkingDir:" + hex(app.container)) == "OK")
        #expect(try client.command("A\(app.executablePath.utf8.count * 2),0,\(hex(app.executablePath))") == "OK")
        return try client.command("qLaunchSuccess")
    }

    /// Reads packets after `c` until the connection closes; returns (decoded output, other packets).
    static func run(_ client: GDBClient) throws -> (output: String, packets: [String]) {
        try client.send("c")
        var output: [UInt8] = []
        var others: [String] = []
        while let packet = try client.packet() {
            if packet.hasPrefix("O") {
                #expect(packet.count <= 1 + 512, "O packets carry at most 256 bytes")
                #expect(packet.dropFirst() == packet.dropFirst().lowercased())
                output += GDBPacket.unhex(packet.dropFirst()) ?? []
            } else {
                others.append(packet)
                if packet.hasPrefix("T") { try client.send("k") }
            }
        }
        return (String(decoding: output, as: UTF8.self), others)
    }

    static func withInstalledApp(
        ios: String, profile: AppProfile? = nil, _ body: (EmulatedLab, EmulatedDevice, InstalledApp) throws -> Void
    ) async throws {
        let spec = EmulatedDeviceSpec.numbered(600, productType: "iPhone12,1", osVersion: ios)
        try await PrivateLab.with(devices: [spec]) { lab in
            let device = try #require(lab.device(udid: spec.udid))
            var app = try AppBundleLoader.load(FixturePaths.sampleApp)
            if let profile { app.profile = profile }
            device.services.install(app)
            try body(lab, device, app)
        }
    }

    @Test func noAckLaunchStreamsOutputAndExits() async throws {
        try await Self.withInstalledApp(ios: "14.8") { lab, device, app in
            let client = try GDBClient(lab: lab, device: device)
            #expect(
                try Self.launch(client, app: app, env: ["DYLD_PRINT_STATISTICS=1", "DYLD_INSERT_LIBRARIES=/x"]) == "OK")
            let (output, packets) = try Self.run(client)
            #expect(output.hasPrefix("Total pre-main time: "), "\(output)")
            #expect(output.contains("[launchbench] mark=main t="))
            #expect(output.hasSuffix("[launchbench] done\n"))
            #expect(packets == ["W00"])

            // The next launch is warm; iOS 14 without an override prints no statistics.
            let again = try GDBClient(lab: lab, device: device)
            #expect(try Self.launch(again, app: app, env: ["DYLD_PRINT_STATISTICS=1"]) == "OK")
            let (warm, _) = try Self.run(again)
            #expect(!warm.contains("pre-main"))
            #expect(warm.hasPrefix("[launchbench] mark=main t="))
        }
    }

    @Test func aCrashStopsTheProcessUntilKilled() async throws {
        let crash = AppProfile(faults: Faults(crash: CrashFault(when: LaunchSelector(launches: [1]))))
        try await Self.withInstalledApp(ios: "12.5.7", profile: crash) { lab, device, app in
            let client = try GDBClient(lab: lab, device: device)
            #expect(try Self.launch(client, app: app, env: []) == "OK")
            let (output, packets) = try Self.run(client)
            #expect(output.contains("mark=main"))
            #expect(!output.contains("didFinishLaunching"))
            #expect(packets.first?.hasPrefix("T0b") == true, "\(packets)")
            #expect(packets.last == "X09")
        }
    }

    @Test func unsignedAppsAreRefused() async throws {
        try await Self.withInstalledApp(ios: "14.8", profile: AppProfile(developmentSigned: false)) {
            lab, device, app in
            let client = try GDBClient(lab: lab, device: device)
            let reply = try Self.launch(client, app: app, env: [])
            #expect(reply?.hasPrefix("Efailed to get the task for process ") == true, "\(reply ?? "nil")")
        }
    }
}

@Suite(.tags(.emulator), .timeLimit(.minutes(5))) struct DeviceSwitchTests {
    @Test func aWedgedDebugserverNeverAnswers() async throws {
        try await DebugServerSocketTests.withInstalledApp(ios: "14.8") { lab, device, app in
            device.services.isDebugserverWedged = true
            let client = try DebugServerSocketTests.GDBClient(lab: lab, device: device)
            try client.send("QSetMaxPacketSize:31303234")
            #expect(throws: RawSocketError.self) { _ = try client.mux.socket.receive(exactly: 1, timeout: 1.5) }
        }
    }

    @Test func theLabSeedReachesTheApp() async throws {
        func firstOutput(seed: UInt64) async throws -> String {
            let spec = EmulatedDeviceSpec.numbered(700, productType: "iPhone12,1", osVersion: "12.5.7")
            return try await PrivateLab.with(devices: [spec], services: BuiltInServices.all(seed: seed)) { lab in
                let device = try #require(lab.device(udid: spec.udid))
                let app = try AppBundleLoader.load(FixturePaths.sampleApp)
                device.services.install(app)
                let client = try DebugServerSocketTests.GDBClient(lab: lab, device: device)
                _ = try DebugServerSocketTests.launch(client, app: app, env: ["DYLD_PRINT_STATISTICS=1"])
                return try DebugServerSocketTests.run(client).output
            }
        }
        let a = try await firstOutput(seed: 1)
        let b = try await firstOutput(seed: 1)
        let c = try await firstOutput(seed: 2)
        #expect(a.hasPrefix("Total pre-main time"))
        #expect(a == b)
        #expect(a != c)
    }
}
