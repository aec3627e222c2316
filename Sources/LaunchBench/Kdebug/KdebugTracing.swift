/// Starts kernel-trace sessions on devices: the seam between the core, which reads kdebug records, and
/// the engine that reaches a device's instruments service (pymobiledevice3's core profile session tap).
package protocol KdebugTracing: Sendable {
    /// Arms a session on `device` that streams dyld's, exec's and string events until ``KdebugFeed/stop``.
    /// - Throws: an error whose description names the cause and the fix (kperf owned by Instruments or
    ///   Xcode, pymobiledevice3 missing or of another version, no instruments service).
    func startTrace(on device: DeviceInfo) async throws -> KdebugFeed
}

/// A running session: the device's clock and the chunks it sends, as they arrive.
package struct KdebugFeed: Sendable {
    /// The device's mach timebase.
    package var timebase: MachTimebase
    /// Each DATA message of the session: the RAW_VERSION2 header chunk first, then chunks of whole records.
    /// Ends when the session ends; throws when it fails.
    package var chunks: AsyncThrowingStream<[UInt8], any Error>
    /// Ends the session (idempotent).
    package var stop: @Sendable () async -> Void
    /// Process control over the session's own connection, when the tracer offers it.
    package var processControl: (any ProcessControl)?

    /// A feed of `chunks` on a device with `timebase`.
    package init(
        timebase: MachTimebase, chunks: AsyncThrowingStream<[UInt8], any Error>,
        processControl: (any ProcessControl)? = nil, stop: @escaping @Sendable () async -> Void
    ) {
        self.timebase = timebase
        self.chunks = chunks
        self.processControl = processControl
        self.stop = stop
    }
}
