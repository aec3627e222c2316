/// Turns one line into a `LogEvent`, looking only at bytes.
///
/// Recognised anywhere in a line (output of other programs may precede them without a line
/// break): dyld4 `dyld[pid]: <UUID> path`, `dyld: loaded: …`, `dyld: <UUID> path`, the app's
/// `[launchbench] …` lines, and the summary block's `… time:` lines (an app's stdout without a final
/// newline glues itself to dyld's `Total pre-main time:`; glued, the value must read as dyld's time with its
/// percentage). Other statistics lines must start the line once indentation, `> ` quote marks and `**`
/// bold marks are stripped.
enum LineClassifier {
    static func classify(_ raw: LineBytes, listOpen: Bool) -> LogEvent {
        var line = raw
        let indent = line.normalize()
        if line.isEmpty { return .empty }
        switch line[0] {
        case UInt8(ascii: "T"):
            if line.hasPrefix("Total pre-main time:") { return .summary(.total, DyldNumbers.time(in: line, after: 20)) }
        case UInt8(ascii: "d"):
            if line.hasPrefix("dylib loading time:") {
                return .summary(.dylibLoading, DyldNumbers.time(in: line, after: 19))
            }
            if line.hasPrefix("dyld"), let event = dyldLine(line, at: 0) { return event }
        case UInt8(ascii: "r"):
            if line.hasPrefix("rebase/binding time:") {
                return .summary(.rebaseBinding, DyldNumbers.time(in: line, after: 20))
            }
        case UInt8(ascii: "O"):
            if line.hasPrefix("ObjC setup time:") { return .summary(.objcSetup, DyldNumbers.time(in: line, after: 16)) }
        case UInt8(ascii: "i"):
            if line.hasPrefix("initializer time:") {
                return .summary(.initializer, DyldNumbers.time(in: line, after: 17))
            }
        case UInt8(ascii: "s"):
            // dyld misspells it in every version; accept the right spelling too.
            if line.hasPrefix("slowest intializers") || line.hasPrefix("slowest initializers") {
                return .summary(.slowestHeader, nil)
            }
        case UInt8(ascii: "t"):
            if line.hasPrefix("total "), let event = totalsLine(line, indent: indent) { return event }
        default:
            break
        }
        if listOpen, let item = listItem(line) { return item }
        return scanAnywhere(line)
    }

    // MARK: - dyld and app lines, possibly glued after other output

    private static func scanAnywhere(_ line: LineBytes) -> LogEvent {
        // dyld's summary lines end in `(p%)`: only such lines are searched for a glued label, so other
        // output costs two byte compares here, nothing in the loop below.
        let n = line.count
        if n > 20, line[n - 1] == UInt8(ascii: ")"), line[n - 2] == UInt8(ascii: "%"),
            let event = gluedSummaryLine(line)
        {
            return event
        }
        var i = 0
        let end = line.count - 4
        while i < end {
            let byte = line[i]
            if byte == UInt8(ascii: "d") {
                if line.hasPrefix("dyld", at: i), let event = dyldLine(line, at: i) { return event }
            } else if byte == UInt8(ascii: "[") {
                if line.hasPrefix(LaunchMarkerFormat.prefix, at: i) {
                    return marker(line, at: i + LaunchMarkerFormat.prefix.utf8CodeUnitCount)
                }
            }
            i += 1
        }
        return .unrecognized
    }

    /// The summary labels, each ending in `time:`.
    private static let summaryLabels: [(text: StaticString, line: SummaryLine)] = [
        ("Total pre-main time:", .total), ("dylib loading time:", .dylibLoading),
        ("rebase/binding time:", .rebaseBinding), ("ObjC setup time:", .objcSetup), ("initializer time:", .initializer),
    ]

    /// A summary line glued after other output: a label ending in `time:`, then a readable dyld time and its
    /// `(p%)`, so an app's own "… time: 5" is not taken for dyld's.
    private static func gluedSummaryLine(_ line: LineBytes) -> LogEvent? {
        var from = 0
        while let found = line.firstOffset(of: "time:", from: from) {
            if let event = gluedSummaryLine(line, colon: found + 4) { return event }
            from = found + 5
        }
        return nil
    }

