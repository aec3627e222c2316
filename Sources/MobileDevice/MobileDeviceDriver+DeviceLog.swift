import LaunchBench

extension MobileDeviceDriver {
    /// The device's log through `com.apple.syslog_relay`, read on a thread of its own (`DeviceLogReader`);
    /// returns once the relay is connected.
    package func deviceLog(on udid: String) async throws -> AsyncThrowingStream<String, any Error> {
        try await DeviceLogReader.lines(udid: udid)
    }
}
