import DeviceEmulator
import EmulatorTestSupport
import Foundation
import TestSupport
import Testing

@Suite(.tags(.emulator), .timeLimit(.minutes(5)))
struct SharedTestLabTests {
    @Test func setsTheAddressOnceAndAddsUniqueDevices() async throws {
        let lab = try await SharedTestLab.lab()
        #expect(ProcessInfo.processInfo.environment["USBMUXD_SOCKET_ADDRESS"] == lab.usbmuxdSocketAddress)
        #expect(try await SharedTestLab.lab() === lab)

        let udids = try await SharedTestLab.withDevice(productType: "iPhone13,2", osVersion: "15.7") { first in
            try await SharedTestLab.withDevice { second in
                #expect(first.udid != second.udid)
                #expect(first.udid.count == 25 && second.udid.count == 25)
                #expect(lab.attachedDevices.contains { $0 === first })
                #expect(first.spec.osVersion == "15.7")
                return [first.udid, second.udid]
            }
        }
        for udid in udids { #expect(lab.device(udid: udid) == nil, "removed after the test") }
    }
}
