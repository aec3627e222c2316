import Foundation
import Testing

@testable import LaunchBench

/// Every stored-baseline verdict names the smallest change it could have shown, and a baseline too noisy to
/// show the threshold says so at once instead of launching to the cap.
@Suite struct GateVisibilityTests {
    /// `count` values alternating `median ± deviation`: a robust spread of 1.4826·deviation.
    static func alternating(_ median: Double, _ deviation: Double, _ count: Int) -> [Double] {
        (0..<count).map { median + ($0 % 2 == 0 ? deviation : -deviation) }
    }

    @Test func aFixedVerdictNamesTheSmallestChangeItCouldShow() throws {
        // Spread 1.4826·4/400 ≈ 1.5 %, 20 per side: (z + z₀.₈)·√(π/3)·1.48·√(1/10) ≈ 1.3 %.
        let entry = try #require(
            GateComparison(
                baseline: VerdictStoppingTests.samples(Self.alternating(400, 4, 20)),
                current: VerdictStoppingTests.samples(Self.alternating(401, 4, 20))
            ).entries.first)
        #expect(entry.verdict == .unchanged)
        let smallest = try #require(entry.smallestVisiblePercent)
        #expect(abs(smallest - 2.802 * 1.0233 * 1.4826 * (0.1).squareRoot()) < 0.05)
        #expect(entry.reason.hasSuffix("The smallest change these launches could show: ±1.3 %."), "\(entry.reason)")
    }

    @Test func aNoisyBaselineSaysItCannotShowTheThresholdAndWhatWould() throws {
        // Spread ≈ 10 % on 20 launches: at best ±6.4 %, above the 5 % threshold.
        let baseline = VerdictStoppingTests.samples(Self.alternating(400, 27, 20))
        let entry = try #require(
            GateComparison(baseline: baseline, current: VerdictStoppingTests.samples(Self.alternating(400, 27, 40)))
                .entries.first)
        let floor = try #require(entry.baselineFloorPercent)
        #expect((6.3...6.5).contains(floor))
        #expect(entry.reason.contains("The baseline's 20 cold launches, spread ±10 %, cannot show a ±5 % change"))
        #expect(
            entry.reason.contains(
                "measure both builds in one run on the same phone, paired (`launchbench run NEW.app --against "
                    + "BASE.app`), or a baseline of at least 33 launches"))
        // --until-verdict stops after the first iteration with that reason.
        let rule = VerdictStoppingTests.rule(baseline)
        let reason = try #require(rule.stopReason(samples: VerdictStoppingTests.samples([400])))
        #expect(reason.hasPrefix("no verdict can be reached: the baseline's 20 cold launches"))
        #expect(reason.hasSuffix("stopped after 1 iteration"))
    }

    @Test func theJSONReportCarriesBothFigures() throws {
        let comparison = GateComparison(
            baseline: VerdictStoppingTests.samples(Self.alternating(400, 4, 20)),
            current: VerdictStoppingTests.samples(Self.alternating(401, 4, 20)))
        let entry = try #require(comparison.entries.first)
        let json = GateJSONReport.render(GateReport(comparison: comparison), exitCode: 0)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let first = try #require((root["comparisons"] as? [[String: Any]])?.first)
        // The JSON writer's shortest decimal may round the last bit.
        let smallest = try #require(first["smallest_visible_change_percent"] as? Double)
        let floor = try #require(first["baseline_floor_percent"] as? Double)
        #expect(abs(smallest - (entry.smallestVisiblePercent ?? .nan)) < 1e-9)
        #expect(abs(floor - (entry.baselineFloorPercent ?? .nan)) < 1e-9)
    }

    @Test func aQuietBaselineKeepsLaunching() {
        let rule = VerdictStoppingTests.rule(VerdictStoppingTests.samples(Self.alternating(400, 8, 20)))
        #expect(rule.stopReason(samples: VerdictStoppingTests.samples([401])) == nil)
    }
}
