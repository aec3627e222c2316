import Foundation
import LaunchBench
import Testing

@testable import DeviceEmulator

/// The emulated phone's STATIC_INITIALIZER events point at the sample binaries' real initializers (read from
/// the binary it installs), so the core names them as `llvm-nm` does.
@Suite struct KdebugInitializerAddressTests {
    static let device = "iPhone14,5"

    static func traced(_ ios: OSVersion, profile: AppProfile? = nil) throws -> (DyldLaunchPhases, LaunchPlan) {
        var app = try AppBundleLoader.load(FixturePaths.sampleApp)
        if let profile { app.profile = profile }
        let plan = LaunchPlanTests.planner(ios, model: Self.device).plan(
            app: app, environment: [:], kind: .cold, launchNumber: 1)
        let events = KdebugLaunchEvents(plan: plan, osVersion: ios, buildsClosure: false)
        let records = events.timeline(execTick: 5_000_000_000).records
        let phases = try #require(
            DyldLaunchPhases(records: records, timebase: .iPhone, selection: .executable("Sample")))
        return (phases, plan)
    }

    static func names() throws -> InitializerNames {
        InitializerNames.load(
            app: try AppBundle(contentsOf: FixturePaths.sampleApp), sources: InitializerSymbolSources())
    }

    /// `(image, function)` of each STATIC_INITIALIZER of a bundle image, in launch order.
    static func named(_ phases: DyldLaunchPhases, _ names: InitializerNames) -> [String] {
        phases.timeline.filter { $0.kind == .staticInitializer && $0.image?.contains(".app/") == true }.compactMap {
            interval in
            interval.initializerOffset.map {
                (interval.image?.split(separator: "/").last.map(String.init) ?? "") + " "
                    + names.function(imagePath: interval.image ?? "", offset: $0)
            }
        }
    }

    /// The demo's phones: every bundle initializer is named after a symbol of its binary.
    @Test(arguments: [OSVersion(16, 7), OSVersion(17, 5), OSVersion(18, 6)])
    func initializersPointAtTheBinarysFunctions(_ ios: OSVersion) throws {
        let (phases, plan) = try Self.traced(ios)
        #expect(plan.binaries.count == 4)
        #expect(
            Self.named(phases, try Self.names()) == [
                "SampleNetworking networking_warm_cache", "SampleNetworking networking_start_reachability",
                "Sample $s6Sample8AppSetupV16registerDefaultsyyFZ", "Sample sample_configure_logging",
            ])
        // The image's printed time is shared by its initializers, so the per-image sum is unchanged.
        let networking = phases.timeline.filter {
            $0.kind == .staticInitializer && $0.image?.hasSuffix("/SampleNetworking") == true
        }
        let printed = try #require(plan.phases.initializers.first { $0.image == "SampleNetworking" })
        let sum = networking.reduce(0) { $0 + $1.endMs - $1.startMs }
        #expect(abs(sum - Double(printed.us) / 1000) < 0.01)
    }

    /// A profile change that slows one named initializer lands in that function alone.
    @Test func aChangeSlowsTheNamedFunction() throws {
        var profile = try AppProfile.decode(
            try Data(contentsOf: FixturePaths.sampleApp.appendingPathComponent(AppProfile.fileName)))
        profile.changes = [
            ProfileChange(
                fromLaunch: 1,
                initializers: [
                    InitializerFigure(image: "SampleNetworking", ms: 18, function: "networking_start_reachability")
                ])
        ]
        let (before, _) = try Self.traced(OSVersion(17, 5))
        let (after, _) = try Self.traced(OSVersion(17, 5), profile: profile)
        func ms(_ phases: DyldLaunchPhases, _ offset: UInt64) -> Double {
            phases.timeline.filter {
                $0.kind == .staticInitializer && $0.image?.hasSuffix("/SampleNetworking") == true
                    && $0.initializerOffset == offset
            }.reduce(0) { $0 + $1.endMs - $1.startMs }
        }
        // networking_warm_cache at 0x4000, networking_start_reachability at 0x4014 (llvm-nm).
        #expect(abs(ms(after, 0x4000) - ms(before, 0x4000)) < 1)
        #expect(ms(after, 0x4014) - ms(before, 0x4014) > 15)
    }
}
