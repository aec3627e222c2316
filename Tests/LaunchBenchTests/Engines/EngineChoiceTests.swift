import Foundation
import LaunchBench
import TestSupport
import Testing

@Suite struct EngineChoiceTests {
    static let linuxBare = EngineHost(isMacOS: false)
    static let linuxPMD3 = EngineHost(isMacOS: false, pymobiledevice3: "/opt/venv/bin/pymobiledevice3")
    static let macXcode16 = EngineHost(isMacOS: true, xcodeVersion: OSVersion(16, 2), pymobiledevice3: "/p/pmd3")
    static let macXcode15 = EngineHost(isMacOS: true, xcodeVersion: OSVersion(15, 4))

    @Test(arguments: ["12.5.7", "14.8", "16.7.10"])
    func autoUsesLibimobiledeviceUpToIOS16OnEveryHost(ios: String) {
        for host in [Self.linuxBare, Self.linuxPMD3, Self.macXcode16] {
            let decision = EngineChoice.decide(for: RunnerFixtures.device(1, ios: ios), selection: .auto, host: host)
            #expect(decision.engine == .libimobiledevice)
            #expect(decision.explanation == "iOS \(OSVersion(ios)!) offers debugserver through lockdown")
        }
    }

    @Test func autoOnIOS17PrefersDevicectlThenPymobiledevice3() {
        let device = RunnerFixtures.device(1, ios: "17.5")
        #expect(EngineChoice.decide(for: device, selection: .auto, host: Self.macXcode16).engine == .devicectl)
        let linux = EngineChoice.decide(for: device, selection: .auto, host: Self.linuxPMD3)
        #expect(linux.engine == .pymobiledevice3)
        #expect(linux.explanation.contains("/opt/venv/bin/pymobiledevice3"))
        #expect(!linux.explanation.contains("tunneld"))
        #expect(linux.explanation.contains("userspace tunnel"))
        #expect(Pymobiledevice3Transport(for: device).tunnelName == "userspace tunnel")
        // Xcode 15 has no devicectl console launch and no pymobiledevice3: nothing can launch.
        #expect(EngineChoice.decide(for: device, selection: .auto, host: Self.macXcode15).engine == nil)
    }

    @Test func ios17BeforePoint4NeedsTheRootTunnelAndSaysSo() {
        let decision = EngineChoice.decide(
            for: RunnerFixtures.device(1, ios: "17.3.1"), selection: .auto, host: Self.linuxPMD3)
        #expect(decision.engine == .pymobiledevice3)
        #expect(decision.explanation.contains("sudo pymobiledevice3 remote tunneld"))
        #expect(Pymobiledevice3Transport(for: RunnerFixtures.device(1, ios: "17.3.1")) == .tunneld)
        #expect(Pymobiledevice3Transport(for: RunnerFixtures.device(1, ios: "17.3.1")).tunnelName == "tunneld")
        // Through lockdown (iOS ≤ 16): no tunnel to name.
        #expect(Pymobiledevice3Transport(for: RunnerFixtures.device(1, ios: "16.7")) == .lockdown)
        #expect(Pymobiledevice3Transport(for: RunnerFixtures.device(1, ios: "16.7")).tunnelName == nil)
    }

    @Test func noEngineOnIOS17NamesTheExactInstallCommand() {
        let decision = EngineChoice.decide(
            for: RunnerFixtures.device(1, ios: "18.1"), selection: .auto, host: Self.linuxBare)
        guard case .unavailable(let advice) = decision else {
            Issue.record("expected no engine, got \(decision)")
            return
        }
        #expect(advice.contains("iOS 18.1"))
        #expect(advice.contains("no longer offers debugserver"))
        #expect(advice.contains("Scripts/bootstrap --with-pymobiledevice3"))
        #expect(advice.contains("pipx install pymobiledevice3==\(EngineChoice.pymobiledevice3Version)"))
        #expect(!advice.contains("Xcode 16"))  // not on Linux
        guard
            case .unavailable(let macAdvice) = EngineChoice.decide(
                for: RunnerFixtures.device(1, ios: "18.1"), selection: .auto, host: Self.macXcode15)
        else {
            Issue.record("expected no engine on macOS with Xcode 15")
            return
        }
        #expect(macAdvice.contains("Xcode 16 or later"))
    }

