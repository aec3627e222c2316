/// Reads what an app printed at launch — dyld's statistics and library lines, the app's
/// `[launchbench]` markers — incrementally, from bytes split anywhere, and yields launch records.
///
/// Formats: dyld's summary block (`Total pre-main time`, dyld 421–852), the details block
/// (`DYLD_PRINT_STATISTICS_DETAILS`, alone or after its summary), the old block (dyld ≤360),
/// `DYLD_PRINT_LIBRARIES` lines of every dyld generation, and app markers. Lines may be indented
/// or not, quoted (`> `), bold (`**`), end in CRLF, and be interleaved with any other output.
///
/// How a capture splits into launches: a process prints its libraries, then its statistics
/// (dyld2, right before `main`), then the app's markers, then `done`. So a new launch starts when
/// - a statistics line cannot continue the current launch's block (dyld prints a block's lines in a
///   fixed order, so a line at or before the last one seen begins another block), unless it is a
///   details block following its own summary (one launch, not two: the summary ended with dyld's
///   empty line or has all its lines; a summary cut short is another launch's); or
///   statistics arrive after the current launch's markers or `done`;
/// - a marker repeats a name the current launch already has, or arrives after `done`;
/// - a library line arrives after `done`.
/// Library lines that arrive after a launch's statistics are held back: if another statistics
/// block follows, they were the next process's; if a marker, `done` or the end of input follows,
/// they were loaded by the running app (`dlopen`) and stay with the current launch.
///
/// Values that are missing or not measurements (dyld's 64-bit wrap artefact, negative derived
/// values, unreadable text) are `nil` with a warning, never 0.
package struct LaunchLogParser: Sendable {
    /// Lines longer than this keep only their tail (a glued dyld line sits at the end).
    static let maxLineBytes = 1 << 20
    static let keptTailBytes = 8192

    private var carry: [UInt8] = []
    private var pendingCR = false
    private var current = OpenLaunch()
    private var pendingLibraries: [LoadedImage] = []
    private var finished: [LaunchRecord] = []
    private var finishedWithStatistics: [Bool] = []
    private var lastLineUnterminated = false

    /// Progress so far, for deciding when a live launch is over.
    package private(set) var progress = LaunchLogProgress()
    /// Lines read so far (a final line without a line break counts once `finish` reads it).
    package private(set) var lineCount = 0
    /// Non-empty lines that matched no format (other programs' output, dyld lines that carry no value).
    package private(set) var unrecognizedLineCount = 0

    /// A parser that has seen nothing yet.
    package init() {}

    /// Feeds output as it arrives, split anywhere (even inside a UTF-8 character).
    package mutating func feed<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let handled: Void? = bytes.withContiguousStorageIfAvailable { feedBuffer($0) }
        if handled == nil {
            let array = Array(bytes)
            array.withUnsafeBufferPointer { feedBuffer($0) }
        }
    }

    /// Ends the input (flushes a partial last line, closes an open block) and returns every
    /// launch found, in order. The parser can then read another input (its line counters keep counting).
    package mutating func finish() -> [LaunchRecord] {
        flushCarry()
        current.libraries += pendingLibraries
        pendingLibraries = []
        closeCurrent()
        let records = finished
        resetLaunches()
        return records
    }

    /// Takes the launches completed so far: a later line can no longer change them, so a caller that
    /// writes each one out while reading keeps memory flat however long the log is. `finish` returns the
    /// rest. Not for one launch's log (`finishSingleLaunch` merges what this would take away).
    package mutating func takeFinished() -> [LaunchRecord] {
        let records = finished
        finished = []
        finishedWithStatistics = []
        return records
    }

    /// Ends the input of ONE launch's log and merges everything into one record: the first
    /// statistics block's numbers, every library, every marker (the first value of a name wins),
    /// `done` if seen anywhere, all warnings — plus a warning when more than one statistics block was seen.
    package mutating func finishSingleLaunch() -> LaunchRecord {
        flushCarry()
        current.libraries += pendingLibraries
        pendingLibraries = []
        closeCurrent()
        let records = finished
        let withStatistics = finishedWithStatistics
        resetLaunches()
        guard !records.isEmpty else { return LaunchRecord() }
        let statisticsIndex = withStatistics.firstIndex(of: true)
        var merged = statisticsIndex.map { records[$0] } ?? LaunchRecord()
        merged.loadedLibraries = records.flatMap(\.loadedLibraries)
        merged.markers = [:]
        for record in records {
            merged.markers.merge(record.markers) { first, _ in first }
        }
        merged.done = records.contains(where: \.done)
        merged.warnings = records.flatMap(\.warnings)
        let blocks = withStatistics.filter { $0 }.count
        if blocks > 1 {
            merged.warnings.append(
                "\(blocks) dyld statistics blocks in one launch's output; the first one is used")
        }
        return merged
    }

    /// Forgets launches and progress after `finish`; the line counters keep counting.
    private mutating func resetLaunches() {
        let lines = lineCount
        let unrecognized = unrecognizedLineCount
        self = LaunchLogParser()
        lineCount = lines
        unrecognizedLineCount = unrecognized
    }

    /// Parses a whole input at once (`feed`, then `finish`): every launch found, in order.
    package static func parse(_ bytes: some Sequence<UInt8>) -> [LaunchRecord] {
        var parser = LaunchLogParser()
        parser.feed(bytes)
        return parser.finish()
    }

    // MARK: - Lines

    private mutating func feedBuffer(_ buffer: UnsafeBufferPointer<UInt8>) {
        guard let base = buffer.baseAddress else { return }
        let raw = UnsafeRawPointer(base)
        let n = buffer.count
        var i = 0
        if pendingCR {
            pendingCR = false
            if n > 0 && buffer[0] == 0x0A { i = 1 }
        }
        var start = i
        while i < n {
            // Eight bytes at a time while none is below 0x0E (no LF, no CR): most of a log.
            while i &+ 8 <= n {
                let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if (word &- 0x0E0E_0E0E_0E0E_0E0E) & ~word & 0x8080_8080_8080_8080 != 0 { break }
                i &+= 8
            }
            let limit = min(n, i &+ 8)
            while i < limit, buffer[i] != 0x0A, buffer[i] != 0x0D { i &+= 1 }
            guard i < limit else { continue }
            let byte = buffer[i]
            if carry.isEmpty {
                handleLine(LineBytes(buffer, start, i))
            } else {
                carry.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<i]))
                handleCarry()
            }
            // CRLF is one line break; a lone CR (progress bars) ends a line too.
            if byte == 0x0D {
                if i + 1 < n {
                    if buffer[i + 1] == 0x0A { i += 1 }
                } else {
                    pendingCR = true
                }
            }
            i += 1
            start = i
        }
        if start < n {
            carry.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<n]))
            if carry.count > Self.maxLineBytes {
                carry.removeFirst(carry.count - Self.keptTailBytes)
            }
        }
    }

    private mutating func handleCarry() {
        var line: [UInt8] = []
        swap(&line, &carry)
        line.withUnsafeBufferPointer { handleLine(LineBytes($0, 0, $0.count)) }
        line.removeAll(keepingCapacity: true)
        swap(&line, &carry)
    }

    private mutating func flushCarry() {
        guard !carry.isEmpty else { return }
        lastLineUnterminated = true
        handleCarry()
        lastLineUnterminated = false
    }

    private mutating func handleLine(_ line: LineBytes) {
        lineCount += 1
        let listOpen = current.summary?.listOpen == true || current.totals?.listOpen == true
        let event = LineClassifier.classify(line, listOpen: listOpen)
        apply(event)
        if lastLineUnterminated {
            switch event {
            case .summary, .totals, .listItem, .marker, .library:
                current.warnings.append("the output ended inside a line; its value may be cut short")
            default: break
            }
        }
    }

    // MARK: - Launches

    private mutating func apply(_ event: LogEvent) {
        switch event {
        case .empty:
            if var summary = current.summary, current.totals == nil {
                summary.listOpen = false
                summary.ended = true
                if let last = summary.last, last >= .initializer { progress.statisticsComplete = true }
                current.summary = summary
            }
        case .summary(let line, let time):
            addSummary(line, time)
        case .totals(let line, let value, let indent, let old):
            addTotals(line, value, indent: indent, old: old)
        case .listItem(let name, let time):
            if current.totals?.listOpen == true {
                current.totals?.details.imageInitializers.append(InitializerTime(image: name, ms: time.value))
            } else {
                current.summary?.slowest.append(InitializerTime(image: name, ms: time.value))
            }
            if let problem = TotalsBlock.problem(name, time) { current.warnings.append(problem) }
        case .library(let image):
            switch current.phase {
            case .done:
                startNewLaunch()
                current.libraries.append(image)
                current.phase = .loading
            case .statistics:
                pendingLibraries.append(image)
            case .app:
                current.libraries.append(image)
            case .empty, .loading:
                current.libraries.append(image)
                current.phase = .loading
            }
        case .marker(let name, let ms):
            if current.phase == .done || current.markers[name] != nil {
                startNewLaunch()
            } else {
                takePendingLibraries()
            }
            endStatistics()
            current.markers[name] = ms
            current.phase = .app
            if progress.markers[name] == nil { progress.markers[name] = ms }
        case .unreadableMarker(let text):
            current.warnings.append("unreadable app marker \"\(text)\"; expected [launchbench] mark=NAME t=MS")
        case .done:
            guard !current.done else { return }
            takePendingLibraries()
            endStatistics()
            current.done = true
            current.phase = .done
            progress.done = true
        case .dyldNote:
            break
        case .unrecognized:
            unrecognizedLineCount += 1
        }
    }

    private mutating func addSummary(_ line: SummaryLine, _ time: DyldTime?) {
        let joins: Bool
        if let summary = current.summary {
            joins = current.totals == nil && current.phase <= .statistics && summary.accepts(line)
        } else {
            joins = current.totals == nil && current.phase <= .loading
        }
        if !joins { startNewLaunch() }
        if current.summary == nil { current.summary = SummaryBlock() }
        current.summary?.add(line, time)
        current.phase = .statistics
        if let time, let problem = TotalsBlock.problem(line.label, time) { current.warnings.append(problem) }
    }

    private mutating func addTotals(_ line: TotalsLine, _ value: TotalsValue, indent: Int, old: Bool) {
        let joins: Bool
        if let totals = current.totals {
            joins = current.phase <= .statistics && totals.accepts(line)
        } else if let summary = current.summary {
            joins = current.phase <= .statistics && summary.takesDetails
        } else {
            joins = current.phase <= .loading
        }
        if !joins { startNewLaunch() }
        if current.totals == nil {
            current.totals = TotalsBlock()
            current.summary?.listOpen = false
        }
        if let problem = current.totals?.add(line, value, indent: indent, old: old) { current.warnings.append(problem) }
        current.phase = .statistics
        if line == .imagesUsingWeak { progress.statisticsComplete = true }
    }

    /// Output after the statistics (a marker, `done`) means dyld has finished printing them.
    private mutating func endStatistics() {
        current.summary?.listOpen = false
        current.totals?.listOpen = false
        if current.hasStatistics { progress.statisticsComplete = true }
    }

    private mutating func takePendingLibraries() {
        current.libraries += pendingLibraries
        pendingLibraries = []
    }

    private mutating func startNewLaunch() {
        closeCurrent()
        current = OpenLaunch()
        if !pendingLibraries.isEmpty {
            current.libraries = pendingLibraries
            current.phase = .loading
            pendingLibraries = []
        }
    }

    private mutating func closeCurrent() {
        guard current.hasContent else { return }
        finished.append(current.record())
        finishedWithStatistics.append(current.hasStatistics)
    }
}
