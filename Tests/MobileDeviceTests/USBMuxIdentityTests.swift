import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import MobileDevice

/// Which usbmuxd this process reaches, as the daemon itself says (the device lock is keyed by it).
@Suite(.tags(.emulator), .timeLimit(.minutes(2))) struct USBMuxIdentityTests {
    @Test func theConfiguredUsbmuxdAnswersItsSystemBUID() async throws {
        let lab = try await SharedTestLab.lab()
        #expect(USBMuxAddress.configuredSystemBUID() == lab.systemBUID)
    }
}