    private static func gluedSummaryLine(_ line: LineBytes, colon: Int) -> LogEvent? {
        for label in summaryLabels {
            let start = colon + 1 - label.text.utf8CodeUnitCount
            guard start > 0, line.hasPrefix(label.text, at: start) else { continue }
            let time = DyldNumbers.time(in: line, after: colon + 1)
            if case .unreadable = time { return nil }
            guard line.firstOffset(of: "(", from: colon + 1) != nil else { return nil }
            return .summary(label.line, time)
        }
        return nil
    }

    /// A line (or line tail) starting with `dyld` at `offset`; `nil` when it is no form we read.
    private static func dyldLine(_ line: LineBytes, at offset: Int) -> LogEvent? {
        if line.hasPrefix("dyld: ", at: offset) {
            let rest = offset + 6
            if line.hasPrefix("loaded: ", at: rest) { return image(line, at: rest + 8, uuidRequired: false) }
            if line.hasPrefix("<", at: rest) { return image(line, at: rest, uuidRequired: true) }
            guard offset == 0 else { return nil }
            if line.hasPrefix("/", at: rest) { return image(line, at: rest, uuidRequired: false) }
            if line.hasPrefix("found closure", at: rest) || line.hasPrefix("closure ", at: rest) { return .dyldNote }
            return nil
        }
        guard line.hasPrefix("dyld[", at: offset) else { return nil }
        var i = offset + 5
        let digitsStart = i
        while i < line.count, line[i] >= 0x30, line[i] <= 0x39 { i += 1 }
        guard i > digitsStart, line.hasPrefix("]: <", at: i) else { return nil }
        if line.hasPrefix("<no uuid> ", at: i + 3) { return image(line, at: i + 13, uuidRequired: false) }
        return image(line, at: i + 3, uuidRequired: true)
    }

    /// `[<UUID>] path` at `offset`.
    private static func image(_ line: LineBytes, at offset: Int, uuidRequired: Bool) -> LogEvent? {
        var pathStart = offset
        var uuid: String?
        if line.hasPrefix("<", at: offset) {
            guard let parsed = self.uuid(line, at: offset + 1), line.hasPrefix("> ", at: offset + 37) else {
                return nil
            }
            uuid = parsed
            pathStart = offset + 39
        } else if uuidRequired {
            return nil
        }
        let path = line.string(from: pathStart, to: line.count)
        guard !path.isEmpty else { return nil }
        return .library(LoadedImage(path: path, uuid: uuid))
    }

