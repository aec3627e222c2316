import Foundation
import Testing

@testable import LaunchBench

/// Numbers from options and files reach `Int`/`Int64` conversions, which trap (SIGILL, exit 132) past their
/// range: each conversion clamps, or says the number in full, and never crashes.
@Suite struct UntrappedConversionTests {
    @Test func secondsBecomeADurationWithoutTrapping() {
        #expect(Duration.seconds(clamping: 1.5) == .milliseconds(1500))
        #expect(Duration.seconds(clamping: 1e10) == .seconds(1_000_000_000))
        #expect(Duration.seconds(clamping: 1e300) == .seconds(1_000_000_000))
        #expect(Duration.seconds(clamping: .infinity) == .zero)
        #expect(Duration.seconds(clamping: .nan) == .zero)
        #expect(Duration.seconds(clamping: -3) == .zero)
    }

    /// `--threshold 1e-9` asks for more launches than an Int holds.
    @Test func aTinyThresholdNeedsABillionLaunchesNotACrash() {
        let values = (0..<20).map { 100 + Double($0 % 7) }
        let needed = LaunchesNeeded.estimate(
            baseline: values, current: values, thresholdPercent: 1e-9, alpha: 0.05, minimum: 5)
        #expect(needed == 1_000_000_000)
    }

    /// A trace's 64-bit timestamps (or a hand-made one) can put a phase past what `Int` holds in thousandths.
    @Test func aHugeKdebugTimeIsPrintedInFull() {
        #expect(DyldLaunchPhases.format(12.5) == "12.500")
        #expect(DyldLaunchPhases.format(1e17) == "1e+17")
    }

    /// A samples.jsonl line's phases print in the progress line whatever they hold.
    @Test func aHugeRecordedStepPrintsWithoutTrapping() {
        var phases = PhaseTimings()
        phases.launchMs = 1e300
        #expect(phases.summary?.contains("ms") == true)
    }

    @Test func formattingAHugeDurationDoesNotTrap() {
        #expect(LaunchVerdict.formatSeconds(.seconds(Int64.max)) == "9.223372036854776e+18")
    }
}
