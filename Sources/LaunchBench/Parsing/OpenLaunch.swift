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
            Self.apply(Self.readSummary(summary.times), to: &record, warnings: &warnings)
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
                    Self.apply(Self.readDetails(totals.times), to: &record, warnings: &warnings)
                } else {
                    Self.deriveFromOld(totals, into: &record, warnings: &warnings)
                    Self.apply(Self.readOld(totals.times), to: &record, warnings: &warnings)
                }
            }
        }
        record.warnings = warnings
        return record
    }

    // MARK: - Values printed in seconds, read to dyld's precision (DyldPrecision)

    private static func apply(_ outcome: DyldPrecision.Outcome, to record: inout LaunchRecord, warnings: inout [String])
    {
        switch outcome {
        case .asPrinted: return
        case .inconsistent(let warning): warnings.append(warning)
        case .read(let values, let bounds):
            for (metric, value) in values { record.setPremain(metric, value) }
            record.bounds += bounds
            warnings.append(DyldPrecision.warning)
        }
    }

    private typealias Terms = [(index: Int, sign: Double)]
    private static func plus(_ indices: Int...) -> Terms { indices.map { ($0, 1) } }

    /// printStatistics (dyld-852.2 src/ImageLoader.cpp:1733–1754; dyld-421.2 and -655.1.1 alike): the total is
    /// the four parts plus the DOF time it does not print (1735–1742); every percentage is of the total.
    private static func readSummary(_ times: [DyldTime?]) -> DyldPrecision.Outcome {
        DyldPrecision.read(
            times, labels: SummaryLine.allCases.prefix(5).map(\.label), parts: [1, 2, 3, 4],
            unprinted: DyldPrecision.summaryUnprintedDOF,
            formulas: [
                .init(metric: .totalPremainMs, terms: plus(0)), .init(metric: .dylibLoadingMs, terms: plus(1)),
                .init(metric: .rebaseBindingMs, terms: plus(2)), .init(metric: .objcSetupMs, terms: plus(3)),
                .init(metric: .initializerMs, terms: plus(4)),
            ])
    }

    /// printStatisticsDetails (dyld-852.2 src/ImageLoader.cpp:1756–1794): `total time` is images loading +
    /// rebase + binding + weak binding + DOF + initializers, where the initializer line leaves out the ObjC
    /// time printed on its own (1758, 1766, 1783); the debugger pause sits inside images loading and the redone
    /// bindings inside binding, and the summary subtracts both (1737, 1739–1740). Percentages are of `total time`.
    private static func readDetails(_ times: [TotalsLine: DyldTime]) -> DyldPrecision.Outcome {
        let lines: [TotalsLine] = [
            .totalTime, .imagesLoadingTime, .objcLoadTime, .debuggerPauseTime, .dtraceTime, .rebaseFixupsTime,
            .bindingFixupsTime, .weakBindingTime, .redoSharedCacheTime, .initializerTime,
        ]
        let (total, loading, objc, pause, dof, rebase, binding, weak, redo, initializers) = (
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9
        )
        return DyldPrecision.read(
            lines.map { times[$0] }, labels: lines.map(\.label),
            parts: [loading, objc, dof, rebase, binding, weak, initializers],
            formulas: [
                .init(
                    metric: .totalPremainMs, terms: [(total, 1), (pause, -1), (redo, -1)],
                    alternatives: [
                        plus(loading, rebase, binding, weak, objc, initializers, dof) + [(pause, -1), (redo, -1)]
                    ]),
                .init(metric: .dylibLoadingMs, terms: [(loading, 1), (pause, -1)]),
                .init(metric: .rebaseBindingMs, terms: plus(rebase, binding, weak) + [(redo, -1)]),
                .init(metric: .objcSetupMs, terms: plus(objc)),
                .init(metric: .initializerMs, terms: plus(initializers)),
            ])
    }

    /// dyld ≤360's printStatistics (dyld-360.22 src/ImageLoader.cpp:1078–1115): `total time` is images loading +
    /// rebase + binding + weak binding + DOF + initializers, all printed, percentages of it (1080, 1084–1109).
    private static func readOld(_ times: [TotalsLine: DyldTime]) -> DyldPrecision.Outcome {
        let lines: [TotalsLine] = [
            .totalTime, .imagesLoadingTime, .dtraceTime, .rebaseFixupsTime, .bindingFixupsTime, .weakBindingTime,
            .initializerTime,
        ]
        return DyldPrecision.read(
            lines.map { times[$0] }, labels: lines.map { $0.label(old: true) }, parts: [1, 2, 3, 4, 5, 6],
            formulas: [
                .init(metric: .totalPremainMs, terms: plus(0)), .init(metric: .dylibLoadingMs, terms: plus(1)),
                .init(metric: .rebaseBindingMs, terms: plus(3, 4, 5)), .init(metric: .initializerMs, terms: plus(6)),
            ])
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
