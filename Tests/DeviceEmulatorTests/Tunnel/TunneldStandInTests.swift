import DeviceEmulator
import EmulatorTestSupport
import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The tunneld stand-in's listing: only attached iOS 17.0–17.3.x phones, each with a loopback RSD port.
@Suite(.tags(.emulator), .timeLimit(.minutes(1))) struct TunneldStandInTests {
    static func listing(port: Int) async throws -> [String: [[String: Any]]] {
        let (data, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        return try JSONSerialization.jsonObject(with: data) as? [String: [[String: Any]]] ?? [:]
    }

    @Test func listsOnlyAttachedPhonesThatNeedATunneld() async throws {
        let specs = [
            EmulatedDeviceSpec.numbered(1, productType: "iPhone15,2", osVersion: "17.2"),
            .numbered(2, productType: "iPhone15,4", osVersion: "17.5"),
            .numbered(3, productType: "iPhone14,5", osVersion: "16.7"),
        ]
        try await PrivateLab.with(devices: specs) { lab in
            let standIn = try await TunneldStandIn.start(lab: lab)
            let listed = try await Self.listing(port: standIn.port)
            #expect(Array(listed.keys) == [specs[0].udid])
            let entry = try #require(listed[specs[0].udid]?.first)
            #expect(entry["tunnel-address"] as? String == "127.0.0.1")
            let rsdPort = try #require(entry["tunnel-port"] as? Int)
            #expect(rsdPort > 0)
            // The same port on the next request: one RSD listener per phone.
            #expect(try await Self.listing(port: standIn.port)[specs[0].udid]?.first?["tunnel-port"] as? Int == rsdPort)
            try lab.detach(udid: specs[0].udid)
            #expect(try await Self.listing(port: standIn.port).isEmpty)
            await standIn.stop()
        }
    }
}
