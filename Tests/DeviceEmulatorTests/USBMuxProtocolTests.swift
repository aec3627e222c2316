import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

/// usbmuxd at the byte level, with a raw socket client (no libimobiledevice).
@Suite(.tags(.emulator, .subprocess), .timeLimit(.minutes(5)))
struct USBMuxProtocolTests {
    static let specs = EmulatedDeviceSpec.lab(count: 2, osVersion: "14.8")

    @Test func listDevicesRepliesWithTypedXMLAndEchoesTheTag() async throws {
        try await PrivateLab.with(devices: Self.specs) { lab in
            let client = try RawUSBMuxClient(socketPath: lab.socketPath!)
            try client.send("ReadBUID")
            _ = try client.receive()
            let tag = try client.send("ListDevices")
            let reply = try client.receive()
            #expect(reply.tag == tag && tag == 2)
            #expect(reply.version == 1 && reply.message == 8)
            let xml = String(decoding: reply.payload, as: UTF8.self)
            #expect(xml.hasPrefix("<?xml"))
            #expect(xml.range(of: #"<key>DeviceID</key>\s*<integer>1</integer>"#, options: .regularExpression) != nil)
            #expect(!xml.contains("<real>"))
            let list = try #require(reply.plist["DeviceList"] as? [[String: Any]])
            let serials = list.compactMap { ($0["Properties"] as? [String: Any])?["SerialNumber"] as? String }
            #expect(serials == Self.specs.map(\.udid))
            let first = try #require(list.first?["Properties"] as? [String: Any])
            #expect(first["ConnectionType"] as? String == "USB")
            #expect(RawUSBMuxClient.integer(first["DeviceID"]) == 1)
        }
    }

    @Test func listenSeesAttachedThenDetachedAndAttachedOnTheSameSocket() async throws {
        try await PrivateLab.with(devices: Self.specs) { lab in
            let listener = try RawUSBMuxClient(socketPath: lab.socketPath!)
            let result = try listener.request("Listen")
            #expect(result.plist["MessageType"] as? String == "Result")
            #expect(RawUSBMuxClient.integer(result.plist["Number"]) == 0)
            for spec in Self.specs {
                let attached = try listener.receive()
                #expect(attached.tag == 0)
                #expect(attached.plist["MessageType"] as? String == "Attached")
                #expect((attached.plist["Properties"] as? [String: Any])?["SerialNumber"] as? String == spec.udid)
            }

            let device = try #require(lab.device(udid: Self.specs[1].udid))
            try lab.detach(udid: device.udid)
            let detached = try listener.receive()
            #expect(detached.plist["MessageType"] as? String == "Detached")
            #expect(RawUSBMuxClient.integer(detached.plist["DeviceID"]) == device.deviceID)

            let list = try RawUSBMuxClient(socketPath: lab.socketPath!).request("ListDevices")
            #expect((list.plist["DeviceList"] as? [Any])?.count == 1)

            try lab.attach(udid: device.udid)
            let back = try listener.receive()
            #expect(back.plist["MessageType"] as? String == "Attached")
            #expect(RawUSBMuxClient.integer(back.plist["DeviceID"]) == device.deviceID)

            let added = try lab.add(.numbered(9, productType: "iPhone11,8", osVersion: "14.8"))
            let third = try listener.receive()
            #expect((third.plist["Properties"] as? [String: Any])?["SerialNumber"] as? String == added.udid)
            try lab.remove(udid: added.udid)
            let gone = try listener.receive()
            #expect(gone.plist["MessageType"] as? String == "Detached")
            #expect(RawUSBMuxClient.integer(gone.plist["DeviceID"]) == added.deviceID)
        }
    }

