import DeviceEmulator
import Foundation
import LaunchBench
import TestSupport

/// The ONE emulated lab of the test process, for in-process libimobiledevice calls.
///
/// libusbmuxd reads `USBMUXD_SOCKET_ADDRESS` from the environment on every connect and `swift test` runs
/// all suites in one process, in parallel; so every in-process test shares this lab and adds its own
/// devices (unique UDIDs). The first call starts it on a short /tmp socket and sets
/// `USBMUXD_SOCKET_ADDRESS` once, before returning — await ``lab()`` (or ``addDevice(productType:osVersion:name:)``)
/// before the first libimobiledevice call of a test. Never setenv another address in-process.
///
/// ```swift
/// @Test func readsTheName() async throws {
///     try await SharedTestLab.withDevice(productType: "iPhone13,2", osVersion: "15.7") { device in
///         let info = try await MobileDeviceDriver().deviceInfo(udid: device.udid)   // real libimobiledevice
///         #expect(info.name == device.name)
///     }
/// }
/// ```
/// Other tests' devices are visible too: filter by your UDID, never assert on the whole device list.
package enum SharedTestLab {
    /// Real seconds per emulated second in the shared lab (fixed, since every suite shares it).
    package static let timeScale = 0.01

    private static let starter = Starter()

    /// The shared lab, started on first use (the environment variable is set when this returns).
    /// - Throws: `EmulatorError` if the lab cannot start (then every caller gets the same error).
    package static func lab() async throws -> EmulatedLab {
        try await starter.lab()
    }

    /// The `USBMUXD_SOCKET_ADDRESS` value of the shared lab (starts it if needed).
    package static func address() async throws -> String {
        try await lab().usbmuxdSocketAddress
    }

    /// Adds a device with a fresh, unique UDID to the shared lab (attached at once).
    /// - Parameters:
    ///   - productType: model identifier, e.g. `iPhone12,1`.
    ///   - osVersion: the iOS version it reports, e.g. `14.8`.
    ///   - name: its `DeviceName`; default "Test iPhone N".
    /// - Returns: the device; remove it with ``removeDevice(_:)`` when the test ends.
    package static func addDevice(
        productType: String = "iPhone12,1", osVersion: String = "14.8", name: String? = nil
    ) async throws -> EmulatedDevice {
        let lab = try await lab()
        let number = counter.withLock { value -> UInt64 in
            value += 1
            return value
        }
        let serial = String(0xE000_0000_0000_0000 | number, radix: 16, uppercase: true)
        let spec = EmulatedDeviceSpec(
            udid: "00008101-\(serial)", name: name ?? "Test iPhone \(number)", productType: productType,
            osVersion: osVersion)
        return try lab.add(spec)
    }

    /// Removes a device added by this test (Detached to listeners, its connections closed).
    package static func removeDevice(_ device: EmulatedDevice) async {
        try? await lab().remove(udid: device.udid)
    }

    /// Adds a device, runs `body`, and removes the device again even when `body` throws.
    @discardableResult
    package static func withDevice<T>(
        productType: String = "iPhone12,1", osVersion: String = "14.8", name: String? = nil,
        _ body: (EmulatedDevice) async throws -> T
    ) async throws -> T {
        let device = try await addDevice(productType: productType, osVersion: osVersion, name: name)
        do {
            let result = try await body(device)
            await removeDevice(device)
            return result
        } catch {
            await removeDevice(device)
            throw error
        }
    }

    /// Numbers the devices added by parallel tests.
    private static let counter = Locked<UInt64>(0)

    private actor Starter {
        private var task: Task<EmulatedLab, Error>?

        func lab() async throws -> EmulatedLab {
            if let task { return try await task.value }
            let task = Task { try await Self.start() }
            self.task = task
            return try await task.value
        }

        private static func start() async throws -> EmulatedLab {
            let lab = try await EmulatedLab.start(socketPath: TestSocketPath.make(), timeScale: SharedTestLab.timeScale)
            setenv("USBMUXD_SOCKET_ADDRESS", lab.usbmuxdSocketAddress, 1)
            if let path = lab.socketPath { SocketCleanup.removeAtExit(path) }
            return lab
        }
    }
}

/// Removes the shared lab's socket file when the test process exits (the lab is never stopped).
enum SocketCleanup {
    private static let path = Locked<[CChar]>([])

    static func removeAtExit(_ socketPath: String) {
        path.withLock { $0 = Array(socketPath.utf8CString) }
        atexit {
            SocketCleanup.path.withLock { path in
                path.withUnsafeBufferPointer { buffer in
                    if let base = buffer.baseAddress { _ = unlink(base) }
                }
            }
        }
    }
}
