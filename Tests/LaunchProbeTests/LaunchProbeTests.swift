import Foundation
import LaunchProbe
import Testing

@Suite struct LaunchProbeTests {
    @Test func linesHaveTheFormatTheParserReads() {
        #expect(LaunchProbe.markerLine(name: "main", milliseconds: 412.66) == "[launchbench] mark=main t=412.7\n")
        #expect(
            LaunchProbe.markerLine(name: "firstFrame", milliseconds: 1500) == "[launchbench] mark=firstFrame t=1500.0\n"
        )
        #expect(LaunchProbe.doneLine == "[launchbench] done\n")
    }

    @Test func exitsAfterDoneOnlyUnderTheHarness() {
        #expect(LaunchProbe.launchedByHarness(["LAUNCHBENCH_HARNESS": "1"]))
        #expect(!LaunchProbe.launchedByHarness(["LAUNCHBENCH_HARNESS": "0"]))
        #expect(!LaunchProbe.launchedByHarness([:]))
    }

    @Test func processStartComesFromTheKernel() throws {
        let first = try #require(ProcessClock.millisecondsSinceStart())
        // The test process started before this test ran, and not days ago.
        #expect(first > 0 && first < 86_400_000)
        let second = try #require(ProcessClock.millisecondsSinceStart())
        #expect(second >= first - 20)  // clock-tick rounding of the start time only, never a jump back
    }

    @Test func statLineFieldsAreCountedAfterTheCommandName() {
        let line = "4242 (my (odd) app) S 1 4242 4242 0 -1 4194304 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 50"
        #expect(ProcessClock.startTicks(fromStat: line) == 987654)
        #expect(ProcessClock.startTicks(fromStat: "garbage") == nil)
        #expect(ProcessClock.startTicks(fromStat: "1 (x) S 1 2") == nil)
    }
}
