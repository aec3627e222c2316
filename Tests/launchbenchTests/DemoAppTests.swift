import Foundation
import LaunchBench
import Testing

@testable import launchbench

/// The demo's app is written where no other user can swap it before it is installed: the run's private folder.
@Suite struct DemoAppTests {
    @Test func theAppAndItsOtherBuildLiveInTheRunsPrivateFolder() throws {
        let app = try DemoApp.write()
        defer { app.cleanUp() }
        let build = try DemoApp.write(build: "35")
        defer { build.cleanUp() }
        for url in [app.url, build.url] {
            #expect(url.path.hasPrefix(PrivateFolder.runLocation.path + "/"), "\(url.path)")
        }
        #expect(try AppBundle(contentsOf: app.url).build == "34")
        #expect(try AppBundle(contentsOf: build.url).build == "35")
    }
}
