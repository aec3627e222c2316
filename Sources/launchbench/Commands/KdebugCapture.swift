import Foundation
import LaunchBench

/// `parse` on kdebug captures: streams each file, finds its launches, prints them.
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

    /// Reads the file in 1 MiB pieces and streams its records: memory holds the launches found, not the file.
    private func read(_ path: String) throws -> ParsedKdebugFile {
        let handle: FileHandle
        let size: Int?
        do {
            handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            size = try handle.seekToEnd().nonNegativeInt
            try handle.seek(toOffset: 0)
        } catch {
            throw CommandFailure(
                .failure, "cannot read kdebug file \(path): \(error.localizedDescription). Check its permissions.")
        }
        defer { try? handle.close() }
        let found: KdebugFileLaunches
        do {
            found = try KdebugFileLaunches(size: size) {
                guard let data = try handle.read(upToCount: 1 << 20) else { return nil }
                return [UInt8](data)[...]
            }
        } catch let error as KdebugFileError {
            throw CommandFailure(.failure, "\(path): " + (error.errorDescription ?? "\(error)"))
        } catch {
            throw CommandFailure(
                .failure, "cannot read kdebug file \(path): \(error.localizedDescription). Check its permissions.")
        }
        for note in found.notes { Terminal.note("\(path): \(note).") }
        let all = found.launches
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

extension UInt64 {
    /// The value as an `Int` when it fits.
    fileprivate var nonNegativeInt: Int? { self <= UInt64(Int.max) ? Int(self) : nil }
}
