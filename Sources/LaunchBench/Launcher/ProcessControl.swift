/// Launching without a debugger: the instruments service's process control (Instruments' and Xcode's
/// "launch without debugging"), reached over the DTX connection the device's kdebug session already holds.
package protocol ProcessControl: Sendable {
    /// Starts the installed app (an instance already running is killed first) and returns its pid with the
    /// stream of what the phone reports of it.
    /// - Throws: ``ProcessControlError`` when the phone refuses or the connection is gone.
    func launch(_ request: LaunchRequest) async throws -> ControlledProcess
    /// Sends SIGKILL to `pid`.
    func kill(_ pid: Int) async throws
}

/// A process process control started, and what the phone reports of it from the launch on.
package struct ControlledProcess: Sendable {
    package var pid: Int
    /// Its output and its end, in the order they arrived. Output can follow `.terminated` (the phone relays the
    /// two separately and promises no order); finishes after `.lost`, or when nothing more can be of use.
    package var events: AsyncStream<ProcessEvent>

    package init(pid: Int, events: AsyncStream<ProcessEvent>) {
        self.pid = pid
        self.events = events
    }
}

/// What process control reports of a launched process.
package enum ProcessEvent: Sendable, Hashable {
    /// Output the process wrote (an output event: part of a line or several).
    case output([UInt8])
    /// It ended: by itself with an exit code, or by a signal (its own crash, or SIGKILL).
    case terminated(exitCode: Int?, signal: Int?)
    /// The connection that reported it is gone: nothing more will come.
    case lost(String)
    /// What served process control is gone with its trace (the kdebug helper died): nothing more will come and
    /// nothing can measure the launch any more, so it ends at once with this cause.
    case controlGone(String)
}

/// Why process control did not launch or end a process.
package struct ProcessControlError: DriverError, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: String, Sendable {
        /// The phone refused the launch (not installed, not launchable, locked).
        case refused
        /// The connection to the instruments service is gone.
        case lost
    }

    package var kind: Kind
    package var message: String
    /// Why the phone refused, when it sent an NSError (a transient cause is tried again).
    package var refusal: ProcessControlRefusal?

    package init(_ kind: Kind, _ message: String, refusal: ProcessControlRefusal? = nil) {
        self.kind = kind
        self.message = message
        self.refusal = refusal
    }

    package var failureKind: DriverFailureKind { .launchRefused }
    package var description: String { message }
}

/// How each device's app is launched (`--launcher`).
package enum LauncherChoice: String, Sendable, Hashable, Codable, CaseIterable {
    /// Process control wherever the device's kdebug session runs (kdebug the pre-main source, or checking dyld's
    /// printed statistics); debugserver elsewhere.
    case auto
    /// Process control only: a device where it cannot be used measures nothing, and says why.
    case processControl = "processcontrol"
    /// debugserver everywhere, as before process control.
    case debugserver
}

/// How one launch was made (`launcher` in samples.jsonl).
package enum LaunchMethod: String, Sendable, Hashable, Codable {
    /// The instruments service's process control, no debugger attached.
    case processControl = "processcontrol"
    /// Through the device driver: debugserver (libimobiledevice, or pymobiledevice3's forwarder), or devicectl.
    case debugserver
}