    @Test func forcedEnginesAreCheckedAgainstDeviceAndHost() {
        let old = RunnerFixtures.device(1, ios: "15.8")
        let modern = RunnerFixtures.device(2, ios: "17.5")
        // libimobiledevice cannot launch on 17+.
        #expect(
            EngineChoice.decide(for: modern, selection: .forced(.libimobiledevice), host: Self.linuxPMD3).engine == nil)
        #expect(
            EngineChoice.decide(for: old, selection: .forced(.libimobiledevice), host: Self.linuxPMD3).engine
                == .libimobiledevice)
        // pymobiledevice3 also drives iOS ≤ 16 (over lockdown), when installed.
        #expect(
            EngineChoice.decide(for: old, selection: .forced(.pymobiledevice3), host: Self.linuxPMD3).engine
                == .pymobiledevice3)
        let missing = EngineChoice.decide(for: old, selection: .forced(.pymobiledevice3), host: Self.linuxBare)
        #expect(missing.engine == nil && missing.explanation.contains("Scripts/bootstrap --with-pymobiledevice3"))
        // devicectl: macOS with Xcode 16+, iOS 17+.
        let onLinux = EngineChoice.decide(for: modern, selection: .forced(.devicectl), host: Self.linuxPMD3)
        #expect(onLinux.engine == nil && onLinux.explanation.contains("only on macOS"))
        #expect(
            EngineChoice.decide(for: modern, selection: .forced(.devicectl), host: Self.macXcode16).engine == .devicectl
        )
        #expect(EngineChoice.decide(for: old, selection: .forced(.devicectl), host: Self.macXcode16).engine == nil)
        let oldXcode = EngineChoice.decide(for: modern, selection: .forced(.devicectl), host: Self.macXcode15)
        #expect(oldXcode.engine == nil && oldXcode.explanation.contains("Xcode 15.4 is selected"))
    }

    @Test func selectionSpellings() {
        #expect(EngineSelection("auto") == .auto)
        #expect(EngineSelection("pymobiledevice3") == .forced(.pymobiledevice3))
        #expect(EngineSelection("devicectl") == .forced(.devicectl))
        #expect(EngineSelection("libimobiledevice") == .forced(.libimobiledevice))
        #expect(EngineSelection("lldb") == nil)
        #expect(EngineSelection.spellings == ["auto", "libimobiledevice", "pymobiledevice3", "devicectl"])
    }
}

@Suite(.timeLimit(.minutes(1))) struct EngineRecordingTests {
    /// The router of a host with pymobiledevice3, as the composition root hands it to the runner.
    static func router(_ host: EngineHost) -> EngineRouter { EngineRouter(selection: .auto, host: host) }

    @Test func theEngineOfEachDeviceIsInRunJSONAndTheReports() async throws {
        let old = RunnerFixtures.device(1, ios: "14.8")
        let modern = RunnerFixtures.device(2, ios: "17.5")
        let driver = FakeDeviceDriver(devices: [old, modern], script: RunnerFixtures.statisticsApp)
        let router = Self.router(EngineHost(isMacOS: false, pymobiledevice3: "/venv/bin/pymobiledevice3"))
        let folder = RunnerFixtures.temporaryFolder()
        let result = try await BenchmarkRunner(driver: driver, router: router).run(
            RunnerFixtures.plan(iterations: 1, warm: 0), into: folder)
        let manifest = try RunnerFixtures.readManifest(in: folder)
        #expect(manifest.outcome(of: old.udid)?.engine == "libimobiledevice")
        #expect(manifest.outcome(of: modern.udid)?.engine == "pymobiledevice3")
        #expect(manifest.outcome(of: modern.udid)?.engineReason?.contains("/venv/bin/pymobiledevice3") == true)
        #expect(result.manifest.outcome(of: modern.udid)?.outcome == .measured)
        let summary = try ResultsFolder.load(folder).summary
        let remarks = summary.devices.first(where: { $0.device.udid == modern.udid })?.remarks ?? []
        #expect(
            remarks.first?.hasPrefix("Launch engine: pymobiledevice3 (iOS 17.5: lockdown has no debugserver") == true)
        // iOS 15+: the headline numbers are time to main and first frame; dyld phases are not available.
        #expect(
            remarks.contains { $0.contains("main_ms") && $0.contains("first_frame_ms") && $0.contains("not available") }
        )
    }

    @Test func aDeviceWithNoEngineIsSkippedWithNoEngineRecorded() async throws {
        let modern = RunnerFixtures.device(2, ios: "17.5")
        let driver = FakeDeviceDriver(devices: [modern], script: RunnerFixtures.statisticsApp)
        let reporter = RecordingReporter()
        let folder = RunnerFixtures.temporaryFolder()
        _ = try await BenchmarkRunner(
            driver: driver, router: Self.router(EngineHost(isMacOS: false)), reporter: reporter
        ).run(
            RunnerFixtures.plan(iterations: 1, warm: 0), into: folder)
        let outcome = try #require(try RunnerFixtures.readManifest(in: folder).outcome(of: modern.udid))
        #expect(outcome.outcome == .skipped)
        #expect(outcome.engine == nil)
        #expect(outcome.notes.first?.contains("Scripts/bootstrap --with-pymobiledevice3") == true)
        #expect(reporter.skipped.count == 1)
    }
}

@Suite(.timeLimit(.minutes(1))) struct ModernHeadlineTests {
    @Test func withoutDyldStatisticsTimeToMainAndFirstFrameAreTheHeadline() async throws {
        let device = RunnerFixtures.device(1, ios: "16.7")
        let driver = FakeDeviceDriver(devices: [device]) { _ in
            .printing("[launchbench] mark=main t=120.5\n[launchbench] mark=firstFrame t=300.25\n[launchbench] done\n")
        }
        let folder = RunnerFixtures.temporaryFolder()
        _ = try await BenchmarkRunner(driver: driver).run(
            RunnerFixtures.plan(iterations: 2, warm: 0), into: folder)
        let results = try ResultsFolder.load(folder)
        let summary = try #require(results.summary.devices.first)
        #expect(summary.keyMetrics == [.mainMs, .firstFrameMs])
        let text = TerminalSummary.render(results.summary, color: false)
        #expect(text.contains("time to main (from process start)"))
        #expect(text.contains("120.5"))
        #expect(text.contains("dyld phases are not available"))
    }
}
