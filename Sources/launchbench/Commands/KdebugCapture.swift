import Foundation
import LaunchBench

/// `parse` on kdebug captures: reads each file whole, finds its launches, prints them.
struct KdebugCapture {
    var paths: [String]
    var process: String?

    /// Whether the file at `path` starts with a kdebug magic (RAW_VERSION2 or Apple LZ4).
    static func isCapture(path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 4)).map { KdebugFile.recognizes([UInt8]($0)) } ?? false
    }

    func print(format: Parse.Format) throws {
        let files = try paths.map(read)
        switch format {
        case .json: Terminal.output(KdebugParseReport.json(files))
        case .csv: Terminal.output(KdebugParseReport.csv(files))
        case .table: Terminal.output(KdebugParseReport.table(files))
        }
    }

    private func read(_ path: String) throws -> ParsedKdebugFile {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CommandFailure(
                .failure, "cannot read kdebug file \(path): \(error.localizedDescription). Check its permissions.")
        }
        let decoded: (trace: KdebugTrace, compressed: Bool)
        do {
            decoded = try KdebugFile.read([UInt8](data))
        } catch {
            throw CommandFailure(.failure, "\(path): " + ((error as? KdebugFileError)?.errorDescription ?? "\(error)"))
        }
        let (timebase, note) = KdebugFile.timebase(of: decoded.trace.header)
        if let note { Terminal.note("\(path): \(note).") }
        let all = KdebugLaunches.find(in: decoded.trace, timebase: timebase)
        let launches = process.map { name in all.filter { $0.isProcess(named: name) } } ?? all
        if all.isEmpty {
            Terminal.note("\(path): no launch found (no exec followed by dyld timing events, class 31 subclass 7).")
        } else if launches.isEmpty {
            let names = Set(all.map { $0.executable ?? "?" }).sorted().joined(separator: ", ")
            Terminal.note("\(path): none of its \(all.count) launch(es) is of \(process ?? "?"); it has: \(names).")
        }
        return ParsedKdebugFile(file: path, launches: launches)
    }
}