    /// A 36-character UUID at `offset`, upper-cased.
    private static func uuid(_ line: LineBytes, at offset: Int) -> String? {
        guard line.count - offset >= 36 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 36)
        for k in 0..<36 {
            let byte = line[offset + k]
            if k == 8 || k == 13 || k == 18 || k == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                bytes[k] = byte
            } else if (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) {
                bytes[k] = byte
            } else if byte >= 0x61 && byte <= 0x66 {
                bytes[k] = byte - 0x20
            } else {
                return nil
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `mark=NAME t=MS` or `done` after `[launchbench] `.
    private static func marker(_ line: LineBytes, at offset: Int) -> LogEvent {
        if line.hasPrefix("done", at: offset), line.skipBlanks(from: offset + 4) == line.count { return .done }
        guard line.hasPrefix("mark=", at: offset) else {
            return .unreadableMarker(line.string(from: offset, to: line.count))
        }
        var i = offset + 5
        while i < line.count, !LineBytes.isBlank(line[i]) { i += 1 }
        let name = line.string(from: offset + 5, to: i)
        let valueStart = line.skipBlanks(from: i)
        guard !name.isEmpty, line.hasPrefix("t=", at: valueStart),
            let number = DyldNumbers.decimal(in: line, at: valueStart + 2),
            line.skipBlanks(from: number.end) == line.count
        else {
            return .unreadableMarker(
                line.string(from: offset - LaunchMarkerFormat.prefix.utf8CodeUnitCount, to: line.count))
        }
        // Markers are rare: exactness matters more than speed, so go through the decimal text.
        let text = line.string(from: valueStart + 2, to: number.end)
        guard let ms = Double(text), ms.isFinite else {
            return .unreadableMarker(
                line.string(from: offset - LaunchMarkerFormat.prefix.utf8CodeUnitCount, to: line.count))
        }
        return .marker(name, ms)
    }

    // MARK: - Statistics lists

    /// `<name> : <time> (<p>%)`: the name may hold spaces and any bytes, so read from the right.
    private static func listItem(_ line: LineBytes) -> LogEvent? {
        var colon = line.count - 1
        while colon >= 0, line[colon] != UInt8(ascii: ":") { colon -= 1 }
        guard colon > 0 else { return nil }
        let time = DyldNumbers.time(in: line, after: colon + 1)
        if case .unreadable = time { return nil }
        // Require the percentage dyld always prints, so that other output ending in a time is not taken.
        guard line.firstOffset(of: "(", from: colon + 1) != nil else { return nil }
        let name = line.string(from: 0, to: colon)
        guard !name.isEmpty else { return nil }
        return .listItem(name, time)
    }

    // MARK: - Details and old blocks

    private struct TotalsLabel {
        let text: StaticString
        let line: TotalsLine
        let isTime: Bool
        let old: Bool
    }

    /// Labels after `total `, each with its colon, so no label is a prefix of another.
    private static let totalsLabels: [TotalsLabel] = [
        TotalsLabel(text: "time:", line: .totalTime, isTime: true, old: false),
        TotalsLabel(text: "images loaded:", line: .imagesLoaded, isTime: false, old: false),
        TotalsLabel(text: "segments mapped:", line: .segmentsMapped, isTime: false, old: false),
        TotalsLabel(text: "images loading time:", line: .imagesLoadingTime, isTime: true, old: false),
        TotalsLabel(text: "load time in ObjC:", line: .objcLoadTime, isTime: true, old: false),
        TotalsLabel(text: "debugger pause time:", line: .debuggerPauseTime, isTime: true, old: false),
        TotalsLabel(text: "dtrace DOF registration time:", line: .dtraceTime, isTime: true, old: false),
        TotalsLabel(text: "rebase fixups:", line: .rebaseFixups, isTime: false, old: false),
        TotalsLabel(text: "rebase fixups time:", line: .rebaseFixupsTime, isTime: true, old: false),
        TotalsLabel(text: "binding fixups:", line: .bindingFixups, isTime: false, old: false),
        TotalsLabel(text: "binding symbol lookups:", line: .bindingSymbolLookups, isTime: false, old: false),
        TotalsLabel(text: "binding fixups time:", line: .bindingFixupsTime, isTime: true, old: false),
        TotalsLabel(text: "weak binding fixups time:", line: .weakBindingTime, isTime: true, old: false),
        TotalsLabel(text: "redo shared cached bindings time:", line: .redoSharedCacheTime, isTime: true, old: false),
        TotalsLabel(text: "bindings lazily fixed up:", line: .lazyBindings, isTime: false, old: false),
        TotalsLabel(text: "time in initializers and ObjC +load:", line: .initializerTime, isTime: true, old: false),
        TotalsLabel(text: "initializer time:", line: .initializerTime, isTime: true, old: true),
        TotalsLabel(text: "time in initializers and ObjC setup:", line: .initializerTime, isTime: true, old: true),
        TotalsLabel(text: "symbol trie searches:", line: .symbolTrieSearches, isTime: false, old: false),
        TotalsLabel(text: "symbol table binary searches:", line: .symbolTableBinarySearches, isTime: false, old: false),
        TotalsLabel(text: "images defining weak symbols:", line: .imagesDefiningWeak, isTime: false, old: false),
        TotalsLabel(text: "images using weak symbols:", line: .imagesUsingWeak, isTime: false, old: false),
    ]

    private static func totalsLine(_ line: LineBytes, indent: Int) -> LogEvent? {
        for label in totalsLabels where line.hasPrefix(label.text, at: 6) {
            let valueStart = 6 + label.text.utf8CodeUnitCount
            let value: TotalsValue
            if label.isTime {
                value = .time(DyldNumbers.time(in: line, after: valueStart))
            } else {
                let counts = Self.counts(line, from: valueStart)
                value = counts.isEmpty ? .unreadable(line.string(from: valueStart, to: line.count)) : .counts(counts)
            }
            return .totals(label.line, value, indent: indent, old: label.old)
        }
        return nil
    }

    /// The numbers of `N (M from dyld shared cache)`, `N, into P pages with Q pages pre-fetched`, `N of M`.
    private static func counts(_ line: LineBytes, from offset: Int) -> [Int] {
        var result: [Int] = []
        var i = offset
        while i < line.count, result.count < 3 {
            let byte = line[i]
            if byte >= 0x30 && byte <= 0x39, let count = DyldNumbers.count(in: line, at: i) {
                result.append(count.value)
                i = count.end
            } else {
                i += 1
            }
        }
        return result
    }
}
