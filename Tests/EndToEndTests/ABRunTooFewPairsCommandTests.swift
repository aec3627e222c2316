import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import TestSupport
import Testing

/// Issue 44: `run NEW --against BASE --iterations 5` with NEW 92 % slower. Five pairs can never be significant
/// (the exact signed-rank test's smallest two-sided p at 5 pairs is 0.0625), so the run is undecided (exit 3),
/// naming why, never a pass; six pairs of the same builds are a regression (exit 2).
@Suite(.tags(.emulator, .subprocess), .timeLimit(.minutes(10))) struct ABRunTooFewPairsCommandTests {
    private static func profile(scaledBy factor: Double) -> AppProfile {
        var profile = EndToEnd.profile()
        for (model, timings) in profile.models ?? [:] {
            func scaled(_ t: LaunchTimings?) -> LaunchTimings? {
                guard var t else { return nil }
                t.dylibLoadingMs *= factor
                t.rebaseBindingMs *= factor
                t.objcSetupMs *= factor
                t.initializerMs *= factor
                t.mainMs = t.mainMs.map { $0 * factor }
                t.didFinishLaunchingMs = t.didFinishLaunchingMs.map { $0 * factor }
                t.firstFrameMs = t.firstFrameMs.map { $0 * factor }
                return t
            }
            profile.models?[model] = ModelTimings(cold: scaled(timings.cold), warm: scaled(timings.warm))
        }
        return profile
    }

    @Test func fivePairsAreUndecidedAndSixAreARegression() async throws {
        try await PrivateLab.with(devices: EmulatedDeviceSpec.lab(count: 1, osVersion: "12.5.7")) { lab in
            let folder = EndToEnd.temporaryFolder("ab-five")
            let base = try EndToEnd.makeApp("Few", profile: Self.profile(scaledBy: 1), bundleID: "com.example.e2e.few")
            let new = try EndToEnd.makeApp(
                "Few", profile: Self.profile(scaledBy: 1.92), bundleID: "com.example.e2e.few")
            func run(_ iterations: Int) async throws -> LaunchbenchCLI.Outcome {
                try await LaunchbenchCLI.run(
                    [
                        "run", new.url.path, "--against", base.url.path, "--iterations", String(iterations), "--warm",
                        "0", "--timeout", "20", "--grace", "3", "--output",
                        folder.appendingPathComponent("n\(iterations)").path,
                    ],
                    environment: [
                        "USBMUXD_SOCKET_ADDRESS": lab.usbmuxdSocketAddress, "NO_COLOR": "1",
                        "LAUNCHBENCH_LOCK_DIR": folder.appendingPathComponent("locks").path,
                    ], timeout: .seconds(240))
            }
            let five = try await run(5)
            #expect(five.status == 3, "\(five.stdout)\(five.stderr)")
            #expect(
                five.stdout.contains("Undecided: 5 measured pairs, and the signed-rank test needs 6"), "\(five.stdout)")
            #expect(!five.stdout.contains("Gate: PASSED"), "\(five.stdout)")
            #expect(!five.stdout.contains("the smallest change these pairs could show"), "\(five.stdout)")
            let six = try await run(6)
            #expect(six.status == 2, "\(six.stdout)\(six.stderr)")
            #expect(six.stdout.contains("Slower after 6 pairs"), "\(six.stdout)")
        }
    }
}
