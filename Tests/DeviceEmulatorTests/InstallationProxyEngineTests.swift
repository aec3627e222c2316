import Foundation
import TestSupport
import Testing

@testable import DeviceEmulator

@Suite(.tags(.subprocess)) struct InstallationProxyEngineTests {
    static func stagedState(profile: String? = nil) throws -> DeviceServiceState {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("instproxy-\(UUID().uuidString)")
        let state = DeviceServiceState(mediaRoot: root)
        let staged = root.appendingPathComponent("PublicStaging/Sample.app")
        try FileManager.default.createDirectory(
            at: staged.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: FixturePaths.sampleApp, to: staged)
        if let profile {
            try Data(profile.utf8).write(to: staged.appendingPathComponent(AppProfile.fileName))
        }
        return state
    }

    static func run(_ engine: InstallationProxyEngine, _ request: [String: Any]) -> [[String: Any]] {
        engine.handle(request).map { step in
            step.effect?()
            return step.message
        }
    }

    @Test func developerInstallSendsTheRealStatusSequence() throws {
        let state = try Self.stagedState()
        defer { try? FileManager.default.removeItem(at: state.mediaRoot) }
        let engine = InstallationProxyEngine(state: state)
        let messages = Self.run(
            engine,
            [
                "Command": "Install", "ClientOptions": ["PackageType": "Developer"],
                "PackagePath": "PublicStaging/Sample.app",
            ])
        #expect(
            messages.compactMap { $0["PercentComplete"] as? Int } == [5, 15, 20, 20, 30, 30, 40, 50, 60, 70, 80, 90])
        #expect(messages.last?["Status"] as? String == "Complete")
        #expect(messages.last?["PercentComplete"] == nil)
        let app = try #require(state.app("com.example.launchbench.sample"))
        #expect(app.executable == "Sample")
        #expect(
            app.bundleImages.sorted() == [
                "Frameworks/SampleKit.framework/SampleKit", "Frameworks/SampleNetworking.framework/SampleNetworking",
                "Frameworks/libSampleAnalytics.dylib",
            ])
        #expect(app.profile.models?["A7"] != nil)

        let lookup = Self.run(
            engine,
            [
                "Command": "Lookup",
                "ClientOptions": [
                    "ApplicationType": "Any",
                    "ReturnAttributes": ["CFBundleIdentifier", "CFBundleExecutable", "Container"],
                    "BundleIDs": ["com.example.launchbench.sample", "com.example.absent"],
                ],
            ])
        let result = try #require(lookup.first?["LookupResult"] as? [String: Any])
        #expect(result.keys.sorted() == ["com.example.launchbench.sample"])
        let attributes = try #require(result["com.example.launchbench.sample"] as? [String: Any])
        #expect(attributes.keys.sorted() == ["CFBundleExecutable", "CFBundleIdentifier", "Container"])
        #expect(
            (attributes["Container"] as? String)?.hasPrefix("/private/var/mobile/Containers/Data/Application/") == true)

        // Reinstalling gives fresh UUIDs and a cold next launch.
        let firstPath = app.path
        _ = state.beginLaunch(app.bundleID)
        #expect(state.beginLaunch(app.bundleID).kind == .warm)
        _ = Self.run(
            engine,
            [
                "Command": "Install", "ClientOptions": ["PackageType": "Developer"],
                "PackagePath": "PublicStaging/Sample.app",
            ])
        #expect(state.app(app.bundleID)?.path != firstPath)
        #expect(state.beginLaunch(app.bundleID) == (3, .cold))

        let browse = Self.run(engine, ["Command": "Browse", "ClientOptions": ["ApplicationType": "User"]])
        #expect(browse.first?["Status"] as? String == "BrowsingApplications")
        #expect((browse.first?["CurrentList"] as? [[String: Any]])?.count == 1)
        #expect(browse.first?["Total"] as? Int == 1)
        #expect(browse.last?["Status"] as? String == "Complete")

        let uninstall = Self.run(
            engine, ["Command": "Uninstall", "ApplicationIdentifier": "com.example.launchbench.sample"])
        #expect(
            uninstall.map { $0["Status"] as? String } == [
                "RemovingApplication", "GeneratingApplicationMap", "Complete",
            ])
        #expect(state.installedApps.isEmpty)
        #expect(Self.run(engine, ["Command": "Browse"]).map { $0["Status"] as? String } == ["Complete"])
    }

    @Test func anIPAInstallsByBundleIdentifier() throws {
        let state = try Self.stagedState()
        defer { try? FileManager.default.removeItem(at: state.mediaRoot) }
        let work = state.mediaRoot.appendingPathComponent("work")
        try FileManager.default.createDirectory(
            at: work.appendingPathComponent("Payload"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: FixturePaths.sampleApp, to: work.appendingPathComponent("Payload/Sample.app"))
        let zip = Process()
        zip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        zip.arguments = [
            "zip", "-qr", state.mediaRoot.appendingPathComponent("PublicStaging/com.example.launchbench.sample").path,
            "Payload",
        ]
        zip.currentDirectoryURL = work
        try zip.run()
        zip.waitUntilExit()
        try #require(zip.terminationStatus == 0, "zip is needed for this test")
        let messages = Self.run(
            InstallationProxyEngine(state: state),
            [
                "Command": "Install", "ClientOptions": ["CFBundleIdentifier": "com.example.launchbench.sample"],
                "PackagePath": "PublicStaging/com.example.launchbench.sample",
            ])
        #expect(messages.last?["Status"] as? String == "Complete")
        #expect(state.app("com.example.launchbench.sample")?.frameworks.count == 3)
    }

    @Test func failingProfileSendsErrorAfterVerifying() throws {
        let state = try Self.stagedState(
            profile:
                #"{"install": {"failure": {"description": "no profile", "detail": 42, "when": {"launches": [2]}}}}"#)
        defer { try? FileManager.default.removeItem(at: state.mediaRoot) }
        let engine = InstallationProxyEngine(state: state)
        let request: [String: Any] = [
            "Command": "Install", "ClientOptions": ["PackageType": "Developer"],
            "PackagePath": "PublicStaging/Sample.app",
        ]
        #expect(Self.run(engine, request).last?["Status"] as? String == "Complete")
        let failed = Self.run(engine, request)
        #expect(failed.dropLast().last?["Status"] as? String == "VerifyingApplication")
        #expect(failed.last?["Error"] as? String == "ApplicationVerificationFailed")
        #expect(failed.last?["ErrorDescription"] as? String == "no profile")
        #expect(failed.last?["ErrorDetail"] as? Int == 42)

        state.installFailure = InstallFailure(error: "InstallProhibited")
        #expect(Self.run(engine, request).last?["Error"] as? String == "InstallProhibited")
    }

    @Test func aSlowDeviceSpreadsItsDelayOverTheStatuses() throws {
        let state = try Self.stagedState(profile: #"{"install": {"delayMs": 1200}}"#)
        defer { try? FileManager.default.removeItem(at: state.mediaRoot) }
        state.installDelayMs = 2400
        let steps = InstallationProxyEngine(state: state).handle([
            "Command": "Install", "ClientOptions": ["PackageType": "Developer"],
            "PackagePath": "PublicStaging/Sample.app",
        ])
        let total = steps.map(\.delayMs).reduce(0, +)
        #expect(abs(total - (13 * InstallationProxyEngine.stepMs + 3600 * 13 / 12)) < 0.001)
    }

    @Test func missingPackagesAndCommandsFail() throws {
        let state = try Self.stagedState()
        defer { try? FileManager.default.removeItem(at: state.mediaRoot) }
        let engine = InstallationProxyEngine(state: state)
        #expect(
            Self.run(engine, ["Command": "Install", "PackagePath": "PublicStaging/Nope.app"]).last?["Error"] as? String
                == "PackageExtractionFailed")
        #expect(Self.run(engine, ["Command": "Frobnicate"]).last?["Error"] as? String == "UnknownCommand")
        try FileManager.default.removeItem(
            at: state.mediaRoot.appendingPathComponent("PublicStaging/Sample.app/Info.plist"))
        #expect(
            Self.run(engine, ["Command": "Install", "PackagePath": "PublicStaging/Sample.app"]).last?["Error"]
                as? String == "PackageInspectionFailed")
    }

    @Test func diagnosticsRelayReplies() {
        let engine = DiagnosticsRelayEngine()
        #expect(
            engine.handle(["Request": "Restart", "WaitForDisconnect": true]).effect == .restart(afterDisconnect: true))
        #expect(engine.handle(["Request": "Shutdown"]).effect == .shutdown(afterDisconnect: false))
        #expect(engine.handle(["Request": "Goodbye"]).reply["Status"] as? String == "Success")
        #expect(engine.handle(["Request": "Frobnicate"]).reply["Status"] as? String == "UnknownRequest")
        // IORegistry answers (the battery's entry: EmulatedConditionsTests).
        #expect(engine.handle(["Request": "IORegistry"]).reply["Status"] as? String == "Success")
    }
}
