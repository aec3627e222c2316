import EmulatorTestSupport
import Foundation
import LaunchBench
import LaunchEngines
import MobileDevice
import TestSupport
import Testing

@testable import DeviceEmulator

/// Apps, plans and runs for the end-to-end tests: the real runner over the real libimobiledevice
/// (MobileDeviceDriver) against emulated iPhones in the process-wide `SharedTestLab`.
enum EndToEnd {
    /// For a child whose subject is not pymobiledevice3 (the terminal display, the demo's seed): a path that is
    /// not a program, so the locator finds none and the demo runs its iOS 10–16 phones only, without Python's
    /// CPU beside the suites that need it (those run in two lanes of one test at a time, `RealPymobiledevice3Tests`).
    static let withoutPymobiledevice3 = [Pymobiledevice3Locator.environmentVariable: "/nonexistent/pymobiledevice3"]

    /// A fresh temp folder.
    static func temporaryFolder(_ label: String) -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "launchbench-e2e-\(label)-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes `<name>.app` with a unique bundle id (or `bundleID`: another build of the same app) and the given
    /// emulator profile; returns the bundle.
    static func makeApp(
        _ name: String, profile: AppProfile, frameworks: [String] = ["SampleKit.framework"], bundleID: String? = nil
    ) throws -> AppBundle {
        let app = temporaryFolder(name).appendingPathComponent("\(name).app")
        try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
        let info = [
            "CFBundleIdentifier": bundleID
                ?? "com.example.e2e.\(name.lowercased()).\(UUID().uuidString.prefix(6).lowercased())",
            "CFBundleExecutable": name, "CFBundleShortVersionString": "2.0", "CFBundleVersion": "42",
            "CFBundlePackageType": "APPL",
        ]
        try PropertyListSerialization.data(fromPropertyList: info, format: .binary, options: 0)
            .write(to: app.appendingPathComponent("Info.plist"))
        try Data("emulated executable".utf8).write(to: app.appendingPathComponent(name))
        for framework in frameworks {
            let folder = app.appendingPathComponent("Frameworks/\(framework)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("framework".utf8).write(
                to: folder.appendingPathComponent(String(framework.dropLast(".framework".count))))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(profile).write(to: app.appendingPathComponent(AppProfile.fileName))
        return try AppBundle(contentsOf: app)
    }

    /// A profile with markers and statistics, no noise-free surprises: the app exits after `done`.
    static func profile(faults: Faults? = nil, install: InstallBehaviour? = nil, developmentSigned: Bool = true)
        -> AppProfile
    {
        AppProfile(
            models: [
                "default": ModelTimings(
                    cold: LaunchTimings(
                        dylibLoadingMs: 180, rebaseBindingMs: 30, objcSetupMs: 20, initializerMs: 50, mainMs: 300,
                        didFinishLaunchingMs: 500, firstFrameMs: 650),
                    warm: LaunchTimings(
                        dylibLoadingMs: 60, rebaseBindingMs: 15, objcSetupMs: 10, initializerMs: 25, mainMs: 130,
                        didFinishLaunchingMs: 260, firstFrameMs: 340))
            ],
            noise: 0.03, exitAfterDone: true, developmentSigned: developmentSigned, faults: faults, install: install)
    }

    /// The emulated apps exit after `done`, so a long grace costs nothing; a short one would end a launch
    /// before its markers arrive when the machine is loaded.
    static let grace: Duration = .seconds(3)

    /// A plan for `devices` with test-friendly durations (the shared lab runs 100x faster than real time).
    static func plan(
        _ app: AppBundle, devices: [EmulatedDevice], iterations: Int, warm: Int = 1,
        cold: RunPlan.ColdMode = .reinstall,
        environment: [EnvironmentVariable] = [], timeout: Duration = .seconds(20)
    ) -> RunPlan {
        RunPlan(
            app: app, deviceUDIDs: devices.map(\.udid), iterations: iterations, coldMode: cold, warmLaunches: warm,
            environment: environment, timeout: timeout, grace: Self.grace, settle: .zero,
            installTimeout: .seconds(60), restartTimeout: .seconds(60))
    }

    /// Runs `plan` through the real library against the shared lab, into a fresh results folder.
    static func run(_ plan: RunPlan, reporter: any RunReporter = SilentRunReporter()) async throws -> RunResult {
        _ = try await SharedTestLab.lab()  // sets USBMUXD_SOCKET_ADDRESS before the first library call
        let folder = temporaryFolder("results")
        return try await BenchmarkRunner(driver: MobileDeviceDriver(), reporter: reporter)
            .run(plan, into: folder)
    }

    /// What the sample's raw log says, parsed on its own.
    static func parsedLog(of sample: Sample, in folder: URL) throws -> [LaunchRecord] {
        let data = try Data(contentsOf: folder.appendingPathComponent(sample.logPath ?? "missing"))
        return LaunchLogParser.parse(Array(data))
    }

    /// Every sample's values are exactly what its raw log says when parsed alone (wall time is ours).
    static func expectValuesAsPrinted(
        _ result: RunResult, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for sample in try result.samples {
            let printed = try parsedLog(of: sample, in: result.folder)
            var measured = sample.metrics
            measured[.wallMs] = nil
            #expect(printed.count == 1 && measured == printed.first?.metrics, sourceLocation: sourceLocation)
        }
    }

    /// Samples read back from `samples.jsonl`.
    static func samplesOnDisk(_ folder: URL) throws -> [Sample] {
        let text = try String(contentsOf: folder.appendingPathComponent("samples.jsonl"), encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONCoding.decoder().decode(Sample.self, from: Data($0.utf8)) }
    }

    /// Adds devices to the shared lab, runs `body`, removes them.
    static func withDevices<T>(
        _ specs: [(productType: String, osVersion: String)], _ body: ([EmulatedDevice]) async throws -> T
    ) async throws -> T {
        var devices: [EmulatedDevice] = []
        do {
            for spec in specs {
                devices.append(
                    try await SharedTestLab.addDevice(productType: spec.productType, osVersion: spec.osVersion))
            }
            let result = try await body(devices)
            for device in devices { await SharedTestLab.removeDevice(device) }
            return result
        } catch {
            for device in devices { await SharedTestLab.removeDevice(device) }
            throw error
        }
    }
}
