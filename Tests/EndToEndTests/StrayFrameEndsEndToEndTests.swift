import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import LaunchEngines
import MobileDevice
import TestSupport
import Testing

extension RealPymobiledevice3TunnelTests {
    /// Issue 50 end to end: emulated phones whose app sends an Initial Frame Rendering END before UIKit's BEGIN
    /// (as some apps do on real phones, py-ios-device PR #127), read through the real pymobiledevice3. Every
    /// first frame is the emulated truth (the profile's, with no noise), the strays are counted, and a run whose
    /// BEGIN never comes says its first frame is unanchored.
    @Suite(.tags(.pymobiledevice3), .timeLimit(.minutes(8)), installed) struct StrayFrameEndsEndToEndTests {
        static let phones = [("iPhone14,5", "16.7"), ("iPhone15,4", "17.5"), ("iPhone16,1", "26.1")]

        /// The end-to-end profile without noise: each launch's first frame is exactly the profile's.
        static func profile(_ frames: UIKitFrameEvents, probe: Bool) -> AppProfile {
            var profile = EndToEnd.profile()
            profile.noise = 0
            profile.uikitFrames = frames
            if !probe {
                profile.markers = []
                profile.printsDone = false
                profile.exitAfterDone = false
            }
            return profile
        }

        /// The emulated truth: the profile's first frame of the launch's kind (ms from the process's start, which
        /// the emulator puts at the exec).
        static func truth(_ sample: Sample) -> Double { sample.kind == .cold ? 650 : 340 }

        static func run(_ name: String, _ profile: AppProfile, on devices: [EmulatedDevice]) async throws -> RunResult {
            let app = try EndToEnd.makeApp(name, profile: profile)
            var plan = EndToEnd.plan(app, devices: devices, iterations: 1)
            plan.premain = .kdebug
            return try await Pymobiledevice3EndToEnd.run(
                plan, driver: try await Pymobiledevice3EndToEnd.driver(selection: .auto), readsKdebug: true)
        }

        @Test(arguments: [true, false])
        func everyFirstFrameIsTheTruthAndTheStraysAreCounted(probe: Bool) async throws {
            try await EndToEnd.withDevices(Self.phones) { devices in
                let result = try await Self.run(
                    probe ? "StrayProbe" : "StrayBare", Self.profile(UIKitFrameEvents(strayEnds: 1), probe: probe),
                    on: devices)
                let samples = try result.samples
                #expect(samples.count == 6)
                for sample in samples {
                    let label = "\(sample.osVersion) \(sample.kind): \(sample.message ?? "") \(sample.warnings)"
                    #expect(sample.status == .ok, "\(label)")
                    let frame = try #require(sample[.firstFrameMs], "\(label)")
                    #expect(abs(frame - Self.truth(sample)) <= 1, "\(frame) \(label)")
                    #expect(sample.firstFrameSource == .uikitAnchored, "\(label)")
                    #expect(sample.strayFrameEnds == 1, "\(label)")
                    #expect(!sample.warnings.contains { $0.contains("disagree") }, "\(label)")
                    let trace = try Data(
                        contentsOf: result.folder.appendingPathComponent(
                            ResultsStore.tracePath(
                                udid: sample.deviceUDID, iteration: sample.iteration, kind: sample.kind,
                                launchIndex: sample.launchIndex)))
                    #expect(String(decoding: trace, as: UTF8.self).contains("stray frame END"), "\(label)")
                }
                for device in devices {
                    #expect(result.manifest.outcome(of: device.udid)?.firstFrameSources == [.uikitAnchored])
                }
                // As the gate and other tools read them: the keys in samples.jsonl and run.json.
                let lines = try String(
                    contentsOf: result.folder.appendingPathComponent("samples.jsonl"), encoding: .utf8)
                #expect(lines.components(separatedBy: #""first_frame_source":"uikit-anchored""#).count - 1 == 6)
                #expect(lines.components(separatedBy: #""stray_frame_ends":1"#).count - 1 == 6)
                let run = try String(contentsOf: result.folder.appendingPathComponent("run.json"), encoding: .utf8)
                #expect(run.contains(#""first_frame_source""#), "\(run)")
            }
        }

        /// No BEGIN: without LaunchProbe the first frame is the first END after didFinishLaunching, said to be
        /// unanchored (here still the truth: the stray came inside didFinishLaunching); with LaunchProbe its
        /// marker is the first frame.
        @Test func aRunWhoseBeginNeverComesSaysItsFirstFrameIsUnanchored() async throws {
            try await EndToEnd.withDevices([("iPhone15,4", "17.5")]) { devices in
                let frames = UIKitFrameEvents(strayEnds: 1, begin: false)
                let bare = try await Self.run("NoBeginBare", Self.profile(frames, probe: false), on: devices)
                for sample in try bare.samples {
                    let label = "\(sample.kind): \(sample.warnings)"
                    #expect(sample.status == .ok, "\(label)")
                    #expect(sample.firstFrameSource == .uikitUnanchored, "\(label)")
                    #expect(sample.warnings.contains { $0.contains("BEGIN (0x2B870030) never came") }, "\(label)")
                    #expect(abs((sample[.firstFrameMs] ?? 0) - Self.truth(sample)) <= 1, "\(label)")
                }
                #expect(bare.manifest.outcome(of: devices[0].udid)?.firstFrameSources == [.uikitUnanchored])
                let probed = try await Self.run("NoBeginProbe", Self.profile(frames, probe: true), on: devices)
                for sample in try probed.samples {
                    #expect(sample.firstFrameSource == .markers, "\(sample.kind): \(sample.warnings)")
                    #expect(abs((sample[.firstFrameMs] ?? 0) - Self.truth(sample)) <= 1)
                }
            }
        }
    }
}
