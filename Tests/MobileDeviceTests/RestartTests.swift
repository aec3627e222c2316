import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

@testable import MobileDevice

/// Restart through diagnostics_relay and the wait for the device to come back.
@Suite(.tags(.emulator), .timeLimit(.minutes(5))) struct RestartTests {
    @Test func restartReturnsAfterTheDeviceLeftAndCameBack() async throws {
        try await SharedTestLab.withDevice { device in
            let driver = MobileDeviceDriver()
            let recorder = EventRecorder(try await driver.deviceEvents())
            defer { recorder.stop() }
            let present = try await recorder.waitFor(.attached(udid: device.udid))
            try await driver.restart(device.udid, timeout: .seconds(60))
            // By the time restart returns, usbmuxd has reported it gone and back.
            let gone = try await recorder.waitFor(.detached(udid: device.udid), after: present, timeout: .seconds(5))
            _ = try await recorder.waitFor(.attached(udid: device.udid), after: gone, timeout: .seconds(5))
            #expect(device.isAttached)
            let info = try await driver.deviceInfo(udid: device.udid)
            #expect(info.udid == device.udid)
        }
    }

    @Test func aDeviceThatDoesNotComeBackTimesOut() async throws {
        try await SharedTestLab.withDevice { device in
            device.services.bootSeconds = 1_000_000  // × the shared lab's time scale: far longer than the timeout
            // Generous: on a loaded machine the restart request alone can take seconds.
            await #expect {
                try await MobileDeviceDriver().restart(device.udid, timeout: .seconds(20))
            } throws: { error in
                guard case DeviceError.timedOut(let step, let udid, _) = error else { return false }
                return udid == device.udid && step.contains("come back")
            }
        }
    }
}
