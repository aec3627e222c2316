import Foundation
import Testing

@testable import LaunchBench

@Suite struct PrelaunchLabelTests {
    @Test(arguments: [
        (
            "default\t15:11:38.784456-0700\trunningboardd\tExecuting launch request for application<com.xyz> "
                + "(DAS Prewarm launch)", "com.xyz", "DAS Prewarm launch", Prelaunch.Kind?.some(.prewarm)
        ),
        (
            "Nov 26 09:12:03 iPhone runningboardd[33] <Notice>: Executing launch request for "
                + "application<com.example.app> (DAS DYLD3 Closure Generation)", "com.example.app",
            "DAS DYLD3 Closure Generation", .closureGeneration
        ),
        ("Executing launch request for application<a.b> (DAS Something new)", "a.b", "DAS Something new", .other),
        ("Executing launch request for application<a.b> (debugserver)", "a.b", "debugserver", nil),
    ])
    func runningboardLinesNameTheBundleAndReason(
        line: String, bundleID: String, reason: String, kind: Prelaunch.Kind?
    ) throws {
        let request = try #require(RunningboardLaunchRequest(line: line))
        #expect(request.bundleID == bundleID)
        #expect(request.reason == reason)
        #expect(request.prelaunchKind == kind)
    }

    @Test func otherLinesAreNotLaunchRequests() {
        #expect(RunningboardLaunchRequest(line: "Executing launch request for application<> (DAS x)") == nil)
        #expect(RunningboardLaunchRequest(line: "Executing launch request for application<a.b>") == nil)
        #expect(RunningboardLaunchRequest(line: "Acquiring assertion for application<a.b>") == nil)
    }

    static func sample(iteration: Int, index: Int) -> Sample {
        Sample(
            runID: "r", deviceUDID: "U", deviceName: "Phone", productType: "iPhone14,5", osVersion: "16.7",
            appBundleID: "a.b", appVersion: "1 (1)", iteration: iteration, kind: index == 0 ? .cold : .warm,
            launchIndex: index, status: .ok, metrics: [.firstFrameMs: Double(100 + iteration)],
            startedAt: Date(timeIntervalSince1970: 0))
    }

    static func plan(_ cold: RunPlan.ColdMode, counting: Bool = false) -> RunPlan {
        var plan = RunPlan(
            app: AppBundle(
                url: URL(fileURLWithPath: "/tmp/App.app"), packaging: .appFolder, bundleID: "a.b", shortVersion: "1",
                build: "1", executable: "App", bundleName: "App", frameworks: []),
            deviceUDIDs: [], iterations: 3, coldMode: cold, warmLaunches: 1)
        plan.countPrelaunched = counting
        return plan
    }

    static let prewarm = Prelaunch(kind: .prewarm, pid: 812, reached: .main, secondsBefore: 4.2, source: .kdebug)

    @Test func aColdLaunchAfterAPrelaunchIsSetAsideUnlessCounted() throws {
        for counting in [false, true] {
            var cold = Self.sample(iteration: 2, index: 0)
            LaunchDisturbance.label(
                &cold, prelaunch: Self.prewarm, builtClosure: false,
                attempt: LaunchAttempt(iteration: 2, index: 0, phases: PhaseTimings()),
                plan: Self.plan(.reinstall, counting: counting))
            #expect(cold.prelaunch == Self.prewarm)
            #expect(cold.setAside == !counting)
        }
        // A warm launch after a prelaunch was warm anyway: named, counted.
        var warm = Self.sample(iteration: 2, index: 1)
        LaunchDisturbance.label(
            &warm, prelaunch: Self.prewarm, builtClosure: false,
            attempt: LaunchAttempt(iteration: 2, index: 1, phases: PhaseTimings()), plan: Self.plan(.reinstall))
        #expect(warm.prelaunch != nil && !warm.setAside)
    }

