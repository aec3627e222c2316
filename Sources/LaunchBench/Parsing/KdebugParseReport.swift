/// The launches found in one kdebug capture (in start order), for `launchbench parse`.
package typealias ParsedKdebugFile = ParsedFile<KdebugLaunch>

/// `parse`'s output for kdebug captures: per launch the file, its number in the file, the executable, the pid,
/// the `samples.jsonl` metric columns (null in JSON, empty in CSV, `-` in the table when not measured, never
/// 0), initializer time by image and the warnings.
package enum KdebugParseReport {
    /// A JSON array, one object per launch; ends with a newline.
    package static func json(_ files: [ParsedKdebugFile]) -> String {
        var objects: [JSONValue] = []
        for file in files {
            for (index, launch) in file.launches.enumerated() {
                var fields: [(String, JSONValue)] = [
                    ("file", .string(file.file)), ("launch", .number(Double(index + 1))),
                    ("executable", launch.executable.map { .string($0) } ?? .null),
                    ("pid", .number(launch.pid.map(Double.init))),
                ]
                fields += launch.metrics.map { ($0.0.rawValue, .number($0.1)) }
                let initializers = byImage(launch).map {
                    JSONValue.object([("image", .string($0.image)), ("ms", .number($0.ms))])
                }
                fields.append(("initializers", .array(initializers)))
                fields.append(("warnings", .array(launch.phases.warnings.map { .string($0) })))
                objects.append(.object(fields))
            }
        }
        var text = JSONText()
        text.write(.array(objects), indent: 0)
        return text.text + "\n"
    }

    /// RFC 4180: a header (`file`, `launch`, `executable`, `pid`, then the metric columns), one row per launch.
    package static func csv(_ files: [ParsedKdebugFile]) -> String {
        var text = CSVWriter.line(
            ["file", "launch", "executable", "pid"] + KdebugLaunch.columns.map(\.rawValue))
        for file in files {
            for (index, launch) in file.launches.enumerated() {
                text += CSVWriter.line(
                    [file.file, String(index + 1), launch.executable ?? "", launch.pid.map(String.init) ?? ""]
                        + launch.metrics.map { $0.1.map(ParseReport.number) ?? "" })
            }
        }
        return text
    }

    /// Columns for people (`-` = not measured), then initializers by image and the warnings, each naming its
    /// launch.
    package static func table(_ files: [ParsedKdebugFile]) -> String {
        let headers = [
            "file", "#", "executable", "pid", "pre-main", "creation", "dylibs", "rebase/bind", "ObjC",
            "initializers", "closure", "first frame", "page-ins", "page-in ms", "zero-fill", "COW", "compressor",
        ]
        var table = TextTable(
            headers: headers, alignments: [.left, .right, .left] + Array(repeating: .right, count: headers.count - 3))
        var initializers: [String] = []
        var notes: [String] = []
        for file in files {
            for (index, launch) in file.launches.enumerated() {
                let name = "\(file.file) #\(index + 1)"
                table.append(
                    [file.file, String(index + 1), launch.executable ?? "-", launch.pid.map(String.init) ?? "-"]
                        + launch.metrics.map { $0.1.map { DecimalText.fixed($0, maxFractionDigits: 3) } ?? "-" })
                initializers += byImage(launch).map {
                    "  \(name): \($0.image) \(DecimalText.fixed($0.ms, maxFractionDigits: 3)) ms\n"
                }
                notes += launch.phases.warnings.map { "  \(name): \($0)\n" }
            }
        }
        var text = table.render() + "\n"
        if !initializers.isEmpty { text += "\ninitializers by image:\n" + initializers.joined() }
        if !notes.isEmpty { text += "\nwarnings:\n" + notes.joined() }
        return text
    }

    /// Initializer time by image, slowest first (then by path).
    private static func byImage(_ launch: KdebugLaunch) -> [(image: String, ms: Double)] {
        launch.phases.initializersByImage.map { ($0.key, $0.value) }.sorted { ($1.ms, $0.image) < ($0.ms, $1.image) }
    }
}
