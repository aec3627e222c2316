import Foundation
import LaunchBench
import TestSupport

@testable import DeviceEmulator

/// Launches of an app on an emulated iPhone 11 (iOS 14.8, so dyld prints its statistics), each planned by
/// the emulator's `LaunchPlanner` (the profile's phases with its seeded noise), printed as dyld prints it and
/// read back by the core's parser: the figures `launchbench run` records, without the socket stack. The gate's
/// statistical tests and its benchmark judge these.
enum EmulatedLaunches {
    /// The sample app (`Fixtures/SampleApp`) as installd would hold it, with `profile`.
    static func app(_ profile: AppProfile, build: String = "34") -> InstalledApp {
        InstalledApp(
            bundleID: "com.example.launchbench.sample", executable: "Sample", bundleFolderName: "Sample.app",
            displayName: "Sample", name: "Sample", version: build, shortVersion: "1.2",
            frameworks: ["SampleKit.framework", "SampleNetworking.framework", "libSampleAnalytics.dylib"],
            profile: profile, staticDiskUsage: 4096, bundleUUID: UUID(), containerUUID: UUID())
    }

    /// `Fixtures/SampleApp`'s own profile.
    static func sampleAppProfile() throws -> AppProfile {
        try AppProfile.decode(
            Data(
                contentsOf: PackageRoot.at("Fixtures/SampleApp/Sample.app").appendingPathComponent(AppProfile.fileName))
        )
    }

    /// What the parser read from launches 1…`count` of `kind` (`loadedLibraries` filled with `libraries`).
    static func records(_ app: InstalledApp, kind: LaunchKindName = .cold, count: Int, libraries: Bool = false)
        -> [LaunchRecord]
    {
        let planner = LaunchPlanner(
            productType: "iPhone12,1", osVersion: OSVersion(14, 8), udid: udid, labSeed: 1)
        var environment = ["DYLD_PRINT_STATISTICS": "1", "DYLD_INSERT_LIBRARIES": "/usr/lib/libLaunchProbe.dylib"]
        if libraries { environment["DYLD_PRINT_LIBRARIES"] = "1" }
        return (1...count).map { n in
            let plan = planner.plan(app: app, environment: environment, kind: kind, launchNumber: n)
            return LaunchLogParser.parse(plan.allOutput).first ?? LaunchRecord()
        }
    }

    /// Cold launches of `app` as samples of run `runID`, with the images and initializers each launch loaded.
    static func samples(_ app: InstalledApp, count: Int = 20, runID: String, libraries: Bool = false) -> [Sample] {
        records(app, count: count, libraries: libraries).enumerated().map { index, record in
            Sample(
                runID: runID, deviceUDID: udid, deviceName: "Emulated iPhone 11", productType: "iPhone12,1",
                osVersion: "14.8", appBundleID: app.bundleID,
                appVersion: "\(app.shortVersion ?? "") (\(app.version ?? ""))", iteration: index + 1, kind: .cold,
                status: record.totalPremainMs == nil ? .noMetrics : .ok, metrics: record.metrics,
                startedAt: Date(timeIntervalSince1970: Double(index + 1)),
                bundleImages: record.loadedLibraries.compactMap(\.pathInsideAppBundle),
                initializers: record.imageInitializers)
        }
    }

    static let udid = "00008030-001A2D4E0C388001"
}
