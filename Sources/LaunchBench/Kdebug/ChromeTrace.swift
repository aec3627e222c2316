import Foundation

/// Writes a launch's pre-main timeline as Chrome trace-event JSON (the "JSON Object Format" of the Trace Event
/// Format, which chrome://tracing, Perfetto and Speedscope open).
///
/// `{"displayTimeUnit":"ms","traceEvents":[…]}`: complete events (`"ph":"X"`) for process creation (exec →
/// dyld's `start`) and each dyld interval (dyld launch, each image mapped, fixups, ObjC setup, each initializer
/// by image, closure build), then an instant event (`"ph":"i"`, process scope) named `main`. `ts` (µs from the
/// exec) and `dur` (µs) are each rounded to the ns; keys are sorted, so the same launch always gives the same bytes.
package enum ChromeTrace {
    /// One trace event.
    package struct Event: Codable, Hashable, Sendable {
        /// The label shown on the slice.
        package var name: String
        /// The phase: `X` (complete) or `i` (instant).
        package var ph: String
        /// Start in µs from the exec.
        package var ts: Double
        /// Length in µs, for complete events.
        package var dur: Double?
        /// The process id.
        package var pid: Int
        /// The thread id.
        package var tid: UInt64
        /// The category: `kernel` or `dyld`.
        package var cat: String
        /// The instant's scope (`p` = process), for instant events.
        package var s: String?
        /// Details: `kind` (the dyld event), `image` (a path) when known.
        package var args: [String: String] = [:]
    }

    /// The whole file.
    package struct File: Codable, Hashable, Sendable {
        /// The events, by start time.
        package var traceEvents: [Event]
        /// Always `ms`: how viewers label the time axis.
        package var displayTimeUnit: String

        /// A file from its events.
        /// - Parameter traceEvents: the events.
        package init(traceEvents: [Event]) {
            self.traceEvents = traceEvents
            displayTimeUnit = "ms"
        }
    }

    /// The events of one launch.
    /// - Parameter phases: the measured launch.
    /// - Returns: process creation (when known), the dyld intervals by start, and `main` (when known).
    package static func events(_ phases: DyldLaunchPhases) -> [Event] {
        let pid = phases.pid ?? 0
        let thread = phases.mainThreadID
        let origin = phases.originTimestamp
        func microseconds(ticks: UInt64) -> Double {
            phases.timebase.nanoseconds(ticks).rounded() / 1000
        }
        func microseconds(_ timestamp: UInt64) -> Double {
            microseconds(ticks: timestamp >= origin ? timestamp - origin : 0)
        }
        var events: [Event] = []
        if let exec = phases.execTimestamp, let bootstrap = phases.bootstrapTimestamp {
            events.append(
                Event(
                    name: "Process creation", ph: "X", ts: microseconds(exec),
                    dur: microseconds(ticks: bootstrap - exec), pid: pid, tid: thread, cat: "kernel",
                    args: ["kind": "TRACE_DATA_EXEC to BOOTSTRAP_START"]))
        }
        for interval in phases.timeline {
            var args = ["kind": interval.kind.rawValue]
            var name = interval.kind.title
            if let image = interval.image {
                args["image"] = image
                name += " " + (image.split(separator: "/").last.map(String.init) ?? image)
            }
            events.append(
                Event(
                    name: name, ph: "X", ts: microseconds(interval.startTimestamp),
                    dur: microseconds(ticks: interval.ticks), pid: pid,
                    tid: interval.threadID, cat: "dyld", args: args))
        }
        if let frame = phases.firstFrameTimestamp {
            events.append(
                Event(
                    name: "first frame", ph: "i", ts: microseconds(frame), pid: pid, tid: thread, cat: "uikit", s: "p",
                    args: ["kind": "Initial Frame Rendering END (0x31CA0006)"]))
        }
        if let main = phases.mainTimestamp {
            events.append(
                Event(
                    name: "main", ph: "i", ts: microseconds(main), pid: pid, tid: thread,
                    cat: "dyld", s: "p", args: ["kind": "LAUNCH_EXECUTABLE END"]))
        }
        return events
    }

    /// The JSON file of one launch.
    /// - Parameter phases: the measured launch.
    /// - Returns: UTF-8 JSON with sorted keys.
    /// - Throws: what `JSONEncoder` throws (nothing for finite numbers).
    package static func json(_ phases: DyldLaunchPhases) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(File(traceEvents: events(phases)))
    }
}
