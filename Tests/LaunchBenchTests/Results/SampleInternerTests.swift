import Foundation
import TestSupport
import Testing

@testable import LaunchBench

/// The readers that keep every sample (gate, trend, merge) hold each repeated text once.
@Suite struct SampleInternerTests {
    /// Where a string's UTF-8 lives; equal for two strings only when they share one buffer.
    private func storage(_ text: String) -> UnsafeRawPointer? {
        var copy = text
        copy.makeContiguousUTF8()
        return copy.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
    }

    @Test func loadSamplesSharesTheTextsThatRepeat() throws {
        let name = "Ana's iPhone in the CI lab, rack 3"
        let images = ["Sample", "Frameworks/SampleKit.framework/SampleKit"]
        let samples = (1...3).map { iteration in
            GateSamples.make(
                name: name, app: "com.example.launchbench.sample", iteration: iteration,
                metrics: [.totalPremainMs: 400 + Double(iteration)], bundleImages: images,
                logPath: "logs/UDID-A/\(iteration)-cold.log")
        }
        let folder = try GateSamples.resultsFolder(samples)
        defer { try? FileManager.default.removeItem(at: folder) }
        let read = try ResultsFolder.loadSamples(folder).samples
        #expect(read == samples)
        let first = read[0]
        for other in read.dropFirst() {
            #expect(storage(other.deviceName) == storage(first.deviceName))
            #expect(storage(other.appBundleID) == storage(first.appBundleID))
            #expect(storage(other.bundleImages[1]) == storage(first.bundleImages[1]))
            #expect(
                other.bundleImages.withUnsafeBufferPointer { $0.baseAddress }
                    == first.bundleImages.withUnsafeBufferPointer { $0.baseAddress })
            // Texts of one launch alone are its own.
            #expect(other.logPath != first.logPath)
        }
    }
}
