import Foundation

/// The two messages processcontrol sends on its own, as DISPATCHes on the channel (negated code), without
/// asking for a reply. Their argument types follow the clients that read them from phones; a real phone's
/// bytes for these two are unverified here.
enum ProcessControlMessages {
    /// A launched process wrote to its standard output or error. Arguments: the text as an archived NSString;
    /// the pid and the time as primitives — go-ios unarchives only the first argument and logs the other two
    /// as they come (`ios/dtx_codec/connection.go`, `GlobalDispatcher.Dispatch`), appium-ios-remotexpc reads
    /// the time as a 64-bit mach time (`ProcessControl.outputEvents`), pymobiledevice3 11.45.0 takes any of
    /// these (`process_control.py`, `OutputReceivedEvent.create`). One message per write of the process: a
    /// message may hold part of a line or several lines, so a reader joins them.
    static let outputSelector = "outputReceived:fromProcess:atTime:"

    /// A launched process ended. Arguments: pid, exit code, crashing signal, each an archived NSNumber, the
    /// one that does not apply an empty buffer (read as `None` by pymobiledevice3, which places an empty
    /// buffer for `None` itself: `dtx/message_aux.py`; Frida's `ProcessControlService.on_invocation` takes
    /// the signal when the exit code is not a number). Sent only to connections that published
    /// `com.apple.instruments.client.processcontrol.capability.terminationCallback`, which pymobiledevice3's
    /// `DvtProvider` does "so that the device reports process termination events".
    static let terminationSelector = "processWithPID:terminatedWithExitCode:orCrashingSignal:"
    static let terminationCapability = "com.apple.instruments.client.processcontrol.capability.terminationCallback"

    /// - Parameter machTime: when it was written, on the device's mach clock.
    static func output(_ bytes: [UInt8], pid: Int, machTime: UInt64) -> [UInt8] {
        DTXArguments.encode([
            .object(String(decoding: bytes, as: UTF8.self) as NSString),
            .int32(Int32(truncatingIfNeeded: pid)),
            .int64(Int64(truncatingIfNeeded: machTime)),
        ])
    }

    static func termination(pid: Int, exitCode: Int?, signal: Int?) -> [UInt8] {
        DTXArguments.encode([
            .object(NSNumber(value: pid)),
            .object(exitCode.map { NSNumber(value: $0) }),
            .object(signal.map { NSNumber(value: $0) }),
        ])
    }
}
