import Foundation
import LaunchBench
import TestSupport

@testable import LaunchEngines

/// Fixture folders and a recording observer for the engine tests.
enum EngineFixtures {
    static let root = PackageRoot.at("Tests/LaunchEnginesTests/Fixtures")
    static let devicectl = root.appendingPathComponent("devicectl")
    static let pymobiledevice3 = root.appendingPathComponent("pymobiledevice3/pymobiledevice3")

    static func temporaryFolder() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("launchbench-engines-\(UUID())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static let app = AppBundle(
        url: URL(fileURLWithPath: "/tmp/Sample.app"), packaging: .appFolder, bundleID: "com.example.sample",
        shortVersion: "1.0", build: "7", executable: "Sample", bundleName: "Sample.app", frameworks: [])

    static func device(ios: String, udid: String = "00008120-001A2B3C4D5E6F70") -> DeviceInfo {
        DeviceInfo(udid: udid, name: "Test iPhone", productType: "iPhone15,4", osVersion: ios, buildVersion: "21F90")
    }
}

extension EngineFixtures {
    /// A pymobiledevice3 setup for a test: `executable`, with `environment` added to its helpers' environment.
    static func setup(
        _ executable: String, environment: [String: String] = [:], startTimeout: Duration = .seconds(60)
    ) -> Pymobiledevice3Setup {
        var setup = Pymobiledevice3Setup(executable: executable, startTimeout: startTimeout)
        setup.environment.merge(environment) { $1 }
        return setup
    }
}
