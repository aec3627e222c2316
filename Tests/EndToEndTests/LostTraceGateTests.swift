import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

extension RealPymobiledevice3Tests {
    /// The gate like with like (issue 43, item 3) through the built binary: a baseline measured on an emulated
    /// iOS 16.7 phone with kdebug (the real pymobiledevice3), against a run of the same build on that phone
    /// whose session cannot start (no pymobiledevice3): `compare` says `not comparable` (exit 3), naming the
    /// missing pre-main and the changed sources; with `--compare-anyway` it judges the first frame, which both
    /// measured; `trend` of the two notes the missing point. Before, it printed `Gate: PASSED — 2 unchanged`.
    @Suite(.tags(.pymobiledevice3), .timeLimit(.minutes(5)), installed) struct LostTraceGateTests {
        @Test func aKdebugBaselineAgainstARunWithoutItIsNotComparable() async throws {
            let executable = try #require(Pymobiledevice3EndToEnd.executable)
            let phone = EmulatedDeviceSpec.numbered(1, productType: "iPhone14,5", osVersion: "16.7")
            try await PrivateLab.with(devices: [phone]) { lab in
                let app = try EndToEnd.makeApp("LostGate", profile: EndToEnd.profile())
                let root = EndToEnd.temporaryFolder("lost-gate")
                let baseline = root.appendingPathComponent("baseline")
                let current = root.appendingPathComponent("current")
                let common = ["USBMUXD_SOCKET_ADDRESS": lab.usbmuxdSocketAddress, "NO_COLOR": "1"]
                func run(_ folder: URL, _ environment: [String: String]) async throws {
                    let child = try LaunchbenchCLI.start(
                        ["run", app.url.path, "--iterations", "6", "--output", folder.path, "--grace", "3"],
                        environment: common.merging(environment) { $1 })
                    let status = try await child.waitForExit(timeout: .seconds(240))
                    #expect(status == 0, "stderr: \(child.standardError)")
                }
                try await run(baseline, ["LAUNCHBENCH_PYMOBILEDEVICE3": executable])
                try await run(current, EndToEnd.withoutPymobiledevice3)
                #expect(try EndToEnd.samplesOnDisk(baseline).allSatisfy { $0.premainSource == .kdebug })
                #expect(try EndToEnd.samplesOnDisk(current).allSatisfy { $0.premainSource == .notMeasured })

                func compare(_ extra: [String]) async throws -> (ChildProcess, Int32?) {
                    let child = try LaunchbenchCLI.start(
                        ["compare", baseline.path, current.path] + extra, environment: ["NO_COLOR": "1"])
                    return (child, try await child.waitForExit(timeout: .seconds(60)))
                }
                let (strict, strictStatus) = try await compare([])
                #expect(strictStatus == 3, "stdout: \(strict.standardOutput)\nstderr: \(strict.standardError)")
                let table = strict.standardOutput
                #expect(table.contains("Gate: UNDECIDED — 2 not comparable"), "\(table)")
                #expect(!table.contains("PASSED"))
                #expect(
                    table.contains(
                        "total_premain_ms measured in the baseline, not in this run (pre-main source kdebug → none"),
                    "\(table)")
                #expect(table.contains("launcher processcontrol → debugserver"), "\(table)")

                let (anyway, anywayStatus) = try await compare(["--compare-anyway"])
                #expect(anywayStatus != 3, "stdout: \(anyway.standardOutput)\nstderr: \(anyway.standardError)")
                #expect(anyway.standardOutput.contains("first_frame_ms"), "\(anyway.standardOutput)")
                #expect(anyway.standardOutput.contains("Compared anyway (--compare-anyway) across total_premain_ms"))

                let trend = try LaunchbenchCLI.start(
                    ["trend", baseline.path, current.path, "--format", "csv"], environment: ["NO_COLOR": "1"])
                #expect(try await trend.waitForExit(timeout: .seconds(60)) == 0, "stderr: \(trend.standardError)")
                #expect(
                    trend.standardError.contains("total_premain_ms not measured in \(current.path)"),
                    "stderr: \(trend.standardError)")
            }
        }
    }
}
