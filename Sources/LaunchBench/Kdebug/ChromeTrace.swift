import Foundation

/// Writes a launch's timeline as Chrome trace-event JSON (the "JSON Object Format" of the Trace Event
/// Format, which chrome://tracing, Perfetto and Speedscope open).
///
/// `{"displayTimeUnit":"ms","traceEvents":[…]}`: first metadata events (`"ph":"M"`: the process's name, each
/// thread's name), so the viewer labels its tracks without a legend; then complete events (`"ph":"X"`) for
/// process creation (exec → dyld's `start`), each dyld interval (dyld launch, each image mapped, fixups, ObjC
/// setup, each initializer by function name when ``InitializerNamer`` knows it, else by image, closure build)
/// and UIKit's phases after main (`UIKitLifecycle`); instant events (`"ph":"i"`, process scope) for `main`
/// and the first frame; and a counter track (`"ph":"C"`) of the page-ins so far, one value per millisecond
/// in which some ended. `ts` (µs from the exec) and `dur` (µs) are each rounded to the ns; keys are sorted,
/// so the same launch always gives the same bytes.
package enum ChromeTrace {
    /// An argument's value: text, or a number (a counter's value must be one).
    package enum Value: Codable, Hashable, Sendable, ExpressibleByStringLiteral {
        case text(String)
        case number(Double)

        /// A text value from a literal.
        package init(stringLiteral value: String) { self = .text(value) }

        /// Reads a JSON string or number.
        package init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else {
                self = .text(try container.decode(String.self))
            }
        }

        /// Writes a JSON string or number.
        package func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .text(let text): try container.encode(text)
            case .number(let number): try container.encode(number)
            }
        }
    }

    /// Names an initializer interval by its function (`+[AnalyticsSDK load]`), nil when it cannot: the hook
    /// for the symbolication of STATIC_INITIALIZER addresses (issue 36 item 2).
    package typealias InitializerNamer = @Sendable (DyldInterval) -> String?

    /// LaunchProbe's after-main markers of the launch, ms from the process's start (its own clock).
    package struct Markers: Sendable, Hashable {
        /// `main`.
        package var mainMs: Double
        /// `didFinishLaunching`, when printed.
        package var didFinishLaunchingMs: Double?
        /// `firstFrame`, when printed.
        package var firstFrameMs: Double?

        /// The markers of one launch.
        package init(mainMs: Double, didFinishLaunchingMs: Double?, firstFrameMs: Double?) {
            self.mainMs = mainMs
            self.didFinishLaunchingMs = didFinishLaunchingMs
            self.firstFrameMs = firstFrameMs
        }
    }

    /// One trace event.
    package struct Event: Codable, Hashable, Sendable {
        /// The label shown on the slice.
        package var name: String
        /// The phase: `X` (complete), `i` (instant), `C` (counter) or `M` (metadata).
        package var ph: String
        /// Start in µs from the exec.
        package var ts: Double
        /// Length in µs, for complete events.
        package var dur: Double?
        /// The process id.
        package var pid: Int
        /// The thread id.
        package var tid: UInt64
        /// The category: `kernel`, `dyld`, `uikit`, `vm` or `__metadata`.
        package var cat: String
        /// The instant's scope (`p` = process), for instant events.
        package var s: String?
        /// Details: `kind` (the event), `image` (a path) when known; a counter's value; a metadata `name`.
        package var args: [String: Value] = [:]
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
    /// - Parameters:
    ///   - phases: the measured launch.
    ///   - initializerName: names initializer intervals by function, when symbols are known.
    /// - Returns: the metadata, process creation (when known), the dyld intervals by start, UIKit's phases,
    ///   `main` and the first frame (when known), then the page-in counter.
    ///   - markers: LaunchProbe's markers, drawn as the after-main spans when UIKit's codes gave none.
    package static func events(
        _ phases: DyldLaunchPhases, initializerName: InitializerNamer? = nil, markers: Markers? = nil
    ) -> [Event] {
        let pid = phases.pid ?? 0
        let thread = phases.mainThreadID
        let origin = phases.originTimestamp
        func microseconds(ticks: UInt64) -> Double {
            phases.timebase.nanoseconds(ticks).rounded() / 1000
        }
        func microseconds(_ timestamp: UInt64) -> Double {
            microseconds(ticks: timestamp >= origin ? timestamp - origin : 0)
        }
        var events = metadata(phases)
        if let exec = phases.execTimestamp, let bootstrap = phases.bootstrapTimestamp {
            events.append(
                Event(
                    name: "Process creation", ph: "X", ts: microseconds(exec),
                    dur: microseconds(ticks: bootstrap - exec), pid: pid, tid: thread, cat: "kernel",
                    args: ["kind": "TRACE_DATA_EXEC to BOOTSTRAP_START"]))
        }
        for interval in phases.timeline {
            var args: [String: Value] = ["kind": .text(interval.kind.rawValue)]
            var name = interval.kind.title
            let function = initializerName.flatMap { $0(interval) }
            if let function {
                args["function"] = .text(function)
                name += " " + function
            }
            if let image = interval.image {
                args["image"] = .text(image)
                let file = image.split(separator: "/").last.map(String.init) ?? image
                // A function named only by its offset (no symbols for that image) says which image it is in.
                if let function {
                    if function.hasPrefix("0x") { name += " in " + file }
                } else {
                    name += " " + file
                }
            }
            events.append(
                Event(
                    name: name, ph: "X", ts: microseconds(interval.startTimestamp),
                    dur: microseconds(ticks: interval.ticks), pid: pid,
                    tid: interval.threadID, cat: "dyld", args: args))
        }
        for span in phases.uikitSpans {
            events.append(
                Event(
                    name: span.name, ph: "X", ts: microseconds(span.startTimestamp),
                    dur: microseconds(ticks: span.endTimestamp &- span.startTimestamp), pid: pid, tid: span.threadID,
                    cat: "uikit", args: ["kind": "UIKit lifecycle (0x2B87)"]))
        }
        if phases.uikitSpans.isEmpty, let markers { events += markerSpans(markers, phases) }
        if let frame = phases.firstFrameTimestamp {
            let anchor =
                phases.firstFrameSource == .uikitAnchored
                ? "after UIKit's BEGIN (0x2B870030)" : "unanchored: no BEGIN, the first after didFinishLaunching"
            events.append(
                Event(
                    name: "first frame", ph: "i", ts: microseconds(frame), pid: pid, tid: thread, cat: "uikit", s: "p",
                    args: ["kind": .text("Initial Frame Rendering END (0x31CA0006), " + anchor)]))
        }
        // An END before the BEGIN (py-ios-device PR #127): kept where it came, never the first frame.
        for stray in phases.strayFrameEndTimestamps {
            events.append(
                Event(
                    name: "stray frame END", ph: "i", ts: microseconds(stray), pid: pid, tid: thread, cat: "uikit",
                    s: "t",
                    args: ["kind": "Initial Frame Rendering END (0x31CA0006) before its BEGIN: not the first frame"]))
        }
        if let main = phases.mainTimestamp {
            events.append(
                Event(
                    name: "main", ph: "i", ts: microseconds(main), pid: pid, tid: thread,
                    cat: "dyld", s: "p", args: ["kind": "LAUNCH_EXECUTABLE END"]))
        }
        return events + pageInCounter(phases)
    }

    /// LaunchProbe's after-main stretches (`main → didFinishLaunching`, `didFinishLaunching → first frame`) on
    /// the main thread. Its clock starts at the process's start, not at the exec, so its `main` is aligned with
    /// dyld's (LAUNCH_EXECUTABLE END); without that END the markers are not drawn.
    static func markerSpans(_ markers: Markers, _ phases: DyldLaunchPhases) -> [Event] {
        guard let dyldMainMs = phases.mainMs, phases.execTimestamp != nil else { return [] }
        let shift = dyldMainMs - markers.mainMs
        let points = [
            ("main", markers.mainMs), ("didFinishLaunching", markers.didFinishLaunchingMs),
            ("first frame", markers.firstFrameMs),
        ].compactMap { name, ms in ms.map { (name, $0 + shift) } }
        return zip(points, points.dropFirst()).compactMap { from, to in
            guard to.1 >= from.1 else { return nil }
            return Event(
                name: "\(from.0) → \(to.0)", ph: "X", ts: (from.1 * 1_000_000).rounded() / 1000,
                dur: ((to.1 - from.1) * 1_000_000).rounded() / 1000, pid: phases.pid ?? 0, tid: phases.mainThreadID,
                cat: "launchprobe", args: ["kind": "LaunchProbe markers, aligned at main"])
        }
    }

    /// The process's and its threads' names, so a viewer labels the tracks: the exec'd name, `main thread`
    /// for the thread that exec'd, `thread 0x…` for the others that carry events.
    static func metadata(_ phases: DyldLaunchPhases) -> [Event] {
        let pid = phases.pid ?? 0
        let main = phases.mainThreadID
        var threads = Set(phases.timeline.map(\.threadID)).union(phases.uikitSpans.map(\.threadID))
        threads.remove(main)
        let name = phases.processName.map { "\($0) (pid \(pid))" } ?? "pid \(pid)"
        var events = [
            Event(
                name: "process_name", ph: "M", ts: 0, pid: pid, tid: main, cat: "__metadata",
                args: ["name": .text(name)]),
            Event(
                name: "thread_name", ph: "M", ts: 0, pid: pid, tid: main, cat: "__metadata",
                args: ["name": "main thread"]),
        ]
        for thread in threads.sorted() {
            events.append(
                Event(
                    name: "thread_name", ph: "M", ts: 0, pid: pid, tid: thread, cat: "__metadata",
                    args: ["name": .text("thread 0x" + String(thread, radix: 16))]))
        }
        return events
    }

    /// The page-ins so far, sampled at the end of each millisecond in which some ended (a launch's worth of
    /// values, however many faults), on the process's counter track.
    static func pageInCounter(_ phases: DyldLaunchPhases) -> [Event] {
        guard let faults = phases.pageIns, !faults.pageInEndsMs.isEmpty else { return [] }
        var events = [
            Event(
                name: "page-ins", ph: "C", ts: 0, pid: phases.pid ?? 0, tid: phases.mainThreadID, cat: "vm",
                args: ["page-ins": .number(0)])
        ]
        var count = 0
        var index = 0
        let ends = faults.pageInEndsMs
        while index < ends.count {
            let millisecond = max(0, ends[index].rounded(.down))
            while index < ends.count && max(0, ends[index].rounded(.down)) == millisecond {
                count += 1
                index += 1
            }
            events.append(
                Event(
                    name: "page-ins", ph: "C", ts: (millisecond + 1) * 1000, pid: phases.pid ?? 0,
                    tid: phases.mainThreadID, cat: "vm", args: ["page-ins": .number(Double(count))]))
        }
        return events
    }

    /// The JSON file of one launch.
    /// - Parameters:
    ///   - phases: the measured launch.
    ///   - initializerName: names initializer intervals by function, when symbols are known.
    /// - Returns: UTF-8 JSON with sorted keys.
    /// - Throws: what `JSONEncoder` throws (nothing for finite numbers).
    ///   - markers: LaunchProbe's markers, drawn as the after-main spans when UIKit's codes gave none.
    package static func json(
        _ phases: DyldLaunchPhases, initializerName: InitializerNamer? = nil, markers: Markers? = nil
    ) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(
            File(traceEvents: events(phases, initializerName: initializerName, markers: markers)))
    }
}
