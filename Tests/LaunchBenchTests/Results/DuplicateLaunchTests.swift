import Foundation
import Testing

@testable import LaunchBench

/// A launch line read twice (copied by hand, a file appended to itself) counts once, in every reader.
@Suite struct DuplicateLaunchTests {
    static func sample(_ iteration: Int, kind: LaunchKind = .cold, index: Int = 0, ms: Double = 300) -> Sample {
        Sample(
            runID: "r1", deviceUDID: "U1", deviceName: "Phone", productType: "iPhone12,1", osVersion: "14.8",
            appBundleID: "com.example.app", appVersion: "1.0 (1)", iteration: iteration, kind: kind,
            launchIndex: index, status: .ok, metrics: [.totalPremainMs: ms],
            startedAt: Date(timeIntervalSince1970: 1000 + Double(iteration)))
    }

    static func lines(_ samples: [Sample]) throws -> Data {
        let encoder = JSONCoding.encoder()
        var data = Data()
        for sample in samples {
            data.append(try encoder.encode(sample))
            data.append(0x0A)
        }
        return data
    }

    /// A folder holding only samples.jsonl.
    static func folder(_ data: Data) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("duplicates-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try data.write(to: url.appendingPathComponent(ResultsFolder.FileName.samples))
        return url
    }

    @Test func aRepeatedLineIsSkippedWithANoteNamingBothLines() throws {
        let launches = [Self.sample(1), Self.sample(1, kind: .warm, index: 1), Self.sample(2)]
        let url = try Self.folder(try Self.lines(launches + [Self.sample(1, kind: .warm, index: 1, ms: 900)]))
        defer { try? FileManager.default.removeItem(at: url) }
        let (folder, samples) = try ResultsFolder.loadSamples(url)
        #expect(samples == launches)
        #expect(folder.summary.launchCount == 3)
        #expect(
            folder.notes.contains(
                "samples.jsonl line 4 repeats line 2 (run r1, device U1, iteration 1, warm launch 1); skipped, each launch "
                    + "counts once. Remove the copied line."), "\(folder.notes)")
    }

    @Test func theSameSlotOfAnotherRunDeviceOrKindIsNoRepeat() throws {
        var otherRun = Self.sample(1)
        otherRun.runID = "r2"
        var otherDevice = Self.sample(1)
        otherDevice.deviceUDID = "U2"
        let launches = [Self.sample(1), otherRun, otherDevice, Self.sample(1, kind: .warm, index: 1)]
        let (samples, notes) = ResultsFolder.parseSamples(try Self.lines(launches))
        #expect(samples == launches)
        #expect(notes.isEmpty)
    }

    @Test func aFileAppendedToItselfGivesTenNamedNotesAndACount() throws {
        let launches = (1...30).map { Self.sample($0) }
        let data = try Self.lines(launches)
        let (samples, notes) = ResultsFolder.parseSamples(data + data)
        #expect(samples == launches)
        #expect(notes.count == 11)
        #expect(
            notes.first == "samples.jsonl line 31 repeats line 1 (run r1, device U1, iteration 1, cold launch 0); "
                + "skipped, each launch counts once. Remove the copied line.")
        #expect(
            notes.last == "samples.jsonl: 20 more lines repeat launches already read; skipped (each launch "
                + "counts once).")
    }
}
