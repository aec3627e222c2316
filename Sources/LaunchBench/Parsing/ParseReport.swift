/// The launches found in one log file, for `launchbench parse`.
package typealias ParsedLog = ParsedFile<LaunchRecord>

/// The output formats of `launchbench parse`. Absent values are JSON `null` and empty CSV cells, never 0.
package enum ParseReport {
    /// The metric columns of `samples.csv` a log can give.
    static let csvMetrics: [Metric] = Metric.preMain + Metric.markers

    /// A JSON array, one object per launch: `file`, the five pre-main values, `slowestInitializers`,
    /// `details` (object or null), `loadedLibraries`, `markers`, `warnings`. Ends with a newline.
    package static func json(_ logs: [ParsedLog]) -> String { render(logs, as: .json) }

    /// One launch as the JSON object `parse` prints (without `file` when `file` is nil).
    package static func json(_ record: LaunchRecord) -> String {
        var out = JSONText()
        out.write(jsonValue(record, file: nil), indent: 0)
        return out.text
    }

    /// RFC 4180: a header, then one row per launch: `file`, `launch` (1-based within the file), the metric columns.
    package static func csv(_ logs: [ParsedLog]) -> String { render(logs, as: .csv) }

    private static func render(_ logs: [ParsedLog], as format: ParseOutput.Format) -> String {
        var output = ParseOutput(format)
        var text = output.begin()
        for log in logs {
            for (index, record) in log.launches.enumerated() {
                text += output.launch(record, file: log.file, number: index + 1)
            }
        }
        return text + output.end()
    }

    fileprivate static func csvRow(_ record: LaunchRecord, file: String, number launch: Int) -> String {
        var text = file == "-" ? "-" : CSVWriter.escape(file)  // stdin, not a formula
        text += ","
        text += String(launch)
        for value in metricValues(record) {
            text += ","
            if let value { text += number(value) }
        }
        return text + "\r\n"
    }

    fileprivate static func jsonObject(_ record: LaunchRecord, file: String) -> String {
        var out = JSONText()
        out.write(jsonValue(record, file: file), indent: 1)
        return out.text
    }

    /// The `csvMetrics` of a record, in order (no dictionary: this runs once per launch of a big log).
    static func metricValues(_ record: LaunchRecord) -> [Double?] {
        [
            record.totalPremainMs, record.dylibLoadingMs, record.rebaseBindingMs, record.objcSetupMs,
            record.initializerMs,
            record.markers["main"], record.markers["didFinishLaunching"], record.markers["firstFrame"],
        ]
    }

    /// Columns for people: one row per launch (`-` = not printed), then the warnings, each naming its launch.
    package static func table(_ logs: [ParsedLog]) -> String {
        let headers = [
            "file", "#", "pre-main", "dylibs", "rebase/bind", "ObjC", "initializers", "main",
            "didFinishLaunching", "firstFrame", "libraries",
        ]
        var table = TextTable(
            headers: headers, alignments: [.left] + Array(repeating: .right, count: headers.count - 1))
        var notes: [String] = []
        for log in logs {
            for (index, record) in log.launches.enumerated() {
                let values = metricValues(record).map { $0.map(number) ?? "-" }
                table.append([log.file, String(index + 1)] + values + [String(record.loadedLibraries.count)])
                notes += record.warnings.map { "\(log.file) #\(index + 1): \($0)" }
                notes += record.bounds.map { "\(log.file) #\(index + 1): \($0.metric.rawValue): \($0.note)" }
            }
        }
        var text = table.render() + "\n"
        if !notes.isEmpty { text += "\nwarnings:\n" + notes.map { "  " + $0 + "\n" }.joined() }
        return text
    }

    /// A number as dyld would print it: shortest exact decimal, no exponent for ordinary values, no `.0`.
    package static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    // MARK: - JSON

    private static func jsonValue(_ record: LaunchRecord, file: String?) -> JSONValue {
        var fields: [(String, JSONValue)] = []
        if let file { fields.append(("file", .string(file))) }
        fields += [
            ("totalPremainMs", .number(record.totalPremainMs)),
            ("dylibLoadingMs", .number(record.dylibLoadingMs)),
            ("rebaseBindingMs", .number(record.rebaseBindingMs)),
            ("objcSetupMs", .number(record.objcSetupMs)),
            ("initializerMs", .number(record.initializerMs)),
            ("slowestInitializers", .array(record.slowestInitializers.map(jsonValue))),
            ("details", record.details.map(jsonValue) ?? .null),
            (
                "loadedLibraries",
                .array(
                    record.loadedLibraries.map {
                        .object([("path", .string($0.path)), ("uuid", $0.uuid.map(JSONValue.string) ?? .null)])
                    })
            ),
            ("markers", .object(record.markers.sorted { $0.key < $1.key }.map { ($0.key, .number($0.value)) })),
            ("warnings", .array(record.warnings.map(JSONValue.string))),
        ]
        // Only where dyld printed a time in seconds, so that every other launch reads as before.
        if !record.bounds.isEmpty {
            fields.append(
                (
                    "bounds",
                    .array(
                        record.bounds.map {
                            .object([
                                ("metric", .string($0.metric.rawValue)), ("lowMs", .number($0.lowMs)),
                                ("highMs", .number($0.highMs)), ("note", .string($0.note)),
                            ])
                        })
                ))
        }
        return .object(fields)
    }

    private static func jsonValue(_ item: InitializerTime) -> JSONValue {
        .object([("image", .string(item.image)), ("ms", .number(item.ms))])
    }

    private static func jsonValue(_ d: DyldDetails) -> JSONValue {
        func int(_ value: Int?) -> JSONValue { value.map { .number(Double($0)) } ?? .null }
        return .object([
            ("totalTimeMs", .number(d.totalTimeMs)),
            ("imagesLoaded", int(d.imagesLoaded)),
            ("imagesFromSharedCache", int(d.imagesFromSharedCache)),
            ("segmentsMapped", int(d.segmentsMapped)),
            ("pagesMapped", int(d.pagesMapped)),
            ("pagesPrefetched", int(d.pagesPrefetched)),
            ("imagesLoadingTimeMs", .number(d.imagesLoadingTimeMs)),
            ("objcLoadTimeMs", .number(d.objcLoadTimeMs)),
            ("debuggerPauseTimeMs", .number(d.debuggerPauseTimeMs)),
            ("dtraceDOFRegistrationTimeMs", .number(d.dtraceDOFRegistrationTimeMs)),
            ("rebaseFixups", int(d.rebaseFixups)),
            ("rebaseFixupsTimeMs", .number(d.rebaseFixupsTimeMs)),
            ("bindingFixups", int(d.bindingFixups)),
            ("bindingSymbolLookups", int(d.bindingSymbolLookups)),
            ("bindingFixupsTimeMs", .number(d.bindingFixupsTimeMs)),
            ("weakBindingFixupsTimeMs", .number(d.weakBindingFixupsTimeMs)),
            ("redoSharedCachedBindingsTimeMs", .number(d.redoSharedCachedBindingsTimeMs)),
            ("bindingsLazilyFixedUp", int(d.bindingsLazilyFixedUp)),
            ("bindingsLazilyTotal", int(d.bindingsLazilyTotal)),
            ("initializerTimeMs", .number(d.initializerTimeMs)),
            ("imageInitializers", .array(d.imageInitializers.map(jsonValue))),
            ("symbolTrieSearches", int(d.symbolTrieSearches)),
            ("symbolTableBinarySearches", int(d.symbolTableBinarySearches)),
            ("imagesDefiningWeakSymbols", int(d.imagesDefiningWeakSymbols)),
            ("imagesUsingWeakSymbols", int(d.imagesUsingWeakSymbols)),
        ])
    }
}

