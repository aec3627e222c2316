/// Reads a device's state (battery, charging, temperature, free storage…) beside the `DeviceDriver`: a driver
/// that can offers it, the composition root hands it to the runner, and a run without one records no
/// conditions (a `--require` then says so for every device).
package protocol DeviceConditionReading: Sendable {
    /// The device's conditions now; a condition no service gave is absent and named in `unavailable`.
    /// - Throws: a `DriverError` when the device cannot be reached at all.
    func conditions(of udid: String) async throws -> DeviceConditions
}
