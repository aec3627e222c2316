/// One launch while its output is still being read.
struct OpenLaunch {
    /// How far the launch has got: a process prints its libraries, then (dyld2) statistics, then app markers, then `done`.
    enum Phase: Int, Comparable {
        case empty, loading, statistics, app, done
        static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    }

    var phase = Phase.empty
    var summary: SummaryBlock?
    var totals: TotalsBlock?
    var libraries: [LoadedImage] = []
    var markers: [String: Double] = [:]
    var done = false
    var warnings: [String] = []

    var hasContent: Bool { phase != .empty || !warnings.isEmpty }
    var hasStatistics: Bool { summary != nil || totals != nil }

    /// The record, with summary numbers derived from a details or old block when no summary was printed.
    func record() -> LaunchRecord {
        var record = LaunchRecord(loadedLibraries: libraries, markers: markers, done: done)
        var warnings = self.warnings
        if let summary {
            record.totalPremainMs = summary.total
            record.dylibLoadingMs = summary.dylibLoading
            record.rebaseBindingMs = summary.rebaseBinding
            record.objcSetupMs = summary.objcSetup
            record.initializerMs = summary.initializer
            record.slowestInitializers = summary.slowest
            let missing = summary.missing
            if !missing.isEmpty {
                warnings.append(
                    Self.cutShort(
                        "summary block", lastSeen: summary.last?.label, missing: missing.map(\.label),
                        missingAreTail: missing.allSatisfy { line in summary.last.map { line > $0 } ?? true }))
            }
        }
        if let totals {
            let isDetails = totals.isDetails(afterSummary: summary != nil)
            record.details = totals.details
            let required = isDetails ? TotalsLine.requiredInDetails : TotalsLine.requiredInOld
            let missing = required.filter { totals.seen & $0.bit == 0 }
            if !missing.isEmpty {
                let kind = isDetails ? "details block" : "old (dyld ≤360) block"
                warnings.append(
                    Self.cutShort(
                        kind, lastSeen: totals.last?.label(old: !isDetails),
                        missing: missing.map { $0.label(old: !isDetails) },
                        missingAreTail: missing.allSatisfy { line in totals.last.map { line > $0 } ?? true }))
            }
            if summary == nil {
                if isDetails {
                    Self.deriveFromDetails(totals, into: &record, warnings: &warnings)
                } else {
                    Self.deriveFromOld(totals, into: &record, warnings: &warnings)
                }
            }
        }
        record.warnings = warnings
        return record
    }

    // MARK: - Summary numbers from a details or old block (DYLD-FORMATS.md)

    private static func deriveFromDetails(
        _ block: TotalsBlock, into record: inout LaunchRecord, warnings: inout [String]
    ) {
        let d = block.details
        record.dylibLoadingMs = derive(
            "dylib loading time", [d.imagesLoadingTimeMs], minus: [d.debuggerPauseTimeMs], warnings: &warnings)
        record.rebaseBindingMs = derive(
            "rebase/binding time", [d.rebaseFixupsTimeMs, d.bindingFixupsTimeMs, d.weakBindingFixupsTimeMs],
            minus: [d.redoSharedCachedBindingsTimeMs], warnings: &warnings)
        record.objcSetupMs = d.objcLoadTimeMs
        record.initializerMs = d.initializerTimeMs
        // A total printed in seconds has one decimal; the parts (plus the DOF time the summary leaves out) are finer.
        if block.totalInSeconds, let dylib = record.dylibLoadingMs,
            let rebase = record.rebaseBindingMs, let objc = record.objcSetupMs, let initializer = record.initializerMs,
            let dof = d.dtraceDOFRegistrationTimeMs
        {
            record.totalPremainMs = DyldNumbers.roundedToHundredths(dylib + rebase + objc + initializer + dof)
        } else {
            record.totalPremainMs = derive(
                "pre-main time", [d.totalTimeMs], minus: [d.debuggerPauseTimeMs, d.redoSharedCachedBindingsTimeMs],
                warnings: &warnings)
        }
    }

    private static func deriveFromOld(_ block: TotalsBlock, into record: inout LaunchRecord, warnings: inout [String]) {
        let d = block.details
        record.totalPremainMs = d.totalTimeMs
        record.dylibLoadingMs = d.imagesLoadingTimeMs
        record.rebaseBindingMs = derive(
            "rebase/binding time", [d.rebaseFixupsTimeMs, d.bindingFixupsTimeMs, d.weakBindingFixupsTimeMs], minus: [],
            warnings: &warnings)
        record.objcSetupMs = nil  // dyld ≤360 has no ObjC line: its setup runs inside libobjc's initializer
        record.initializerMs = d.initializerTimeMs
    }

    /// Sum of `plus` minus sum of `minus`, `nil` if any part is missing; negative → `nil` with a warning.
    private static func derive(_ name: String, _ plus: [Double?], minus: [Double?], warnings: inout [String]) -> Double?
    {
        var sum = 0.0
        for value in plus {
            guard let value else { return nil }
            sum += value
        }
        for value in minus {
            guard let value else { return nil }
            sum -= value
        }
        let rounded = DyldNumbers.roundedToHundredths(sum)
        if rounded < 0 {
            warnings.append(
                "\(name) derived from the details is negative (\(rounded) ms): dyld's counters wrapped; not measured")
            return nil
        }
        return rounded
    }

    /// "cut short after 'X': no 'Y' line or any after it" when the block just stops, else the missing lines.
    private static func cutShort(_ kind: String, lastSeen: String?, missing: [String], missingAreTail: Bool) -> String {
        if missingAreTail, let lastSeen, let first = missing.first {
            let rest = missing.count > 1 ? " or any after it" : ""
            return "\(kind) cut short after '\(lastSeen)': no '\(first)' line\(rest)"
        }
        return "\(kind) incomplete: no " + missing.map { "'\($0)'" }.joined(separator: ", ") + " line"
    }
}
