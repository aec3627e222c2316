import DeviceEmulator
import EmulatorTestSupport
import Foundation
import LaunchBench
import LaunchEngines
import MobileDevice
import TestSupport
import Testing

extension RealPymobiledevice3Tests {
    /// `--page-faults` end to end: the helper adds DBG_MACH_VM to the real pymobiledevice3's session, the
    /// emulated phone sends the faults it takes (written from xnu's source), and the core counts them per
    /// launch and image; an app without LaunchProbe gets didFinishLaunching from UIKit's lifecycle codes.
    @Suite(.tags(.pymobiledevice3), .timeLimit(.minutes(5)), installed) struct PageInsEndToEndTests {
        @Test func coldLaunchesPageInWarmOnesHitTheCacheAndUIKitGivesDidFinishLaunching() async throws {
            try await EndToEnd.withDevices([("iPhone14,5", "16.7"), ("iPhone15,4", "17.5")]) { devices in
                var profile = EndToEnd.profile()
                profile.markers = []  // no LaunchProbe
                let app = try EndToEnd.makeApp("Faulting", profile: profile)
                var plan = EndToEnd.plan(app, devices: devices, iterations: 2)
                plan.premain = .kdebug
                let result = try await Pymobiledevice3EndToEnd.run(
                    plan, driver: try await Pymobiledevice3EndToEnd.driver(selection: .auto, pageFaults: true),
                    readsKdebug: true)
                let samples = try result.samples
                #expect(samples.count == 8)
                for sample in samples {
                    let label = "\(sample.osVersion) #\(sample.iteration) \(sample.kind): \(sample.warnings)"
                    #expect(sample.status == .ok, "\(label) \(sample.message ?? "")")
                    let pageIns = try #require(sample[.pageIns], "\(label)")
                    // A cold launch reads the app's text pages from flash; a warm one finds them cached.
                    #expect((pageIns > 0) == (sample.kind == .cold), "\(label)")
                    #expect((sample[.zeroFillFaults] ?? 0) > 0 && (sample[.cowFaults] ?? 0) > 0, "\(label)")
                    #expect(sample[.compressorFaults] == 0, "\(label)")
                    if sample.kind == .cold {
                        #expect(sample.pageInsByImage?.first?.image.hasSuffix("/Faulting") == true, "\(label)")
                    }
                    // No markers: UIKit's codes give both after-main points, in order.
                    let finished = try #require(sample[.didFinishLaunchingMs], "\(label)")
                    let frame = try #require(sample[.firstFrameMs], "\(label)")
                    #expect(finished < frame && finished > (sample[.totalPremainMs] ?? .infinity), "\(label)")
                    let trace = result.folder.appendingPathComponent(
                        ResultsStore.tracePath(
                            udid: sample.deviceUDID, iteration: sample.iteration, kind: sample.kind,
                            launchIndex: sample.launchIndex))
                    try KdebugEndToEndTests.expectChromeTrace(trace)
                    let text = try String(contentsOf: trace, encoding: .utf8)
                    #expect(text.contains(#""name":"page-ins""#) == (sample.kind == .cold), "\(label)")
                    #expect(text.contains(#""name":"didFinishLaunchingWithOptions()""#), "\(label)")
                }
                for device in devices {
                    let log = result.folder.appendingPathComponent("logs/\(device.udid)/kdebug-tap.log")
                    #expect(try String(contentsOf: log, encoding: .utf8).contains("--page-faults"))
                }
            }
        }
    }
}
