import Foundation
import TestSupport
import Testing

@testable import LaunchBench

@Suite struct DylibGuardTests {
    @Test(arguments: [
        ("Foo.framework", "Foo.framework", true), ("*.framework", "Foo.framework", true),
        ("Foo*", "Foo.framework", true), ("F?o.framework", "Foo.framework", true),
        ("[A-F]oo.framework", "Foo.framework", true),
        ("[!A-F]oo.framework", "Foo.framework", false), ("Foo", "Foo.framework", false), ("*", "", true),
        ("Frameworks/*", "Frameworks/Foo.framework/Foo", true), ("a*b*c", "aXXbYYc", true), ("a*b*c", "aXXbYY", false),
        ("[abc", "[abc", true), ("lib*.dylib", "libswiftCore.dylib", true),
    ])
    func globs(pattern: String, text: String, matches: Bool) {
        #expect(Glob(pattern).matches(text) == matches)
    }

    @Test func allowListFileFormat() {
        let list = AllowedDylibs(
            parsing: """
                # Approved by the performance review, 2024-03
                Alamofire.framework
                  Analytics*.framework   # vendor SDK, one per flavour

                Frameworks/libCustom.dylib
                """)
        #expect(
            list.entries.map(\.glob.pattern) == [
                "Alamofire.framework", "Analytics*.framework", "Frameworks/libCustom.dylib",
            ])
        #expect(list.entries.map(\.line) == [2, 3, 5])
        #expect(list.allows("Frameworks/Alamofire.framework/Alamofire"))
        #expect(list.allows("Frameworks/AnalyticsPro.framework/AnalyticsPro"))
        #expect(list.allows("Frameworks/libCustom.dylib"))
        #expect(!list.allows("Frameworks/Evil.framework/Evil"))
        #expect(!list.allows("Frameworks/libOther.dylib"))
    }

    @Test func unlistedImagesFailAndAreNamedWithDeviceAndLaunch() {
        let guardrail = DylibGuard(allowed: AllowedDylibs(parsing: "Alamofire.framework\n"), executable: "Sample")
        let samples = [
            GateSamples.make(iteration: 1, bundleImages: ["Sample", "Frameworks/Alamofire.framework/Alamofire"]),
            GateSamples.make(
                iteration: 2,
                bundleImages: ["Sample", "Frameworks/Alamofire.framework/Alamofire", "Frameworks/Evil.framework/Evil"],
                logPath: "logs/UDID-A/0002-cold.log"),
            GateSamples.make(iteration: 3, bundleImages: ["Sample", "Frameworks/Evil.framework/Evil"]),
        ]
        let violations = guardrail.check(launches: GateLaunches(samples: samples))
        #expect(violations.count == 1)
        let violation = violations[0]
        #expect(violation.image == "Frameworks/Evil.framework/Evil")
        #expect(violation.iteration == 2 && violation.deviceUDID == "UDID-A")
        #expect(
            violation.description.contains(
                "Frameworks/Evil.framework/Evil loaded at launch on Lab iPhone (UDID-A), cold launch, iteration 2"))
        #expect(violation.description.contains("logs/UDID-A/0002-cold.log"))
        #expect(
            guardrail.check(embeddedFrameworks: ["Alamofire.framework", "Evil.framework"]).map(\.image) == [
                "Frameworks/Evil.framework"
            ])

        let report = GateReport(dylibViolations: violations)
        #expect(report.outcome == .failed)
        #expect(GateTableReport.render(report).contains("Frameworks/Evil.framework/Evil"))
        #expect(GateReport(dylibViolations: []).outcome == .passed)
    }

    @Test func writtenAllowListAllowsWhatWasSeen() {
        let guardrail = DylibGuard(allowed: AllowedDylibs(entries: []), executable: "Sample")
        let samples = [GateSamples.make(bundleImages: ["Sample", "Frameworks/A.framework/A", "Frameworks/libB.dylib"])]
        let images = guardrail.currentImages(
            embeddedFrameworks: ["A.framework", "C.framework", "libB.dylib"], launches: GateLaunches(samples: samples))
        let text = AllowedDylibs.render(images: images, comment: "Recorded by launchbench")
        #expect(text.hasPrefix("# Recorded by launchbench\n"))
        #expect(
            text.split(separator: "\n").filter { !$0.hasPrefix("#") } == ["A.framework", "C.framework", "libB.dylib"])
        let reread = DylibGuard(allowed: AllowedDylibs(parsing: text), executable: "Sample")
        #expect(reread.check(launches: GateLaunches(samples: samples)).isEmpty)
        #expect(reread.check(embeddedFrameworks: ["A.framework", "C.framework", "libB.dylib"]).isEmpty)
    }
}

@Suite struct AdaptiveStoppingTests {
    @Test func stopsWhenTheMedianIntervalIsNarrowEnough() {
        let rule = AdaptiveStopping(targetPrecisionPercent: 3, maxIterations: 60)
        let values = EmulatedTimingModel().totals(count: 60, seed: 11)
        var stoppedAt: Int?
        for n in 1...60 {
            if case .reachedPrecision(let iterations, let width) = rule.decide(
                iterations: n, coldValues: Array(values.prefix(n)))
            {
                #expect(width <= 3)
                stoppedAt = iterations
                break
            }
        }
        let n = stoppedAt ?? 0
        #expect(n >= 6 && n < 60)
        // Just before, the interval was wider than the target.
        #expect((AdaptiveStopping.halfWidthPercent(Array(values.prefix(n - 1))) ?? 100) > 3)
    }

    @Test func atLeastFiveIterationsAndAtMostTheLimit() {
        let rule = AdaptiveStopping(targetPrecisionPercent: 50, minimumIterations: 5, maxIterations: 8)
        #expect(rule.decide(iterations: 4, coldValues: [1, 1, 1, 1]) == .continue)
        // 5 values: no 95 % interval exists yet (needs 6).
        #expect(rule.decide(iterations: 5, coldValues: [1, 1, 1, 1, 1]) == .continue)
        #expect(
            rule.decide(iterations: 6, coldValues: [1, 1, 1, 1, 1, 1])
                == .reachedPrecision(iterations: 6, halfWidthPercent: 0))
        let noisy = AdaptiveStopping(targetPrecisionPercent: 0.1, maxIterations: 8)
        #expect(
            noisy.decide(iterations: 8, coldValues: [1, 2, 3, 4, 5, 6, 7, 8])
                == .reachedLimit(iterations: 8, halfWidthPercent: 3.5 / 4.5 * 100))
        // Every launch failed: stop at the limit, without an interval.
        #expect(noisy.decide(iterations: 8, coldValues: []) == .reachedLimit(iterations: 8, halfWidthPercent: nil))
    }
}
