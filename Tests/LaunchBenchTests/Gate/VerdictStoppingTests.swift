import Foundation
import Testing

@testable import LaunchBench

/// `run --until-verdict` stops a device at once, with one reason, when no verdict can come whatever it measures,
/// and never calls the cap a settled verdict.
@Suite struct VerdictStoppingTests {
    static func samples(
        _ values: [Double], osVersion: String = "14.8", app: String = "com.example.app",
        premainSource: PremainSource? = nil
    ) -> [Sample] {
        values.enumerated().map { i, value in
            var sample = Sample(
                runID: "r", deviceUDID: "UDID-A", deviceName: "Phone", productType: "iPhone12,1",
                osVersion: osVersion, appBundleID: app, appVersion: "1.0", iteration: i + 1, kind: .cold, status: .ok,
                metrics: [.totalPremainMs: value], startedAt: Date(timeIntervalSince1970: Double(i)))
            sample.premainSource = premainSource
            return sample
        }
    }

    static func spread(_ median: Double, _ count: Int, step: Double = 1) -> [Double] {
        (0..<count).map { median + step * Double($0 % 7) }
    }

    static func rule(
        _ baseline: [Sample], threshold: Double = 5, maxLaunches: Int = 30, baselineApp: String? = nil
    ) -> VerdictStopping {
        VerdictStopping(
            baseline: baseline, settings: GateSettings(thresholdPercent: threshold),
            design: SequentialVerdict(minimumLaunches: 5, maxLaunches: maxLaunches), baselineApp: baselineApp)
    }

    @Test func aOneLaunchBaselineStopsAfterTheFirstIteration() throws {
        let rule = Self.rule(Self.samples([200]))
        let reason = try #require(rule.stopReason(samples: Self.samples([201])))
        #expect(
            reason
                == "no verdict can be reached: the baseline has 1 measured cold launch of total_premain_ms on this "
                + "device and the gate needs 5 (measure a new baseline with --iterations 10 or more); "
                + "stopped after 1 iteration")
    }

    /// The gate's report at the end says the same as what stopped the device, not "still open".
    @Test func theGateSaysTheBaselineIsTooSmallNotStillOpen() {
        var settings = GateSettings()
        settings.sequential = SequentialVerdict()
        let entry = GateComparison(baseline: Self.samples([200]), current: Self.samples([201]), settings: settings)
            .entries.first
        #expect(entry?.verdict == .insufficientData)
        #expect(entry?.reason.hasPrefix("Only 1 measured launches in the baseline") == true)
    }

    @Test func anotherIOSVersionStopsAfterTheFirstIteration() throws {
        let rule = Self.rule(Self.samples(Self.spread(200, 12)))
        let reason = try #require(rule.stopReason(samples: Self.samples([201], osVersion: "15.0")))
        #expect(reason.hasPrefix("no verdict can be reached: iOS 14.8 → 15.0 between the baseline and this run"))
        #expect(reason.contains("--compare-anyway") && reason.hasSuffix("stopped after 1 iteration"))
    }

    @Test func anotherPremainSourceStopsAfterTheFirstIteration() throws {
        let rule = Self.rule(Self.samples(Self.spread(200, 12), premainSource: .dyldStatistics))
        let reason = try #require(rule.stopReason(samples: Self.samples([240], premainSource: .kdebug)))
        #expect(reason.contains("pre-main source dyld-statistics → kdebug"))
    }

    @Test func anotherAppStopsAfterTheFirstIteration() throws {
        let rule = Self.rule(Self.samples(Self.spread(200, 12), app: "com.other"), baselineApp: "com.other")
        let reason = try #require(rule.stopReason(samples: Self.samples([201])))
        #expect(reason.contains("app com.other → com.example.app"))
    }

    @Test func aComparableBaselineKeepsLaunching() {
        let rule = Self.rule(Self.samples(Self.spread(200, 12)))
        #expect(rule.stopReason(samples: Self.samples([201])) == nil)
    }

    /// Capped at 5 launches, a ~28 % shift against a 30 % threshold cannot settle: the reason names the cap.
    @Test func theCapIsNotASettledVerdict() throws {
        let rule = Self.rule(Self.samples(Self.spread(100, 12, step: 8)), threshold: 30, maxLaunches: 5)
        let reason = try #require(rule.stopReason(samples: Self.samples(Self.spread(128, 5, step: 8))))
        #expect(reason.hasPrefix("the cap of 5 iterations (--max-iterations) came before the verdict settled"))
        #expect(!reason.contains("verdict settled after"))
    }
}
