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
            let data = try read(path)
            var parser = LaunchLogParser()
            data.withUnsafeBytes { parser.feed($0) }
            let launches = parser.finish()
            if launches.isEmpty {
                Terminal.note("\(path): no launch found (no dyld statistics, loaded libraries or [launchbench] markers).")
            }
            parsed.append(ParsedLog(file: path, launches: launches))
        }
        let text: String
        switch format {
        case .json: text = ParseReport.json(parsed)
        case .csv: text = ParseReport.csv(parsed)
        case .table: text = ParseReport.table(parsed)
        }
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    private func read(_ path: String) throws -> Data {
        if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            Terminal.note("Error: log file not found: \(path). Check the path.")
            throw ExitCode.failure
        }
        if isDirectory.boolValue {
            Terminal.note("Error: \(path) is a folder, not a log file. Name the log files inside it, e.g. \(path)/logs/*/*.log.")
            throw ExitCode.failure
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
        } catch {
            Terminal.note("Error: cannot read log file \(path): \(error.localizedDescription). Check its permissions.")
            throw ExitCode.failure
        }
    }
}
