import Foundation
import TestSupport
import Testing

/// `launchbench parse` of a real iPhone's kdebug buffer (`Fixtures/kdebug/real/go-ios-ios14-sysmond/`, from go-ios,
/// MIT): two dyld3 launches in pid 312, launchd's `xpcproxy` and its exec into `sysmond`. The expected phases are
/// `expected.json`, written by that folder's `read-expected.py`, a reader of its own built from xnu's and dyld's
/// headers (not from launchbench's code); this test holds parse's reading to it.
@Suite(.tags(.subprocess), .timeLimit(.minutes(2))) struct RealKdebugCaptureTests {
    static let folder = PackageRoot.at("Fixtures/kdebug/real/go-ios-ios14-sysmond")

    @Test func parseReadsTheRealCaptureAsAnIndependentReaderDoes() async throws {
        let capture = Self.folder.appendingPathComponent("kdebug-rawv2-decoded.bin").path
        let outcome = try await LaunchbenchCLI.run(["parse", capture, "--format", "json"])
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
        let launches = try #require(
            try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]])
        let expected = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: Self.folder.appendingPathComponent("expected.json"))) as? [[String: Any]])
        #expect(launches.count == expected.count)
        #expect(expected.map { $0["executable"] as? String } == ["xpcproxy", "sysmond"])
        for (launch, truth) in zip(launches, expected) {
            #expect(launch["executable"] as? String == truth["executable"] as? String)
            #expect(launch["pid"] as? Int == truth["pid"] as? Int)
            for column in ["total_premain_ms", "process_creation_ms", "rebase_binding_ms", "closure_build_ms"] {
                Self.expectSame(launch[column], truth[column], "\(truth["executable"] ?? "") \(column)")
            }
            // No MAP_IMAGE or ATTACH_CODESIGNATURE interval in xpcproxy's launch: each image it loads is in the
            // shared cache (dyld3 times every image it maps, dyld-832.7.3 dyld3/Loading.cpp), so dyld mapped
            // nothing: 0 ms, a measurement. sysmond's is the union of its intervals.
            let mapped = truth["dylib_loading_ms"].flatMap { $0 is NSNull ? nil : $0 } ?? 0.0
            Self.expectSame(launch["dylib_loading_ms"], mapped, "dylib_loading_ms")
            // No OBJC_MAP interval: unknown, never 0.
            #expect(truth["objc_setup_ms"] is NSNull && launch["objc_setup_ms"] is NSNull)
            // dyld3 (LAUNCH_EXECUTABLE END arg4 = 3): its initializer timers end as they start (about 1 µs each
            // here), so they time nothing and the column stays empty with the reason.
            #expect(truth["dyld_mode"] as? Int == 3)
            #expect(launch["initializer_ms"] is NSNull)
            let warnings = launch["warnings"] as? [String] ?? []
            #expect(warnings.contains { $0.contains("dyld3 launch (LAUNCH_EXECUTABLE END arg4 = 3") })
        }
    }

    /// Both null, or numbers within a nanosecond (both readers divide whole ticks by 24 MHz).
    static func expectSame(_ value: Any?, _ truth: Any?, _ what: String) {
        if truth is NSNull || truth == nil {
            #expect(value is NSNull, "\(what): \(String(describing: value)), expected null")
            return
        }
        guard let value = value as? Double, let truth = truth as? Double else {
            Issue.record("\(what): \(String(describing: value)) against \(String(describing: truth))")
            return
        }
        #expect(abs(value - truth) < 1e-6, "\(what): \(value) against \(truth)")
    }
}
