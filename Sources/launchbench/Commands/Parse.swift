import ArgumentParser
import Foundation
import LaunchBench

/// `launchbench parse`: reads captured launch logs and prints the launches found in them.
struct Parse: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read dyld statistics, loaded libraries and app markers from captured logs.",
        discussion: """
            Understands every format dyld printed for DYLD_PRINT_STATISTICS(_DETAILS) and DYLD_PRINT_LIBRARIES \
            (iOS 9 to 14, macOS), and the app's `[launchbench] mark=NAME t=MS` lines. A log may hold several \
            launches; each becomes one JSON object or CSV row. Values a log does not contain are null (JSON) or \
            empty (CSV), never 0. Use - to read stdin.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, csv, table
    }

    @Argument(help: ArgumentHelp("Log files to read (- for stdin).", valueName: "log"))
    var logs: [String]

    @Option(help: ArgumentHelp("Output format: json, csv or table.", valueName: "format"))
    var format: Format = .json

    func validate() throws {
        guard !logs.isEmpty else { throw ValidationError("Name at least one log file, or - to read stdin.") }
    }

    func run() throws {
        var parsed: [ParsedLog] = []
        for path in logs {
            let launches = try parse(path)
            if launches.isEmpty {
                Terminal.note(
                    "\(path): no launch found (no dyld statistics, loaded libraries or [launchbench] markers).")
            }
            parsed.append(ParsedLog(file: path, launches: launches))
        }
        let text: String
        switch format {
        case .json: text = ParseReport.json(parsed)
        case .csv: text = ParseReport.csv(parsed)
        case .table: text = ParseReport.table(parsed)
        }
        Terminal.output(text)
    }

    /// Streams the file through the parser in 1 MiB reads: big logs never sit in memory whole.
    private func parse(_ path: String) throws -> [LaunchRecord] {
        let handle = try open(path)
        var parser = LaunchLogParser()
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                chunk.withUnsafeBytes { parser.feed($0.bindMemory(to: UInt8.self)) }
            }
        } catch {
            throw CommandFailure(
                .failure,
                "cannot read log file \(path): \(error.localizedDescription). Check that it is a readable file.")
        }
        return parser.finish()
    }

    private func open(_ path: String) throws -> FileHandle {
        if path == "-" { return FileHandle.standardInput }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CommandFailure(.failure, "log file not found: \(path). Check the path.")
        }
        if isDirectory.boolValue {
            throw CommandFailure(
                .failure,
                "\(path) is a folder, not a log file. Name the log files inside it, e.g. \(path)/logs/*/*.log.")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CommandFailure(.failure, "cannot open log file \(path). Check its permissions.")
        }
        return handle
    }
}