    @Test func connectSwapsThePortBytesAndRefusesUnknownDevicesAndPorts() async throws {
        try await PrivateLab.with(devices: Self.specs) { lab in
            // 62078 travels as htons(62078) = 32498; the helper swaps, so check the raw value too.
            #expect(Int(UInt16(62078).byteSwapped) == 32498)
            let lockdown = try RawUSBMuxClient(socketPath: lab.socketPath!)
            let reply = try lockdown.request("Connect", ["DeviceID": 1, "PortNumber": 32498])
            #expect(RawUSBMuxClient.integer(reply.plist["Number"]) == 0)
            #expect(try lockdown.lockdown("QueryType")["Type"] as? String == "com.apple.mobile.lockdown")

            let unswapped = try RawUSBMuxClient(socketPath: lab.socketPath!)
            #expect(
                RawUSBMuxClient.integer(
                    try unswapped.request("Connect", ["DeviceID": 1, "PortNumber": 62078]).plist["Number"]) == 3)

            #expect(try RawUSBMuxClient(socketPath: lab.socketPath!).connect(deviceID: 99, port: 62078) == 2)
            #expect(try RawUSBMuxClient(socketPath: lab.socketPath!).connect(deviceID: 1, port: 49152) == 3)

            try lab.detach(udid: Self.specs[0].udid)
            #expect(try RawUSBMuxClient(socketPath: lab.socketPath!).connect(deviceID: 1, port: 62078) == 2)
            #expect(lockdown.socket.waitForClose(), "a detach closes the device's open connections")
        }
    }

    @Test func pairRecordBUIDAndUnknownMessages() async throws {
        try await PrivateLab.with(devices: Self.specs) { lab in
            let record = try RawUSBMuxClient(socketPath: lab.socketPath!)
                .request("ReadPairRecord", ["PairRecordID": Self.specs[0].udid])
            let data = try #require(record.plist["PairRecordData"] as? Data)
            let pair = try #require(
                try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
            #expect(pair["HostID"] as? String == lab.hostID)
            #expect(pair["SystemBUID"] as? String == lab.systemBUID)

            let missing = try RawUSBMuxClient(socketPath: lab.socketPath!)
                .request("ReadPairRecord", ["PairRecordID": "00000000-0000000000000000"])
            #expect(RawUSBMuxClient.integer(missing.plist["Number"]) == 2)

            let buid = try RawUSBMuxClient(socketPath: lab.socketPath!).request("ReadBUID")
            #expect(buid.plist["BUID"] as? String == lab.systemBUID)

            for type in ["SavePairRecord", "DeletePairRecord"] {
                let saved = try RawUSBMuxClient(socketPath: lab.socketPath!).request(
                    type, ["PairRecordID": Self.specs[0].udid])
                #expect(RawUSBMuxClient.integer(saved.plist["Number"]) == 0)
            }
            let unknown = try RawUSBMuxClient(socketPath: lab.socketPath!).request("Frobnicate")
            #expect(unknown.plist["MessageType"] as? String == "Result")
            #expect(RawUSBMuxClient.integer(unknown.plist["Number"]) == 1)
        }
    }

    @Test func stopRemovesTheSocketAndClosesListeners() async throws {
        let lab = try await PrivateLab.start(devices: Self.specs)
        let path = try #require(lab.socketPath)
        let listener = try RawUSBMuxClient(socketPath: path)
        _ = try listener.request("Listen")
        #expect(FileManager.default.fileExists(atPath: path))
        await lab.stop()
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: lab.rootDirectory.path))
        #expect(listener.socket.waitForClose())
    }

    @Test(.enabled(if: ExternalTool.isInstalled("idevice_id"), "idevice_id missing: run Scripts/bootstrap"))
    func tcpListenerServesTheSameProtocol() async throws {
        let lab = try await EmulatedLab.start(on: [.tcp(host: "127.0.0.1", port: 0)], devices: Self.specs)
        guard case .tcp(_, let port) = lab.addresses[0], port > 0 else {
            Issue.record("expected a bound TCP address, got \(lab.addresses)")
            await lab.stop()
            return
        }
        #expect(lab.usbmuxdSocketAddress == "127.0.0.1:\(port)")
        let result = try await ExternalTool.run("idevice_id", ["-l"], usbmuxd: lab.usbmuxdSocketAddress)
        await lab.stop()
        #expect(result.lines.sorted() == Self.specs.map(\.udid).sorted())
    }

    @Test func startRejectsBadSocketPaths() async throws {
        let long = "/tmp/" + String(repeating: "x", count: 120)
        await #expect(throws: EmulatorError.socketPathTooLong(path: long, bytes: long.utf8.count, limit: 103)) {
            try await EmulatedLab.start(socketPath: long)
        }
        let file = TestSocketPath.make(prefix: "lbf")
        _ = FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        defer { try? FileManager.default.removeItem(atPath: file) }
        await #expect(throws: EmulatorError.pathIsNotASocket(path: file)) {
            try await EmulatedLab.start(socketPath: file)
        }
        try await PrivateLab.with { lab in
            await #expect(throws: EmulatorError.socketInUse(path: lab.socketPath!)) {
                try await EmulatedLab.start(socketPath: lab.socketPath!)
            }
        }
    }
}

/// Simulated reboots, as diagnostics_relay's Restart will use them.
@Suite(.tags(.emulator), .timeLimit(.minutes(5)))
struct RebootTests {
    @Test func rebootDetachesThenAttachesAfterTheScaledBootTime() async throws {
        let specs = EmulatedDeviceSpec.lab(count: 1, osVersion: "14.8")
        try await PrivateLab.with(devices: specs, timeScale: 0.01) { lab in
            let listener = try RawUSBMuxClient(socketPath: lab.socketPath!)
            _ = try listener.request("Listen")
            _ = try listener.receive()  // Attached
            let lockdown = try RawUSBMuxClient(socketPath: lab.socketPath!)
            #expect(try lockdown.connect(deviceID: 1, port: 62078) == 0)

            try await lab.reboot(udid: specs[0].udid, bootSeconds: 3)  // 30 ms real
            #expect(try listener.receive().plist["MessageType"] as? String == "Detached")
            #expect(try listener.receive().plist["MessageType"] as? String == "Attached")
            #expect(lockdown.socket.waitForClose())
            #expect(lab.attachedDevices.map(\.udid) == [specs[0].udid])
            #expect(lab.realDuration(ofEmulatedSeconds: 3) == .milliseconds(30))
        }
    }

    @Test func stopClosesControlConnectionsToo() async throws {
        let lab = try await PrivateLab.start()
        let idle = try RawUSBMuxClient(socketPath: lab.socketPath!)
        _ = try idle.request("ReadBUID")
        await lab.stop()
        #expect(idle.socket.waitForClose())
        #expect(throws: EmulatorError.stopped) {
            try lab.add(.numbered(5, productType: "iPhone12,1", osVersion: "14.8"))
        }
    }
}