/// `parse`'s JSON or CSV written one launch at a time, so the output of a big log never sits in memory
/// whole: `begin`, then `launch` for each launch as the parser completes it, then `end`. The text is the
/// same as ``ParseReport/json(_:)`` and ``ParseReport/csv(_:)`` give for the whole input.
package struct ParseOutput: Sendable {
    /// The streamable formats (the table needs every row to size its columns).
    package enum Format: Sendable {
        /// A JSON array, one object per launch.
        case json
        /// RFC 4180 CSV with a header row.
        case csv
    }

    private let format: Format
    private var launches = 0

    /// An output in `format` that has written nothing yet.
    package init(_ format: Format) {
        self.format = format
    }

    /// The text before the first launch: the CSV header (nothing for JSON, whose opening depends on
    /// whether a launch follows).
    package func begin() -> String {
        format == .csv ? CSVWriter.line(["file", "launch"] + ParseReport.csvMetrics.map(\.rawValue)) : ""
    }

    /// One launch: the `number`th (1-based) of `file`.
    package mutating func launch(_ record: LaunchRecord, file: String, number: Int) -> String {
        launches += 1
        switch format {
        case .csv: return ParseReport.csvRow(record, file: file, number: number)
        case .json: return (launches == 1 ? "[\n  " : ",\n  ") + ParseReport.jsonObject(record, file: file)
        }
    }

    /// The text after the last launch.
    package func end() -> String {
        guard format == .json else { return "" }
        return launches == 0 ? "[]\n" : "\n]\n"
    }
}

/// Just enough JSON to print keys in a fixed order with explicit nulls (`parse`'s dyld and kdebug reports).
indirect enum JSONValue {
    case null
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    static func number(_ value: Double?) -> JSONValue { value.map { .number($0) } ?? .null }
}

struct JSONText {
    var text = ""

    mutating func write(_ value: JSONValue, indent: Int) {
        switch value {
        case .null: text += "null"
        case .number(let number): text += number.isFinite ? ParseReport.number(number) : "null"
        case .string(let string): writeString(string)
        case .array(let items):
            guard !items.isEmpty else {
                text += "[]"
                return
            }
            text += "[\n"
            for (index, item) in items.enumerated() {
                pad(indent + 1)
                write(item, indent: indent + 1)
                text += index == items.count - 1 ? "\n" : ",\n"
            }
            pad(indent)
            text += "]"
        case .object(let fields):
            guard !fields.isEmpty else {
                text += "{}"
                return
            }
            text += "{\n"
            for (index, (key, item)) in fields.enumerated() {
                pad(indent + 1)
                writeString(key)
                text += ": "
                write(item, indent: indent + 1)
                text += index == fields.count - 1 ? "\n" : ",\n"
            }
            pad(indent)
            text += "}"
        }
    }

    private static let indents = (0..<8).map { String(repeating: "  ", count: $0) }

    private mutating func pad(_ level: Int) {
        text += level < Self.indents.count ? Self.indents[level] : String(repeating: "  ", count: level)
    }

    private mutating func writeString(_ string: String) {
        text += "\""
        if !string.utf8.contains(where: {
            $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == 0x7F
        }) {
            text += string
            text += "\""
            return
        }
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        text += "\""
    }
}
