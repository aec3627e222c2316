/// A `Total pre-main time` block as it is read, line by line.
struct SummaryBlock {
    var seen: UInt8 = 0
    var last: SummaryLine?
    /// The five values, in `SummaryLine` order; `nil` when not printed or not a measurement.
    var total: Double?
    var dylibLoading: Double?
    var rebaseBinding: Double?
    var objcSetup: Double?
    var initializer: Double?
    /// The five times as printed, in `SummaryLine` order, for reading them to dyld's precision.
    var times: [DyldTime?] = Array(repeating: nil, count: 5)
    var slowest: [InitializerTime] = []
    var listOpen = false
    /// dyld's empty line after the block was seen.
    var ended = false

    /// Whether `line` continues this block: dyld prints its lines in a fixed order, so a line that
    /// does not come after the last one seen starts another block.
    func accepts(_ line: SummaryLine) -> Bool {
        guard let last else { return true }
        return line > last
    }

    mutating func add(_ line: SummaryLine, _ time: DyldTime?) {
        seen |= line.bit
        last = line
        let value = time?.value
        if line.rawValue < times.count { times[line.rawValue] = time }
        switch line {
        case .total: total = value
        case .dylibLoading: dylibLoading = value
        case .rebaseBinding: rebaseBinding = value
        case .objcSetup: objcSetup = value
        case .initializer: initializer = value
        case .slowestHeader: break
        }
        listOpen = line == .slowestHeader
    }

    var missing: [SummaryLine] { SummaryLine.allCases.filter { seen & $0.bit == 0 } }

    /// Whether a details block that follows is this summary's own: dyld prints it right after the
    /// summary's empty line. A summary cut short before that line is another launch's.
    var takesDetails: Bool { ended || missing.isEmpty }
}

/// A details block (dyld 421–852) or an old block (dyld ≤360), as it is read.
struct TotalsBlock {
    var seen: UInt32 = 0
    var last: TotalsLine?
    /// `total time` was printed in seconds (one decimal).
    var totalInSeconds = false
    var details = DyldDetails()
    /// The times as printed, for reading them to dyld's precision.
    var times: [TotalsLine: DyldTime] = [:]
    var listOpen = false
    /// Wording only one kind prints was seen.
    var sawDetailsWording = false
    var sawOldWording = false
    /// Indentation of the first line: details lines are indented, old ones are not.
    var firstIndent: Int?

    func accepts(_ line: TotalsLine) -> Bool {
        guard let last else { return true }
        return line > last
    }

    var isComplete: Bool { seen & TotalsLine.imagesUsingWeak.bit != 0 }

    /// Details unless the wording or (failing that) the missing indentation says old.
    func isDetails(afterSummary: Bool) -> Bool {
        if sawDetailsWording || afterSummary { return true }
        if sawOldWording { return false }
        return (firstIndent ?? 0) > 0
    }

    mutating func add(_ line: TotalsLine, _ value: TotalsValue, indent: Int, old: Bool) -> String? {
        seen |= line.bit
        last = line
        if firstIndent == nil { firstIndent = indent }
        if old { sawOldWording = true }
        if TotalsLine.detailsOnly.contains(line) { sawDetailsWording = true }
        if line == .initializerTime && !old { sawDetailsWording = true }
        listOpen = line == .initializerTime
        switch value {
        case .time(let time):
            if line == .totalTime { totalInSeconds = time.inSeconds }
            times[line] = time
            store(line, time: time.value)
            return Self.problem(line.label, time)
        case .counts(let counts):
            store(line, counts: counts)
            return nil
        case .unreadable(let text):
            return "\(line.label): unreadable value \"\(text)\"; not measured"
        }
    }

    private mutating func store(_ line: TotalsLine, time: Double?) {
        switch line {
        case .totalTime: details.totalTimeMs = time
        case .imagesLoadingTime: details.imagesLoadingTimeMs = time
        case .objcLoadTime: details.objcLoadTimeMs = time
        case .debuggerPauseTime: details.debuggerPauseTimeMs = time
        case .dtraceTime: details.dtraceDOFRegistrationTimeMs = time
        case .rebaseFixupsTime: details.rebaseFixupsTimeMs = time
        case .bindingFixupsTime: details.bindingFixupsTimeMs = time
        case .weakBindingTime: details.weakBindingFixupsTimeMs = time
        case .redoSharedCacheTime: details.redoSharedCachedBindingsTimeMs = time
        case .initializerTime: details.initializerTimeMs = time
        default: break
        }
    }

    private mutating func store(_ line: TotalsLine, counts: [Int]) {
        let first = counts.first
        let second = counts.count > 1 ? counts[1] : nil
        switch line {
        case .imagesLoaded:
            details.imagesLoaded = first
            details.imagesFromSharedCache = second
        case .segmentsMapped:
            details.segmentsMapped = first
            details.pagesMapped = second
            details.pagesPrefetched = counts.count > 2 ? counts[2] : nil
        case .rebaseFixups: details.rebaseFixups = first
        case .bindingFixups: details.bindingFixups = first
        case .bindingSymbolLookups: details.bindingSymbolLookups = first
        case .lazyBindings:
            details.bindingsLazilyFixedUp = first
            details.bindingsLazilyTotal = second
        case .symbolTrieSearches: details.symbolTrieSearches = first
        case .symbolTableBinarySearches: details.symbolTableBinarySearches = first
        case .imagesDefiningWeak: details.imagesDefiningWeakSymbols = first
        case .imagesUsingWeak: details.imagesUsingWeakSymbols = first
        default: break
        }
    }

    /// The warning for a time that is not a measurement, `nil` for a good one.
    static func problem(_ label: String, _ time: DyldTime) -> String? {
        switch time {
        case .ms: return nil
        case .implausible(let text):
            return "\(label): \(text) is dyld's 64-bit wrap-around artefact, not a measurement; not measured"
        case .unreadable(let text):
            return "\(label): unreadable value \"\(text)\"; not measured"
        }
    }
}
