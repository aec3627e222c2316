import Foundation
import LaunchBench
import TestSupport
import Testing

/// `launchbench parse` as a user runs it: the built binary in a subprocess.
@Suite(.tags(.subprocess), .timeLimit(.minutes(5))) struct ParseCommandTests {
    func run(_ arguments: [String], stdin: String? = nil) async throws -> (status: Int32, out: String, err: String) {
        let result = try await LaunchbenchCLI.run(arguments, stdin: stdin)
        return (result.status ?? -1, result.stdout, result.stderr)
    }

    func fixture(_ prefix: String) throws -> String {
        let name = try #require(ParserFixtures.names.first { $0.hasPrefix(prefix) })
        return ParserFixtures.folder.appendingPathComponent(name).path
    }

    @Test func jsonHasEveryDocumentedKeyWithNullsForAbsentValues() async throws {
        let path = try fixture("10-")
        let result = try await run(["parse", path])
        #expect(result.status == 0)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [[String: Any]])
        #expect(array.count == 1)
        let object = try #require(array.first)
        #expect(
            Set(object.keys) == [
                "file", "totalPremainMs", "dylibLoadingMs", "rebaseBindingMs", "objcSetupMs", "initializerMs",
                "slowestInitializers", "details", "loadedLibraries", "markers", "warnings",
            ])
        #expect(object["file"] as? String == path)
        #expect((object["totalPremainMs"] as? NSNumber)?.doubleValue == 53.37)
        #expect(object["rebaseBindingMs"] is NSNull)
        #expect(object["details"] is NSNull)
        #expect((object["warnings"] as? [String])?.count == 1)
    }

    @Test func readsStdinAndSeveralFilesInOrder() async throws {
        let result = try await run(
            ["parse", try fixture("24-"), "-", "--format", "csv"], stdin: "[launchbench] mark=main t=412.5\n")
        #expect(result.status == 0)
        let lines = result.out.components(separatedBy: "\r\n")
        #expect(
            lines == [
                "file,launch,total_premain_ms,dylib_loading_ms,rebase_binding_ms,objc_setup_ms,initializer_ms,main_ms,did_finish_launching_ms,first_frame_ms",
                "\(try fixture("24-")),1,4700,4300,26.57,274.89,73.07,,,",
                "\(try fixture("24-")),2,3600,3400,25.76,110.05,71.98,,,",
                "-,1,,,,,,412.5,,",
                "",
            ])
    }

    @Test func fileWithoutLaunchIsAnEmptyArrayAndANote() async throws {
        let result = try await run(["parse", try fixture("33-")])
        #expect(result.status == 0)
        #expect(result.out == "[]\n")
        #expect(result.err.contains("no launch found"))
    }

    @Test func missingFileExitsOneNamingIt() async throws {
        let result = try await run(["parse", try fixture("01-"), "/nonexistent/capture.log"])
        #expect(result.status == 1)
        #expect(result.out.isEmpty)
        #expect(result.err.contains("/nonexistent/capture.log"))
        #expect(!result.err.contains("Fatal error"))
    }

    /// A file error is printed once, with one `Error:` prefix and without the usage (it is not an option mistake).
    @Test(arguments: ["/nonexistent/capture.log", "/"])
    func aFileErrorIsPrintedOnce(path: String) async throws {
        let result = try await run(["parse", path])
        #expect(result.status == 1)
        #expect(result.err.components(separatedBy: "Error:").count == 2, "\(result.err)")
        #expect(result.err.hasPrefix("Error: ") && result.err.contains(path))
        #expect(!result.err.contains("Usage:"))
        #expect(result.err.split(separator: "\n").count == 1, "\(result.err)")
    }

    @Test func csvQuotesFileNamesAndTableShowsWarnings() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parse-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("=run 1, \"cold\".log")
        try Data(contentsOf: URL(fileURLWithPath: try fixture("10-"))).write(to: file)
        let csv = try await run(["parse", "--format", "csv", file.path])
        #expect(csv.out.contains("\"\(folder.path)/=run 1, \"\"cold\"\".log\",1,53.37,28.47,,,,,,\r\n"))
        let table = try await run(["parse", "--format", "table", file.path])
        #expect(table.status == 0)
        #expect(table.out.contains("53.37"))
        #expect(table.out.contains("warnings:"))
        #expect(table.out.contains("summary block cut short after 'dylib loading time'"))
    }
}
