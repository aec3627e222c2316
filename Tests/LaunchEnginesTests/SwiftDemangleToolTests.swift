import Foundation
import TestSupport
import Testing

@testable import LaunchEngines

/// `swift-demangle` is found beside a `swift` only in folders no one else can write, and names Swift symbols.
@Suite struct SwiftDemangleToolTests {
    static let toolchain: String? = ExternalTool.path(of: "swift").map {
        URL(fileURLWithPath: $0).resolvingSymlinksInPath().deletingLastPathComponent().path
    }

    @Test(
        .enabled(
            if: toolchain.map { FileManager.default.isExecutableFile(atPath: $0 + "/swift-demangle") } ?? false,
            "no swift-demangle beside the toolchain's swift"))
    func demanglesBesideTheToolchainsSwift() throws {
        let toolchain = try #require(Self.toolchain)
        let tool = try #require(SwiftDemangleTool.locate(environment: ["PATH": toolchain]))
        let names = tool.demangle(["$s9SampleKit5ThemeO9loadFontsyyFZ", "networking_warm_cache"])
        #expect(names == ["$s9SampleKit5ThemeO9loadFontsyyFZ": "static SampleKit.Theme.loadFonts() -> ()"])
    }

    /// A `swift` and `swift-demangle` planted in a folder others can write are not run.
    @Test func ignoresAFolderOthersCanWrite() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("planted-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["swift", "swift-demangle"] {
            let url = folder.appendingPathComponent(name)
            try Data("#!/bin/sh\necho planted\n".utf8).write(to: url)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder.path)
        #expect(SwiftDemangleTool.locate(environment: ["PATH": folder.path]) == nil)
        // The explicit variable is the user's own choice.
        let explicit = folder.appendingPathComponent("swift-demangle").path
        #expect(
            SwiftDemangleTool.locate(environment: [SwiftDemangleTool.environmentVariable: explicit])?.path == explicit)
    }
}
