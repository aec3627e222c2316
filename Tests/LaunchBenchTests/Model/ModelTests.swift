import Foundation
import LaunchBench
import Testing

@Suite struct ModelTests {
    @Test(arguments: [
        ("14.8", OSVersion(14, 8)), ("9", OSVersion(9)), ("16.7.10", OSVersion(16, 7, 10)),
    ])
    func parsesVersions(text: String, expected: OSVersion) {
        #expect(OSVersion(text) == expected)
    }

    @Test(arguments: ["", "14.", "a.b", "1.2.3.4", "-1", "١٤"])
    func rejectsBadVersions(text: String) {
        #expect(OSVersion(text) == nil)
    }

    @Test func statisticsSupportFollowsDyldGenerations() {
        #expect(OSVersion(12, 5).dyldStatistics == .always)
        #expect(OSVersion(13, 1).dyldStatistics == .onlyWithOverride)
        #expect(OSVersion(14, 8).dyldStatistics == .onlyWithOverride)
        #expect(OSVersion(15, 0).dyldStatistics == .never)
        #expect(OSVersion(16, 7).offersDebugserver)
        #expect(!OSVersion(17, 0).offersDebugserver)
    }

    @Test func environmentAssignmentSplitsAtFirstEquals() throws {
        let variable = try #require(EnvironmentVariable(assignment: "A=b=c d é"))
        #expect(variable.name == "A")
        #expect(variable.value == "b=c d é")
        #expect(EnvironmentVariable(assignment: "=x") == nil)
        #expect(EnvironmentVariable(assignment: "novalue") == nil)
        #expect(EnvironmentVariable(assignment: "EMPTY=")?.value == "")
    }

    @Test func sampleRoundTripsThroughJSONWithoutInventingMetrics() throws {
        let sample = Sample(
            runID: "r1", deviceUDID: "00008030-001A2D4E0C38802E", deviceName: "Ana's iPhone", productType: "iPhone12,1",
            osVersion: "14.8", appBundleID: "com.example.app", appVersion: "1.0 (1)", iteration: 3, kind: .warm,
            launchIndex: 1, status: .ok, metrics: [.totalPremainMs: 412.5, .wallMs: 801],
            startedAt: Date(timeIntervalSince1970: 1_700_000_000.25))
        let data = try JSONCoding.encoder().encode(sample)
        let text = try #require(String(data: data, encoding: .utf8))
        #expect(text.contains("\"total_premain_ms\":412.5"))
        #expect(!text.contains("dylib_loading_ms"))
        let decoded = try JSONCoding.decoder().decode(Sample.self, from: data)
        #expect(decoded == sample)
        #expect(decoded[.dylibLoadingMs] == nil)
    }

    @Test func imagesInsideTheAppBundleAreRecognised() {
        let framework = LoadedImage(
            path: "/private/var/containers/Bundle/Application/X/Sample.app/Frameworks/A.framework/A")
        #expect(framework.pathInsideAppBundle == "Frameworks/A.framework/A")
        #expect(LoadedImage(path: "/usr/lib/libSystem.B.dylib").pathInsideAppBundle == nil)
        #expect(DeviceModels.marketingName(for: "iPhone6,1") == "iPhone 5s")
        #expect(DeviceModels.marketingName(for: "iPhone99,9") == "iPhone99,9")
    }
}
