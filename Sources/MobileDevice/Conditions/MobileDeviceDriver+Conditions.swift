import LaunchBench

extension MobileDeviceDriver: DeviceConditionReading {
    /// The device's conditions, read on its own queue between launches (see `DeviceSession.conditions()`).
    /// - Throws: `DeviceError` when the device is gone.
    package func conditions(of udid: String) async throws -> DeviceConditions {
        let session = session(for: udid)
        return try await session.conditions()
    }
}
