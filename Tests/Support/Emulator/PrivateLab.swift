import DeviceEmulator
import Foundation
import LaunchBench
import TestSupport

/// A lab of its own, for tests that drive a SUBPROCESS (Debian tools, the built `launchbench`): pass
/// ``EmulatedLab/usbmuxdSocketAddress`` to the child only (see ``ExternalTool`` and ``ChildProcess``);
/// never set it in the test process (that is ``SharedTestLab``'s).
package enum PrivateLab {
    /// Starts a lab on a fresh short socket path. Stop it with `await lab.stop()`.
    /// - Parameters:
    ///   - devices: devices present from the start; `EmulatedDeviceSpec.lab(count:osVersion:)` makes some.
    ///   - timeScale: real seconds per emulated second.
    package static func start(
        devices: [EmulatedDeviceSpec] = EmulatedDeviceSpec.lab(count: 2, osVersion: "14.8"),
        services: [any EmulatedService] = BuiltInServices.all, timeScale: Double = 0.01
    ) async throws -> EmulatedLab {
        try await EmulatedLab.start(
            socketPath: TestSocketPath.make(prefix: "lbp"), devices: devices, services: services, timeScale: timeScale)
    }

    /// Starts a lab, runs `body`, stops the lab (also when `body` throws).
    @discardableResult
    package static func with<T>(
        devices: [EmulatedDeviceSpec] = EmulatedDeviceSpec.lab(count: 2, osVersion: "14.8"),
        services: [any EmulatedService] = BuiltInServices.all, timeScale: Double = 0.01,
        _ body: (EmulatedLab) async throws -> T
    ) async throws -> T {
        let lab = try await start(devices: devices, services: services, timeScale: timeScale)
        do {
            let result = try await body(lab)
            await lab.stop()
            return result
        } catch {
            await lab.stop()
            throw error
        }
    }
}
