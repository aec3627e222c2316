import Foundation
import LaunchBench
import TestSupport
import Testing

extension RealPymobiledevice3Tests.KdebugEndToEndTests {
    /// The raw kdebug file kept beside a launch's log: the real pykdebugparser (which the pinned pymobiledevice3
    /// depends on, so CI has it) reads every record of it, the same ones launchbench reads, and
    /// `KdebugLaunches` on the file gives the sample's pre-main again.
    static func expectRawKdebug(of sample: Sample, in folder: URL, app: String) async throws {
        let log = ResultsStore.logPath(
            udid: sample.deviceUDID, iteration: sample.iteration, kind: sample.kind, launchIndex: sample.launchIndex)
        let relative = "kdebug/" + log.dropFirst("logs/".count).dropLast(".log".count) + ".kdebug"
        let url = folder.appendingPathComponent(relative)
        let (trace, _) = try KdebugFile.read([UInt8](try Data(contentsOf: url)))
        let launch = try #require(
            KdebugLaunches.find(in: trace, timebase: KdebugFile.timebase(of: trace.header).timebase)
                .last { $0.isProcess(named: app) }, "\(relative)")
        let premain = try #require(sample[.totalPremainMs])
        #expect(abs((launch.phases.totalPremainMs ?? -1) - premain) < 1e-6, "\(relative)")

        let python = try #require(pykdebugparserPython, "no Python beside pymobiledevice3")
        let script = """
            import sys
            from pykdebugparser.kd_buf_parser import KdBufParser
            with open(sys.argv[1], 'rb') as f:
                for e in KdBufParser().parse(f):
                    print(e.timestamp, e.debugid, e.tid, *e.values)
            """
        let child = try ChildProcess(executable: python, arguments: ["-c", script, url.path])
        let status = try await child.waitForExit(timeout: .seconds(60))
        #expect(status == 0, "pykdebugparser on \(relative): \(child.standardError)")
        let theirs = child.standardOutput.split(separator: "\n").map(String.init)
        let ours = trace.records.map {
            "\($0.timestamp) \($0.debugID.rawValue) \($0.threadID) \($0.arg1) \($0.arg2) \($0.arg3) \($0.arg4)"
        }
        #expect(theirs == ours, "\(relative): pykdebugparser read \(theirs.count) records, launchbench \(ours.count)")
    }

    /// The interpreter on the pinned pymobiledevice3's `#!` line, whose environment holds pykdebugparser.
    static let pykdebugparserPython: String? = {
        guard let executable = Pymobiledevice3EndToEnd.executable,
            let text = try? String(contentsOfFile: executable, encoding: .utf8),
            let first = text.split(separator: "\n").first, first.hasPrefix("#!")
        else { return nil }
        return String(first.dropFirst(2)).trimmingCharacters(in: .whitespaces)
    }()
}
