import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import MobileDevice

/// The service connection we open ourselves for debugserver (real libimobiledevice, emulated lab).
@Suite(.tags(.emulator), .timeLimit(.minutes(2))) struct DeviceServiceConnectionTests {
    /// Accepts the connection and never says a word: a device that hangs in the TLS handshake.
    struct SilentService: EmulatedService {
        static let name = "com.example.launchbench.silent"
        var serviceNames: Set<String> { [Self.name] }
        func accept(_ connection: ServiceConnection) throws {}
    }

    @Test func aDeviceSilentInTheTLSHandshakeFailsAtTheDeadlineInsteadOfHanging() async throws {
        let lab = try await SharedTestLab.lab()
        lab.register(SilentService())
        try await SharedTestLab.withDevice(productType: "iPhone12,1", osVersion: "14.8") { device in
            let handle = try DeviceHandle(udid: device.udid)
            let port = try LockdownClient(device: handle, handshake: true).startService(SilentService.name).port
            let started = ContinuousClock.now
            #expect {
                _ = try DeviceServiceConnection(
                    device: handle, service: ServiceDescriptor(port: port, usesTLS: true), name: "silent service",
                    tlsContext: { try ServiceTLSContext(udid: device.udid) }, handshakeTimeout: .milliseconds(300))
            } throws: { error in
                guard case DeviceError.timedOut(let operation, _, let seconds) = error else { return false }
                return operation == "TLS handshake with silent service" && seconds == 0.3
            }
            #expect(ContinuousClock.now - started < .seconds(30))
        }
    }

    @Test func theSecureDebugserverHandshakeSucceedsAndCarriesPackets() async throws {
        try await SharedTestLab.withDevice(productType: "iPhone12,1", osVersion: "14.8") { device in
            let handle = try DeviceHandle(udid: device.udid)
            let service = try LockdownClient(device: handle, handshake: true)
                .startService("com.apple.debugserver.DVTSecureSocketProxy")
            #expect(service.usesTLS)
            let connection = try DeviceServiceConnection(
                device: handle, service: service, name: "debugserver",
                tlsContext: { try ServiceTLSContext(udid: device.udid) }, handshakeTimeout: .seconds(10))
            let client = GDBRemoteClient(transport: connection, udid: device.udid)
            #expect(try client.command("QSetMaxPacketSize:", argument: "1024") == "OK")
        }
    }

    @Test func theNextConnectionResumesTheTLSSessionTheDeviceOffered() async throws {
        try await SharedTestLab.withDevice(productType: "iPhone12,1", osVersion: "14.8") { device in
            let handle = try DeviceHandle(udid: device.udid)
            let lockdown = try LockdownClient(device: handle, handshake: true)
            let context = try ServiceTLSContext(udid: device.udid)
            var resumed: [Bool] = []
            for _ in 0..<3 {
                let connection = try DeviceServiceConnection(
                    device: handle, service: try lockdown.startService("com.apple.debugserver.DVTSecureSocketProxy"),
                    name: "debugserver", tlsContext: { context }, handshakeTimeout: .seconds(10))
                // The device's session ticket arrives after the handshake, with the first reply.
                #expect(try GDBRemoteClient(transport: connection, udid: device.udid).command("Hc0") == "OK")
                resumed.append(connection.tls?.resumedSession ?? false)
            }
            #expect(resumed == [false, true, true])
        }
    }
}
