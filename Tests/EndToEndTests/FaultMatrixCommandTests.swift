import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

/// The faults the fault matrix found, each through the built `launchbench` (the release binary when the suite
/// runs in release) against a fresh private lab, through the real libimobiledevice.
@Suite(.tags(.emulator, .subprocess), .timeLimit(.minutes(10))) struct FaultMatrixCommandTests {
    private func start(
        _ arguments: [String], lab: EmulatedLab, lockFolder: URL, extra: [String: String] = [:]
    ) throws -> ChildProcess {
        try LaunchbenchCLI.start(
            arguments,
            environment: [
                "USBMUXD_SOCKET_ADDRESS": lab.usbmuxdSocketAddress, "NO_COLOR": "1",
                "LAUNCHBENCH_LOCK_DIR": lockFolder.path,
            ].merging(extra) { _, new in new })
    }

    /// Waits until a run of 500 iterations printed `count` finished launches (`1/500 cold ok: …`): each line
    /// comes after its launch's sample is written to samples.jsonl.
    private func waitForLaunches(_ count: Int, of child: ChildProcess, limit: Duration = .seconds(120)) async throws {
        try await child.waitForOutput("\(count) launches", timeout: limit) {
            $0.standardError.components(separatedBy: "/500 ").count > count
        }
    }

    /// Waits until `samples.jsonl` in `folder` holds `count` launches: for a run whose output no one can read
    /// (its reader is gone), so no event tells; a bounded poll.
    private func waitForSamples(_ count: Int, in folder: URL, limit: Duration = .seconds(120)) async throws {
        let url = folder.appendingPathComponent("samples.jsonl")
        try await waitUntil("\(count) samples in \(url.path)", timeout: limit, interval: .milliseconds(50)) {
            ((try? String(contentsOf: url, encoding: .utf8))?.split(separator: "\n").count ?? 0) >= count
        }
    }

    private func exports(_ folder: URL) -> [String] {
        ["samples.csv", "summary.csv", "summary.json", "report.html"]
            .filter { FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path) }
    }

    // MARK: 1. user files

    @Test func anEarlierResultsFolderNeedsOverwriteAndKeepsTheUsersFiles() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "12.5.7")) { lab in
            let app = try EndToEnd.makeApp("Overwrite", profile: EndToEnd.profile())
            let locks = EndToEnd.temporaryFolder("locks")
            let output = EndToEnd.temporaryFolder("overwrite").appendingPathComponent("results")
            let args = [
                "run", app.url.path, "--iterations", "1", "--warm", "0", "--output", output.path, "--grace", "3",
            ]
            let first = try start(args, lab: lab, lockFolder: locks)
            #expect(try await first.waitForExit(timeout: .seconds(120)) == 0, "stderr: \(first.standardError)")
            try Data("mine".utf8).write(to: output.appendingPathComponent("notes.txt"))
            try FileManager.default.createDirectory(
                at: output.appendingPathComponent("extra"), withIntermediateDirectories: true)
            try Data("mine".utf8).write(to: output.appendingPathComponent("extra/plot.py"))
            let runID = try RunManifest.read(from: output.appendingPathComponent("run.json")).runID

            let refused = try start(args, lab: lab, lockFolder: locks)
            #expect(try await refused.waitForExit(timeout: .seconds(60)) == 1)
            #expect(refused.standardError.contains("--overwrite") && refused.standardError.contains(output.path))
            #expect(try RunManifest.read(from: output.appendingPathComponent("run.json")).runID == runID)

            let replaced = try start(args + ["--overwrite"], lab: lab, lockFolder: locks)
            #expect(try await replaced.waitForExit(timeout: .seconds(120)) == 0, "stderr: \(replaced.standardError)")
            #expect(try RunManifest.read(from: output.appendingPathComponent("run.json")).runID != runID)
            #expect(try String(contentsOf: output.appendingPathComponent("notes.txt"), encoding: .utf8) == "mine")
            #expect(try String(contentsOf: output.appendingPathComponent("extra/plot.py"), encoding: .utf8) == "mine")
            #expect(try EndToEnd.samplesOnDisk(output).count == 1)

            // --baseline X --output X: compared, then deleted, before; now refused before anything is launched.
            let gate = try start(args + ["--overwrite", "--baseline", output.path], lab: lab, lockFolder: locks)
            #expect(try await gate.waitForExit(timeout: .seconds(60)) == 1)
            #expect(gate.standardError.contains("baseline"))
            #expect(OutputFolder.isResultsFolder(output) && exports(output).count == 4)
        }
    }

    // MARK: 2. one run per device

    @Test func aSecondRunOnABusyDeviceIsRefusedNamingTheFirst() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 2, osVersion: "12.5.7")) { lab in
            let app = try EndToEnd.makeApp("Busy", profile: EndToEnd.profile())
            let locks = EndToEnd.temporaryFolder("locks")
            let firstOutput = EndToEnd.temporaryFolder("busy-1").appendingPathComponent("results")
            let busyUDID = lab.devices[0].udid
            let first = try start(
                ["run", app.url.path, "--device", busyUDID, "--iterations", "500", "--output", firstOutput.path],
                lab: lab, lockFolder: locks)
            try await waitForLaunches(1, of: first)

            // Only the busy device: refused, naming the holder.
            let refusedOutput = EndToEnd.temporaryFolder("busy-2").appendingPathComponent("results")
            let refused = try start(
                ["run", app.url.path, "--device", busyUDID, "--iterations", "1", "--output", refusedOutput.path],
                lab: lab, lockFolder: locks)
            #expect(try await refused.waitForExit(timeout: .seconds(60)) == 1)
            #expect(refused.standardError.contains("process \(first.processIdentifier)"), "\(refused.standardError)")
            #expect(refused.standardError.contains("launchbench run"))
            #expect(!FileManager.default.fileExists(atPath: refusedOutput.path))

            // Every device: the free one is measured, the busy one skipped with the reason; exit 3.
            let partialOutput = EndToEnd.temporaryFolder("busy-3").appendingPathComponent("results")
            let partial = try start(
                [
                    "run", app.url.path, "--iterations", "1", "--warm", "0", "--output", partialOutput.path, "--grace",
                    "3",
                ],
                lab: lab, lockFolder: locks)
            #expect(try await partial.waitForExit(timeout: .seconds(120)) == 3, "stderr: \(partial.standardError)")
            let samples = try EndToEnd.samplesOnDisk(partialOutput)
            #expect(samples.map(\.deviceUDID) == [lab.devices[1].udid])
            let manifest = try RunManifest.read(from: partialOutput.appendingPathComponent("run.json"))
            let skipped = manifest.deviceOutcomes?.first { $0.udid == busyUDID }
            #expect(
                skipped?.outcome == .skipped && skipped?.notes.first?.contains("\(first.processIdentifier)") == true)

            // SIGKILL frees the device: the kernel drops the flock, the next run takes the file over.
            first.send(signal: SIGKILL)
            _ = try await first.waitForExit(timeout: .seconds(30))
            let after = try start(
                [
                    "run", app.url.path, "--device", busyUDID, "--iterations", "1", "--warm", "0", "--output",
                    EndToEnd.temporaryFolder("busy-4").appendingPathComponent("results").path, "--grace", "3",
                ],
                lab: lab, lockFolder: locks)
            #expect(try await after.waitForExit(timeout: .seconds(120)) == 0, "stderr: \(after.standardError)")
        }
    }

    // MARK: 3. end of a launch

    @Test func aNonZeroExitRightAfterTheStatisticsIsExitedEarly() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "12.5.7")) { lab in
            // Launch 1 exits 3 right after dyld's statistics (before any marker); launch 2 is healthy.
            let faults = Faults(earlyExit: ExitFault(when: LaunchSelector(launches: [1]), status: 3))
            let app = try EndToEnd.makeApp("EarlyExit", profile: EndToEnd.profile(faults: faults))
            let output = EndToEnd.temporaryFolder("early").appendingPathComponent("results")
            let child = try start(
                ["run", app.url.path, "--iterations", "1", "--warm", "1", "--output", output.path, "--grace", "3"],
                lab: lab, lockFolder: EndToEnd.temporaryFolder("locks"))
            #expect(try await child.waitForExit(timeout: .seconds(120)) == 3, "stderr: \(child.standardError)")
            let samples = try EndToEnd.samplesOnDisk(output)
            #expect(samples.map(\.status) == [.exitedEarly, .ok])
            #expect(samples.first?.exitStatus == 3 && samples.first?[.totalPremainMs] != nil)
            let summary = try String(contentsOf: output.appendingPathComponent("summary.csv"), encoding: .utf8)
            #expect(summary.contains(",cold,total_premain_ms,0,1,"))  // n = 0, failures = 1
        }
    }

    @Test func aLaunchThatHangsAfterItsStatisticsTimesOutOnceMarkersWereSeen() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "12.5.7")) { lab in
            let faults = Faults(hang: PointFault(when: LaunchSelector(launches: [2])))
            let app = try EndToEnd.makeApp("Hang", profile: EndToEnd.profile(faults: faults))
            let output = EndToEnd.temporaryFolder("hang").appendingPathComponent("results")
            let child = try start(
                [
                    "run", app.url.path, "--iterations", "1", "--warm", "1", "--output", output.path,
                    "--timeout", "3", "--grace", "0.5",
                ],
                lab: lab, lockFolder: EndToEnd.temporaryFolder("locks"))
            #expect(try await child.waitForExit(timeout: .seconds(120)) == 3, "stderr: \(child.standardError)")
            let samples = try EndToEnd.samplesOnDisk(output)
            #expect(samples.map(\.status) == [.ok, .timeout])
            #expect(samples.last?[.totalPremainMs] != nil)  // the statistics arrived; the launch never finished
        }
    }

    // MARK: 4. glued output

    @Test func aTotalGluedToTheAppsUnterminatedOutputIsKept() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "12.5.7")) { lab in
            let faults = Faults(unterminatedOutput: UnterminatedOutputFault(when: LaunchSelector(probability: 1)))
            let app = try EndToEnd.makeApp("Glued", profile: EndToEnd.profile(faults: faults))
            let output = EndToEnd.temporaryFolder("glued").appendingPathComponent("results")
            let child = try start(
                ["run", app.url.path, "--iterations", "3", "--output", output.path, "--grace", "3"],
                lab: lab, lockFolder: EndToEnd.temporaryFolder("locks"))
            #expect(try await child.waitForExit(timeout: .seconds(120)) == 0, "stderr: \(child.standardError)")
            let samples = try EndToEnd.samplesOnDisk(output)
            #expect(samples.count == 6)
            for sample in samples {
                #expect(sample.status == .ok && sample[.totalPremainMs] != nil && sample.warnings.isEmpty)
                let log = try String(contentsOf: output.appendingPathComponent(sample.logPath ?? ""), encoding: .utf8)
                #expect(log.contains("Loading…Total pre-main time:"))
            }
        }
    }

    // MARK: 5. signals and closed streams

    @Test(arguments: [SIGHUP, SIGQUIT, SIGTERM])
    func aSignalEndsTheRunCleanlyWithExports(signal: Int32) async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "12.5.7")) { lab in
            let app = try EndToEnd.makeApp("Signal\(signal)", profile: EndToEnd.profile())
            let output = EndToEnd.temporaryFolder("signal").appendingPathComponent("results")
            let child = try start(
                ["run", app.url.path, "--iterations", "500", "--output", output.path], lab: lab,
                lockFolder: EndToEnd.temporaryFolder("locks"))
            try await waitForLaunches(2, of: child)
            child.send(signal: signal)
            let status = try await child.waitForExit(timeout: .seconds(60))
            #expect(status == 128 + signal, "stderr: \(child.standardError)")
            let manifest = try RunManifest.read(from: output.appendingPathComponent("run.json"))
            #expect(manifest.interrupted == true && manifest.endedAt != nil)
            #expect(exports(output).count == 4)
            #expect(!child.standardError.contains("Backtrace") && !child.standardError.contains("Crash"))
        }
    }

    /// `launchbench run … 2>&1 | head -n 1`: the reader is gone after one line; the run measures everything.
    @Test func aClosedPipeStopsThePrintingNotTheRun() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "12.5.7")) { lab in
            let app = try EndToEnd.makeApp("Pipe", profile: EndToEnd.profile())
            let output = EndToEnd.temporaryFolder("pipe").appendingPathComponent("results")
            let script = "\"$0\" \"$@\" 2>&1 | head -n 1 > /dev/null; exit ${PIPESTATUS[0]}"
            let child = try ChildProcess(
                executable: "/bin/bash",
                arguments: [
                    "-c", script, try LaunchbenchCLI.executable(), "run", app.url.path, "--iterations", "3", "--output",
                    output.path,
                    "--grace", "3",
                ],
                environment: [
                    "USBMUXD_SOCKET_ADDRESS": lab.usbmuxdSocketAddress, "NO_COLOR": "1",
                    "LAUNCHBENCH_LOCK_DIR": EndToEnd.temporaryFolder("locks").path,
                ])
            #expect(try await child.waitForExit(timeout: .seconds(120)) == 0, "stderr: \(child.standardError)")
            #expect(try EndToEnd.samplesOnDisk(output).count == 6)
            #expect(exports(output).count == 4)
        }
    }

    /// Ctrl-C on `launchbench run … | tee log` when tee is already gone: exit 130 with everything kept, not 141.
    @Test func ctrlCWithTheReaderGoneExits130() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "12.5.7")) { lab in
            let app = try EndToEnd.makeApp("PipeInt", profile: EndToEnd.profile())
            let folder = EndToEnd.temporaryFolder("pipe-int")
            let output = folder.appendingPathComponent("results")
            let pidFile = folder.appendingPathComponent("pid").path
            let script = "\"$0\" \"$@\" > >(head -n 1 > /dev/null) 2>&1 & echo $! > \"\(pidFile)\"; wait $!"
            let child = try ChildProcess(
                executable: "/bin/bash",
                arguments: [
                    "-c", script, try LaunchbenchCLI.executable(), "run", app.url.path, "--iterations", "500",
                    "--output",
                    output.path,
                ],
                environment: [
                    "USBMUXD_SOCKET_ADDRESS": lab.usbmuxdSocketAddress, "NO_COLOR": "1",
                    "LAUNCHBENCH_LOCK_DIR": folder.appendingPathComponent("locks").path,
                ])
            try await waitForSamples(3, in: output)
            let pid = try #require(
                Int32(
                    try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
                ))
            kill(pid, SIGINT)
            #expect(try await child.waitForExit(timeout: .seconds(60)) == 130)
            let manifest = try RunManifest.read(from: output.appendingPathComponent("run.json"))
            #expect(manifest.interrupted == true)
            #expect(exports(output).count == 4)
        }
    }

    // MARK: 6. exit codes

    @Test func aRunThatMeasuredNothingExits3() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "16.7")) { lab in
            var profile = EndToEnd.profile()
            profile.markers = []  // iOS 16: dyld prints nothing, and no markers either: `done` alone
            let app = try EndToEnd.makeApp("Nothing", profile: profile)
            let output = EndToEnd.temporaryFolder("nothing").appendingPathComponent("results")
            // Without kdebug: with it, dyld's events alone measure such a launch (issue 31).
            let child = try start(
                [
                    "run", app.url.path, "--iterations", "2", "--output", output.path, "--grace", "1", "--premain",
                    "dyld-statistics",
                ], lab: lab,
                lockFolder: EndToEnd.temporaryFolder("locks"))
            #expect(try await child.waitForExit(timeout: .seconds(120)) == 3, "stderr: \(child.standardError)")
            #expect(try EndToEnd.samplesOnDisk(output).map(\.status) == Array(repeating: .noMetrics, count: 4))
            #expect(child.standardError.contains("measured nothing"))
        }
    }

    // MARK: 7. a bad USBMUXD_SOCKET_ADDRESS

    @Test(arguments: [["devices"], ["run", "X.app"]])
    func aBadUsbmuxdSocketAddressIsAUsageErrorNamingTheVariable(arguments: [String]) async throws {
        let child = try LaunchbenchCLI.start(
            arguments,
            environment: [
                "USBMUXD_SOCKET_ADDRESS": "garbage", "LAUNCHBENCH_LOCK_DIR": EndToEnd.temporaryFolder("locks").path,
            ])
        #expect(try await child.waitForExit(timeout: .seconds(30)) == 64)
        #expect(child.standardError.contains("USBMUXD_SOCKET_ADDRESS") && child.standardError.contains("garbage"))
        // --usbmuxd wins over the environment, so a good one makes the variable irrelevant.
        let overridden = try LaunchbenchCLI.start(
            ["devices", "--usbmuxd", "UNIX:/nonexistent/usbmuxd.sock"],
            environment: ["USBMUXD_SOCKET_ADDRESS": "garbage"])
        #expect(try await overridden.waitForExit(timeout: .seconds(30)) != 64)
    }

    // MARK: hostile device names

    @Test func hostileDeviceNamesAreNeutralisedInCSVAndEscapedInHTML() async throws {
        let specs = zip(EmulatedDeviceSpec.lab(count: 2, osVersion: "12.5.7"), EmulatedDeviceSpec.hostileNames)
            .map { $0.named($1) }
        try await PrivateLab.with(devices: specs) { lab in
            let app = try EndToEnd.makeApp("Hostile", profile: EndToEnd.profile())
            let output = EndToEnd.temporaryFolder("hostile").appendingPathComponent("results")
            let child = try start(
                ["run", app.url.path, "--iterations", "1", "--output", output.path, "--grace", "3"], lab: lab,
                lockFolder: EndToEnd.temporaryFolder("locks"))
            #expect(try await child.waitForExit(timeout: .seconds(120)) == 0, "stderr: \(child.standardError)")
            let csv = try String(contentsOf: output.appendingPathComponent("samples.csv"), encoding: .utf8)
            let summary = try String(contentsOf: output.appendingPathComponent("summary.csv"), encoding: .utf8)
            for text in [csv, summary] {
                // The formula is quoted (it holds quotes and commas) and starts with ' so a spreadsheet shows text.
                #expect(text.contains("\"'=HYPERLINK("))
                #expect(!text.contains(",=HYPERLINK(") && !text.contains(",\"=HYPERLINK("))
                #expect(text.contains("\"<script>alert(\"\"pwned\"\")</script> & \"\"Bob's\"\", <b>iPhone</b>\""))
            }
            let html = try String(contentsOf: output.appendingPathComponent("report.html"), encoding: .utf8)
            #expect(!html.contains("<script>alert") && !html.contains("<b>iPhone</b>"))
            #expect(html.contains("&lt;script&gt;alert("))
            #expect(try EndToEnd.samplesOnDisk(output).contains { $0.deviceName == EmulatedDeviceSpec.hostileNames[0] })
        }
    }

    /// `launchbench emulator --device-name … --hostile-names`: the names reach libimobiledevice verbatim.
    @Test func theEmulatorSwitchesGiveDevicesTheNamesAsked() async throws {
        let emulator = try LaunchbenchCLI.start([
            "emulator", "--devices", "3", "--device-name", "Plain, \"quoted\"", "--hostile-names",
        ])
        let first = try await emulator.readLine(timeout: .seconds(60))
        let line = try #require(first, "no address printed; stderr: \(emulator.standardError)")
        let address = String(line.dropFirst("USBMUXD_SOCKET_ADDRESS=".count))
        let devices = try LaunchbenchCLI.start(["devices", "--json", "--usbmuxd", address])
        let status = try await devices.waitForExit(timeout: .seconds(60))
        emulator.send(signal: SIGINT)
        _ = try await emulator.waitForExit(timeout: .seconds(60))
        #expect(status == 0, "stderr: \(devices.standardError)")
        let listed = try JSONSerialization.jsonObject(with: Data(devices.standardOutput.utf8)) as? [[String: Any]] ?? []
        let names = Set(listed.compactMap { $0["name"] as? String })
        #expect(names == Set(["Plain, \"quoted\""] + EmulatedDeviceSpec.hostileNames.prefix(2)))

        let tooMany = try LaunchbenchCLI.start([
            "emulator", "--devices", "1", "--device-name", "a", "--device-name", "b",
        ])
        #expect(try await tooMany.waitForExit(timeout: .seconds(30)) == 64)
        #expect(tooMany.standardError.contains("--device-name"))
    }
}
