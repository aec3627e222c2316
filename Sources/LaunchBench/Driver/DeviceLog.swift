/// Why a driver gives no device log (the default of `DeviceDriver.deviceLog(on:)`).
package struct DeviceLogUnavailable: Error, Sendable {
    /// In words, for the device's note.
    package var reason: String

    package init(reason: String) { self.reason = reason }
}

extension DeviceDriver {
    /// No device log: a driver that cannot read one says so.
    package func deviceLog(on udid: String) async throws -> AsyncThrowingStream<String, any Error> {
        throw DeviceLogUnavailable(reason: "this connection cannot read the device log")
    }
}
