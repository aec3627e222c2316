import Foundation
import LaunchBench
import Testing

@testable import DeviceEmulator

@Suite struct AppProfileTests {
    @Test func builtInFiguresFollowTheSeedTalk() {
        let profile = AppProfile.default
        let iPhone5 = profile.timings(productType: "iPhone5,2", kind: .cold).preMainMs
        let iPhone5s = profile.timings(productType: "iPhone6,1", kind: .cold).preMainMs
        #expect(abs(iPhone5 - 840) < 1)
        #expect(abs(iPhone5s - 230) < 1)
        var previous = iPhone5
        for major in 7...17 {
            let cold = profile.timings(productType: "iPhone\(major),1", kind: .cold)
            let warm = profile.timings(productType: "iPhone\(major),1", kind: .warm)
            #expect(cold.preMainMs < previous, "newer chips are faster (iPhone\(major),1)")
            let ratio = warm.preMainMs / cold.preMainMs
            #expect((0.4...0.6).contains(ratio), "warm ≈ 40–60 % of cold, got \(ratio)")
            #expect(cold.didFinishLaunchingMs! > cold.mainMs!, "didFinishLaunching after main")
            #expect(cold.firstFrameMs! > cold.didFinishLaunchingMs!)
            previous = cold.preMainMs
        }
        let old = profile.timings(productType: "iPhone5,2", kind: .cold)
        let new = profile.timings(productType: "iPhone17,1", kind: .cold)
        #expect(old.didFinishLaunchingMs! - old.mainMs! >= 300)
        #expect(new.didFinishLaunchingMs! - new.mainMs! < 100)
    }

    @Test func lookupGoesProductTypeThenChipThenDefault() throws {
        let t = { (ms: Double) in
            LaunchTimings(dylibLoadingMs: ms, rebaseBindingMs: 0, objcSetupMs: 0, initializerMs: 0)
        }
        let profile = AppProfile(models: [
            "iPhone6,1": ModelTimings(cold: t(1)), "A7": ModelTimings(cold: t(2)), "default": ModelTimings(cold: t(3)),
        ])
        #expect(profile.timings(productType: "iPhone6,1", kind: .cold).dylibLoadingMs == 1)
        #expect(profile.timings(productType: "iPhone6,2", kind: .cold).dylibLoadingMs == 2)
        #expect(profile.timings(productType: "iPhone12,1", kind: .cold).dylibLoadingMs == 3)
        // Warm derived from cold when only cold is given.
        #expect(profile.timings(productType: "iPhone6,1", kind: .warm).dylibLoadingMs == 0.4)
        // No entry at all: the built-in figures of the chip.
        #expect(AppProfile(models: [:]).timings(productType: "iPhone6,1", kind: .cold).preMainMs.rounded() == 230)
        #expect(ChipGeneration.chip(for: "iPhone12,1") == "A13")
        #expect(ChipGeneration.chip(for: "iPad8,1") == nil)
    }

    @Test func theSampleFixtureProfileDecodes() throws {
        let data = try Data(contentsOf: FixturePaths.sampleApp.appendingPathComponent(AppProfile.fileName))
        let profile = try AppProfile.decode(data)
        #expect(profile.schemaVersion == 1)
        #expect(profile.models?["A7"]?.warm?.slowestInitializers?.count == 2)
        let cold = profile.timings(productType: "iPhone6,1", kind: .cold)
        let warm = profile.timings(productType: "iPhone6,1", kind: .warm)
        #expect(warm.preMainMs < cold.preMainMs * 0.6)
    }

    @Test func badProfilesAreRejectedNamingTheField() {
        #expect(throws: AppProfileError.self) { try AppProfile.decode(Data(#"{"schemaVersion": 2}"#.utf8)) }
        #expect(throws: AppProfileError.self) { try AppProfile.decode(Data(#"{"noise": 3}"#.utf8)) }
        do {
            _ = try AppProfile.decode(Data(#"{"models": {"A7": {"cold": {"dylibLoadingMs": "fast"}}}}"#.utf8))
            Issue.record("a string time decoded")
        } catch {
            #expect(
                error.localizedDescription.contains("models.A7.cold.dylibLoadingMs"), "\(error.localizedDescription)")
        }
        do {
            _ = try AppProfile.decode(
                Data(
                    #"{"models": {"A7": {"cold": {"dylibLoadingMs": -1, "rebaseBindingMs": 0, "objcSetupMs": 0, "initializerMs": 0}}}}"#
                        .utf8))
            Issue.record("a negative time decoded")
        } catch {
            #expect(error.localizedDescription.contains("dylibLoadingMs is -1.0"), "\(error.localizedDescription)")
        }
        #expect((try? AppProfile.decode(Data("{}".utf8))) == AppProfile(schemaVersion: nil))
    }

    /// A profile's times reach µs and ns counters (`UInt64(ms * 1000)`), which trap past their range: a time
    /// past an hour is refused naming the field, before any launch could crash the emulator.
    @Test(arguments: [
        (
            #"{"models": {"A7": {"cold": {"dylibLoadingMs": 1e300, "rebaseBindingMs": 0, "objcSetupMs": 0, "initializerMs": 0}}}}"#,
            "models.A7.cold.dylibLoadingMs is 1e+300; times must be ≥ 0 and at most 3600000 ms"
        ),
        (#"{"install": {"delayMs": 1e20}}"#, "install.delayMs is 1e+20; times must be ≥ 0"),
        (#"{"changes": [{"fromLaunch": 2, "objcSetupMs": 4e6}]}"#, "changes[0].objcSetupMs is 4000000.0"),
    ])
    func hugeTimesAreRejectedNamingTheField(json: String, message: String) {
        do {
            _ = try AppProfile.decode(Data(json.utf8))
            Issue.record("\(json) decoded")
        } catch {
            #expect(error.localizedDescription.contains(message), "\(error.localizedDescription)")
        }
    }
}