    /// iOS 27 preloads the data apps need when opened (WWDC26): a cold launch after a prelaunch there says so,
    /// beside the label; on iOS 26 the label alone, and a cold launch with none seen says nothing.
    @Test func aPrelaunchOnIOS27NamesItsPreloading() throws {
        for (version, prelaunch, warns) in [("27.1", true, true), ("26.1", true, false), ("27.1", false, false)] {
            var cold = Self.sample(iteration: 2, index: 0)
            cold.osVersion = version
            LaunchDisturbance.label(
                &cold, prelaunch: prelaunch ? Self.prewarm : nil, builtClosure: false,
                attempt: LaunchAttempt(iteration: 2, index: 0, phases: PhaseTimings()), plan: Self.plan(.reinstall))
            let warning = cold.warnings.first { $0.contains("preloads the data apps need when opened") }
            #expect((warning != nil) == warns, "\(version) \(prelaunch): \(cold.warnings)")
            if warns { #expect(warning?.contains("iOS 27.1") == true && warning?.contains("less cold") == true) }
        }
    }

    @Test func aClosureBuiltAfterTheFirstLaunchSinceTheInstallIsARebuild() throws {
        let cases: [(RunPlan.ColdMode, iteration: Int, index: Int, rebuilt: Bool)] = [
            (.reinstall, 2, 0, false),  // every reinstall's first launch builds it
            (.reinstall, 2, 1, true),
            (.reboot, 1, 0, false),  // the run's one install
            (.reboot, 2, 0, true),  // a restart keeps the closure
            (.none, 3, 0, true),
        ]
        for (mode, iteration, index, rebuilt) in cases {
            var sample = Self.sample(iteration: iteration, index: index)
            LaunchDisturbance.label(
                &sample, prelaunch: nil, builtClosure: true,
                attempt: LaunchAttempt(iteration: iteration, index: index, phases: PhaseTimings()),
                plan: Self.plan(mode))
            #expect(sample.closureRebuilt == rebuilt, "\(mode) \(iteration) \(index)")
            #expect(sample.setAside == rebuilt, "\(mode) \(iteration) \(index)")
        }
    }

    @Test func setAsideLaunchesLeaveTheStatisticsAndAreNamed() throws {
        var samples = (1...3).map { Self.sample(iteration: $0, index: 0) }
        samples[1].prelaunch = Self.prewarm
        samples[1].setAside = true
        let device = try #require(RunSummary(samples: samples).devices.first)
        #expect(device.kind(.cold)?.launches == 2)
        #expect(device.kind(.cold)?.metrics[.firstFrameMs]?.n == 2)
        #expect(
            device.remarks == [
                "1 launch set aside, not in the statistics (--count-prelaunched counts them): iteration 2 cold after "
                    + "a prewarm (pid 812, reached main, 4.2 s before, seen by kdebug)."
            ])
        // Every report names it under the device.
        let summary = RunSummary(samples: samples)
        let folder = ResultsFolder(url: URL(fileURLWithPath: "/r"), manifest: nil, samples: samples)
        for report in [
            SummaryTextReport.render(summary), MarkdownReport.render(summary),
            HTMLReport.render(folder, summary: summary),
        ] {
            #expect(report.contains("iteration 2 cold after a prewarm"))
        }
        // --target-precision watches the same values as the statistics.
        #expect(AdaptiveStopping.coldValues(samples) == [101, 103])
        // A round trip through samples.jsonl keeps the label.
        let line = try JSONEncoder().encode(samples[1])
        let read = try JSONDecoder().decode(Sample.self, from: line)
        #expect(read.prelaunch == Self.prewarm && read.setAside && !read.closureRebuilt)
        #expect(String(decoding: line, as: UTF8.self).contains("\"seconds_before\":4.2"))
    }

    @Test func theGateNamesTheSetAsideLaunchesOfEachSide() throws {
        func input(_ samples: [Sample], _ path: String) -> GateInput {
            GateInput(
                path: path, folder: ResultsFolder(url: URL(fileURLWithPath: path), manifest: nil, samples: samples),
                appBundleID: samples.first?.appBundleID, launches: GateLaunches(samples: samples),
                referenceLaunches: GateLaunches(samples: []))
        }
        let baseline = (1...5).map { Self.sample(iteration: $0, index: 0) }
        var current = baseline
        current[2].prelaunch = Self.prewarm
        current[2].setAside = true
        let report = try GateCheck(baseline: input(baseline, "/base"), settings: GateSettings()).report(
            current: input(current, "/head"))
        #expect(
            report.notes == [
                "current /head: Phone: 1 launch set aside, not in the statistics (--count-prelaunched counts them): "
                    + "iteration 3 cold after a prewarm (pid 812, reached main, 4.2 s before, seen by kdebug)."
            ])
        #expect(report.comparison?.entries.first { $0.kind == .cold }?.current.launches == 4)
    }
}
