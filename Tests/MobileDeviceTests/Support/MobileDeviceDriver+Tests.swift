import LaunchBench

@testable import MobileDevice

/// What these tests ask of libimobiledevice beside the `DeviceDriver` calls: one device's values (a run lists
/// all devices at once) and the shared listener's events (a run follows its devices through the session's
/// `DeviceEventLog`). Each call reads usbmuxd on a queue of its own, as the driver's listing does.
extension MobileDeviceDriver {
    /// One device's values.
    /// - Throws: `DeviceError.deviceNotFound` (listing the attached UDIDs) and the other `DeviceError`s.
    func deviceInfo(udid: String) async throws -> DeviceInfo {
        try await USBMuxSession().device(udid: udid)
    }

    /// Attach and detach events until the consumer stops iterating. The stream begins with an `attached` event
    /// for each device present (usbmuxd's Listen semantics), then reports changes.
    /// - Throws: `DeviceError.usbmuxdUnreachable` when usbmuxd cannot be reached.
    func deviceEvents() async throws -> AsyncStream<DeviceEvent> {
        try await USBMuxSession().events()
    }
}

extension USBMuxSession {
    fileprivate func device(udid: String) throws -> DeviceInfo {
        let entries = try USBMuxDeviceList.entries()
        guard let entry = entries.first(where: { $0.udid == udid }) else {
            throw DeviceError.deviceNotFound(udid: udid, attached: entries.map(\.udid))
        }
        return try Self.info(udid: udid, connection: entry.connection)
    }

    fileprivate func events() throws -> AsyncStream<DeviceEvent> {
        _ = try USBMuxDeviceList.entries()  // usbmuxd must be there: a listener alone would wait silently
        return try USBMuxEventSubscription.stream()
    }
}
