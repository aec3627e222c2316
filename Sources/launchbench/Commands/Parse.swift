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

            Also reads kdebug captures (RAW_VERSION2, known by their magic; Apple LZ4 `bv41` is decoded): \
            launchbench's DIR/kdebug/UDID/NNNN-cold.kdebug or a whole-session capture from another tool \
            (e.g. `pymobiledevice3 developer dvt core-profile-session save`). Each app launch in it is one \
            object or row: executable, pid, the samples.jsonl phase columns, initializers by image, warnings. \
            --process NAME keeps that executable's launches. Name kdebug captures and logs in separate calls.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, csv, table
    }

    @Argument(help: ArgumentHelp("Log files to read (- for stdin).", valueName: "log"))
    var logs: [String]

    @Option(help: ArgumentHelp("Output format: json, csv or table.", valueName: "format"))
    var format: Format = .json

    @Option(help: ArgumentHelp("Keep only this executable's launches (kdebug captures).", valueName: "name"))
    var process: String?

    func validate() throws {
        guard !logs.isEmpty else { throw ValidationError("Name at least one log file, or - to read stdin.") }
    }

    func run() throws {
        let captures = logs.filter { $0 != "-" && KdebugCapture.isCapture(path: $0) }
        if !captures.isEmpty {
            guard captures.count == logs.count else {
                let others = logs.filter { !captures.contains($0) }.joined(separator: ", ")
                throw CommandFailure(
                    .failure,
                    "\(captures.joined(separator: ", ")) are kdebug captures but \(others) are not: their columns "
                        + "differ, so parse them in separate calls.")
            }
            return try KdebugCapture(paths: logs, process: process).print(format: format)
        }
        if let process {
            throw CommandFailure(
                .failure,
                "--process \(process) applies to kdebug captures only, and none was named: drop --process for "
                    + "dyld logs.")
        }
        switch format {
        case .json: try stream(as: .json)
        case .csv: try stream(as: .csv)
        case .table:
            let parsed = try logs.map { path in
                var launches: [LaunchRecord] = []
                let rest = try parse(path) { launches += $0 }
                return ParsedLog(file: path, launches: launches + rest)
            }
            Terminal.output(ParseReport.table(parsed))
        }
    }

    /// JSON and CSV are written a launch at a time as the parser completes them: memory stays flat
    /// however big the logs are (the table needs every row first to size its columns).
    private func stream(as format: ParseOutput.Format) throws {
        var output = ParseOutput(format)
        var pending = output.begin()
        for path in logs {
            var number = 0
            let rest = try parse(path) { records in
                for record in records {
                    number += 1
                    pending += output.launch(record, file: path, number: number)
                }
                if pending.utf8.count >= 1 << 16 {
                    Terminal.output(pending)
                    pending = ""
                }
            }
            for record in rest {
                number += 1
                pending += output.launch(record, file: path, number: number)
            }
        }
        Terminal.output(pending + output.end())
    }

    /// Streams the file through the parser in 1 MiB reads: big logs never sit in memory whole. Launches
    /// completed along the way go to `completed`; the rest are returned. Notes a log with no launch.
    private func parse(_ path: String, completed: ([LaunchRecord]) -> Void) throws -> [LaunchRecord] {
        let handle = try open(path)
        var parser = LaunchLogParser()
        var found = 0
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                chunk.withUnsafeBytes { parser.feed($0.bindMemory(to: UInt8.self)) }
                let records = parser.takeFinished()
                found += records.count
                if !records.isEmpty { completed(records) }
            }
        } catch {
            throw CommandFailure(
                .failure,
                "cannot read log file \(path): \(error.localizedDescription). Check that it is a readable file.")
        }
        let rest = parser.finish()
        if found + rest.count == 0 {
            Terminal.note("\(path): no launch found (no dyld statistics, loaded libraries or [launchbench] markers).")
        }
        return rest
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
