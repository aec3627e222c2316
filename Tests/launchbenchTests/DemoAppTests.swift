import Foundation
import LaunchBench
import Testing

@testable import launchbench

/// The demo's app is written where no other user can swap it before it is installed: the run's private folder.
@Suite struct DemoAppTests {
    @Test func theAppAndItsOtherBuildLiveInTheRunsPrivateFolder() throws {
        let app = try DemoApp.write()
        let build = try app.withBuild("35")
        defer { build.cleanUp() }
        for url in [app.url, build.url] {
            #expect(url.path.hasPrefix(PrivateFolder.runLocation.path + "/"), "\(url.path)")
        }
        #expect(FileManager.default.fileExists(atPath: build.url.appendingPathComponent("Info.plist").path))
    }
}
